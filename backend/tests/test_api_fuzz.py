"""schemathesis generates requests from our OpenAPI schema; no operation may answer with a server error.

`make test` tries a few examples per operation; `make fuzz` (PARLEY_FUZZ_EXAMPLES=200) the long pass.
"""

import os

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error

from parley.wsgi import application

schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", application)

# Real WSGI requests close their database connection when they finish, so each example commits for real.
pytestmark = [pytest.mark.django_db(transaction=True)]


@pytest.fixture
def token(db):
    from accounts.services import open_session
    from tests.factories import UserFactory

    return open_session(UserFactory())["token"]


@schema.parametrize()
@settings(
    max_examples=int(os.environ.get("PARLEY_FUZZ_EXAMPLES", "4")),
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
def test_no_operation_answers_with_a_server_error(case, token):
    case.call_and_validate(headers={"Authorization": f"Token {token}"}, checks=[not_a_server_error])

"""Settings for pytest: the real stack (PostgreSQL, RabbitMQ) with fast password hashing.

PARLEY_ENV is forced to `test` so a developer's exported variables or .env never leak into a test run.
"""

import os
import uuid

os.environ["PARLEY_ENV"] = "test"
# Each test session gets its own queue, so neither a `make run` worker nor a stale message from an aborted
# session can take this session's tasks. Subprocesses (the test worker) inherit the name.
os.environ.setdefault("PARLEY_CELERY_QUEUE", f"parley-test-{uuid.uuid4().hex[:8]}")

from parley.settings import *

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# A fixed key for tests only; production refuses to start without its own (common.parsers.Env.secret).
FERNET_KEYS = ["KonpqhcktM4gouVciEUhEXPgXdmQYWlEttVClTcRmew="]
# The tests' fake chatbots and LLM servers listen on loopback, and connectors are checked against this on save:
# the same allowance as the test worker's (tests/conftest.py).
EGRESS_ALLOW = ["127.0.0.1"]

"""The live streams under hostile use, through a real uvicorn serving parley.asgi (the schema fuzz cannot reach
them: they never end and are not in the OpenAPI schema). Malformed ids, someone else's private run, expired,
revoked and made-up tokens, a Last-Event-ID far in the future or not a number, and many streams at once: every
request gets a JSON 4xx, or a stream that says what it may and then closes cleanly — never a 500, a hang past the
read timeout, or a connection dropped mid-message."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import httpx
import pytest
from knox.models import AuthToken

from accounts.services import open_session
from runs.models import Run, RunEvent
from tests import test_streams
from tests.factories import UserFactory
from tests.test_streams import Stream
from workspace.models import Connector, Project

pytestmark = pytest.mark.django_db(transaction=True)
# The live server and stream opener of tests/test_streams.py, as fixtures of this module too.
stream_url, open_stream = test_streams.stream_url, test_streams.open_stream


@pytest.fixture
def runs():
    owner = UserFactory()
    connector = Connector.objects.create(owner=owner, name="c", technology="demo", params={"bot": "pizza"})
    public = Project.objects.create(owner=owner, name="open", connector=connector, public=True)
    private = Project.objects.create(owner=owner, name="closed", connector=connector)
    done = Run.objects.create(owner=owner, project=public, kind=Run.Kind.SENSEI, status=Run.Status.FAILED)
    for stage in ("one", "two"):
        RunEvent.objects.create(run=done, type=RunEvent.Type.STAGE, data={"stage": stage})
    foreign = Run.objects.create(owner=owner, project=private, kind=Run.Kind.SENSEI, status=Run.Status.FAILED)
    return {"owner": owner, "done": done, "foreign": foreign}


def drained(stream: Stream) -> list:
    """Every message until the server closes the stream (each read within the client's timeout)."""
    messages = []
    while (message := stream.next(seconds=10)) is not None:
        messages.append(message)
    return messages


def header(text: str) -> bytes:
    """A header value as raw bytes (Latin-1 where it can be, as servers decode headers; else UTF-8)."""
    try:
        return text.encode("latin-1")
    except UnicodeEncodeError:
        return text.encode("utf-8")


def assert_refused(response: httpx.Response, status: int) -> None:
    assert response.status_code == status
    assert response.headers["content-type"].startswith("application/json")
    assert response.json()["detail"]


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/api/stream/runs/abc/", 404),
        ("/api/stream/runs/-1/", 404),
        ("/api/stream/runs/1.5/", 404),
        ("/api/stream/runs/%00/", 400),  # NUL is refused before routing (common.requests)
        ("/api/stream/runs/0/", 404),
        ("/api/stream/runs/99999999999999999999999999999/", 404),
        ("/api/stream/runs/9223372036854775808/", 404),
        ("/api/stream/runs/1/extra/", 404),
        ("/api/stream/runs//", 404),
    ],
)
def test_a_malformed_run_id_is_a_json_4xx(open_stream, runs, path, status):
    response, _ = open_stream(path)
    assert_refused(response, status)


def test_someone_elses_private_run_is_a_404_to_a_visitor_and_a_stranger(open_stream, runs):
    path = f"/api/stream/runs/{runs['foreign'].pk}/"
    assert_refused(open_stream(path)[0], 404)
    assert_refused(open_stream(path, open_session(UserFactory())["token"])[0], 404)


@pytest.mark.parametrize("path", ["/api/stream/runs/", "run"])
def test_expired_revoked_and_made_up_tokens_are_refused(open_stream, runs, path):
    path = f"/api/stream/runs/{runs['done'].pk}/" if path == "run" else path
    revoked = open_session(runs["owner"])["token"]
    AuthToken.objects.filter(user=runs["owner"]).delete()  # as a logout does
    _, expired = AuthToken.objects.create(runs["owner"], expiry=timedelta(seconds=-1))
    for token in (expired, revoked, "x" * 500, "not a token", "\u00e9-token", "\u0663\u0663"):
        response, _ = open_stream(path, Authorization=header(f"Token {token}"))
        assert_refused(response, 401)


@pytest.mark.parametrize(
    "cursor",
    ["999999999999999999", "9" * 40, "abc", "-1", "1e9", "5 5", "0x10", "\u00b2", "\u0663", "12\u00b2"],
)
def test_any_last_event_id_or_after_gives_the_state_and_a_clean_close(open_stream, runs, cursor):
    path = f"/api/stream/runs/{runs['done'].pk}/"
    far = cursor.isascii() and cursor.isdigit() and len(cursor) < 19
    for response, stream in (
        open_stream(path, **{"Last-Event-ID": header(cursor)}),
        open_stream(path + "?" + httpx.QueryParams({"after": cursor}).__str__()),
    ):
        assert response.status_code == 200, cursor
        messages = drained(stream)
        assert [m.event for m in messages][-2:] == ["run", "end"]
        events = [event for m in messages if m.event == "events" for event in m.data]
        # A cursor past every event sends none; anything else that is no event id starts from the beginning.
        assert len(events) == (0 if far else 2), cursor


def test_many_streams_at_once_all_answer_and_close(open_stream, runs):
    path = f"/api/stream/runs/{runs['done'].pk}/"
    foreign = f"/api/stream/runs/{runs['foreign'].pk}/"

    def one(index: int) -> tuple[int, list[str]]:
        response, stream = open_stream(foreign if index % 5 == 0 else path)
        return response.status_code, [m.event for m in drained(stream)] if stream else []

    with ThreadPoolExecutor(max_workers=24) as pool:
        outcomes = list(pool.map(one, range(48)))
    assert sorted({status for status, _ in outcomes}) == [200, 404]
    assert all(events[-2:] == ["run", "end"] for status, events in outcomes if status == 200)
    # And the server still serves the next one at once.
    response, stream = open_stream(path)
    assert response.status_code == 200 and [m.event for m in drained(stream)][-1] == "end"


def test_the_runs_list_stream_takes_any_cursor_and_refuses_a_bad_token(open_stream, runs):
    for cursor in ("9" * 40, "abc", "\u00b2"):
        response, stream = open_stream("/api/stream/runs/", **{"Last-Event-ID": header(cursor)})
        assert response.status_code == 200
        Run.objects.create(owner=runs["owner"], project=runs["done"].project, kind=Run.Kind.PING)
        assert stream.until(lambda m: m.event == "runs", seconds=10).data["runs"]
        stream.response.close()
    assert_refused(open_stream("/api/stream/runs/", "x" * 64)[0], 401)

"""A LangGraph Agent Server, server side: threads and blocking runs.

POST `/threads` -> `{"thread_id"}`; POST `/threads/<id>/runs/wait` with `{"assistant_id", "input": {"messages"}}`
appends the human message and one AI message per reply line to the thread and returns `{"messages": [...]}`
(the whole thread, as the real server returns the state). An unknown thread is a JSON 404.
"""

from __future__ import annotations

import re
import uuid

from pydantic import JsonValue

from tests.doubles.connectors.server import FakeRequest, FakeResponse, Reply, ScriptedReply

_RUN = re.compile(r"^/threads/([^/]+)/runs/wait$")


class LanggraphProtocol:
    def __init__(self, reply: Reply, *, assistant_id: str = "agent") -> None:
        self.reply = reply
        self.assistant_id = assistant_id
        self.threads: dict[str, list[JsonValue]] = {}

    def handle(self, request: FakeRequest) -> FakeResponse:
        if request.method != "POST":
            return FakeResponse.json({"detail": "Method Not Allowed"}, 405)
        if request.path == "/threads":
            thread = str(uuid.uuid4())
            self.threads[thread] = []
            return FakeResponse.json({"thread_id": thread, "status": "idle"})
        match = _RUN.match(request.path)
        if not match:
            return FakeResponse.json({"detail": "Not Found"}, 404)
        thread = match.group(1)
        if thread not in self.threads:
            return FakeResponse.json({"detail": f"Thread {thread} not found"}, 404)
        try:
            data = request.json()
            text = data["input"]["messages"][-1]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            return FakeResponse.json({"detail": "Invalid run request"}, 422)
        if data.get("assistant_id") != self.assistant_id:
            return FakeResponse.json({"detail": f"Assistant {data.get('assistant_id')} not found"}, 404)
        try:
            said = ScriptedReply.of(self.reply(thread, str(text)))
        except Exception as exc:  # noqa: BLE001 - the graph's failure is the server's 500
            return FakeResponse.json({"detail": str(exc)}, 500)
        history = self.threads[thread]
        history.append({"type": "human", "content": text, "id": uuid.uuid4().hex})
        history.extend({"type": "ai", "content": m, "id": uuid.uuid4().hex} for m in said.messages)
        return FakeResponse.json({"messages": list(history)})

"""Overrides for an offline LLM double that answer as the double does and keep every answer, for tests that
compare the answers of two runs."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from engine.llm.offline.imperfect import Request, Responder
from engine.llm.offline.script import Reply


def recording(
    responders: Mapping[str, Responder], tags: Iterable[str]
) -> tuple[dict[str, Responder], list[tuple[str, Reply | None]]]:
    """Overrides for `tags` that answer as `responders` do, and the list every (tag, answer) is appended to."""
    answers: list[tuple[str, Reply | None]] = []

    def recorded(tag: str) -> Responder:
        def responder(request: Request) -> Reply | None:
            reply = responders[tag](request)
            answers.append((tag, reply))
            return reply

        return responder

    return {tag: recorded(tag) for tag in tags}, answers

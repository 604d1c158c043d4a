"""`ImperfectChatModel`: the quality tier of the LLM doubles — it reads the prompt and answers like a competent
but imperfect model, on top of the strict scripted double.

It is given no ground truth (quality tests must not hand the engine the answer they check): a *responder* per
caller tag reads the call's data and writes an answer, with the habits real
models have — the same thing named with other words from one call to the next, names in another casing or word
order, a field left out, now and then an item that is not there. The answer is then played exactly as a
scripted reply of `ScriptedChatModel`, so every call still goes through the strict double's protocol (tool
calls or JSON text, usage, faults, the call log); tags without a responder follow the script, or get
schema-valid sample data, as in the strict double. A responder may return a fault reply to fail a call.

What a call is, is keyed on the call, never on the engine's wording: the responder is the one of the call's tag
(the gateway's `X-Parley-Tag`), else the one whose tag gives the response schema's name (`schema_name`); the
request carries the response schema (`Request.schema`, `Request.fields`: the names of the answer's fields), and
the data a responder reads is found by its format — the transcript's `User:` / `Chatbot:` lines
(`split_at_transcript`), numbered and bulleted lists — not by the instruction sentences around it. The few cues
that only an instruction can give (a plain-text turn told to rephrase, say) are named in one table per engine
(`sensei.CUES`, `tracer.CUES`); a test fails when an engine's prompt no longer contains one.

Random choices are seeded from the double's seed, the tag and the prompt text: the same prompt gets the same
answer (as at temperature 0), another prompt — the next session's transcript — may get other wording. A
structured call that repairs an earlier answer (the conversation holds that answer) reaches the responder with
`repair=True` and the same seed, so the repaired answer is the one the model meant the first time.

The TRACER responders are in `engine.llm.offline.tracer`; the helpers here (`Request`, `styled`,
`words_of`) serve any engine's responders.
"""

from __future__ import annotations

import hashlib
import random
import re
import threading
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatResult
from pydantic import PrivateAttr

from engine.llm.client import TAG_HEADER
from engine.llm.offline.protocol import requested_schema, schema_in_instructions
from engine.llm.offline.script import Reply
from engine.llm.offline.scripted import ScriptedChatModel
from engine.llm.structured import schema_name

_ROLES = {"system": "system", "human": "user", "ai": "assistant"}


@dataclass(frozen=True)
class Request:
    """One call as a responder sees it: roles are system / user / assistant."""

    tag: str
    messages: tuple[tuple[str, str], ...]
    structured: bool
    repair: bool
    rng: random.Random
    schema: Mapping[str, Any] | None = None
    """The response schema of a structured call (asked for on the wire, or written into the instructions)."""

    @property
    def fields(self) -> list[str]:
        """The names of the answer's top-level fields, in the schema's order (none for a plain call)."""
        properties = (self.schema or {}).get("properties")
        return [str(name) for name in properties] if isinstance(properties, Mapping) else []

    @property
    def prompt(self) -> str:
        """The first user message: the task of a one-shot call."""
        return next((text for role, text in self.messages if role == "user"), "")

    @property
    def system_text(self) -> str:
        return next((text for role, text in self.messages if role == "system"), "")

    def last(self, role: str) -> str:
        return next((text for r, text in reversed(self.messages) if r == role), "")

    def all(self, role: str) -> list[str]:
        return [text for r, text in self.messages if r == role]


Responder = Callable[[Request], Reply | None]
"""Reads a request, returns a reply in the script format (`{"json": ...}`, a text, a fault); None = follow the
script for this call."""


class ImperfectChatModel(ScriptedChatModel):
    """A `ScriptedChatModel` whose replies are written by per-tag responders from the prompt."""

    model_name: str = "imperfect-model"
    _responders: dict[str, Responder] = PrivateAttr(default_factory=dict)
    _seed: int = PrivateAttr(default=0)
    _turn_lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)
    _plain_calls: int = PrivateAttr(default=0)

    def __init__(
        self,
        responders: Mapping[str, Responder],
        script: dict[str, Reply | list[Reply]] | None = None,
        *,
        seed: int = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(script, **kwargs)
        self._responders = dict(responders)
        self._seed = seed

    @property
    def _llm_type(self) -> str:
        return "parley-imperfect"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        headers = kwargs.get("extra_headers") or {}
        tag = str(
            headers.get(TAG_HEADER) or (run_manager.metadata.get("parley_tag") if run_manager else "") or ""
        )
        convo = tuple((_ROLES.get(m.type, m.type), str(m.text)) for m in messages)
        schema, name, _ = requested_schema(kwargs)
        if schema is None and "response_format" in kwargs:  # JSON mode: the schema is in the instructions
            schema = schema_in_instructions({"messages": [{"content": text} for _, text in convo]})
        key = (
            tag
            if tag in self._responders
            else next((known for known in self._responders if name and schema_name(known) == name), tag)
        )
        responder = self._responders.get(key)
        if responder is None:
            return super()._generate(messages, stop, run_manager, **kwargs)
        structured = "response_format" in kwargs or "tools" in kwargs
        # A structured call whose conversation already holds an answer is the gateway's repair request.
        repair = structured and convo[-1][0] == "user" and any(role == "assistant" for role, _ in convo)
        if structured:
            # Seeded by the task alone: a repeated or repaired prompt gets the answer it got the first time.
            asked = [text for role, text in convo[: _first(convo, "assistant")]]
        else:
            # Free text (a conversation turn) varies from call to call, as at a model's default temperature.
            with self._turn_lock:
                self._plain_calls += 1
                asked = [text for _, text in convo] + [str(self._plain_calls)]
        digest = hashlib.sha256("\0".join([str(self._seed), key, *asked]).encode()).hexdigest()
        request = Request(
            tag=key,
            messages=convo,
            structured=structured,
            repair=repair,
            rng=random.Random(int(digest[:16], 16)),  # noqa: S311 - a stand-in model, not security related
            schema=schema,
        )
        reply = responder(request)
        if reply is None:
            return super()._generate(messages, stop, run_manager, **kwargs)
        # The answer is played through the strict double; the lock keeps another thread's reply out between.
        with self._turn_lock:
            self.set_replies(key, reply)
            return super()._generate(messages, stop, run_manager, **kwargs)


def _first(convo: tuple[tuple[str, str], ...], role: str) -> int:
    return next((index for index, (r, _) in enumerate(convo) if r == role), len(convo))


# -- finding the data in a prompt -----------------------------------------------------------------------------------

_TURN_LINE = re.compile(r"^(?:\[turn \d+\] )?(?:User|Chatbot):", re.MULTILINE)


def split_at_transcript(text: str) -> tuple[str, str]:
    """(what comes before the transcript, the transcript and what follows it): the transcript starts at the first
    `User:` / `Chatbot:` line (numbered `[turn N] Chatbot:` lines too), whatever sentence introduces it."""
    found = _TURN_LINE.search(text)
    return (text, "") if found is None else (text[: found.start()], text[found.start() :])


# -- wording helpers ------------------------------------------------------------------------------------------------

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


def ascii_fold(text: str) -> str:
    """`tamaño` → `tamano`: models name things in plain ASCII snake_case."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def words_of(text: str) -> list[str]:
    """Lower-case ASCII words of a text or an identifier in any casing (`promptForSize`, `Ask-For size`)."""
    return [w.lower() for w in _WORD.findall(ascii_fold(_CAMEL.sub(" ", text)).replace("_", " "))]


def glued(name: str) -> str:
    """A name with casing and separators removed: every spelling of one name gives the same key."""
    return "".join(words_of(name))


STYLES = ("snake", "title_snake", "upper", "spaced", "title_spaced", "camel", "kebab")


def styled(words: list[str], style: str) -> str:
    """The words of a name written in one of the casings models use (`STYLES`)."""
    if style == "title_snake":
        return "_".join(w.capitalize() for w in words)
    if style == "upper":
        return "_".join(words).upper()
    if style == "spaced":
        return " ".join(words)
    if style == "title_spaced":
        return " ".join(w.capitalize() for w in words)
    if style == "camel":
        return words[0] + "".join(w.capitalize() for w in words[1:]) if words else ""
    if style == "kebab":
        return "-".join(words)
    return "_".join(words)

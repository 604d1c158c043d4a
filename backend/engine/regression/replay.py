"""Record and replay: re-test a chatbot paying the LLM only where the chatbot now answers differently.

Every LLM call of a SENSEI run — the simulated user's turns, the goal checks, the output extraction, the values
invented for any() — is recorded with its prompt (`Recording`). A replay run plans the same conversations (the
recorded run's seed and any() values) and answers each call from the recording when its prompt is the same after
normalising volatile values; otherwise it calls the LLM. Prompts carry the conversation so far, so while the
chatbot answers as it did, every simulated user turn is the recorded one (and is sent again), and on a transcript
identical to the recorded one the goal checks and the extraction are reused too: an unchanged chatbot is
re-tested with no LLM call at all. From the first reply that differs, the prompts differ, and the LLM takes over
(README D24).

Volatile values — UUIDs, dates and times, identifier-like tokens (5 or more letters and digits mixed, like the
pizza bot's order id `3FA9C1`, new in every conversation), numbers of 6 digits or more (the same ids when they
happen to hold no letter) and the caller's own patterns — are normalised out of
the prompts before they are compared. A reused answer gets the current values back: the n-th volatile value of
the recorded prompt is replaced by the n-th of the current one (the normalised prompts are equal, so they pair up
one to one).

`ReplayingClient` wraps the run's `LLMClient`; it is an `LLMClient` whose `complete` and `structured` look in the
recording first. Recorded answers are the text of `complete` and the validated JSON of `structured`, kept in call
order under each prompt, so a prompt asked twice (a turn written again, repeats of one conversation) gets its
answers in turn. `ReplayStats` counts the calls saved and made, by caller tag.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import threading
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

import regex  # type: ignore[import-untyped]
from pydantic import BaseModel, ValidationError

from engine.llm import LLMClient
from engine.llm.messages import Message, MessageLike, normalise
from engine.llm.transport import Transport

logger = logging.getLogger("engine.regression")
RECORDING_FILE = "exchanges.jsonl"
REGEX_TIMEOUT_S = 0.25  # per search of one caller's pattern in one prompt
_BUILT_IN = (
    ("uuid", r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"),
    ("datetime", r"\b\d{4}-\d{2}-\d{2}[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?"),
    ("date", r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}[/.]\d{1,2}[/.]\d{2,4}\b"),
    ("time", r"\b\d{1,2}:\d{2}(?::\d{2})?(?:\s?[ap]\.?m\.?)?\b"),
    ("id", r"\b(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{5,}\b"),
    # The same generators give all-digit ids now and then (the pizza bot's 988316); amounts this long are rare.
    ("number", r"\b\d{6,}\b"),
)

_SAME_AS = {"number": "id"}  # one placeholder for ids with and without letters: they come from one generator


class Normaliser:
    """Replaces volatile values by placeholders (`<id>`, `<date>`, `<custom>`…) and lists the values it replaced.

    The caller's patterns (a connector's `volatile`, the CLI's `--volatile`) come before the built-in ones: at
    each place in the text, the leftmost value wins, and on a tie the caller's first pattern. They run with the
    `regex` package's timeout: a pattern too slow on some text is given up for that text (its values are then
    compared as they are — at worst an LLM call is not saved), never left to hang the run."""

    def __init__(self, patterns: Iterable[str] = ()) -> None:
        self._custom = []
        for pattern in patterns:
            try:
                self._custom.append(
                    regex.compile(pattern)
                )  # a bad pattern is refused now, not at the first call
            except regex.error as exc:
                raise ValueError(
                    f"volatile pattern `{pattern}`: not a valid regular expression ({exc})"
                ) from None
        self._built_in = re.compile("|".join(f"(?P<{name}>{p})" for name, p in _BUILT_IN))

    @staticmethod
    def _built_in_kind(match: re.Match[str]) -> str:
        kind = match.lastgroup or "value"
        return _SAME_AS.get(kind, kind)

    def __call__(self, text: str) -> tuple[str, list[str]]:
        found: list[str] = []
        if not self._custom:

            def placeholder(match: re.Match[str]) -> str:
                found.append(match.group(0))
                return f"<{self._built_in_kind(match)}>"

            return self._built_in.sub(placeholder, text), found
        return self._with_custom(text, found), found

    def _next_custom(self, index: int, text: str, pos: int) -> Any:
        """The custom pattern's leftmost non-empty match at or after `pos`, or None (none, or too slow)."""
        pattern = self._custom[index]
        while pos <= len(text):
            try:
                match = pattern.search(text, pos, timeout=REGEX_TIMEOUT_S)
            except TimeoutError:
                logger.warning(
                    "volatile pattern %r gave up: slower than %s s", pattern.pattern, REGEX_TIMEOUT_S
                )
                return None
            if match is None or match.end() > match.start():
                return match
            pos = match.start() + 1
        return None

    def _with_custom(self, text: str, found: list[str]) -> str:
        # Each pattern's next match is kept and searched again only once the text before it has been consumed.
        upcoming: list[Any] = [self._next_custom(i, text, 0) for i in range(len(self._custom))]
        built_in = self._built_in.search(text)
        pieces: list[str] = []
        pos = 0
        while True:
            for i, match in enumerate(upcoming):
                if match is not None and match.start() < pos:
                    upcoming[i] = self._next_custom(i, text, pos)
            if built_in is not None and built_in.start() < pos:
                built_in = self._built_in.search(text, pos)
            candidates = [(m.start(), i) for i, m in enumerate(upcoming) if m is not None]
            if built_in is not None:
                candidates.append((built_in.start(), len(upcoming)))
            if not candidates:
                break
            _, winner = min(candidates)
            if winner < len(upcoming):
                match, placeholder = upcoming[winner], "<custom>"
            else:
                assert built_in is not None
                match, placeholder = built_in, f"<{self._built_in_kind(built_in)}>"
            pieces += [text[pos : match.start()], placeholder]
            found.append(match.group(0))
            pos = match.end()
        pieces.append(text[pos:])
        return "".join(pieces)


@dataclass
class Exchange:
    """One recorded call: the key of its normalised prompt, its tag, the volatile values the prompt held, and
    the answer (text, or a structured answer's JSON)."""

    key: str
    tag: str
    values: list[str]
    answer: str

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "tag": self.tag, "values": self.values, "answer": self.answer}


class Recording:
    """Exchanges by prompt key, in call order; thread-safe. Written as JSON lines."""

    def __init__(self, exchanges: Iterable[Exchange] = ()) -> None:
        self._lock = threading.Lock()
        self._all: list[Exchange] = []
        self._by_key: dict[str, deque[Exchange]] = {}
        for exchange in exchanges:
            self.add(exchange)

    def add(self, exchange: Exchange) -> None:
        with self._lock:
            self._all.append(exchange)
            self._by_key.setdefault(exchange.key, deque()).append(exchange)

    def take(self, key: str) -> Exchange | None:
        """The next unused answer to this prompt, or None."""
        with self._lock:
            waiting = self._by_key.get(key)
            return waiting.popleft() if waiting else None

    def __len__(self) -> int:
        with self._lock:
            return len(self._all)

    def exchanges(self) -> list[Exchange]:
        """Every exchange, in the order it was added."""
        with self._lock:
            return list(self._all)

    def write(self, path: str | Path) -> None:
        lines = [json.dumps(e.to_json(), ensure_ascii=False) for e in self.exchanges()]
        Path(path).write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")

    @classmethod
    def read(cls, path: str | Path) -> Recording:
        exchanges = []
        for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
                exchanges.append(
                    Exchange(
                        str(data["key"]),
                        str(data["tag"]),
                        [str(v) for v in data["values"]],
                        str(data["answer"]),
                    )
                )
            except (ValueError, KeyError, TypeError) as exc:
                raise ValueError(f"{path}:{number}: not a recorded exchange ({exc})") from None
        return cls(exchanges)


@dataclass
class ReplayStats:
    """LLM calls answered from the recording (saved) and sent to the LLM (made), by caller tag."""

    saved: dict[str, int] = field(default_factory=dict)
    made: dict[str, int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def count(self, tag: str, *, saved: bool) -> None:
        with self._lock:
            counts = self.saved if saved else self.made
            counts[tag] = counts.get(tag, 0) + 1

    def to_json(self) -> dict[str, Any]:
        with self._lock:
            return {
                "calls_saved": sum(self.saved.values()),
                "calls_made": sum(self.made.values()),
                "saved_by_tag": dict(sorted(self.saved.items())),
                "made_by_tag": dict(sorted(self.made.items())),
            }


def _restore(answer: str, recorded: Sequence[str], current: Sequence[str]) -> str:
    """The recorded answer with the recorded prompt's volatile values replaced by the current prompt's."""
    pairs: dict[str, str] = {}
    for old, new in zip(recorded, current, strict=False):
        if old != new:
            pairs.setdefault(old, new)
    if not pairs:
        return answer
    pattern = re.compile(
        "|".join(rf"(?<![\w-]){re.escape(old)}(?![\w-])" for old in sorted(pairs, key=len, reverse=True))
    )
    return pattern.sub(lambda match: pairs[match.group(0)], answer)


class Replay:
    """What a run shares for record and replay: the normaliser, the new recording, the source, the counts."""

    def __init__(self, source: Recording | None = None, *, patterns: Iterable[str] = ()) -> None:
        self.normalise = Normaliser(patterns)
        self.source = source
        self.recording = Recording()
        self.stats = ReplayStats()

    def prompt_key(
        self, model: str | None, tag: str, messages: Sequence[Message], schema: str | None
    ) -> tuple[str, list[str]]:
        values: list[str] = []
        parts = []
        for message in messages:
            text, found = self.normalise(message.content)
            parts.append([message.role, text])
            values += found
        canonical = json.dumps([model, tag, schema, parts], ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest(), values

    def answer(self, key: str, tag: str, values: list[str]) -> str | None:
        """The recorded answer to this prompt (with today's volatile values), or None."""
        if self.source is None:
            return None
        exchange = self.source.take(key)
        return None if exchange is None else _restore(exchange.answer, exchange.values, values)

    def wrap(self, client: LLMClient) -> ReplayingClient:
        return ReplayingClient(client, self)


class ReplayingClient(LLMClient):
    """`client` answering from the replay's source first and recording every answer (module docstring).

    It shares the wrapped client's connection, ledger, budget, cache and state; the wrapped client closes the
    connection. Calls answered from the recording reach neither the LLM nor the ledger."""

    def __init__(self, client: LLMClient, replay: Replay) -> None:
        self.__dict__.update(client.__dict__)
        self._owns_transport = False  # the wrapped client closes the connection
        self._inner = client
        self.replay = replay
        self._wrapped: dict[str, ReplayingClient] = {}

    def _wire(self) -> Transport:
        return self._inner._wire()  # one connection, opened (and closed) by the wrapped client

    def for_model(self, model: str | None) -> LLMClient:
        if not model or model == self.model:
            return self
        with self._lock:
            wrapped = self._wrapped.get(model)
        if wrapped is None:
            wrapped = ReplayingClient(super().for_model(model), self.replay)
            with self._lock:
                wrapped = self._wrapped.setdefault(model, wrapped)
        return wrapped

    def complete(
        self,
        messages: Sequence[MessageLike],
        *,
        tag: str,
        max_tokens: int | None = None,
        temperature: float | None = None,
        seed: int | None = None,
    ) -> str:
        key, values = self.replay.prompt_key(self.model, tag, normalise(messages), None)
        text = self.replay.answer(key, tag, values)
        self.replay.stats.count(tag, saved=text is not None)
        if text is None:
            text = super().complete(
                messages, tag=tag, max_tokens=max_tokens, temperature=temperature, seed=seed
            )
        self.replay.recording.add(Exchange(key, tag, values, text))
        return text

    def structured(
        self,
        messages: Sequence[MessageLike],
        schema: type[Any],
        *,
        tag: str,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> Any:
        key, values = self.replay.prompt_key(self.model, tag, normalise(messages), schema.__name__)
        recorded = self.replay.answer(key, tag, values)
        result: BaseModel | None = None
        if recorded is not None:
            try:
                result = schema.model_validate_json(recorded)
            except ValidationError:
                result = None  # the schema changed since the recording: ask the LLM
        self.replay.stats.count(tag, saved=result is not None)
        if result is None:
            result = super().structured(
                messages, schema, tag=tag, max_tokens=max_tokens, temperature=temperature
            )
        self.replay.recording.add(Exchange(key, tag, values, result.model_dump_json()))
        return result

    def close(self) -> None:
        """Nothing to close: the wrapped client owns the connection."""

    def __enter__(self) -> Self:
        return self


@dataclass
class ReplaySource:
    """What a replay takes from a recorded run's folder: its exchanges and what it planned with."""

    recording: Recording
    seed: int | None
    planned_on: str | None
    any_values: dict[str, list[str]]
    repeats: int


def load_replay_source(folder: str | Path) -> ReplaySource:
    """The recording, seed, plan date, any() values and repeats of a `parley sensei run --out` folder."""
    root = Path(folder)
    recorded = root / RECORDING_FILE
    if not recorded.is_file():
        raise FileNotFoundError(
            f"{recorded}: no recorded LLM calls (folders written by `parley sensei run --out` have one)"
        )
    recording = Recording.read(recorded)
    plan: dict[str, Any] = {}
    if (root / "plan.json").is_file():
        loaded = json.loads((root / "plan.json").read_text(encoding="utf-8"))
        plan = loaded if isinstance(loaded, dict) else {}
    repeats = 1
    for file in root.glob("*/*.json"):
        try:
            settings = json.loads(file.read_text(encoding="utf-8")).get("settings") or {}
        except (OSError, ValueError, AttributeError):
            continue
        value = settings.get("repeats") if isinstance(settings, dict) else None
        if isinstance(value, int) and value > repeats:
            repeats = value
    seed = plan.get("seed")
    any_values = plan.get("any_values")
    return ReplaySource(
        recording=recording,
        seed=seed if isinstance(seed, int) else None,
        planned_on=plan.get("planned_on") if isinstance(plan.get("planned_on"), str) else None,
        any_values={str(k): [str(x) for x in v] for k, v in any_values.items() if isinstance(v, list)}
        if isinstance(any_values, dict)
        else {},
        repeats=repeats,
    )

"""The names a rule sees: one conversation's inputs, outputs, metadata and transcript, without shadowing.

Every conversation is wrapped in a `ConversationView`. Its values are reachable unambiguously as
`inputs.<name>`, `outputs.<name>` and `meta.<name>` (metadata: id, profile, index, language, turns = number of
transcript entries, duration, plus the profile's conversation settings such as `number`, `interaction_style`,
`steps`), and by short name when exactly one of those (or a built-in) has it. A short name with two meanings —
a goal variable `number` and the setting `number` — is an error naming both, never a silent pick.

Built-ins: `interaction` (the transcript as `{User: text}` / `{Assistant: text}` items, bot buttons flattened
to `BUTTON: label LINK: url`, `<empty>` when the button has neither URL nor value), `chatbot_phrases`,
`user_phrases`, `turns`, `response_times`, `conversation_time`, `errors` (code, name, message, turn),
`error_codes`, `cost`, `data_output`, `inputs`, `outputs`, `meta`. k-conversation rules see `conv[i]`; global
rules see `conversations`, the filtered set.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from engine.check.errors import AmbiguousNameError, EvaluationError
from engine.check.sandbox import SandboxObject
from engine.conversation import ConversationRecord, Turn


class Section(SandboxObject):
    """A read-only group of named values: `inputs`, `outputs`, `meta`, one turn, one error."""

    __slots__ = ("_label", "_values")

    def __init__(self, label: str, values: dict[str, Any]) -> None:
        self._label = label
        self._values = values

    def sandbox_type(self) -> str:
        return self._label

    def sandbox_attribute(self, name: str) -> Any:
        if name in self._values:
            return self._values[name]
        known = ", ".join(sorted(self._values)) or "nothing"
        raise EvaluationError(f"{self._label} has no {name!r} (it has: {known})")

    def sandbox_item(self, key: Any) -> Any:
        if not isinstance(key, str):
            raise EvaluationError(f"{self._label}[...] needs a name in quotes")
        return self.sandbox_attribute(key)

    def sandbox_iter(self) -> Iterator[Any]:
        return iter(list(self._values))

    def sandbox_contains(self, item: Any) -> bool:
        return item in self._values

    def get(self, name: str, default: Any = None) -> Any:
        return self._values.get(name, default)

    def as_dict(self) -> dict[str, Any]:
        return dict(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Section):
            return self._values == other._values
        return self._values == other

    def __hash__(self) -> int:
        return hash((self._label, tuple(sorted(self._values))))

    def __repr__(self) -> str:
        return repr(self._values)


class _Ambiguous:
    __slots__ = ("name", "places")

    def __init__(self, name: str, places: list[str]) -> None:
        self.name = name
        self.places = places


def bot_text(turn: Turn) -> str:
    """A bot turn as the reference tools saw it: text, then one `BUTTON: label LINK: target` line per button."""
    lines = [turn.text]
    for button in turn.buttons:
        target = button.url or button.value or "<empty>"
        lines.append(f"BUTTON: {button.label} LINK: {target}")
    return "\n".join(lines)


BUILTINS = (
    "interaction",
    "chatbot_phrases",
    "user_phrases",
    "turns",
    "response_times",
    "conversation_time",
    "errors",
    "error_codes",
    "cost",
    "data_output",
    "inputs",
    "outputs",
    "meta",
)


class ConversationView(SandboxObject):
    """What a rule sees of one conversation; values are built on first use and kept."""

    __slots__ = ("_cache", "_short", "record")

    def __init__(self, record: ConversationRecord) -> None:
        self.record = record
        self._cache: dict[str, Any] = {}
        self._short: dict[str, Any] | None = None

    @property
    def id(self) -> str:
        return self.record.id

    def sandbox_type(self) -> str:
        return "conversation"

    def __repr__(self) -> str:
        return f"<conversation {self.record.id}>"

    # the built-ins ---------------------------------------------------------------------------------------

    def builtin(self, name: str) -> Any:
        if name not in self._cache:
            self._cache[name] = _BUILDERS[name](self)
        return self._cache[name]

    def _interaction(self) -> list[dict[str, str]]:
        return [
            {"User": turn.text} if turn.role == "user" else {"Assistant": bot_text(turn)}
            for turn in self.record.turns
        ]

    def _turns(self) -> list[Section]:
        return [
            Section(
                "turn",
                {
                    "role": turn.role,
                    "text": turn.text,
                    "buttons": [
                        Section("button", {"label": b.label, "value": b.value, "url": b.url})
                        for b in turn.buttons
                    ],
                    "at_s": turn.at_s,
                    "latency_s": turn.latency_s,
                },
            )
            for turn in self.record.turns
        ]

    def _errors(self) -> list[Section]:
        return [
            Section("error", {"code": e.code, "name": e.name, "message": e.message, "turn": e.turn})
            for e in self.record.errors
        ]

    def _meta(self) -> Section:
        record = self.record
        values: dict[str, Any] = {}
        for key, value in _flat_settings(record.meta).items():
            values[key] = value
        values.update(
            {
                "id": record.id,
                "profile": record.profile,
                "index": record.index,
                "language": record.language,
                "turns": len(record.turns),
                "started_at": record.started_at.isoformat() if record.started_at else None,
                "duration_s": record.duration_s,
                "context": list(record.context),
                "goals": list(record.goals),
            }
        )
        for name in BUILTINS:
            if name not in ("meta", "inputs", "outputs"):
                values.setdefault(name, self.builtin(name))
        return Section("meta", values)

    # name resolution -------------------------------------------------------------------------------------

    def short_names(self) -> dict[str, Any]:
        if self._short is None:
            places: dict[str, list[str]] = {}
            values: dict[str, Any] = {}
            record = self.record
            for section, mapping in (
                ("inputs", record.inputs),
                ("outputs", record.outputs),
                ("meta", _flat_settings(record.meta)),
            ):
                for key, value in mapping.items():
                    places.setdefault(key, []).append(f"{section}.{key}")
                    values[key] = value
            short: dict[str, Any] = {}
            for key, where in places.items():
                if key in BUILTINS:
                    where = [*where, f"the built-in {key} (also meta.{key})"]
                if len(where) > 1:
                    short[key] = _Ambiguous(key, where)
                else:
                    short[key] = values[key]
            self._short = short
        return self._short

    def resolve(self, name: str) -> Any:
        """The value of a short name or built-in; KeyError when unknown, AmbiguousNameError when ambiguous."""
        short = self.short_names()
        if name in short:
            value = short[name]
            if isinstance(value, _Ambiguous):
                raise AmbiguousNameError(
                    f"the name {name!r} is ambiguous in conversation {self.record.id}: it is "
                    f"{' and '.join(value.places)}; write one of those instead"
                )
            return value
        if name in _BUILDERS:
            return self.builtin(name)
        raise KeyError(name)

    def available(self) -> list[str]:
        return [*self.short_names(), *BUILTINS]

    def sandbox_attribute(self, name: str) -> Any:
        if name == "id":
            return self.record.id
        try:
            return self.resolve(name)
        except KeyError:
            raise EvaluationError(f"conversation {self.record.id} has no {name!r}") from None


def _flat_settings(settings: dict[str, Any]) -> dict[str, Any]:
    """The conversation settings, with one level of nested mappings lifted (goal_style.steps → steps)."""
    flat: dict[str, Any] = dict(settings)
    for value in settings.values():
        if isinstance(value, dict):
            for key, inner in value.items():
                if isinstance(key, str):
                    flat.setdefault(key, inner)
    return flat


_BUILDERS: dict[str, Callable[[ConversationView], Any]] = {
    "interaction": ConversationView._interaction,
    "chatbot_phrases": lambda v: v.record.chatbot_phrases,
    "user_phrases": lambda v: v.record.user_phrases,
    "turns": ConversationView._turns,
    "response_times": lambda v: v.record.response_times,
    "conversation_time": lambda v: v.record.duration_s,
    "errors": ConversationView._errors,
    "error_codes": lambda v: v.record.error_codes,
    "cost": lambda v: v.record.usage.cost_usd,
    "data_output": lambda v: [{k: val} for k, val in v.record.outputs.items()],
    "inputs": lambda v: Section("inputs", dict(v.record.inputs)),
    "outputs": lambda v: Section("outputs", dict(v.record.outputs)),
    "meta": ConversationView._meta,
}


class SingleNames:
    """Names of a one-conversation rule: the conversation's short names and built-ins."""

    def __init__(self, view: ConversationView) -> None:
        self.view = view

    def resolve(self, name: str) -> Any:
        if name == "conv":
            return (self.view,)
        return self.view.resolve(name)

    def available(self) -> list[str]:
        return [*self.view.available(), "conv"]


class TupleNames:
    """Names of a k-conversation rule: only `conv`, a tuple of conversations."""

    def __init__(self, views: Sequence[ConversationView]) -> None:
        self.views = tuple(views)

    def resolve(self, name: str) -> Any:
        if name == "conv":
            return self.views
        if name in BUILTINS:
            raise EvaluationError(
                f"{name!r} needs a conversation: in a rule over {len(self.views)} conversations write "
                f"conv[0].{name}, conv[1].{name}, …"
            )
        raise KeyError(name)

    def available(self) -> list[str]:
        return ["conv"]


class GlobalNames:
    """Names of a global rule: `conversations`, the filtered set (also `conv`)."""

    def __init__(self, views: Sequence[ConversationView]) -> None:
        self.views = tuple(views)

    def resolve(self, name: str) -> Any:
        if name in ("conversations", "conv"):
            return self.views
        if name in BUILTINS:
            raise EvaluationError(
                f"{name!r} needs a conversation: a global rule sees the filtered set as `conversations`; "
                f"write e.g. all(c.{name} ... for c in conversations)"
            )
        raise KeyError(name)

    def available(self) -> list[str]:
        return ["conversations", "conv"]

"""Output extraction: one structured LLM call per conversation returns every declared output, typed, with the
chatbot turn and the words that state it; a value no chatbot turn states is not reported as found.

The answer schema is built from the profile: one nullable field per output (the output's name is the JSON
key) holding `{value, turn, quote}`, the value typed as declared — string, int, float, bool, money `{amount,
currency}`, date / time / datetime as ISO strings, `list[T]`, enums as a closed set, custom types as text that
must match the type's regular expression (or an object of its components). What models in JSON mode and small
local models write instead is read when it means one thing (`engine.sensei.coercion`, README D29): a bare value
where the object was asked, a value at the top level, keys in other words, "13.75$" or 13.75 for money, numbers and
turns as text. The prompt states the conversation's date, and relative dates the model still returns ("tomorrow", "next
friday") are resolved here against that date. Values that still do not fit their type are asked for once more with
the reason, then become None (`unreadable`), so rules never see half-typed data.

Evidence (`engine.sensei.evidence`): every value is checked against the chatbot's turns — numbers, money,
dates, times and enum values after normalising, text by its words. One more call asks for the chatbot's exact
words for the values no turn states — and for the outputs it found nothing for although a chatbot sentence
states a value of their type (an amount, a date, a time, a number) — in one more call. What still has no
support is None: `doubtful` when a chatbot sentence states a value of the output's type, whether the extractor
found nothing or a value the chatbot never said (the record keeps the sentence: the chatbot may well have given
the output, so it is not a chatbot fault), else `no_evidence` for a value no chatbot turn states. The record
keeps, per output, the turn and quote (`OutputEvidence`) or why it is None: also `not_stated` (the extractor found
nothing, and nothing of its type was said), `unreadable` (its answer did not fit the type even when asked again, or
it answered nothing twice: `{}`; `invalid` in records of older versions), `not_extracted` (the conversation ended
before).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Annotated, Any, ClassVar, Literal, cast

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    WithJsonSchema,
    create_model,
    model_validator,
)

from engine.conversation import OutputEvidence, Turn
from engine.llm import LLMClient, LLMError, user
from engine.sensei import coercion
from engine.sensei.evidence import Evidence, candidate, support
from engine.sensei.profile import Output, OutputType, Profile
from engine.sensei.prompts import EXTRACT, EXTRACT_QUOTES
from engine.sensei.typed_values import normalise_value, parse_date, parse_time

__all__ = [
    "Extraction",
    "Found",
    "answer_schema",
    "extract_outputs",
    "parse_date",
    "parse_time",
    "read_answer",
]

TAG_EXTRACT = "sensei.extract"
TAG_EXTRACT_QUOTES = "sensei.extract_quotes"


class Money(BaseModel):
    """An amount of money and its currency (ISO code such as EUR, or the symbol used)."""

    amount: float
    currency: str | None = None


def _python_type(output_type: OutputType, profile: Profile, name: str) -> Any:
    kind = output_type.kind
    if kind == "string":
        return str
    if kind == "int":
        return int
    if kind == "float":
        return float
    if kind == "bool":
        return bool
    if kind == "money":
        return Money
    if kind in ("date", "time", "datetime"):
        return str
    if kind == "enum":
        return Literal[tuple(output_type.values)]
    if kind == "list" and output_type.item is not None:
        return list[_python_type(output_type.item, profile, name)]  # type: ignore[misc]
    if kind == "custom":
        definition = profile.custom_type(output_type.name or "")
        if definition is not None and definition.components:
            fields: dict[str, Any] = {
                c.name: (
                    {"str": str, "int": int, "float": float}[c.type] | None,
                    Field(None, description=c.description),
                )
                for c in definition.components
            }
            return create_model(f"{definition.name}_value", **fields)
        return str
    return str


def _hint(output_type: OutputType, profile: Profile) -> str:
    kind = output_type.kind
    if kind == "string":
        return "Short text, no extra commentary."
    if kind == "date":
        return "A date, YYYY-MM-DD."
    if kind == "time":
        return "A time of day, HH:MM:SS (24-hour)."
    if kind == "datetime":
        return "A date and time, YYYY-MM-DDTHH:MM:SS."
    if kind == "money":
        return "An amount and its currency."
    if kind == "list" and output_type.item is not None:
        return f"A list; each item: {_hint(output_type.item, profile)}"
    if kind == "enum":
        return f"One of: {', '.join(output_type.values)}."
    if kind == "custom":
        definition = profile.custom_type(output_type.name or "")
        if definition is not None:
            return f"{definition.description} It must match the regular expression {definition.format}."
    return ""


def _wrap_bare(raw: Any) -> Any:
    """A bare value where `{value, turn, quote}` was asked for is the value; its keys in other words are read
    (`engine.sensei.coercion`)."""
    return coercion.found_object(raw)


class _Answer(BaseModel):
    """The answer of one extraction call; a value given at the top level is the one asked output's."""

    model_config = ConfigDict(populate_by_name=True, extra="ignore")
    output_names: ClassVar[list[str]] = []

    @model_validator(mode="before")
    @classmethod
    def _top_level(cls, data: Any) -> Any:
        return coercion.top_level(data, cls.output_names)


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    """A JSON schema with its local `$ref`s replaced by what they point to (it is nested in another schema)."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/") and ref[8:] in defs:
            return _inline(defs[ref[8:]], defs)
        return {k: _inline(v, defs) for k, v in node.items() if k != "$defs"}
    if isinstance(node, list):
        return [_inline(item, defs) for item in node]
    return node


def _schema_of(python_type: Any, description: str) -> dict[str, Any]:
    schema = TypeAdapter(python_type | None).json_schema()
    inlined = _inline(schema, schema.get("$defs", {}))
    return {**inlined, "description": description}


def _found_model(output: Output, index: int, profile: Profile) -> Any:
    """`{value, turn, quote}` for one output. The request carries the value's typed schema (so a server that
    constrains answers to it does), but any JSON is accepted here and typed per output by `read_found`: one
    malformed value costs that output, never the conversation's extraction."""
    python_type = _python_type(output.type, profile, output.name)
    description = f"{output.description} {_hint(output.type, profile)}".strip()
    nullable_int = WithJsonSchema({"anyOf": [{"type": "integer"}, {"type": "null"}]})
    nullable_str = WithJsonSchema({"anyOf": [{"type": "string"}, {"type": "null"}]})
    fields: dict[str, Any] = {
        "value": (Annotated[Any, WithJsonSchema(_schema_of(python_type, description))], None),
        "turn": (
            Annotated[Any, nullable_int],
            Field(None, description="The [turn N] number of the chatbot message that states it."),
        ),
        "quote": (
            Annotated[Any, nullable_str],
            Field(None, description="The chatbot's exact words that state it (one sentence)."),
        ),
    }
    model = create_model(
        f"found_{index}",
        __doc__=f"{output.name}: its value, the number of the chatbot's turn that states it, and its words.",
        **fields,
    )
    return Annotated[model | None, BeforeValidator(_wrap_bare)]


def answer_schema(profile: Profile, only: Sequence[str] | None = None) -> type[BaseModel]:
    """The structured answer for the outputs of `profile` (all, or the names in `only`); field names are
    internal, JSON keys are the output names."""
    fields: dict[str, Any] = {}
    for index, output in enumerate(profile.chatbot.outputs):
        if only is not None and output.name not in only:
            continue
        fields[f"out_{index}"] = (_found_model(output, index, profile), Field(None, alias=output.name))
    model = create_model(
        "sensei_outputs",
        __base__=_Answer,
        __doc__="The outputs the chatbot provided in the conversation; null for each one it did not provide.",
        **fields,
    )
    model.output_names = [o.name for o in profile.chatbot.outputs if only is None or o.name in only]
    return cast(type[BaseModel], model)


_USER_CHARS = 400  # the user's side is context only: outputs come from the chatbot's words


def numbered_transcript(turns: Sequence[Turn]) -> str:
    """The conversation with every turn numbered as the record indexes it, so answers can name the turn; a long
    user message is shortened (a rambling simulated user would only cost prompt tokens)."""
    lines = []
    for index, turn in enumerate(turns):
        speaker = "User" if turn.role == "user" else "Chatbot"
        text = turn.text or "(no text)"
        if turn.role == "user" and len(text) > _USER_CHARS:
            text = text[:_USER_CHARS].rstrip() + " …"
        if turn.buttons:
            text += " [buttons: " + " | ".join(b.label for b in turn.buttons) + "]"
        lines.append(f"[turn {index}] {speaker}: {text}")
    return "\n".join(lines)


def _fields(profile: Profile, only: Sequence[str] | None = None) -> str:
    return "\n".join(
        f"- {o.name} ({o.type.label()}): {o.description} {_hint(o.type, profile)}".rstrip()
        for o in profile.chatbot.outputs
        if only is None or o.name in only
    )


def extraction_prompt(profile: Profile, transcript: str, today: date) -> str:
    return EXTRACT.fill(
        today=today.isoformat(), weekday=today.strftime("%A"), fields=_fields(profile), transcript=transcript
    )


@dataclass
class Found:
    """One output as the extractor gave it: the typed value, the turn and quote it named, a note if dropped."""

    value: Any = None
    turn: int | None = None
    quote: str | None = None
    note: str | None = None
    answered: bool = True  # False: the answer named no output at all (`{}`), which says nothing


def read_found(profile: Profile, answer: BaseModel, today: date) -> dict[str, Found]:
    """Every output of `answer` (the outputs it holds), typed, with the turn and quote it named."""
    found: dict[str, Found] = {}
    for index, output in enumerate(profile.chatbot.outputs):
        if f"out_{index}" not in type(answer).model_fields:
            continue
        item = getattr(answer, f"out_{index}", None)
        raw, note = _typed(output, getattr(item, "value", None), profile)
        value, normalised_note = normalise_value(output, raw, profile, today)
        quote = getattr(item, "quote", None)
        found[output.name] = Found(
            value,
            _turn_number(getattr(item, "turn", None)),
            quote.strip() if isinstance(quote, str) and quote.strip() else None,
            note or normalised_note,
            # An answer that names no output at all (`{}`) said nothing; one that names some and leaves others
            # out means null for those, as models writing optional fields do.
            f"out_{index}" in answer.model_fields_set or bool(answer.model_fields_set),
        )
    return found


def _typed(output: Output, raw: Any, profile: Profile) -> tuple[Any, str | None]:
    """The raw JSON value validated as the output's declared type (lax: "3.5" is a number, "13.75$" money), or
    why not."""
    if raw is None:
        return None, None
    raw = _coerced(output.type, raw)
    try:
        return TypeAdapter(_python_type(output.type, profile, output.name)).validate_python(raw), None
    except ValidationError as exc:
        problem = exc.errors(include_url=False)[0]
        where = ".".join(str(part) for part in problem["loc"])
        return (
            None,
            f"{raw!r} is not a {output.type.label()} ({where + ': ' if where else ''}{problem['msg']})",
        )


def _coerced(output_type: OutputType, raw: Any) -> Any:
    """What is unambiguous in a loose value, read as the declared type (`engine.sensei.coercion`)."""
    kind = output_type.kind
    if kind == "list" and output_type.item is not None:
        items = raw if isinstance(raw, list) else [raw]
        return [_coerced(output_type.item, item) for item in items]
    if kind == "money":
        return coercion.money(raw)
    if kind in ("int", "float"):
        return coercion.number(raw)
    return raw


def _turn_number(raw: Any) -> int | None:
    """The turn an answer names: 6, "6", "turn 6"; not 13.75 (the value given again)."""
    return coercion.turn_index(raw)


def read_answer(profile: Profile, answer: BaseModel, today: date) -> tuple[dict[str, Any], list[str]]:
    """The typed outputs from a structured answer, and notes on values that had to be dropped."""
    found = read_found(profile, answer, today)
    values = {name: item.value for name, item in found.items()}
    notes = [f"{name}: {item.note}" for name, item in found.items() if item.note]
    return values, notes


@dataclass
class Extraction:
    """The outputs of one conversation: values (None when not found), their evidence, notes on dropped values."""

    values: dict[str, Any] = field(default_factory=dict)
    evidence: dict[str, OutputEvidence] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    quote_retry: list[str] = field(default_factory=list)  # outputs the second call was asked to quote


def _kinds(output: Output) -> tuple[str, str | None]:
    item = output.type.item
    return output.type.kind, item.kind if item is not None else None


def _supported(
    output: Output, item: Found, bot_turns: Sequence[tuple[int, str]], today: date
) -> tuple[Any, OutputEvidence | None]:
    """The value as far as chatbot turns state it (list items without support dropped), and its evidence."""
    kind, item_kind = _kinds(output)
    if kind == "list" and isinstance(item.value, list):
        kept: list[Any] = []
        proofs: list[Evidence] = []
        for value in item.value:
            proof = support(
                item_kind or "string", None, value, bot_turns, today, turn=item.turn, quote=item.quote
            )
            if proof is not None:
                kept.append(value)
                proofs.append(proof)
        if not kept:
            return None, None
        quotes = list(dict.fromkeys(p.quote for p in proofs))
        return kept, OutputEvidence(turn=max(p.turn for p in proofs), quote=" … ".join(quotes))
    proof = support(kind, item_kind, item.value, bot_turns, today, turn=item.turn, quote=item.quote)
    return (item.value, OutputEvidence(turn=proof.turn, quote=proof.quote)) if proof else (None, None)


def _shown(value: Any) -> str:
    if isinstance(value, dict) and "amount" in value:
        return f"{value['amount']} {value.get('currency') or ''}".strip()
    return str(value)


def extract_outputs(
    judge: LLMClient,
    profile: Profile,
    turns: Sequence[Turn],
    today: date,
    *,
    max_tokens: int | None = None,
) -> Extraction:
    """Extract every output of `profile` from `turns`, each with the chatbot turn and words that state it (see
    the module docstring). Raises the gateway's LLMError when the first call fails; a failed second call
    leaves the values it was to confirm without evidence."""
    transcript = numbered_transcript(turns)
    bot_turns = [(i, t.text) for i, t in enumerate(turns) if t.role == "bot" and t.text.strip()]
    answer = judge.structured(
        [user(extraction_prompt(profile, transcript, today))],
        answer_schema(profile),
        tag=TAG_EXTRACT,
        max_tokens=max_tokens,
        temperature=0.0,
    )
    found = read_found(profile, answer, today)
    result = Extraction()
    outputs = {o.name: o for o in profile.chatbot.outputs}
    unsupported: dict[str, Found] = {}  # a value no chatbot turn states
    unread: list[str] = []  # found nothing
    unreadable: dict[str, str] = {}  # an answer that could not be read as the output's type: why
    # A chatbot sentence that states a value of the output's type: the chatbot may well have given the output.
    hints: dict[str, Evidence] = {}
    for name, output in outputs.items():
        item = found.get(name, Found())
        if item.note:
            result.notes.append(f"{name}: {item.note}")
        result.values[name], proof = _supported(output, item, bot_turns, today)
        if proof is not None:
            result.evidence[name] = proof
            continue
        maybe = candidate(*_kinds(output), bot_turns, today, output.description)
        if item.note:
            unreadable[name] = item.note  # asked again, with the reason (D29)
        elif item.value is not None:
            unsupported[name] = item
        elif maybe or not item.answered:
            unread.append(name)  # nothing found where a sentence may state it, or no answer at all: ask again
        else:
            result.evidence[name] = OutputEvidence(reason="not_stated")
            continue
        if maybe:
            hints[name] = maybe
    if not unsupported and not unread and not unreadable:
        return result
    asked = [*unreadable, *unsupported, *unread]
    result.quote_retry = asked

    said = {name: f"the chatbot said at [turn {m.turn}]: {m.quote!r}" for name, m in hints.items()}
    claims = [
        f"- {name}: you gave {_shown(item.value)}, but no chatbot message states it"
        + (f"; {said[name]}" if name in said else "")
        for name, item in unsupported.items()
    ]
    claims += [
        f"- {name}: you gave nothing, but {said[name]}"
        if name in said
        else f"- {name}: your answer left it out"
        for name in unread
    ]
    claims += [
        f"- {name}: your answer could not be read: {why}. Give the value in the shape asked for"
        + (f"; {said[name]}" if name in said else "")
        for name, why in unreadable.items()
    ]
    prompt = EXTRACT_QUOTES.fill(
        claims="\n".join(claims),
        fields=_fields(profile, asked),
        today=today.isoformat(),
        transcript=transcript,
    )
    try:
        again = judge.structured(
            [user(prompt)],
            answer_schema(profile, asked),
            tag=TAG_EXTRACT_QUOTES,
            max_tokens=max_tokens,
            temperature=0.0,
        )
        retried = read_found(profile, again, today)
    except LLMError as exc:
        if exc.ends_run:
            raise
        retried = {}
        result.notes.append(f"asking for the chatbot's words failed: {exc.user_message}")
    for name in asked:
        again_found = retried.get(name, Found())
        value, proof = _supported(outputs[name], again_found, bot_turns, today)
        if proof is not None:
            result.values[name], result.evidence[name] = value, proof
            continue
        result.values[name] = None
        maybe = hints.get(name)
        if not again_found.answered and name not in unsupported and maybe is None:
            # Not answered twice (`{}`): Parley's model said nothing about it, which proves nothing either way.
            result.evidence[name] = OutputEvidence(reason="unreadable")
            result.notes.append(f"{name}: the extractor did not answer for it, even when asked again")
            continue
        if name in unreadable and (again_found.note or again_found.value is not None or maybe):
            # Still unreadable, or read but unsupported after an unreadable first answer: Parley's model, not
            # the chatbot (extraction_unreadable).
            why = again_found.note or unreadable[name]
            result.evidence[name] = OutputEvidence(
                turn=maybe.turn if maybe else None, quote=maybe.quote if maybe else None, reason="unreadable"
            )
            result.notes.append(f"{name}: unreadable even when asked again ({why})")
            continue
        if name in unsupported:
            shown = _shown(unsupported[name].value)
            why = " (no_evidence)" if maybe is None else ""
            result.notes.append(f"{name}: {shown!r} is not stated by any chatbot message{why}")
        if maybe is None:
            result.evidence[name] = OutputEvidence(reason="no_evidence")
        else:  # not a chatbot fault: the chatbot said a value of the type; the extractor could not read it
            result.evidence[name] = OutputEvidence(turn=maybe.turn, quote=maybe.quote, reason="doubtful")
            result.notes.append(f"{name}: not found, though turn {maybe.turn} may state it (doubtful)")
    return result

"""Output extraction: one structured LLM call per conversation returns every declared output, typed.

The answer schema is built from the profile: one nullable field per output (the output's name is the JSON
key), typed as declared — string, int, float, bool, money `{amount, currency}`, date / time / datetime as ISO
strings, `list[T]`, enums as a closed set, custom types as text that must match the type's regular expression
(or an object of its components). The prompt states the conversation's date, and relative dates the model
still returns ("tomorrow", "next friday") are resolved here against that date. Values that do not fit their
type after normalisation become None, with a note saying why, so rules never see half-typed data.
"""

from __future__ import annotations

import re
from datetime import date, datetime, time, timedelta
from typing import Any, Literal, cast

from pydantic import BaseModel, ConfigDict, Field, create_model

from engine.sensei.profile import Output, OutputType, Profile, TypeDef
from engine.sensei.prompts import EXTRACT
from engine.sensei.types import PatternError, PatternTimeout, fullmatch

CURRENCY_SYMBOLS = {"$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY", "₹": "INR", "us$": "USD"}
WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]


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


def answer_schema(profile: Profile) -> type[BaseModel]:
    """The structured answer for all outputs of `profile` (field names are internal, JSON keys are the names)."""
    fields: dict[str, Any] = {}
    for index, output in enumerate(profile.chatbot.outputs):
        python_type = _python_type(output.type, profile, output.name)
        description = f"{output.description} {_hint(output.type, profile)}".strip()
        fields[f"out_{index}"] = (python_type | None, Field(None, alias=output.name, description=description))
    model = create_model(
        "sensei_outputs",
        __config__=ConfigDict(populate_by_name=True, extra="ignore"),
        __doc__="The outputs the chatbot provided in the conversation; null for each one it did not provide.",
        **fields,
    )
    return cast(type[BaseModel], model)


def extraction_prompt(profile: Profile, transcript: str, today: date) -> str:
    fields = "\n".join(
        f"- {o.name} ({o.type.label()}): {o.description} {_hint(o.type, profile)}".rstrip()
        for o in profile.chatbot.outputs
    )
    return EXTRACT.fill(
        today=today.isoformat(), weekday=today.strftime("%A"), fields=fields, transcript=transcript
    )


def read_answer(profile: Profile, answer: BaseModel, today: date) -> tuple[dict[str, Any], list[str]]:
    """The typed outputs from a structured answer, and notes on values that had to be dropped."""
    values: dict[str, Any] = {}
    notes: list[str] = []
    for index, output in enumerate(profile.chatbot.outputs):
        raw = getattr(answer, f"out_{index}", None)
        value, note = normalise_value(output, raw, profile, today)
        values[output.name] = value
        if note:
            notes.append(f"{output.name}: {note}")
    return values, notes


def normalise_value(output: Output, raw: Any, profile: Profile, today: date) -> tuple[Any, str | None]:
    if raw is None:
        return None, None
    try:
        return _normalise(output.type, raw, profile, today), None
    except ValueError as exc:
        return None, str(exc)


def _normalise(output_type: OutputType, raw: Any, profile: Profile, today: date) -> Any:
    kind = output_type.kind
    if isinstance(raw, BaseModel):
        raw = raw.model_dump()
    if kind == "list" and output_type.item is not None:
        return [_normalise(output_type.item, item, profile, today) for item in raw]
    if kind == "money":
        currency = raw.get("currency")
        if isinstance(currency, str):
            currency = CURRENCY_SYMBOLS.get(currency.strip().lower(), currency.strip().upper())
        return {"amount": float(raw["amount"]), "currency": currency or None}
    if kind == "date":
        return parse_date(str(raw), today).isoformat()
    if kind == "time":
        return parse_time(str(raw)).isoformat()
    if kind == "datetime":
        text = str(raw).strip().replace(" ", "T", 1)
        try:
            return datetime.fromisoformat(text).replace(tzinfo=None).isoformat()
        except ValueError:
            raise ValueError(f"{raw!r} is not a date and time") from None
    if kind == "custom":
        definition = profile.custom_type(output_type.name or "")
        if definition is not None:
            return _custom(definition, raw)
    if kind == "int" and isinstance(raw, float) and raw.is_integer():
        return int(raw)
    if kind == "string":
        return str(raw).strip()
    return raw


def _custom(definition: TypeDef, raw: Any) -> Any:
    if isinstance(raw, dict):
        return raw
    text = str(raw).strip()
    try:
        ok = fullmatch(definition.format, text)
    except (PatternError, PatternTimeout) as exc:
        raise ValueError(f"could not check {text!r} against {definition.name}: {exc}") from None
    if not ok:
        raise ValueError(f"{text!r} does not match the {definition.name} format {definition.format}")
    if definition.extraction == "int":
        return int(float(text))
    if definition.extraction == "float":
        return float(text)
    return text


def parse_date(text: str, today: date) -> date:
    """An ISO date, a DD/MM/YYYY date, or a relative expression resolved against `today`."""
    clean = text.strip().lower().rstrip(".")
    try:
        return date.fromisoformat(clean[:10])
    except ValueError:
        pass
    match = re.match(r"^(\d{1,2})/(\d{1,2})/(\d{4})$", clean)
    if match:
        return date(int(match.group(3)), int(match.group(2)), int(match.group(1)))
    relative = {
        "today": 0,
        "tomorrow": 1,
        "yesterday": -1,
        "day after tomorrow": 2,
        "the day after tomorrow": 2,
    }
    if clean in relative:
        return today + timedelta(days=relative[clean])
    match = re.match(r"^in (\d+) days?$", clean)
    if match:
        return today + timedelta(days=int(match.group(1)))
    match = re.match(r"^(next |this |on )?(monday|tuesday|wednesday|thursday|friday|saturday|sunday)$", clean)
    if match:
        ahead = (WEEKDAYS.index(match.group(2)) - today.weekday()) % 7
        if ahead == 0 or match.group(1) == "next ":
            ahead = ahead or 7
        return today + timedelta(days=ahead)
    raise ValueError(f"{text!r} is not a date")


def parse_time(text: str) -> time:
    clean = text.strip().lower().replace(".", "")
    match = re.match(r"^(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s*(am|pm)?$", clean)
    if not match:
        try:
            return time.fromisoformat(text.strip())
        except ValueError:
            raise ValueError(f"{text!r} is not a time") from None
    hour, minute, second = int(match.group(1)), int(match.group(2) or 0), int(match.group(3) or 0)
    if match.group(4) == "pm" and hour < 12:
        hour += 12
    if match.group(4) == "am" and hour == 12:
        hour = 0
    if match.group(2) is None and match.group(4) is None:
        raise ValueError(f"{text!r} is not a time")
    try:
        return time(hour, minute, second)
    except ValueError:
        raise ValueError(f"{text!r} is not a time") from None

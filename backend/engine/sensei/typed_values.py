"""Typed output values: an extracted value normalised to its declared type — money with an ISO currency code,
dates, times and date-times in ISO form (relative dates resolved against the conversation's date), custom types
checked against their regular expression — or why it does not fit.
"""

from __future__ import annotations

import re
from datetime import date, datetime, time, timedelta
from typing import Any

from pydantic import BaseModel

from engine.sensei.profile import Output, OutputType, Profile, TypeDef
from engine.sensei.types import PatternError, PatternTimeout, fullmatch

CURRENCY_SYMBOLS = {"$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY", "₹": "INR", "us$": "USD"}
WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]


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

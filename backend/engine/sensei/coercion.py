"""Reading what an extractor means (README D29): the loose shapes models in JSON mode and small local models
write, turned into the shape extraction asked for when — and only when — there is one way to read them.

- a value at the top level of the answer (`{"value": 13.75, "turn": 6}`, `{"amount": 13.75}` or a bare `13.75`)
  when one output was asked for: that output's;
- the keys of `{value, turn, quote}` in other words (`answer`, `turn_number`, `evidence`…; casing is already
  matched by `engine.llm.structured`);
- money as a bare number (13.75), a numeric string, "13.75$", "$13.75", "13,75 €", "USD 13.75", or an object
  with the amount under another key (`value`, `price`, `total`);
- numbers as numeric strings ("3", "13.75$" for a float);
- a turn as text ("6", "turn 6", "[turn 6]"); a number that is no turn index ("13.75", the value again) is no
  turn.
What is not unambiguous stays as it was, so typing fails and extraction asks once more, saying why.
"""

from __future__ import annotations

import re
from typing import Any

_CURRENCY = {
    "$": "USD", "us$": "USD", "usd": "USD", "dollar": "USD", "dollars": "USD", "€": "EUR", "eur": "EUR",
    "euro": "EUR", "euros": "EUR", "£": "GBP", "gbp": "GBP", "pound": "GBP", "pounds": "GBP", "¥": "JPY",
    "jpy": "JPY", "yen": "JPY", "₹": "INR", "inr": "INR", "chf": "CHF",
}  # fmt: skip
_AMOUNT = re.compile(
    r"^\s*(?P<pre>us\$|[$€£¥₹]|usd|eur|gbp|jpy|inr|chf)?\s*(?P<number>[+-]?\d[\d.,]*)\s*"
    r"(?P<post>us\$|[$€£¥₹]|usd|eur|gbp|jpy|inr|chf|dollars?|euros?|pounds?|yen)?\s*\.?\s*$",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"^\s*[+-]?\d+(?:[.,]\d+)?\s*$")
_TURN = re.compile(r"^\s*\[?\s*(?:turn|message|msg|#)?\s*(\d+)\s*\]?\s*$", re.IGNORECASE)

VALUE_KEYS = ("value", "val", "answer", "result", "extracted", "output", "data")
TURN_KEYS = (
    "turn",
    "turn_number",
    "turn_index",
    "turn_id",
    "turnnumber",
    "message",
    "message_index",
    "index",
)
QUOTE_KEYS = ("quote", "evidence", "text", "sentence", "words", "source", "citation", "quoted")
_MONEY_KEYS = ("amount", "value", "price", "total", "cost", "sum")


def _key(name: Any) -> str:
    return re.sub(r"[^a-z0-9]", "", str(name).lower())


def _pick(data: dict[str, Any], names: tuple[str, ...]) -> tuple[bool, Any]:
    wanted = {_key(n) for n in names}
    for key, value in data.items():
        if _key(key) in wanted:
            return True, value
    return False, None


def is_found_shape(raw: Any) -> bool:
    """Whether `raw` is a `{value, turn, quote}` object, in any of the words models use for its keys."""
    if not isinstance(raw, dict) or not raw:
        return False
    keys = {_key(k) for k in raw}
    return bool(keys & {_key(k) for k in (*VALUE_KEYS, *TURN_KEYS, *QUOTE_KEYS)}) and keys <= {
        _key(k)
        for k in (*VALUE_KEYS, *TURN_KEYS, *QUOTE_KEYS, "currency", "unit", "confidence", "name", "field")
    }


def found_object(raw: Any) -> Any:
    """`raw` as `{value, turn, quote}`: a bare value is the value; other key words are renamed."""
    if raw is None:
        return None
    if not is_found_shape(raw):
        return {"value": raw}
    _, value = _pick(raw, VALUE_KEYS)
    has_currency, currency = _pick(raw, ("currency", "unit"))
    if has_currency and isinstance(value, int | float | str) and not isinstance(value, bool):
        value = {"amount": value, "currency": currency}
    _, turn = _pick(raw, TURN_KEYS)
    _, quote = _pick(raw, QUOTE_KEYS)
    return {"value": value, "turn": turn, "quote": quote}


def top_level(data: Any, names: list[str]) -> Any:
    """The answer keyed by output name. When one output was asked and the answer holds no output's name but a
    value (`{"value": …, "turn": …}`, `{"amount": …}`, a bare number or text), it is that output's."""
    if len(names) != 1:
        return data
    name = names[0]
    if isinstance(data, dict):
        keys = {_key(k) for k in data}
        if _key(name) in keys:
            return data
        if is_found_shape(data) or keys & {_key(k) for k in _MONEY_KEYS}:
            return {name: data}
        if len(data) == 1:  # {"total_price": {...}}: one key that is not the output's name, its only content
            ((_, inner),) = data.items()
            if isinstance(inner, dict | int | float | str) and not isinstance(inner, bool):
                return {name: inner}
        return data
    if isinstance(data, int | float | str) and not isinstance(data, bool):
        return {name: data}
    return data


def money(raw: Any) -> Any:
    """An amount of money in any unambiguous shape, as `{amount, currency}`; else `raw` unchanged."""
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, int | float):
        return {"amount": float(raw), "currency": None}
    if isinstance(raw, str):
        match = _AMOUNT.match(raw)
        if not match:
            return raw
        amount = _number(match.group("number"))
        if amount is None:
            return raw
        symbol = (match.group("pre") or match.group("post") or "").lower()
        return {"amount": amount, "currency": _CURRENCY.get(symbol, symbol.upper() or None)}
    if isinstance(raw, dict):
        if "amount" in raw:
            inner = raw["amount"]
            if isinstance(inner, str):
                read = money(inner)
                if isinstance(read, dict):
                    return {**read, "currency": raw.get("currency") or read.get("currency")}
            return raw
        found, amount = _pick(raw, _MONEY_KEYS)
        if found:
            read = money(amount)
            if isinstance(read, dict):
                return {**read, "currency": raw.get("currency") or read.get("currency")}
    return raw


def number(raw: Any) -> Any:
    """A number written as text ("3", "13.75", "13.75$"), as a number; else `raw` unchanged."""
    if isinstance(raw, str):
        if _NUMBER.match(raw):
            read = _number(raw.strip())
            return raw if read is None else read
        amount = money(raw)
        if isinstance(amount, dict):
            return amount["amount"]
    if isinstance(raw, dict):  # {"amount": 3} or {"value": 3} where a number was asked
        found, inner = _pick(raw, ("amount", "value", "number", "count"))
        if found and len(raw) <= 2:
            return number(inner)
    return raw


def _number(text: str) -> float | None:
    """A written number: "1,234.50" and "1.234,50" and "13,75" read as people mean them."""
    text = text.strip()
    if "," in text and "." in text:
        text = (
            text.replace(",", "")
            if text.rfind(".") > text.rfind(",")
            else text.replace(".", "").replace(",", ".")
        )
    elif "," in text:
        head, _, tail = text.rpartition(",")
        text = head.replace(",", "") + (f".{tail}" if len(tail) != 3 else tail)
    try:
        return float(text)
    except ValueError:
        return None


def turn_index(raw: Any, count: int | None = None) -> int | None:
    """The turn an answer names: 6, "6", "turn 6", "[turn 6]"; None for anything else (13.75 is no turn) or an
    index outside the conversation's `count` turns."""
    if isinstance(raw, bool) or raw is None:
        return None
    if isinstance(raw, float):
        raw = int(raw) if raw.is_integer() else None
    if isinstance(raw, str):
        match = _TURN.match(raw)
        raw = int(match.group(1)) if match else None
    if not isinstance(raw, int) or raw < 0 or (count is not None and raw >= count):
        return None
    return raw

"""Evidence: whether a message states a value, compared after normalising — the test of every extracted output.

An extractor, a small model most of all, reports values no one said ("the price was 1.25 USD"). So an output
counts as found only when a chatbot turn states it, and the record keeps that turn and the words (`Evidence`):

- numbers: the digits as written ("8.50", "8,50", "1,234.50", "$12"), or small numbers in words ("two");
- money: the amount as a number, and the currency when the message names one ("$", "EUR", "euros");
- dates: ISO, 12/03/2027 (day first and month first), "12 March", "March 12th", "tomorrow", "next Friday" —
  resolved against the conversation's date;
- times: "10:30", "10.30", "3pm", "3:15 p.m.", "noon" (and the same hour twelve hours apart when no am/pm);
- enum values and text: the words after normalising (case, accents, punctuation, plurals), typos aside for
  longer text; booleans cannot be read off words, so the quote itself must be a chatbot's;
- lists and custom types item by item, component by component.

`support()` finds the chatbot turn that states a value (the extractor's own turn and quote first, then the
latest turn that does) and the sentence that says it. `candidate()` finds the latest chatbot sentence that
states *some* value of a type (an amount with a currency, a date, a time, a number): where the extractor
found nothing, the chatbot may still have said it. `mentions()` is the looser test the verdicts use on the
user's side: did the simulated user ever say this input value?
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, time, timedelta
from typing import Any

from rapidfuzz import fuzz

from engine.sensei.closing import normalise

_NUMBER = re.compile(r"(?<![\w])\d+(?:[.,]\d+)*(?![\w])")
_NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "dozen": 12, "a dozen": 12,
    "cero": 0, "uno": 1, "una": 1, "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6, "siete": 7,
    "ocho": 8, "nueve": 9, "diez": 10,
}  # fmt: skip
_CURRENCIES = {
    "$": "USD", "us$": "USD", "usd": "USD", "dollar": "USD", "dollars": "USD", "€": "EUR", "eur": "EUR",
    "euro": "EUR", "euros": "EUR", "£": "GBP", "gbp": "GBP", "pound": "GBP", "pounds": "GBP", "¥": "JPY",
    "jpy": "JPY", "yen": "JPY", "₹": "INR", "inr": "INR", "rupees": "INR", "chf": "CHF", "francs": "CHF",
}  # fmt: skip
_CURRENCY_WORD = re.compile(
    r"us\$|[$€£¥₹]|\b(?:usd|eur|gbp|jpy|inr|chf|dollars?|euros?|pounds?|yen|rupees|francs)\b", re.IGNORECASE
)
_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan", "enero"),
            ("february", "feb", "febrero"),
            ("march", "mar", "marzo"),
            ("april", "apr", "abril"),
            ("may", "mayo"),
            ("june", "jun", "junio"),
            ("july", "jul", "julio"),
            ("august", "aug", "agosto"),
            ("september", "sep", "sept", "septiembre"),
            ("october", "oct", "octubre"),
            ("november", "nov", "noviembre"),
            ("december", "dec", "diciembre"),
        ),
        start=1,
    )
    for name in names
}
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAYS_ES = ("lunes", "martes", "miercoles", "jueves", "viernes", "sabado", "domingo")
_TIME = re.compile(
    r"(?<![\d:])(\d{1,2})(?:[:.h](\d{2}))?\s*(a\.?\s?m\.?|p\.?\s?m\.?)?(?![\d])", re.IGNORECASE
)


@dataclass(frozen=True)
class Evidence:
    """Where the chatbot stated an output: the index of its turn in the record and its words."""

    turn: int
    quote: str


# -- reading values in text ------------------------------------------------------------------------------------


def _number_readings(token: str) -> set[float]:
    """Every value a written number can mean: "1,500" is 1500 or 1.5 depending on the writer's locale."""
    readings: set[float] = set()
    for thousands, decimal in ((",", "."), (".", ",")):
        parts = token.split(decimal)
        if len(parts) > 2:
            continue
        whole = parts[0]
        if thousands in whole and not re.fullmatch(r"\d{1,3}(?:" + re.escape(thousands) + r"\d{3})+", whole):
            continue
        text = whole.replace(thousands, "") + ("." + parts[1] if len(parts) == 2 else "")
        try:
            readings.add(float(text))
        except ValueError:
            continue
    return readings


# A number word in another sense: "one of our house pizzas", "the one you like", "which one", "one more thing".
_OTHER_SENSE = re.compile(
    r"(?:\b(?:the|this|that|which|each|any|every|no|some|another|someone|anyone|everyone|no one)\s+{w}\b)|"
    r"(?:\b{w}\s+(?:of|more|else|another|day|moment|sec|second|minute|thing|way|last)\b)"
)


def numbers_in(text: str, *, as_quantity: bool = False) -> set[float]:
    """Every number the text states, in digits or (small ones) in words. `as_quantity`: a number word counts
    only where it is a number — not "one of our house pizzas", "the one", "one more thing" — as evidence of an
    output must state the value as that output (README D29)."""
    found: set[float] = set()
    for match in _NUMBER.finditer(text):
        found |= _number_readings(match.group(0))
    plain = f" {normalise(text)} "
    for word, value in _NUMBER_WORDS.items():
        if f" {word} " not in plain:
            continue
        if as_quantity:
            pattern = re.compile(_OTHER_SENSE.pattern.replace("{w}", re.escape(word)))
            uses = len(re.findall(rf"(?<= ){re.escape(word)}(?= )", plain))
            if uses <= len(pattern.findall(plain)):
                continue  # every use of the word is in another sense
        found.add(float(value))
    return found


def currencies_in(text: str) -> set[str]:
    return {
        _CURRENCIES[m.group(0).lower()]
        for m in _CURRENCY_WORD.finditer(text)
        if m.group(0).lower() in _CURRENCIES
    }


def _same_number(value: float, found: Iterable[float], tolerance: float = 0.005) -> bool:
    return any(abs(value - other) <= tolerance for other in found)


def _next_weekday(today: date, weekday: int, *, strictly_after: bool = False) -> date:
    ahead = (weekday - today.weekday()) % 7
    if ahead == 0 and strictly_after:
        ahead = 7
    return today + timedelta(days=ahead)


def _safe_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def dates_in(text: str, today: date) -> set[date]:
    """Every date the text states, resolved against `today` (day-first and month-first readings both)."""
    lowered = text.lower()
    plain = f" {normalise(text)} "
    found: set[date | None] = set()
    for y, m, d in re.findall(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b", lowered):
        found.add(_safe_date(int(y), int(m), int(d)))
    for a, b, y in re.findall(r"\b(\d{1,2})[/.-](\d{1,2})[/.-](\d{2,4})\b", lowered):
        year = int(y) + (2000 if len(y) == 2 else 0)
        found |= {_safe_date(year, int(b), int(a)), _safe_date(year, int(a), int(b))}
    years = (today.year, today.year + 1)
    for d, m, y in re.findall(
        rf"\b(\d{{1,2}})(?:st|nd|rd|th)?(?:\s+of|\s+de)?\s+({_MONTH})\b\.?(?:,?\s+(\d{{4}}))?", lowered
    ):
        for year in (int(y),) if y else years:
            found.add(_safe_date(year, _MONTHS[m], int(d)))
    for m, d, y in re.findall(
        rf"\b({_MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+(\d{{4}}))?", lowered
    ):
        for year in (int(y),) if y else years:
            found.add(_safe_date(year, _MONTHS[m], int(d)))
    relative = {"today": 0, "hoy": 0, "tonight": 0, "tomorrow": 1, "manana": 1, "yesterday": -1}
    for word, days in relative.items():
        if f" {word} " in plain:
            found.add(today + timedelta(days=days))
    if " day after tomorrow " in plain or " pasado manana " in plain:
        found.add(today + timedelta(days=2))
    for names in (_WEEKDAYS, _WEEKDAYS_ES):
        for index, name in enumerate(names):
            if f" {name} " in plain or f" {name}s " in plain:
                found |= {_next_weekday(today, index), _next_weekday(today, index, strictly_after=True)}
    return {d for d in found if d is not None}


def times_in(text: str) -> set[time]:
    """Every time of day the text states; a time without am/pm also in its other half of the day."""
    found: set[time] = set()
    plain = f" {normalise(text)} "
    if " noon " in plain or " midday " in plain or " mediodia " in plain:
        found.add(time(12, 0))
    if " midnight " in plain or " medianoche " in plain:
        found.add(time(0, 0))
    for match in _TIME.finditer(text):
        hour, minute, half = int(match.group(1)), int(match.group(2) or 0), (match.group(3) or "").lower()
        if not match.group(2) and not half:
            continue  # a bare number is no time
        if hour > 23 or minute > 59:
            continue
        if half.startswith("p") and hour < 12:
            hour += 12
        elif half.startswith("a") and hour == 12:
            hour = 0
        found.add(time(hour, minute))
        if not half and hour < 12:
            found.add(time(hour + 12, minute))
        if not half and hour >= 12:
            found.add(time(hour - 12, minute))
    return found


def _singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("es") and word[-3] in "sxz":
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _words(text: str) -> list[str]:
    return [_singular(word) for word in normalise(text).split()]


def says_words(value: str, text: str, *, typos: bool = True) -> bool:
    """The text contains the value's words in order, case, accents, punctuation and plurals aside; longer values
    also with a typo or two."""
    wanted = " ".join(_words(value))
    if not wanted:
        return False
    haystack = f" {' '.join(_words(text))} "
    if f" {wanted} " in haystack:
        return True
    return typos and len(wanted) >= 6 and fuzz.partial_ratio(wanted, haystack) >= 90


# -- does a text state a value of a type ---------------------------------------------------------------------


def _as_date(value: Any) -> date | None:
    try:
        return date.fromisoformat(str(value)[:10])
    except ValueError:
        return None


def _as_time(value: Any) -> time | None:
    text = str(value)
    text = text.split("T", 1)[1] if "T" in text else text
    try:
        return time.fromisoformat(text[:8])
    except ValueError:
        return None


def states(kind: str, value: Any, text: str, today: date) -> bool:
    """Whether `text` states `value`, an output of type `kind` as extraction normalised it."""
    if value is None:
        return False
    if kind in ("int", "float") and isinstance(value, int | float) and not isinstance(value, bool):
        return _same_number(float(value), numbers_in(text, as_quantity=True))
    if kind == "money" and isinstance(value, dict):
        amount = value.get("amount")
        if not isinstance(amount, int | float) or not _same_number(float(amount), numbers_in(text)):
            return False
        named = currencies_in(text)
        currency = value.get("currency")
        return not named or not currency or str(currency).upper() in named
    if kind == "date":
        wanted = _as_date(value)
        return wanted is not None and wanted in dates_in(text, today)
    if kind == "time":
        wanted_time = _as_time(value)
        return wanted_time is not None and wanted_time.replace(second=0) in times_in(text)
    if kind == "datetime":
        return states("date", value, text, today) and states("time", value, text, today)
    if isinstance(value, dict):  # a custom type's components: every one stated
        parts = [v for v in value.values() if v is not None]
        return bool(parts) and all(
            states("float" if isinstance(v, int | float) else "string", v, text, today) for v in parts
        )
    if isinstance(value, bool):
        return False  # a yes or no is not in the words; only a chatbot's own quote can stand for it
    if isinstance(value, int | float):
        return _same_number(float(value), numbers_in(text, as_quantity=True))
    return says_words(str(value), text, typos=kind != "enum")


def mentions(value: Any, text: str, today: date) -> bool:
    """Whether the simulated user said an input value: its words, its number, its date or its time; for a value
    of several words, most of them (a user says "on Friday" for "next friday")."""
    if isinstance(value, list):
        return all(mentions(item, text, today) for item in value)
    if isinstance(value, bool) or value is None:
        return True  # nothing to say in words
    if isinstance(value, int | float):
        return _same_number(float(value), numbers_in(text))
    written = str(value)
    if says_words(written, text):
        return True
    numbers = numbers_in(written)
    if numbers and numbers <= numbers_in(text) and not re.search(r"[a-z]{3}", written.lower()):
        return True
    moments = times_in(written)
    if moments and moments & times_in(text):
        return True
    days = dates_in(written, today)
    if days and days & dates_in(text, today):
        return True
    words = [w for w in _words(written) if len(w) >= 3]
    said = _words(text)
    hits = sum(1 for w in words if any(w == s or _typo_of(w, s) for s in said))
    return bool(words) and hits * 2 >= len(words) and (len(words) >= 2 or hits == 1)


def _typo_of(wanted: str, said: str) -> bool:
    """A typo: in a longer word ("margarita", "tommorow") a letter or two; in a word of four or five letters only a
    missing or doubled one ("smal"), since one letter changed makes another word ("smell" is not "small")."""
    if len(wanted) >= 6:
        return wanted[0] == said[:1] and fuzz.ratio(wanted, said) >= 80
    return len(wanted) >= 4 and fuzz.ratio(wanted, said) >= 88


# -- finding the turn ------------------------------------------------------------------------------------------


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n+", text) if s.strip()]


def _quote_in(quote: str, text: str) -> bool:
    wanted = normalise(quote)
    return bool(wanted) and f" {wanted} " in f" {normalise(text)} "


def _item_states(kind: str, item: Any, text: str, today: date, quote: str | None) -> bool:
    if isinstance(item, bool):
        return quote is not None and _quote_in(quote, text)
    return states(kind, item, text, today)


def stated_in(
    kind: str, item_kind: str | None, value: Any, text: str, today: date, quote: str | None
) -> bool:
    """`states` for any declared type, lists item by item."""
    if kind == "list" and isinstance(value, list):
        return bool(value) and all(_item_states(item_kind or "string", v, text, today, quote) for v in value)
    return _item_states(kind, value, text, today, quote)


def support(
    kind: str,
    item_kind: str | None,
    value: Any,
    bot_turns: Sequence[tuple[int, str]],
    today: date,
    *,
    turn: int | None = None,
    quote: str | None = None,
) -> Evidence | None:
    """The chatbot turn (index, text) that states `value`, and its words; None when none does.

    The extractor's own turn and quote are tried first; then every chatbot turn, latest first (a price said
    again after a change is the one that holds). The quote kept is the extractor's when it is the chatbot's
    words and states the value, else the sentence of the turn that does."""
    ordered = sorted(bot_turns, key=lambda t: (t[0] != turn, -t[0]))
    for index, text in ordered:
        # A quote of a few words ("13.75", the value again) is shown as the sentence that holds it.
        whole = quote is not None and len(quote.split()) >= 3
        if (
            quote
            and whole
            and _quote_in(quote, text)
            and stated_in(kind, item_kind, value, quote, today, quote)
        ):
            return Evidence(index, quote.strip())
        if not stated_in(kind, item_kind, value, text, today, quote):
            continue
        for sentence in _sentences(text):
            if stated_in(kind, item_kind, value, sentence, today, quote):
                return Evidence(index, sentence)
        return Evidence(index, text.strip()[:400])
    return None


_AMOUNT = re.compile(
    r"(?:us\$|[$€£¥₹])\s?\d[\d.,]*|\b\d[\d.,]*\s?(?:[$€£¥₹]|(?:usd|eur|gbp|dollars?|euros?|pounds?)\b)",
    re.IGNORECASE,
)


def _has_value_of(kind: str, text: str, today: date) -> bool:
    if kind == "money":
        return bool(_AMOUNT.search(text))
    if kind in ("int", "float"):
        return bool(numbers_in(text))
    if kind == "date":
        return bool(dates_in(text, today))
    if kind == "time":
        return bool(times_in(text))
    if kind == "datetime":
        return bool(dates_in(text, today)) and bool(times_in(text))
    return False


def candidate(
    kind: str,
    item_kind: str | None,
    bot_turns: Sequence[tuple[int, str]],
    today: date,
    description: str = "",
) -> Evidence | None:
    """The chatbot sentence that most likely states a value of this type (money, numbers, dates, times; lists by
    their items): of those that state one, the one sharing most words with the output's description ("the total
    price" → "The total for your order is 21$."), the latest among equals; None for text, enums and booleans,
    where no words can tell."""
    wanted = item_kind if kind == "list" and item_kind else kind
    topic = set(_words(description))
    found: list[tuple[int, int, int, Evidence]] = []
    for index, text in bot_turns:
        for position, sentence in enumerate(_sentences(text)):
            if _has_value_of(wanted, sentence, today):
                shared = len(topic & set(_words(sentence)))
                found.append((shared, index, position, Evidence(index, sentence)))
    return max(found, key=lambda item: item[:3])[3] if found else None

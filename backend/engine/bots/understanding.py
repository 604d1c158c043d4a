"""How the reference bots understand users: keywords, synonyms, patterns and fuzzy matching — no LLM.

Texts are compared in a normal form (lower case, accents and punctuation removed). A phrase matches when it
occurs as whole words, or — for words of four letters or more — when a window of the message is at least
`FUZZY` similar to it (rapidfuzz), so "pepperonni" still finds "pepperoni". Slot values are extracted per
type: enum values by name or synonym (several for `multiple` slots), numbers in digits or words, dates
("tomorrow", "next friday", "15/03/2027", "12 de marzo"), times ("10:30", "5pm", "a las 10"), e-mails and
phones by pattern, strings from "my name is …" or, when the slot was just asked for, the whole message.
Every function is pure: the reference date comes in as an argument.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import date, timedelta

from rapidfuzz import fuzz

from engine.bots.definition import Slot

FUZZY = 86.0
Value = float | str | list[str]

NUMBER_WORDS = {
    "en": {
        "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
        "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a couple of": 2, "a dozen": 12,
    },
    "es": {
        "cero": 0, "uno": 1, "una": 1, "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6, "siete": 7,
        "ocho": 8, "nueve": 9, "diez": 10, "once": 11, "doce": 12,
    },
}  # fmt: skip
WEEKDAYS = {
    "en": ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"],
    "es": ["lunes", "martes", "miercoles", "jueves", "viernes", "sabado", "domingo"],
}
MONTHS = {
    "en": ["january", "february", "march", "april", "may", "june", "july", "august", "september",
           "october", "november", "december"],
    "es": ["enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre",
           "octubre", "noviembre", "diciembre"],
}  # fmt: skip
RELATIVE_DAYS = {
    "yesterday": -1,
    "ayer": -1,
    "today": 0,
    "tomorrow": 1,
    "day after tomorrow": 2,
    "hoy": 0,
    "manana": 1,
    "pasado manana": 2,
}
STOPWORDS = {
    "en": {"the", "is", "are", "what", "how", "do", "does", "you", "want", "have", "can", "please", "my", "and",
           "of", "to", "for", "with", "would", "like", "hello", "hi", "thanks", "when", "where", "much", "your"},
    "es": {"el", "la", "los", "las", "que", "es", "son", "de", "quiero", "tienen", "tiene", "por", "favor",
           "para", "con", "una", "un", "hola", "gracias", "cuanto", "cuando", "donde", "mi", "me", "puedo",
           "hay", "y", "cuesta", "vuestro", "abren"},
}  # fmt: skip
FILLERS = {
    "en": {"i", "want", "would", "like", "a", "an", "the", "please", "make", "it", "one", "some", "have", "get",
           "actually", "rather", "instead", "no", "yes", "let", "s", "go", "for", "can", "could", "we", "me",
           "give", "do", "you", "pizza", "is", "what", "about", "how"},
    "es": {"quiero", "un", "una", "el", "la", "por", "favor", "mejor", "me", "das", "dame", "si", "no", "que",
           "sea", "de", "para", "pues", "tienen", "teneis", "hay"},
}  # fmt: skip
QUESTION_STARTS = ("what", "when", "where", "how", "do ", "does", "can ", "is ", "are ", "which", "who",
                   "que ", "cuando", "donde", "cuanto", "como", "hay ", "tienen", "puedo", "abren")  # fmt: skip
NAME_INTROS = r"(?:my name is|this is|me llamo|mi nombre es)"
NAME_INTROS_PENDING = r"(?:my name is|this is|i am|i'm|it's|it is|me llamo|mi nombre es|soy)"
EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
PHONE = re.compile(r"(?<![\w/])\+?\d[\d\s-]{6,}\d(?![\w/])")
ISO_DATE = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
DMY_DATE = re.compile(r"\b(\d{1,2})/(\d{1,2})(?:/(\d{2,4}))?\b")


def normalize(text: str) -> str:
    """Lower case, accents removed, punctuation as spaces, single spaces."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(re.sub(r"[^a-z0-9@]+", " ", plain).split())


def contains(norm_text: str, norm_phrase: str) -> bool:
    return bool(norm_phrase) and f" {norm_phrase} " in f" {norm_text} "


def find_phrase(norm_text: str, norm_phrase: str, *, fuzzy: bool = True) -> tuple[float, int] | None:
    """(score 0-100, word position) of the best occurrence of the phrase in the text, or None."""
    if not norm_phrase:
        return None
    padded = f" {norm_text} "
    index = padded.find(f" {norm_phrase} ")
    if index >= 0:
        return 100.0, padded[:index].count(" ")
    if not fuzzy or len(norm_phrase) < 4:
        return None
    words = norm_text.split()
    size = len(norm_phrase.split())
    best: tuple[float, int] | None = None
    for start in range(max(0, len(words) - size + 1)):
        window = " ".join(words[start : start + size])
        if len(window) < 4 or window[0] != norm_phrase[0]:
            continue
        score = fuzz.ratio(window, norm_phrase)
        if score >= FUZZY and (best is None or score > best[0]):
            best = (score, start)
    return best


def looks_like_question(text: str) -> bool:
    norm = normalize(text)
    return text.strip().endswith("?") or text.strip().startswith("¿") or norm.startswith(QUESTION_STARTS)


def detect_language(text: str) -> str | None:
    """'en' or 'es' when the message clearly is in that language (two or more function words), else None."""
    words = normalize(text).split()
    counts = {lang: sum(1 for w in words if w in stop) for lang, stop in STOPWORDS.items()}
    ranked = sorted(counts.items(), key=lambda kv: -kv[1])
    (top, top_count), (_, second) = ranked[0], ranked[1]
    return top if top_count >= 2 and top_count > second else None


def remnant(text: str, language: str) -> str:
    """The content words of a message, for quoting a rejected value back to the user."""
    words = [w for w in normalize(text).split() if w not in FILLERS.get(language, set())]
    return " ".join(words)


# --------------------------------------------------------------------------------------------- extraction


@dataclass(frozen=True)
class Extraction:
    """What a message says about one slot: a value, or a value the bot refuses (`refused`, with `reason`)."""

    value: Value | None = None
    refused: str | None = None
    reason: str | None = None  # "unavailable" | "unknown" | "invalid" | "range" | "past" | "hours"


NONE = Extraction()


def _enum(slot: Slot, norm: str, *, pending: bool) -> Extraction:
    masked = norm
    for phrase in sorted(slot.unavailable, key=len, reverse=True):
        phrase_norm = normalize(phrase)
        if contains(masked, phrase_norm):
            if not slot.multiple:
                return Extraction(refused=phrase, reason="unavailable")
            masked = f" {masked} ".replace(f" {phrase_norm} ", " ").strip()
    found: list[tuple[int, str]] = []
    for value in slot.values:
        best: tuple[float, int] | None = None
        for word in (value.name, *value.synonyms):
            hit = find_phrase(masked, normalize(word))
            if hit and (best is None or hit[0] > best[0] or (hit[0] == best[0] and hit[1] < best[1])):
                best = hit
        if best is not None:
            found.append((best[1], value.name))
    if not found:
        if pending:
            return Extraction(refused=norm, reason="unknown")
        return NONE
    found.sort()
    if slot.multiple:
        return Extraction(value=[name for _, name in found])
    # several values for a single slot: the last one said wins ("small... no, large")
    return Extraction(value=found[-1][1])


def _numbers(norm: str, language: str, *, decimals: bool, raw: str) -> list[float]:
    text = raw.replace(",", ".") if decimals else raw
    cleaned = ISO_DATE.sub(" ", DMY_DATE.sub(" ", text))
    cleaned = re.sub(r"\b\d{1,2}[:.]\d{2}\b|\b\d{1,2}\s*(?:am|pm|h)\b", " ", cleaned, flags=re.IGNORECASE)
    pattern = r"(?<![\w.])\d+(?:\.\d+)?(?![\w])" if decimals else r"(?<![\w.])\d+(?![\w.])"
    out = [float(m.group(0)) for m in re.finditer(pattern, cleaned)]
    for lang in (language, *(k for k in NUMBER_WORDS if k != language)):
        for word, number in NUMBER_WORDS[lang].items():
            if contains(norm, word):
                out.append(float(number))
        if out:
            break
    return out


def _date(norm: str, raw: str, today: date) -> date | None:
    norm = norm.replace("de la manana", " ").replace("por la manana", " ")
    for phrase, days in sorted(RELATIVE_DAYS.items(), key=lambda kv: -len(kv[0])):
        if contains(norm, phrase):
            return today + timedelta(days=days)
    match = ISO_DATE.search(raw)
    try:
        if match:
            return date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
        match = DMY_DATE.search(raw)
        if match:
            year = int(match.group(3)) if match.group(3) else today.year
            year = year + 2000 if year < 100 else year
            found = date(year, int(match.group(2)), int(match.group(1)))
            if not match.group(3) and found < today:
                found = found.replace(year=year + 1)
            return found
    except ValueError:
        return None
    for names in MONTHS.values():
        for index, month in enumerate(names, start=1):
            hit = re.search(
                rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:de\s+|of\s+)?{month}\b|\b{month}\s+(\d{{1,2}})\b", norm
            )
            if hit:
                day = int(hit.group(1) or hit.group(2))
                try:
                    found = date(today.year, index, day)
                except ValueError:
                    return None
                return found if found >= today else found.replace(year=today.year + 1)
    for names in WEEKDAYS.values():
        for index, weekday in enumerate(names):
            if contains(norm, weekday):
                ahead = (index - today.weekday()) % 7 or 7
                return today + timedelta(days=ahead)
    return None


def _time(norm: str, raw: str, *, pending: bool) -> str | None:
    lowered = raw.lower()
    match = re.search(r"\b(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)", lowered)
    if match:
        hour, minute = int(match.group(1)) % 12, int(match.group(2) or 0)
        hour += 12 if match.group(3).startswith("p") else 0
        return _hhmm(hour, minute)
    match = re.search(r"\b(\d{1,2})[:h](\d{2})\b", lowered)
    if match:
        return _hhmm(int(match.group(1)), int(match.group(2)))
    if contains(norm, "noon") or contains(norm, "mediodia"):
        return "12:00"
    match = re.search(r"\b(?:at|a las|a la)\s+(\d{1,2})\b", norm) or (
        re.fullmatch(r"(?:at |a las )?(\d{1,2})(?: o ?clock| h)?", norm) if pending else None
    )
    if match:
        hour = int(match.group(1))
        if 1 <= hour <= 7:
            hour += 12  # "at 5" in a shop means the afternoon
        return _hhmm(hour, 0)
    return None


def _hhmm(hour: int, minute: int) -> str | None:
    return f"{hour:02d}:{minute:02d}" if 0 <= hour <= 23 and 0 <= minute <= 59 else None


def _string(slot: Slot, raw: str, *, pending: bool, asked: bool) -> str | None:
    if slot.pattern:
        match = re.search(slot.pattern, raw)
        if match:
            return (match.group(1) if match.groups() else match.group(0)).strip()
        return None
    intro = NAME_INTROS_PENDING if pending or asked else NAME_INTROS
    match = re.search(rf"\b{intro}\s+([^\W\d_][^,.;!?\d]*?)(?=\s+and\s|\s+y\s|[,.;!?]|$)", raw, re.IGNORECASE)
    if match:
        return match.group(1).strip()
    if pending:
        text = raw.strip().strip(".!?¡¿ ")
        return text or None
    return None


def extract(
    slot: Slot, text: str, *, pending: bool, today: date, language: str, asked: bool = False
) -> Extraction:
    """What `text` says about `slot`. `pending` means the bot just asked for it and nothing else was found,
    so bare answers count; `asked` only allows the looser ways of giving it ("I'm Ada")."""
    norm = normalize(text)
    if slot.type == "enum":
        found = _enum(slot, norm, pending=pending)
        if found.reason == "unknown" and not remnant(text, language):
            return NONE
        return found
    if slot.type in ("int", "float"):
        numbers = _numbers(norm, language, decimals=slot.type == "float", raw=text)
        if not numbers:
            return Extraction(refused=text, reason="invalid") if pending else NONE
        number = numbers[0]
        if slot.type == "int" and number != int(number):
            return Extraction(refused=text, reason="invalid")
        if (slot.min is not None and number < slot.min) or (slot.max is not None and number > slot.max):
            return Extraction(refused=format_number(number), reason="range")
        return Extraction(value=number)
    if slot.type == "date":
        found_date = _date(norm, text, today)
        if found_date is None:
            return Extraction(refused=text, reason="invalid") if pending else NONE
        if slot.not_past and found_date < today:
            return Extraction(refused=format_date(found_date.isoformat()), reason="past")
        return Extraction(value=found_date.isoformat())
    if slot.type == "time":
        found_time = _time(norm, text, pending=pending)
        if found_time is None:
            return Extraction(refused=text, reason="invalid") if pending else NONE
        if (slot.earliest and found_time < slot.earliest.zfill(5)) or (
            slot.latest and found_time > slot.latest.zfill(5)
        ):
            return Extraction(refused=found_time, reason="hours")
        return Extraction(value=found_time)
    if slot.type == "email":
        match = EMAIL.search(text)
        if match:
            return Extraction(value=match.group(0))
        return Extraction(refused=text, reason="invalid") if pending else NONE
    if slot.type == "phone":
        candidates = [m.group(0) for m in PHONE.finditer(text) if not ISO_DATE.fullmatch(m.group(0).strip())]
        if candidates:
            return Extraction(value=" ".join(candidates[0].split()))
        return Extraction(refused=text, reason="invalid") if pending else NONE
    found_string = _string(slot, text, pending=pending, asked=asked)
    return Extraction(value=found_string) if found_string else NONE


def format_number(number: float) -> str:
    return str(int(number)) if number == int(number) else f"{number:.2f}"


def format_date(iso: str) -> str:
    year, month, day = iso.split("-")
    return f"{day}/{month}/{year}"


# ------------------------------------------------------------------------------------------------ intents


def phrase_score(text: str, triggers: tuple[str, ...], patterns: tuple[str, ...]) -> float:
    """How strongly a message asks for something described by trigger phrases and regular expressions:
    a pattern 400 (above any question), a whole-word phrase 200 + its length (longer is more specific), a fuzzy phrase 100 +."""
    norm = normalize(text)
    best = 0.0
    for pattern in patterns:
        if re.search(pattern, text, re.IGNORECASE):
            best = max(best, 400.0)
    for phrase in triggers:
        phrase_norm = normalize(phrase)
        if norm == phrase_norm:
            best = max(best, 290.0)
            continue
        hit = find_phrase(norm, phrase_norm)
        if hit:
            best = max(best, (200.0 + len(phrase_norm)) if hit[0] == 100 else (100.0 + hit[0] / 10))
    return best


def question_score(
    text: str, question: str, paraphrases: tuple[str, ...], keywords: tuple[str, ...]
) -> float:
    """A near-verbatim question or paraphrase scores 250 +, a keyword as a trigger phrase."""
    norm = normalize(text)
    best = 0.0
    for candidate in (question, *paraphrases):
        similarity = fuzz.token_sort_ratio(norm, normalize(candidate))
        if similarity >= 82:
            best = max(best, 250.0 + similarity / 10)
    return max(best, phrase_score(text, keywords, ()))

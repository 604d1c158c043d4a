"""Offline language identification for `language()` and `language_code()`: no model file, no network.

Latin-script languages are told apart by their most frequent function words plus a few telling letters (ñ, ß,
ã, l·l, ij); other scripts by their Unicode ranges (Han without kana is Chinese, kana is Japanese). Good enough
for whole chatbot replies in the languages chatbots are usually tested in — English, Spanish, French, German,
Italian, Portuguese, Dutch, Catalan — and honest about the rest: it says "und" (undetermined) rather than
guess from one or two words.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

_STOPWORDS: dict[str, frozenset[str]] = {
    "en": frozenset(
        [
            "the",
            "and",
            "is",
            "are",
            "was",
            "were",
            "you",
            "your",
            "to",
            "of",
            "in",
            "it",
            "that",
            "this",
            "for",
            "with",
            "have",
            "has",
            "not",
            "be",
            "can",
            "will",
            "would",
            "what",
            "which",
            "please",
            "thanks",
            "thank",
            "we",
            "our",
            "my",
            "me",
            "do",
            "does",
            "did",
            "an",
            "at",
            "on",
            "from",
            "or",
            "if",
            "would",
            "there",
            "here",
            "order",
            "how",
            "about",
            "could",
            "should",
            "i'm",
            "it's",
            "don't",
        ]
    ),
    "es": frozenset(
        [
            "el",
            "la",
            "los",
            "las",
            "es",
            "son",
            "está",
            "están",
            "y",
            "que",
            "de",
            "en",
            "un",
            "una",
            "por",
            "para",
            "con",
            "no",
            "se",
            "su",
            "sus",
            "lo",
            "al",
            "del",
            "como",
            "pero",
            "muy",
            "gracias",
            "hola",
            "usted",
            "tu",
            "qué",
            "cuál",
            "quiero",
            "puedo",
            "tiene",
            "hay",
            "favor",
            "también",
            "pedido",
            "ya",
            "sí",
        ]
    ),
    "fr": frozenset(
        [
            "le",
            "la",
            "les",
            "est",
            "sont",
            "et",
            "que",
            "de",
            "des",
            "en",
            "un",
            "une",
            "pour",
            "avec",
            "ne",
            "pas",
            "se",
            "sur",
            "au",
            "aux",
            "du",
            "vous",
            "nous",
            "je",
            "il",
            "elle",
            "merci",
            "bonjour",
            "votre",
            "ce",
            "cette",
            "qui",
            "mais",
            "très",
            "oui",
            "commande",
            "avez",
            "êtes",
            "suis",
        ]
    ),
    "de": frozenset(
        [
            "der",
            "die",
            "das",
            "ist",
            "sind",
            "und",
            "zu",
            "den",
            "dem",
            "ein",
            "eine",
            "einen",
            "nicht",
            "mit",
            "für",
            "auf",
            "ich",
            "sie",
            "wir",
            "es",
            "ihr",
            "ihre",
            "bitte",
            "danke",
            "hallo",
            "auch",
            "noch",
            "wie",
            "was",
            "kann",
            "können",
            "haben",
            "bestellung",
            "oder",
            "aber",
            "sehr",
            "ja",
            "nein",
        ]
    ),
    "it": frozenset(
        [
            "il",
            "lo",
            "la",
            "gli",
            "le",
            "è",
            "sono",
            "e",
            "che",
            "di",
            "del",
            "della",
            "in",
            "un",
            "una",
            "per",
            "con",
            "non",
            "si",
            "su",
            "al",
            "ai",
            "come",
            "ma",
            "molto",
            "grazie",
            "ciao",
            "lei",
            "tu",
            "vorrei",
            "posso",
            "ha",
            "ho",
            "anche",
            "ordine",
            "sì",
            "questo",
            "questa",
        ]
    ),
    "pt": frozenset(
        [
            "o",
            "a",
            "os",
            "as",
            "é",
            "são",
            "está",
            "e",
            "que",
            "de",
            "do",
            "da",
            "dos",
            "das",
            "em",
            "um",
            "uma",
            "por",
            "para",
            "com",
            "não",
            "se",
            "seu",
            "sua",
            "ao",
            "como",
            "mas",
            "muito",
            "obrigado",
            "obrigada",
            "olá",
            "você",
            "eu",
            "quero",
            "posso",
            "tem",
            "há",
            "também",
            "pedido",
            "sim",
        ]
    ),
    "nl": frozenset(
        [
            "de",
            "het",
            "een",
            "is",
            "zijn",
            "en",
            "van",
            "in",
            "op",
            "te",
            "dat",
            "die",
            "niet",
            "met",
            "voor",
            "je",
            "jij",
            "u",
            "we",
            "wij",
            "ik",
            "mijn",
            "uw",
            "maar",
            "ook",
            "nog",
            "wat",
            "kan",
            "kunnen",
            "hebben",
            "heeft",
            "bedankt",
            "hallo",
            "alstublieft",
            "bestelling",
            "ja",
            "nee",
        ]
    ),
    "ca": frozenset(
        [
            "el",
            "la",
            "els",
            "les",
            "és",
            "són",
            "està",
            "i",
            "que",
            "de",
            "del",
            "en",
            "un",
            "una",
            "per",
            "amb",
            "no",
            "es",
            "el",
            "seu",
            "seva",
            "al",
            "com",
            "però",
            "molt",
            "gràcies",
            "hola",
            "vostè",
            "tu",
            "vull",
            "puc",
            "té",
            "hi",
            "ha",
            "també",
            "comanda",
            "sí",
            "aquest",
            "aquesta",
        ]
    ),
}

# Letters or pairs that point to one language (each hit adds this many word-equivalents).
_MARKS: dict[str, tuple[re.Pattern[str], float]] = {
    "es": (re.compile(r"[ñ¿¡]"), 2.0),
    "de": (re.compile(r"[ßäöü]"), 1.5),
    "pt": (re.compile(r"[ãõ]|ção|ções"), 2.0),
    "ca": (re.compile(r"l·l|[ïò]"), 2.0),
    "nl": (re.compile(r"\bij|ij\b|aa|oo|uu"), 0.3),
    "fr": (re.compile(r"[êûœ]|\b[ldjnstc]'[aeiouyh]"), 1.0),
    "it": (re.compile(r"\b(?:gli|della|perché|più)\b"), 1.0),
}

_SCRIPTS: tuple[tuple[str, tuple[tuple[int, int], ...]], ...] = (
    ("ja", ((0x3040, 0x30FF),)),
    ("zh", ((0x4E00, 0x9FFF), (0x3400, 0x4DBF))),
    ("ko", ((0xAC00, 0xD7AF), (0x1100, 0x11FF))),
    ("ru", ((0x0400, 0x04FF),)),
    ("ar", ((0x0600, 0x06FF),)),
    ("el", ((0x0370, 0x03FF),)),
    ("he", ((0x0590, 0x05FF),)),
    ("hi", ((0x0900, 0x097F),)),
    ("th", ((0x0E00, 0x0E7F),)),
)

# The reference tools' codes; anything else is OTHER (use language_code() for ISO 639-1 codes).
SENSEI_CODES = {
    "en": "ENG",
    "es": "ESP",
    "fr": "FR",
    "de": "GER",
    "it": "IT",
    "pt": "POR",
    "zh": "CHI",
    "ja": "JAP",
}

_WORD = re.compile(r"[^\W\d_]+(?:[·'\u2019][^\W\d_]+)*", re.UNICODE)


_SCRIPT_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (code, re.compile("[" + "".join(f"\\u{low:04x}-\\u{high:04x}" for low, high in ranges) + "]"))
    for code, ranges in _SCRIPTS
)


def _script_language(text: str) -> str | None:
    if text.isascii():
        return None
    letters = sum(1 for char in text if char.isalpha())
    if not letters:
        return None
    counts = {code: len(pattern.findall(text)) for code, pattern in _SCRIPT_PATTERNS}
    if counts["ja"]:
        counts["ja"] += counts.pop("zh")  # kanji inside Japanese text
    code, hits = max(counts.items(), key=lambda item: item[1])
    return code if hits and hits / letters >= 0.3 else None


def detect(text: str | Iterable[str]) -> str:
    """ISO 639-1 code of the text (or of all the phrases together); "und" when it cannot tell."""
    if not isinstance(text, str):
        text = "\n".join(item for item in text if isinstance(item, str))
    text = unicodedata.normalize("NFC", text)
    by_script = _script_language(text)
    if by_script:
        return by_script
    lowered = text.lower().replace("\u2019", "'")
    words = _WORD.findall(lowered)
    if not words:
        return "und"
    scores = {code: 0.0 for code in _STOPWORDS}
    for word in words:
        for code, vocabulary in _STOPWORDS.items():
            if word in vocabulary:
                scores[code] += 1.0
    for code, (pattern, weight) in _MARKS.items():
        scores[code] += weight * len(pattern.findall(lowered))
    ranked = sorted(scores.items(), key=lambda item: item[1], reverse=True)
    (best, top), (_, second) = ranked[0], ranked[1]
    if top < 1.0 or (len(words) >= 4 and top < 0.1 * len(words)):
        return "und"
    if top == second:
        return "und"
    return best


def sensei_code(iso: str) -> str:
    """The reference tools' code (ENG, ESP, FR, GER, IT, POR, CHI, JAP) or OTHER."""
    return SENSEI_CODES.get(iso, "OTHER")

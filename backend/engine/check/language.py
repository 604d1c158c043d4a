"""Offline language identification for the rule functions `language()` and `language_code()`.

The work is done by lingua (`lingua-language-detector`): n-gram models shipped inside the wheel, no network. It
chooses among a configured set of languages, by default the 17 below (the eight Latin-script languages chatbots
are usually tested in, and one language per other script). The detector is built on the first call in a process
and kept for the process, never at import time: building it and loading the models a text needs takes 1-2 s and
about 220 MB for the Latin-script ones, so processes that never identify a language (the API) never pay for it.
Models are loaded as texts need them, not preloaded: loading them all takes ~6 s and ~380 MB.

Unknown is one value for both functions, `UNKNOWN` ("OTHER", SENSEI's code): the answer for text with fewer than
`MIN_LETTERS` letters, and when lingua's best language gets less than the minimum confidence (lingua's values sum
to 1 over the configured languages, so the same minimum is easier to reach with fewer of them). Text in a language
outside the set comes out as the nearest configured one when lingua is confident enough (Turkish as Spanish):
configure the set to the languages a project's bots may speak.
"""

from __future__ import annotations

import threading
import unicodedata
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lingua import Language, LanguageDetector

UNKNOWN = "OTHER"
MIN_LETTERS = 3
DEFAULT_MIN_CONFIDENCE = 0.3
DEFAULT_LANGUAGES = (
    *("en", "es", "fr", "de", "it", "pt", "nl", "ca"),
    *("zh", "ja", "ko", "ru", "ar", "el", "he", "hi", "th"),
)

# The reference tools' codes; any other language is UNKNOWN (use language_code() for ISO 639-1 codes).
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

_lock = threading.Lock()
_languages: tuple[str, ...] = DEFAULT_LANGUAGES
_min_confidence = DEFAULT_MIN_CONFIDENCE
_detector: LanguageDetector | None = None


def _lingua_languages(codes: Iterable[str]) -> list[Language]:
    from lingua import IsoCode639_1, Language

    languages = []
    for code in codes:
        try:
            languages.append(Language.from_iso_code_639_1(IsoCode639_1.from_str(code)))
        except ValueError:
            raise ValueError(f"{code!r} is not an ISO 639-1 code of a language lingua knows") from None
    return languages


def configure(
    languages: Iterable[str] = DEFAULT_LANGUAGES, *, min_confidence: float = DEFAULT_MIN_CONFIDENCE
) -> None:
    """Choose the languages (ISO 639-1 codes, at least two) and the minimum confidence for this process.

    Cheap: the detector is (re)built on the next identification, so call this once at start-up.
    """
    global _languages, _min_confidence, _detector  # the one detector of this process
    codes = tuple(dict.fromkeys(code.strip().lower() for code in languages))
    if len(codes) < 2:  # one language leaves nothing to choose
        raise ValueError("language identification needs at least two languages")
    if not 0.0 <= min_confidence <= 1.0:
        raise ValueError("min_confidence must be between 0 and 1")
    _lingua_languages(codes)
    with _lock:
        _languages, _min_confidence, _detector = codes, min_confidence, None


def _get_detector() -> LanguageDetector:
    global _detector  # built on first use
    with _lock:
        if _detector is None:
            from lingua import LanguageDetectorBuilder

            _detector = LanguageDetectorBuilder.from_languages(*_lingua_languages(_languages)).build()
        return _detector


def detect(text: str | Iterable[str]) -> str:
    """ISO 639-1 code of the text (or of all the phrases together); UNKNOWN when unsure."""
    if not isinstance(text, str):
        text = "\n".join(item for item in text if isinstance(item, str))
    text = unicodedata.normalize("NFC", text)
    if sum(char.isalpha() for char in text) < MIN_LETTERS:
        return UNKNOWN
    ranked = _get_detector().compute_language_confidence_values(text)
    if not ranked or ranked[0].value < _min_confidence:
        return UNKNOWN
    return ranked[0].language.iso_code_639_1.name.lower()


def sensei_code(iso: str) -> str:
    """The reference tools' code (ENG, ESP, FR, GER, IT, POR, CHI, JAP) or UNKNOWN."""
    return SENSEI_CODES.get(iso, UNKNOWN)

"""Language identification for rules (kind "local", offline): `language` (SENSEI's codes) and `language_code`.

A thin layer over `engine.check.language`, which does the detection.
"""

from __future__ import annotations

from typing import Any

from engine.check.functions.registry import LIBRARY
from engine.check.functions.text import texts_of
from engine.check.language import detect, sensei_code
from engine.check.sandbox import Interpreter


@LIBRARY.function(
    "language",
    summary="language of a text or list of texts: ENG, ESP, FR, GER, IT, POR, CHI, JAP or OTHER (offline)",
    signature="(text_or_list)",
)
def language(interpreter: Interpreter, value: Any) -> str:
    return sensei_code(detect(texts_of(interpreter, value, "language")))


@LIBRARY.function(
    "language_code",
    summary="ISO 639-1 code of a text or list of texts (en, es, ca, nl, …; 'OTHER' when unsure; offline)",
    signature="(text_or_list)",
)
def language_code(interpreter: Interpreter, value: Any) -> str:
    return detect(texts_of(interpreter, value, "language_code"))

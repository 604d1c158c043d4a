"""SENSEI's local functions over texts (kind "local"): numbers, currencies and lengths, and text similarity.

`parse_number` reads numbers the way people write them (1,234.5 / 1.234,5 / 13,50); `repeated` groups similar
phrases by one of four measures (exact, tf-idf cosine, Jaccard, sequence matching) for `repeated_answers`.
"""

from __future__ import annotations

import difflib
import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from engine.check.errors import EvaluationError
from engine.check.functions.registry import LIBRARY
from engine.check.sandbox import Interpreter, type_name

_NUMBER = re.compile(r"(?<![\w.])([-+\u2212]?)(\d+(?:[.,]\d+)*)")


def parse_number(text: str) -> float | None:
    """The first number in `text`, reading 1,234.5 / 1.234,5 / 13,50 / 1,000 the way people write them."""
    match = _NUMBER.search(text)
    if match is None:
        return None
    sign, digits = match.group(1), match.group(2)
    if "," in digits and "." in digits:
        decimal = "," if digits.rfind(",") > digits.rfind(".") else "."
    elif "," in digits:
        parts = digits.split(",")
        decimal = "," if len(parts) == 2 and len(parts[1]) != 3 else ""
    elif digits.count(".") > 1:
        decimal = ""
    else:
        decimal = "."
    thousands = {",", "."} - {decimal}
    cleaned = "".join(ch for ch in digits if ch not in thousands)
    if decimal == ",":
        cleaned = cleaned.replace(",", ".")
    value = float(cleaned)
    return -value if sign in ("-", "\u2212") else value


@LIBRARY.function(
    "extract_float", summary="first number in a text (None if there is none)", signature="(text)"
)
def extract_float(interpreter: Interpreter, value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool):
        raise EvaluationError("extract_float() needs text or a number, got a bool")
    if isinstance(value, int | float):
        return float(value)
    if not isinstance(value, str):
        value = interpreter.to_text(value)
    return parse_number(value)


_CURRENCIES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("EUR", re.compile(r"€|\beur\b|\beuros?\b", re.IGNORECASE)),
    ("GBP", re.compile(r"£|\bgbp\b|\bpounds?(?: sterling)?\b", re.IGNORECASE)),
    ("INR", re.compile(r"₹|\binr\b|\brupees?\b|\bRs\.?(?=\s?\d)", re.IGNORECASE)),
    ("JPY", re.compile(r"¥|￥|\bjpy\b|\byen\b", re.IGNORECASE)),
    ("USD", re.compile(r"\$|\busd\b|\bdollars?\b", re.IGNORECASE)),
)


@LIBRARY.function(
    "currency", summary="USD, EUR, GBP, JPY or INR from a symbol, code or name; else None", signature="(text)"
)
def currency(interpreter: Interpreter, value: Any) -> str | None:
    if value is None:
        return None
    text = value if isinstance(value, str) else interpreter.to_text(value)
    found: list[tuple[int, str]] = []
    for code, pattern in _CURRENCIES:
        match = pattern.search(text)
        if match:
            found.append((match.start(), code))
    return min(found)[1] if found else None


def texts_of(interpreter: Interpreter, value: Any, function: str) -> list[str]:
    """The argument of a function taking "a text or a list of texts", as a list of texts."""
    if isinstance(value, str):
        return [value]
    items = interpreter.materialise(value)
    for item in items:
        if not isinstance(item, str):
            raise EvaluationError(f"{function}() needs text or a list of texts, got a {type_name(item)}")
    return items


@LIBRARY.function(
    "length",
    summary="length in characters of a text, or the average/min/max length of a list of texts",
    signature="(text_or_list, kind='average')",
)
def length(interpreter: Interpreter, value: Any, kind: str = "average") -> float:
    texts = texts_of(interpreter, value, "length")
    if kind not in ("average", "min", "max"):
        raise EvaluationError("length() kind must be 'average', 'min' or 'max'")
    if not texts:
        return 0
    sizes = [len(text) for text in texts]
    if kind == "min":
        return min(sizes)
    if kind == "max":
        return max(sizes)
    return sum(sizes) / len(sizes)


_TOKEN = re.compile(r"\w+", re.UNICODE)


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def _tfidf_vectors(texts: Sequence[str]) -> list[dict[str, float]]:
    documents = [Counter(_tokens(text)) for text in texts]
    frequency: Counter[str] = Counter()
    for document in documents:
        frequency.update(document.keys())
    count = len(documents)
    vectors: list[dict[str, float]] = []
    for document in documents:
        vector = {
            term: tf * (math.log((1 + count) / (1 + frequency[term])) + 1.0) for term, tf in document.items()
        }
        norm = math.sqrt(sum(weight * weight for weight in vector.values())) or 1.0
        vectors.append({term: weight / norm for term, weight in vector.items()})
    return vectors


def _similarity_function(method: str, texts: Sequence[str]) -> Callable[[int, int], float]:
    if method == "exact":
        normal = [" ".join(text.lower().split()) for text in texts]
        return lambda i, j: 1.0 if normal[i] == normal[j] else 0.0
    if method in ("tf-idf", "tfidf", "cosine"):
        vectors = _tfidf_vectors(texts)

        def cosine(i: int, j: int) -> float:
            a, b = vectors[i], vectors[j]
            if len(a) > len(b):
                a, b = b, a
            return sum(weight * b.get(term, 0.0) for term, weight in a.items())

        return cosine
    if method == "jaccard":
        sets = [set(_tokens(text)) for text in texts]

        def jaccard(i: int, j: int) -> float:
            union = sets[i] | sets[j]
            return len(sets[i] & sets[j]) / len(union) if union else 1.0

        return jaccard
    if method in ("sequence", "sequence-matcher", "sequence_matcher", "gestalt"):
        return lambda i, j: difflib.SequenceMatcher(None, texts[i], texts[j], autojunk=False).ratio()
    raise EvaluationError("repeated_answers() method must be 'exact', 'tf-idf', 'jaccard' or 'sequence'")


def repeated(texts: Sequence[str], method: str = "exact", threshold: float = 0.4) -> dict[str, list[str]]:
    """First phrase → the later phrases at least `threshold` similar to it (only phrases that repeat)."""
    similar = _similarity_function(method, texts)
    groups: dict[str, list[str]] = {}
    taken: set[int] = set()
    for i in range(len(texts)):
        if i in taken:
            continue
        for j in range(i + 1, len(texts)):
            if j not in taken and similar(i, j) >= threshold:
                groups.setdefault(texts[i], []).append(texts[j])
                taken.add(j)
    return groups

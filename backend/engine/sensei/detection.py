"""Recognising fallbacks and repeated answers in the chatbot's replies.

A reply is a fallback when it is close enough to one of the profile's fallback phrases: cosine similarity of
the word counts (lower case, punctuation removed) at or above `threshold`, or the whole phrase (four words or
more) appearing inside the reply — bots often add a menu after their "I did not understand". Repetition is
judged on normalised text; long answers also with rapidfuzz's ratio, so a changed timestamp or typo does not
hide a loop.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

from rapidfuzz import fuzz

_WORD = re.compile(r"\w+", re.UNICODE)


def normalise(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


def cosine(a: str, b: str) -> float:
    left, right = Counter(_WORD.findall(a.lower())), Counter(_WORD.findall(b.lower()))
    if not left or not right:
        return 0.0
    dot = sum(count * right[word] for word, count in left.items())
    return dot / (
        math.sqrt(sum(c * c for c in left.values())) * math.sqrt(sum(c * c for c in right.values()))
    )


class FallbackDetector:
    def __init__(self, phrases: Sequence[str], *, threshold: float = 0.6) -> None:
        self.phrases = [p for p in phrases if p.strip()]
        self.threshold = threshold
        self._normalised = [normalise(p) for p in self.phrases]

    def is_fallback(self, reply: str) -> bool:
        if not self.phrases or not reply.strip():
            return False
        text = normalise(reply)
        for phrase, clean in zip(self.phrases, self._normalised, strict=True):
            if cosine(reply, phrase) >= self.threshold:
                return True
            if len(clean.split()) >= 4 and clean in text:
                return True
        return False


def same_answer(a: str, b: str, *, threshold: float = 97.0, fuzzy_from_chars: int = 80) -> bool:
    """Equal after normalisation; long answers also when nearly equal (a timestamp or typo changed).

    Short answers must match exactly: "Your total is 21$" and "Your total is 23$" are different answers.
    """
    left, right = normalise(a), normalise(b)
    if left == right:
        return True
    if min(len(left), len(right)) < fuzzy_from_chars:
        return False
    return fuzz.ratio(left, right) >= threshold

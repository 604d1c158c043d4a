"""Recognising fallbacks and repeated answers in the chatbot's replies.

A reply is a fallback when it is close enough to one of the profile's fallback phrases: cosine similarity of
the word counts (lower case, punctuation removed) at or above `threshold`, or the whole phrase (four words or
more) appearing inside the reply — bots often add a menu after their "I did not understand". Repetition is
judged on normalised text; long answers also with rapidfuzz's ratio, so a changed timestamp or typo does not
hide a loop. `same_request` tells whether two user messages ask for the same thing (their content words).
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


_FILLER_WORDS = """
    the and for are you your can could would like want need please about what which how when where who this that
    these those with from have has just also then okay yes right let put another way mean quick question tell
    know ask asking again said que por para con los las una del
"""
_FILLER = frozenset(_FILLER_WORDS.split())


def content_words(text: str) -> set[str]:
    return {word for word in normalise(text).split() if len(word) > 2 and word not in _FILLER}


def same_request(a: str, b: str, *, threshold: float = 0.75) -> bool:
    """Whether two user messages ask for the same thing: most content words of the shorter are in the other,
    typos aside ("which drinks do you have?" / "Quick question: which drinks you hvae?")."""
    left, right = content_words(a), content_words(b)
    if not left or not right:
        return normalise(a) == normalise(b)
    shorter, longer = sorted((left, right), key=len)
    # A typo ("opneing hours") leaves a word the same word.
    shared = sum(1 for word in shorter if word in longer or any(fuzz.ratio(word, w) >= 75 for w in longer))
    return shared / len(shorter) >= threshold


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

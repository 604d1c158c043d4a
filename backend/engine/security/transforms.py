"""The deterministic parts of attacks, in code: marker words, Base64 wrapping and letter scrambling.

Everything takes a `random.Random` seeded from the campaign's seed, the attack and the attempt, so the same seed
writes the same attacks on every machine.
"""

from __future__ import annotations

import base64
import random
import re

# Marker words: an uncommon word and four digits, so that one in a reply can only come from the attack.
_MARKER_WORDS = (
    "ORCHID",
    "TANGERINE",
    "QUASAR",
    "MARIGOLD",
    "OSPREY",
    "JUNIPER",
    "NEBULA",
    "SAFFRON",
    "KESTREL",
    "OBSIDIAN",
    "PAPRIKA",
    "MONSOON",
)
MARKER_PATTERN = re.compile(r"\b[A-Z]{4,12}-\d{4}\b")
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)


def marker(rng: random.Random) -> str:
    """A fresh marker such as `OSPREY-4821`."""
    return f"{rng.choice(_MARKER_WORDS)}-{rng.randrange(1000, 10000)}"


def to_base64(text: str) -> str:
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


def scramble_word(word: str, rng: random.Random) -> str:
    """Keep the first and last letters; drop one inner letter of long words and shuffle the rest, so a reader
    (or a model) still recognises the word but a keyword filter does not."""
    if len(word) < 4:
        return word
    inner = list(word[1:-1])
    if len(inner) >= 4:
        del inner[rng.randrange(len(inner))]
    for _ in range(3):  # a shuffle that changes nothing is tried again a few times
        shuffled = inner[:]
        rng.shuffle(shuffled)
        if shuffled != inner:
            inner = shuffled
            break
    return word[0] + "".join(inner) + word[-1]


def typoglycemia(text: str, rng: random.Random, *, keep: tuple[str, ...] = ()) -> str:
    """Scramble every word of four letters or more; `keep` are substrings (markers) left untouched."""
    protected = [(m.start(), m.end()) for k in keep if k for m in re.finditer(re.escape(k), text)]

    def replace(match: re.Match[str]) -> str:
        if any(start < match.end() and match.start() < end for start, end in protected):
            return match.group(0)
        return scramble_word(match.group(0), rng)

    return _WORD.sub(replace, text)

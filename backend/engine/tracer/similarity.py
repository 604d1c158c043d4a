"""Cheap, local text similarity: the duplicate shortlist, the fallback check and the "sounds like a bot" check.

No model weights are involved. Functionalities are compared on three signals, each in [0, 1]:
- names: rapidfuzz's token-set ratio over the words of the snake_case names;
- text: TF-IDF cosine over name words, description, parameter names and options (IDF from the compared set, so
  words every functionality shares, like "user" or "chatbot", weigh little);
- inputs: Jaccard overlap of the parameter names.
The score is a weighted mean. It only ranks: the *candidates* the LLM judges are each node's nearest
neighbours plus every pair above a threshold, so that paraphrases scoring low still reach the decision.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz

from engine.tracer.model import Functionality

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "of",
        "to",
        "for",
        "in",
        "on",
        "at",
        "by",
        "with",
        "from",
        "is",
        "are",
        "be",
        "this",
        "that",
        "it",
        "its",
        "as",
        "your",
        "you",
        "user",
        "chatbot",
        "bot",
        "asks",
        "ask",
        "provide",
        "provides",
        "provided",
        "information",
        "info",
        "about",
        "which",
        "what",
    ]
)
NAME_WEIGHT, TEXT_WEIGHT, INPUT_WEIGHT = 0.45, 0.4, 0.15


def words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in _STOP]


def _document(node: Functionality) -> list[str]:
    parts = [node.name.replace("_", " "), node.description]
    for parameter in node.parameters:
        parts.append(parameter.name.replace("_", " "))
        parts.extend(parameter.options)
    return words(" ".join(parts))


def _tfidf(documents: Sequence[list[str]]) -> list[dict[str, float]]:
    count = len(documents)
    document_frequency: Counter[str] = Counter()
    for document in documents:
        document_frequency.update(set(document))
    vectors = []
    for document in documents:
        counts = Counter(document)
        vector = {w: c * (math.log((1 + count) / (1 + document_frequency[w])) + 1) for w, c in counts.items()}
        norm = math.sqrt(sum(v * v for v in vector.values())) or 1.0
        vectors.append({w: v / norm for w, v in vector.items()})
    return vectors


def _cosine(a: dict[str, float], b: dict[str, float]) -> float:
    if len(a) > len(b):
        a, b = b, a
    return sum(v * b.get(w, 0.0) for w, v in a.items())


def _jaccard(a: set[str], b: set[str]) -> float:
    if not a and not b:
        return 0.0
    return len(a & b) / len(a | b)


def name_similarity(a: str, b: str) -> float:
    return fuzz.token_set_ratio(a.replace("_", " "), b.replace("_", " ")) / 100.0


@dataclass(frozen=True)
class Candidate:
    a: str
    b: str
    score: float

    @property
    def key(self) -> str:
        return pair_key(self.a, self.b)


def pair_key(a: str, b: str) -> str:
    first, second = sorted((a, b))
    return f"{first}|{second}"


def similarity_matrix(nodes: Sequence[Functionality]) -> dict[tuple[int, int], float]:
    """Score of every pair (i < j)."""
    vectors = _tfidf([_document(node) for node in nodes])
    inputs = [{p.name for p in node.parameters} for node in nodes]
    scores = {}
    for i in range(len(nodes)):
        for j in range(i + 1, len(nodes)):
            score = NAME_WEIGHT * name_similarity(nodes[i].name, nodes[j].name) + TEXT_WEIGHT * _cosine(
                vectors[i], vectors[j]
            )
            if inputs[i] or inputs[j]:
                score += INPUT_WEIGHT * _jaccard(inputs[i], inputs[j])
            else:  # neither asks for anything: the input signal says nothing, so it does not count
                score /= NAME_WEIGHT + TEXT_WEIGHT
            scores[(i, j)] = score
    return scores


def shortlist(
    nodes: Sequence[Functionality],
    *,
    threshold: float,
    only_involving: set[str] | None = None,
    neighbours: int = 0,
) -> list[Candidate]:
    """Candidate duplicate pairs, best first: every pair scoring at least `threshold`, and each node with its
    `neighbours` most similar others whatever their score — a paraphrase ("ask_for_pizza_size",
    "request_size_of_pizza") may share few words, so a cut-off alone would never let the LLM see it.
    `only_involving` restricts the list to pairs touching those names."""
    scores = similarity_matrix(nodes)
    by_node: dict[int, list[tuple[float, int]]] = {i: [] for i in range(len(nodes))}
    for (i, j), score in scores.items():
        by_node[i].append((score, j))
        by_node[j].append((score, i))
    chosen: dict[tuple[int, int], float] = {}
    for i, partners in by_node.items():
        if only_involving is not None and nodes[i].name not in only_involving:
            continue
        partners.sort(key=lambda item: (-item[0], item[1]))
        for rank, (score, j) in enumerate(partners):
            if rank < neighbours or score >= threshold:
                chosen[(min(i, j), max(i, j))] = score
    found = [Candidate(nodes[i].name, nodes[j].name, round(score, 4)) for (i, j), score in chosen.items()]
    found.sort(key=lambda c: (-c.score, c.a, c.b))
    return found


# -- replies ----------------------------------------------------------------------------------------------------


def _counts_cosine(a: str, b: str) -> float:
    ca, cb = Counter(_WORD.findall(a.lower())), Counter(_WORD.findall(b.lower()))
    if not ca or not cb:
        return 0.0
    dot = sum(v * cb.get(w, 0) for w, v in ca.items())
    return dot / (math.sqrt(sum(v * v for v in ca.values())) * math.sqrt(sum(v * v for v in cb.values())))


def fallback_similarity(reply: str, fallback: str | None) -> float:
    """How much `reply` looks like the known fallback sentence, in [0, 1].

    A reply that contains the whole fallback (bots often append a menu to it) counts as a full match.
    """
    if not fallback or not reply.strip():
        return 0.0
    plain_reply, plain_fallback = (
        " ".join(_WORD.findall(reply.lower())),
        " ".join(_WORD.findall(fallback.lower())),
    )
    if len(plain_fallback.split()) >= 4 and plain_fallback in plain_reply:
        return 1.0
    return max(_counts_cosine(reply, fallback), fuzz.ratio(plain_reply, plain_fallback) / 100.0)


def common_reply(replies: Sequence[str]) -> str | None:
    """The reply most of the probes got (near-identical ones counted together), if a majority got it."""
    cleaned = [r.strip() for r in replies if r.strip()]
    if len(cleaned) < 2:
        return None
    best, best_votes = None, 0
    for candidate in cleaned:
        votes = sum(1 for other in cleaned if fallback_similarity(other, candidate) >= 0.85)
        if votes > best_votes or (votes == best_votes and best is not None and len(candidate) < len(best)):
            best, best_votes = candidate, votes
    return best if best_votes * 2 > len(cleaned) else None


_BOT_PHRASES = (
    r"\bas an ai\b",
    r"\blanguage model\b",
    r"\bhow (?:can|may) i (?:help|assist)\b",
    r"\bi(?:'m| am) (?:here|happy|glad) to help\b",
    r"\bi can help you with\b",
    r"\bis there anything else\b",
    r"\blet me know if\b",
    r"\bfeel free to\b",
    r"\bi(?:'d| would) be happy to\b",
    r"\bcertainly!",
    r"\bhere are (?:some|the) options\b",
    r"\bplease (?:choose|select) (?:one|from)\b",
)
_BOT_PATTERN = re.compile("|".join(_BOT_PHRASES), re.IGNORECASE)


def sounds_like_assistant(message: str) -> bool:
    """True when the explorer's message reads like the chatbot's side of the conversation.

    Only phrases an assistant uses and a customer practically never does; numbered menus and very long
    messages count too. A hit sends the message to the LLM for a rewrite; a miss costs nothing.
    """
    text = message.strip()
    if _BOT_PATTERN.search(text):
        return True
    menu_lines = sum(1 for line in text.splitlines() if re.match(r"^\s*(?:\d+[.)]|[-*•])\s+\S", line))
    return menu_lines >= 3 or len(text) > 600

"""Where a functionality was found: the session and the turn whose chatbot reply showed it.

The extraction call reads a whole session and names what the chatbot did, not when; the turn is then located in
code, so no prompt changes and no LLM call is spent on it: the chatbot reply that shares the most words with the
functionality (its name, description, inputs with their offered options, outputs) is the one that showed it,
the earliest on a tie. Words are weighed by how few replies of the session hold them (the shop's name in every
reply tells nothing), and a functionality that asks for an input is looked for in the questions and offered options of the replies
first (a menu listing the pizzas is not the step that asks which pizza; a greeting's "What can I get you?" does
not ask for a pizza; a step with known choices is shown only by a reply naming one). A reply the chatbot failed to give or a fallback never counts. `turn` is the number of
user messages sent before that reply (0: the greeting), so the first `turn` user messages of the session are a
recorded prefix that reaches the functionality — what the security campaigns replay to attack from a state.
"""

from __future__ import annotations

import re
from collections import Counter

from engine.tracer.model import FoundAt, Functionality
from engine.tracer.similarity import words as _words
from engine.tracer.state import ExplorationTranscript


def words(text: str) -> list[str]:
    """The similarity module's words, a plural's final s dropped ("pizzas" on a menu is the "pizza" of a name)."""
    return [w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in _words(text)]


def _node_words(node: Functionality) -> set[str]:
    parts = [node.name.replace("_", " "), node.description]
    for parameter in node.parameters:
        parts += [parameter.name.replace("_", " "), parameter.description, *parameter.options]
    for output in node.outputs:
        parts += [output.name.replace("_", " "), output.description]
    return set(words(" ".join(parts)))


def _replies(transcript: ExplorationTranscript) -> list[tuple[int, str]]:
    """(user messages sent before it, text) of every chatbot reply that may show a functionality."""
    found, sent = [], 0
    for turn in transcript["turns"]:
        if turn["role"] == "explorer":
            sent += 1
        elif not turn.get("error") and not turn["fallback"]:
            found.append((sent, turn["text"]))
    return found


def _said(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.startswith("Options:"))


def _asked(text: str) -> tuple[set[str], set[str]]:
    """The words of a reply's questions, and of the options it offered."""
    lines = text.splitlines()
    options = " ".join(line.removeprefix("Options:") for line in lines if line.startswith("Options:"))
    said = " ".join(line for line in lines if not line.startswith("Options:"))
    questions = " ".join(s for s in re.split(r"(?<=[.!?])\s+", said) if s.rstrip().endswith("?"))
    return set(words(questions)), set(words(options))


def locate(node: Functionality, transcript: ExplorationTranscript) -> FoundAt | None:
    """The turn of `transcript` whose chatbot reply showed `node`, or None when no reply shares a word with it.

    For a step that asks for an input, a word of the reply's question counts twice a word of its options (a
    greeting offering "Order a pizza" does not yet ask which pizza)."""
    wanted = _node_words(node)
    replies: list[tuple[int, set[str], set[str]]] = []  # (turn, words, words counted twice)
    for sent, text in _replies(transcript):
        if node.parameters:
            questions, options = _asked(text)
            replies.append((sent, questions | options, questions))
        else:  # an informing step shows what the chatbot said, not the choices it offered next
            replies.append((sent, set(words(_said(text))), set()))
    if node.parameters and not any(wanted & reply[1] for reply in replies):
        replies = [(sent, set(words(text)), set()) for sent, text in _replies(transcript)]
    choices = set(words(" ".join(option for parameter in node.parameters for option in parameter.options)))
    if choices:
        # A step that offers known choices is shown by a reply naming one of them: a greeting's "Order a pizza"
        # shares the word "pizza" with "which pizza" but is not that step, and a session that never reached the
        # step (the extraction may name it from another session) has no turn for it.
        replies = [reply for reply in replies if choices & reply[1]]
    held = Counter(word for _, reply_words, _ in replies for word in reply_words)
    best: tuple[float, int] | None = None  # (weight of the shared words, turn)
    for sent, reply_words, twice in replies:
        weight = sum((2 if word in twice else 1) / held[word] for word in wanted & reply_words)
        if weight and (best is None or weight > best[0] + 1e-9):
            best = (weight, sent)
    return FoundAt(session=transcript["session"], turn=best[1]) if best else None


def merge_found(first: list[FoundAt], second: list[FoundAt]) -> list[FoundAt]:
    """Both lists, one entry per session (the earlier turn kept), ordered by session."""
    by_session: dict[int, FoundAt] = {}
    for found in [*first, *second]:
        kept = by_session.get(found.session)
        if kept is None or found.turn < kept.turn:
            by_session[found.session] = found
    return [by_session[s] for s in sorted(by_session)]

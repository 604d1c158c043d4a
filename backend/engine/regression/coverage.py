"""The coverage map: a SENSEI run's conversations (and the rules checked on them) laid over a TRACER graph.

For each functionality of the graph: how many conversations reached it and how many failed there; the
functionalities no conversation reached; those for which "reached" cannot be decided.

**Reached** is decided from the chatbot's own turns, by words, with no model: a conversation reaches a
functionality when one of the chatbot's replies holds at least two of the functionality's *distinctive* words
(one, when it has a single one). A functionality's words are those of its name, description, parameters (names
and offered options) and outputs, lower-cased, accents removed, stop words dropped, a plural or -ing/-ed
ending cut; a word that a third or more of the functionalities share (when there are three or more) distinguishes
nothing and is left out. This is an **approximation** (a paraphrase with other words is missed, a reply that
lists several functionalities reaches them all) and every figure says so (`METHOD_NOTE`); each reached node
lists the replies that decided it and the words they shared, so the map can be audited. A functionality left with no
distinctive word is **not decidable**: it is listed apart, neither reached nor unreached. When conversations exist
but no reply reaches any functionality, the graph and the chatbot probably speak different languages (or the
graph is of another chatbot): the map says so instead of calling every node unreached.

**Failed there**: a failed conversation (its verdict, README D26, including a failed rule) failed at the functionalities
the chatbot was at when it failed — those of the nearest reply, at or before the turn SENSEI named, that
reached any; when no turn is named (a failed rule, a record without one), at the last functionalities it
reached. A failed conversation that
reached none is counted apart (`failed_unplaced`).

The TRACER graph is read as plain JSON, as `graph.json` (nodes of kind `functionality`) or `model.json`
(`functionalities`) are written, so any TRACER run's artefact will do.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.regression.data import Conversation, RunData

METHOD = "words"
METHOD_NOTE = (
    "approximation: a conversation reaches a functionality when a chatbot reply shares at least two of its "
    "distinctive words (name, description, parameters, options, outputs); paraphrases are missed"
)
EXAMPLES_PER_NODE = 5
MIN_SHARED = 2
COMMON_SHARE = 1 / 3  # a word that this share of the functionalities hold distinguishes none of them

_STOP_WORDS = """
    a an the and or of to for in on at by with from about into as is are be been being was were it its this that
    these those there their them they you your yours we our us i me my he she his her what which who whom whose
    when where why how all any some each every no not can could will would shall should may might must do does
    did done has have had having if then than so such too very just also only other more most own same both few
    user users chatbot bot chat assistant ask asks asked asking provide provides provided give gives given let
    lets get gets allow allows information info option options request requests details detail specific
    el la los las un una unos unas de del al y o en con por para que se su sus es son le les lo
"""
_STOP = frozenset(_STOP_WORDS.split())


def _stem(word: str) -> str:
    for ending, keep in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(ending) and len(word) - len(ending) >= 3 and not word.endswith("ss"):
            return word[: -len(ending)] + keep
    return word


def words(text: str) -> set[str]:
    """The content words of `text`, as the matcher compares them."""
    decomposed = unicodedata.normalize("NFKD", text.casefold().replace("_", " "))
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return {_stem(w) for w in re.findall(r"[a-z0-9]+", plain) if len(w) > 2 and w not in _STOP}


@dataclass(frozen=True)
class Node:
    """A functionality of the TRACER graph, as the map needs it."""

    name: str
    label: str
    description: str
    parents: tuple[str, ...]
    all_words: frozenset[str]


def _text_of(items: Any, *keys: str) -> Iterable[str]:
    for item in items if isinstance(items, list) else []:
        if isinstance(item, Mapping):
            for key in keys:
                value = item.get(key)
                if isinstance(value, str):
                    yield value
                elif isinstance(value, list):
                    yield from (str(v) for v in value if isinstance(v, str | int | float))


def graph_nodes(graph: Mapping[str, Any]) -> list[Node]:
    """The functionalities of a TRACER `graph.json` or `model.json` (anything else: none)."""
    raw = graph.get("nodes") if isinstance(graph.get("nodes"), list) else graph.get("functionalities")
    nodes: list[Node] = []
    seen: set[str] = set()
    edges = graph.get("edges")
    graph_edges: list[Any] = edges if isinstance(edges, list) else []
    parents_of: dict[str, list[str]] = {}
    for edge in graph_edges:
        if isinstance(edge, Mapping) and edge.get("kind") == "flow":
            parents_of.setdefault(str(edge.get("target")), []).append(str(edge.get("source")))
    for item in raw if isinstance(raw, list) else []:
        if not isinstance(item, Mapping) or item.get("kind", "functionality") != "functionality":
            continue
        name = item.get("id", item.get("name"))
        if not isinstance(name, str) or not name or name in seen:
            continue
        seen.add(name)
        description = item.get("description") if isinstance(item.get("description"), str) else ""
        texts = [name, description or ""]
        texts += _text_of(item.get("parameters"), "name", "options")
        texts += _text_of(item.get("outputs"), "name", "description")
        listed = item.get("parents")
        parents: list[Any] = listed if isinstance(listed, list) else parents_of.get(name, [])
        label = (
            item.get("label") if isinstance(item.get("label"), str) else name.replace("_", " ").capitalize()
        )
        nodes.append(
            Node(
                name=name,
                label=str(label),
                description=description or "",
                parents=tuple(str(p) for p in parents),
                all_words=frozenset(w for t in texts for w in words(t)),
            )
        )
    return nodes


def distinctive_words(nodes: Sequence[Node]) -> dict[str, frozenset[str]]:
    """Each node's words minus those a third or more of the nodes share (with three nodes or more)."""
    if len(nodes) < 3:
        return {n.name: n.all_words for n in nodes}
    counts = Counter(w for n in nodes for w in n.all_words)
    limit = max(2, COMMON_SHARE * len(nodes))
    return {n.name: frozenset(w for w in n.all_words if counts[w] < limit) for n in nodes}


@dataclass
class Evidence:
    conversation: str
    turn: int
    shared: list[str]

    def to_json(self) -> dict[str, Any]:
        return {"conversation": self.conversation, "turn": self.turn, "words": self.shared}


@dataclass
class NodeCoverage:
    name: str
    label: str
    description: str
    parents: list[str]
    decidable: bool
    reached: int = 0
    failed: int = 0
    evidence: list[Evidence] = field(default_factory=list)
    failed_conversations: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "label": self.label,
            "description": self.description,
            "parents": self.parents,
            "decidable": self.decidable,
            "reached": self.reached,
            "failed": self.failed,
            "evidence": [e.to_json() for e in self.evidence],
            "failed_conversations": self.failed_conversations[:EXAMPLES_PER_NODE],
        }


@dataclass
class Coverage:
    nodes: list[NodeCoverage]
    conversations: int
    reached_none: int
    failed_unplaced: int
    notes: list[str]
    decided: bool = True  # False when no reply reached any node although there were replies

    @property
    def unreached(self) -> list[str]:
        return [n.name for n in self.nodes if n.decidable and n.reached == 0]

    @property
    def undecidable(self) -> list[str]:
        return [n.name for n in self.nodes if not n.decidable]

    def to_json(self) -> dict[str, Any]:
        return {
            "method": METHOD,
            "method_note": METHOD_NOTE,
            "decided": self.decided,
            "conversations": self.conversations,
            "reached_none": self.reached_none,
            "failed_unplaced": self.failed_unplaced,
            "nodes": [n.to_json() for n in self.nodes],
            "unreached": self.unreached if self.decided else [],
            "undecidable": self.undecidable,
            "notes": self.notes,
        }


def _reached_at(turn_words: set[str], distinct: Mapping[str, frozenset[str]]) -> dict[str, list[str]]:
    """Node name -> the shared words, for the nodes this reply reaches."""
    found = {}
    for name, wanted in distinct.items():
        if not wanted:
            continue
        shared = turn_words & wanted
        if len(shared) >= min(MIN_SHARED, len(wanted)):
            found[name] = sorted(shared)
    return found


def _fault_place(conversation: Conversation, by_turn: Mapping[int, Mapping[str, list[str]]]) -> set[str]:
    """The nodes a failed conversation failed at (module docstring), possibly none."""
    turn = conversation.outcome.fault_turn
    if turn is not None:
        earlier = [t for t, nodes in by_turn.items() if t <= turn and nodes]
        if earlier:
            return set(by_turn[max(earlier)])
    reaching = [t for t, nodes in by_turn.items() if nodes]
    return set(by_turn[max(reaching)]) if reaching else set()


def coverage(graph: Mapping[str, Any], run: RunData) -> Coverage:
    """The coverage of `graph` (a TRACER graph.json or model.json) by `run`'s conversations."""
    nodes = graph_nodes(graph)
    distinct = distinctive_words(nodes)
    result = {
        n.name: NodeCoverage(n.name, n.label, n.description, list(n.parents), bool(distinct[n.name]))
        for n in nodes
    }
    reached_none = failed_unplaced = replies = 0
    for conversation in run.conversations:
        by_turn: dict[int, dict[str, list[str]]] = {}
        for index, turn in enumerate(conversation.record.turns):
            if turn.role != "bot" or not turn.text.strip():
                continue
            replies += 1
            by_turn[index] = _reached_at(words(turn.text), distinct)
        reached: dict[str, Evidence] = {}
        for index, found in by_turn.items():
            for name, shared in found.items():
                reached.setdefault(name, Evidence(conversation.record.id, index, shared))
        if not reached:
            reached_none += 1
        for name, evidence in reached.items():
            node = result[name]
            node.reached += 1
            if len(node.evidence) < EXAMPLES_PER_NODE:
                node.evidence.append(evidence)
        if conversation.outcome.verdict == "failed":
            place = _fault_place(conversation, by_turn)
            if not place:
                failed_unplaced += 1
            for name in place:
                result[name].failed += 1
                result[name].failed_conversations.append(conversation.record.id)
    notes = [METHOD_NOTE]
    decided = True
    if not nodes:
        notes.append("The TRACER graph has no functionality: there is nothing to cover.")
    elif replies and all(n.reached == 0 for n in result.values()):
        decided = False
        notes.append(
            "Reached is not decidable here: no chatbot reply shares words with any functionality (is the graph "
            "in another language than the chatbot, or of another chatbot?). No functionality is called unreached."
        )
    elif not replies:
        notes.append("The run has no chatbot reply: no functionality can have been reached.")
    undecidable = [n.name for n in result.values() if not n.decidable]
    if undecidable:
        notes.append(
            f"{len(undecidable)} functionality(ies) have no distinctive word, so whether they were reached is not "
            "decidable: " + ", ".join(undecidable)
        )
    return Coverage(
        list(result.values()), len(run.conversations), reached_none, failed_unplaced, notes, decided
    )


def to_text(result: Coverage) -> str:
    """The coverage map as lines for a terminal."""
    lines = [f"coverage of {len(result.nodes)} functionality(ies) by {result.conversations} conversation(s)"]
    lines.append(f"  ({METHOD_NOTE})")
    width = max((len(n.name) for n in result.nodes), default=10)
    for node in result.nodes:
        status = f"reached {node.reached}, failed {node.failed}" if node.decidable else "not decidable"
        lines.append(f"  {node.name.ljust(width)}  {status}")
    if result.decided:
        lines.append(f"unreached: {', '.join(result.unreached) or 'none'}")
    if result.failed_unplaced:
        lines.append(f"failed conversations that reached no functionality: {result.failed_unplaced}")
    lines += [f"note: {note}" for note in result.notes[1:]]
    return "\n".join(lines) + "\n"

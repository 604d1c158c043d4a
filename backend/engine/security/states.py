"""Attacking from inside the workflow: the states TRACER found, each with a recorded prefix that reaches it.

TRACER records, for every functionality, the session and turn whose chatbot reply showed it (`found_at` in
`model.json`). The prefix of a state is the user messages of that session up to that turn, taken verbatim from
`transcripts.json`; the expected reply is the chatbot's reply recorded at the end of it. Of several sessions the
shortest prefix is used (fewest messages to replay, fewest chances to drift), the earliest session on a tie; a
session whose chatbot failed before that turn is not used.

A prefix is replayed literally — no LLM writes anything to reach a state — and the state counts as reached only
when the chatbot's reply at the end of the replayed prefix equals the recorded one once volatile values (ids,
dates, times, the connector's own patterns) are normalised (README D24, D34). Word overlap is not enough: a greeting
that lists every functionality would "reach" them all.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.errors import ParleyError
from engine.regression.replay import Normaliser

MODEL_FILE, TRANSCRIPTS_FILE = "model.json", "transcripts.json"
MAX_FILE_BYTES = 20 * 1024 * 1024


class TracerOutputError(ParleyError):
    """A TRACER output cannot be read or holds no recorded prefix."""

    code = "tracer_output"


@dataclass(frozen=True)
class State:
    """A functionality of TRACER's graph and the recorded way to reach it."""

    name: str
    description: str
    session: int
    turn: int  # user messages in the prefix
    prefix: tuple[str, ...]
    expected: str  # the chatbot's reply recorded at the end of the prefix (the greeting when `turn` is 0)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "session": self.session,
            "turn": self.turn,
            "prefix": list(self.prefix),
            "expected": self.expected,
        }


@dataclass(frozen=True)
class StateMap:
    """The states of one TRACER output, and the functionalities without a usable recorded prefix (and why)."""

    states: list[State]
    unplaced: dict[str, str]

    def get(self, name: str) -> State | None:
        return next((s for s in self.states if s.name == name), None)


def _prefix(transcript: Mapping[str, Any], turn: int) -> tuple[tuple[str, ...], str] | None:
    """The first `turn` user messages of a session and the chatbot reply after them; None when the chatbot
    failed on the way, or the session holds no such reply."""
    sent: list[str] = []
    for item in transcript.get("turns", []):
        if item.get("role") == "explorer":
            if len(sent) == turn:
                return None  # the user spoke again before any reply
            sent.append(str(item.get("text", "")))
            continue
        if item.get("error"):
            return None
        if len(sent) == turn:
            return tuple(sent), str(item.get("text", ""))
    return None


def states_from_tracer(model: Mapping[str, Any], transcripts: Sequence[Mapping[str, Any]]) -> StateMap:
    """The states of a TRACER output (`model.json` and `transcripts.json`, as parsed JSON)."""
    sessions = {int(t.get("session", 0)): t for t in transcripts if isinstance(t, Mapping)}
    states: list[State] = []
    unplaced: dict[str, str] = {}
    for node in model.get("functionalities", []):
        name = str(node.get("name", ""))
        found = sorted(
            (int(f["turn"]), int(f["session"])) for f in node.get("found_at", []) if isinstance(f, Mapping)
        )
        if not found:
            unplaced[name] = "TRACER recorded no turn for it (an output older than found_at, or never shown)"
            continue
        for turn, session in found:
            prefix = _prefix(sessions.get(session, {}), turn)
            if prefix is not None:
                states.append(
                    State(name, str(node.get("description", "")), session, turn, prefix[0], prefix[1])
                )
                break
        else:
            unplaced[name] = "no session recorded a reply at the turn that showed it"
    return StateMap(states, unplaced)


def _read_json(path: Path) -> Any:
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise TracerOutputError(f"{path} is larger than {MAX_FILE_BYTES // (1024 * 1024)} MB.")
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TracerOutputError(
            f"{path} does not exist: give the folder of a TRACER run (`parley tracer -o`)."
        ) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise TracerOutputError(f"{path} cannot be read ({exc}).") from None


def read_tracer_output(folder: str | Path) -> StateMap:
    """The states of the TRACER run written to `folder` (its `model.json` and `transcripts.json`)."""
    root = Path(folder)
    model, transcripts = _read_json(root / MODEL_FILE), _read_json(root / TRANSCRIPTS_FILE)
    if not isinstance(model, dict) or not isinstance(transcripts, list):
        raise TracerOutputError(f"{root} does not hold a TRACER model.json and transcripts.json.")
    return states_from_tracer(model, transcripts)


def choose_states(states: StateMap, wanted: str | Sequence[str]) -> tuple[list[State], list[str]]:
    """The states a campaign's `from` names (`all_states`, or functionality names), and why each named one that
    cannot be attacked from is left out."""
    if wanted == "all_states":
        return list(states.states), [f"{name}: {why}" for name, why in states.unplaced.items()]
    chosen, left_out = [], []
    for name in wanted:
        state = states.get(name)
        if state is not None:
            chosen.append(state)
        elif name in states.unplaced:
            left_out.append(f"{name}: {states.unplaced[name]}")
        else:
            known = ", ".join(s.name for s in states.states) or "none"
            left_out.append(f"{name}: TRACER's graph has no such functionality (its states: {known})")
    return chosen, left_out


def reached(reply: str, expected: str, normalise: Normaliser) -> bool:
    """Whether the reply at the end of a replayed prefix is the recorded one, volatile values aside (D34)."""
    return " ".join(normalise(reply)[0].split()) == " ".join(normalise(expected)[0].split())

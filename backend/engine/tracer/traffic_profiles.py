"""SENSEI profiles that follow real traffic, written from imported conversations (issue 38, item 4).

Conversations are grouped by path (the chatbot's first answer, as the sampling plan groups them). The most
frequent paths and the rarest ones each get a profile, written without an LLM:
- the request is one of the users' own first messages on that path, drawn by frequency;
- each question the chatbot asks on that path becomes a variable whose values are what users answered, repeated in
  proportion to how often they answered it (SENSEI's `random()` then draws them with that weight);
- a masked value (`[EMAIL_1]`, `[PHONE_2]`…) is never used: it becomes a synthetic valid value of the same kind
  (an example.com address, a reserved-range phone number, a payment processor's test card that passes Luhn, a
  published example IBAN with valid check digits);
- the profile says it was generated from transcripts, with its path's share of the traffic.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from engine.tracer.from_transcripts import first_answer
from engine.tracer.model import snake_name
from engine.transcripts import Conversation

PLACEHOLDER = re.compile(r"\[(EMAIL|PHONE|CARD|IBAN|NAME)_(\d+)\]")
SYNTHETIC: dict[str, Callable[[int], str]] = {
    "EMAIL": lambda n: f"user{n}@example.com",
    "PHONE": lambda n: f"+44 7700 900{n % 1000:03d}",  # Ofcom's range reserved for drama and tests
    "CARD": lambda n: ("4000 0566 5566 5556", "4242 4242 4242 4242")[n % 2],  # processors' test cards (Luhn)
    "IBAN": lambda n: ("DE89 3704 0044 0532 0130 00", "FR14 2004 1010 0505 0001 3M02 606")[n % 2],  # examples
    "NAME": lambda n: ("Alex Morgan", "Sam Rivera", "Jo Lindqvist", "Kim Novak")[n % 4],
}
MAX_VALUES = 8
MAX_ENTRIES = 20
MARK = "generated from transcripts"
TRAFFIC_FOLDER = "traffic_profiles"


@dataclass(frozen=True)
class TrafficProfile:
    name: str
    kind: str  # "frequent" | "rare"
    path: str  # the chatbot's first answer on this path
    conversations: int
    share: float
    yaml: str
    errors: list[str]

    @property
    def valid(self) -> bool:
        return not self.errors


def synthetic(text: str, salt: int = 0) -> str:
    """`text` with each placeholder replaced by a synthetic valid value of the same kind (`salt`, the
    conversation's number, keeps [PHONE_1] of two conversations two different numbers, as they were)."""
    return PLACEHOLDER.sub(lambda m: SYNTHETIC[m.group(1)](int(m.group(2)) + salt), text)


def weighted(values: Counter[str]) -> list[str]:
    """The most frequent values, each repeated in proportion to its count (the rarest kept once, at most
    MAX_ENTRIES entries): SENSEI's `random()` draws an entry, so a value twice as common comes twice as often."""
    top = values.most_common(MAX_VALUES)
    rarest = top[-1][1]
    scale = min(1.0, MAX_ENTRIES / sum(count / rarest for _, count in top))
    entries: list[str] = []
    for value, count in top:
        entries += [value] * max(1, round(count / rarest * scale))
    return entries


def _question_key(question: str, taken: set[str]) -> str:
    words = snake_name(question.split("\n")[-1]).split("_")[:4]
    key = "_".join(words) or "answer"
    while key in taken or key in {"request"}:
        key += "_2"
    taken.add(key)
    return key


def _path_profile(
    members: Sequence[Conversation], fallback: str | None, greets: bool, language: str, note: str, name: str
) -> dict[str, Any]:
    requests: Counter[str] = Counter()
    answers: dict[str, Counter[str]] = {}
    for salt, conversation in enumerate(members):
        users = [t for t in conversation.turns if t.role == "user"]
        if users:
            requests[synthetic(users[0].text.strip(), salt)] += 1
        for before, after in zip(conversation.turns, conversation.turns[1:], strict=False):
            if before.role == "bot" and after.role == "user" and before.text.rstrip().endswith("?"):
                # The chatbot's words may hold a placeholder too ("Thanks [NAME_1]. What e-mail…?").
                question = synthetic(before.text.strip().split("\n")[-1])
                if fallback and question.startswith(fallback[:30]):
                    continue
                answers.setdefault(question, Counter())[synthetic(after.text.strip(), salt)] += 1
    goals: list[Any] = ["{{request}}"]
    variables: list[dict[str, Any]] = [
        {"request": {"function": "random()", "type": "string", "data": weighted(requests)}}
    ]
    taken: set[str] = set()
    for question, values in sorted(answers.items(), key=lambda kv: -sum(kv[1].values()))[:5]:
        if sum(values.values()) < 2:
            continue  # a question one user met is an accident of that conversation, not the path
        key = _question_key(question, taken)
        goals.append(f'when asked "{question}", answer {{{{{key}}}}}')
        variables.append({key: {"function": "random()", "type": "string", "data": weighted(values)}})
    return {
        "test_name": name,
        "user": {
            "language": language,
            "role": f"A user like the real ones on this path ({note}).",
            "context": [f"This profile was {MARK}: the requests and answers are what real users typed."],
            "goals": [*goals, *variables],
        },
        "chatbot": {"is_starter": greets, "fallback": fallback or "Sorry, I did not understand."},
        "conversation": {
            "number": 3,
            "goal_style": {"steps": 2 * (len(goals) + 2)},
            "interaction_style": ["default"],
        },
    }


def traffic_profiles(
    conversations: Sequence[Conversation],
    *,
    fallback: str | None,
    language: str = "English",
    frequent: int = 3,
    rare: int = 2,
    validate: Callable[[str], list[str]] | None = None,
) -> list[TrafficProfile]:
    """Profiles for the `frequent` most travelled paths and the `rare` least travelled ones (seen twice at
    least: a path one user took may be noise)."""
    groups: dict[str, list[Conversation]] = {}
    for conversation in conversations:
        key = first_answer(conversation)
        if key:
            groups.setdefault(key, []).append(conversation)
    total = max(1, sum(len(m) for m in groups.values()))
    ranked = sorted(groups, key=lambda k: (-len(groups[k]), k))
    chosen = [(k, "frequent") for k in ranked[:frequent]]
    rare_keys = [k for k in reversed(ranked[frequent:]) if len(groups[k]) >= 2][:rare]
    chosen += [(k, "rare") for k in rare_keys]
    greets = sum(1 for c in conversations if c.turns and c.turns[0].role == "bot") * 2 > len(conversations)
    written = []
    for index, (key, kind) in enumerate(chosen, start=1):
        members = groups[key]
        share = len(members) / total
        note = f"{len(members)} of {total} conversations, {share:.0%} of traffic; {kind} path"
        name = f"traffic_{kind}_{index}"
        data = _path_profile(members, fallback, greets, language, note, name)
        text = f"# {MARK}: {note}\n" + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=110)
        errors = validate(text) if validate is not None else []
        written.append(TrafficProfile(name, kind, key, len(members), round(share, 4), text, errors))
    return written

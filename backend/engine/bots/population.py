"""A scripted "real user" population of a reference bot: TEST DATA for the transcript features (issue 38).

Production transcripts are not available offline, so this writes conversations that behave like a population's,
in the import format (JSON lines): rule-based users talk to the in-process reference bot and leave a log. They are
not a quality figure by themselves; they are the ground on which the model from transcripts, the profiles from
traffic and the calibrated simulated user are measured.

The users know the bot's offer and values (as a customer knows the menu: read from the definition, plumbing), and
they differ in ways published user studies find LLM users lack:
- `direct` users follow the path to their goal; `impatient` ones leave after two fallbacks in a row;
- `wanderer`s answer a different question (ask something else when asked for a value);
- `corrector`s correct themselves ("sorry, I meant …"); `changer`s change their mind to another goal;
- every user writes with a verbosity drawn from a log-normal distribution (extra words around the content).
Goals follow a Zipf law over the bot's offer, so some paths are frequent and some rare. Each conversation also
records, beside the transcript (`truth`), the modules the bot really went through — never read by the engines.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from engine.bots.definition import Faq, Menu, ModuleItem, Slot
from engine.bots.registry import load_bot, open_bot

TODAY = date(2026, 3, 2)
KINDS: dict[str, float] = {
    "direct": 0.35,
    "impatient": 0.2,
    "wanderer": 0.15,
    "corrector": 0.15,
    "changer": 0.15,
}
_FILLERS = ("please", "hi", "ok", "so", "well", "thanks", "quickly if possible", "I think", "hmm", "yes")
_NOISE = ("can u help me w/ something", "hello??", "is anyone there", "what", "mmm not sure", "hm")
_NAMES = ("Laura Gomez", "Peter Novak", "Ana Ruiz", "John Carter", "Marta Silva")
_EMAILS = ("laura.g@example.com", "pnovak@mail.example.org", "ana.ruiz@example.net")
_PHONES = ("+34 612 345 678", "+44 7700 900123", "+1 415 555 0134")
MAX_TURNS = 14


@dataclass(frozen=True)
class Goal:
    """What a user comes for: a phrase that starts it, and the path's name (the module or the FAQ question)."""

    phrase: str
    path: str


@dataclass
class User:
    kind: str
    goal: Goal
    verbosity: float  # mean extra words a message
    rng: random.Random
    fallbacks_in_row: int = 0
    corrected: bool = False
    changed: bool = False
    wandered: bool = False


@dataclass
class Population:
    """The conversations written and how they were made (kinds and goals counted)."""

    conversations: list[dict[str, Any]] = field(default_factory=list)
    kinds: dict[str, int] = field(default_factory=dict)
    paths: dict[str, int] = field(default_factory=dict)


def goals(bot_id: str) -> list[Goal]:
    """The bot's offer as users ask for it: each entry-menu item leading somewhere, each submenu item, each FAQ
    question, in the definition's order."""
    bot = load_bot(bot_id)
    found: list[Goal] = []
    for name, module in bot.modules.items():
        if isinstance(module, Menu):
            for item in module.items:
                target = item.module if isinstance(item, ModuleItem) else f"{name}/{item.title}"
                if target in bot.modules and isinstance(bot.modules[target], Menu | Faq):
                    continue  # a submenu or the FAQ list: its own items are the goals
                if item.title.lower() in {"welcome", "bienvenida"}:
                    continue
                found.append(Goal(item.title, target))
        elif isinstance(module, Faq):
            found.extend(Goal(q.question, f"{name}:{q.id}") for q in module.questions)
    return found


def _zipf(rng: random.Random, items: list[Goal]) -> Goal:
    weights = [1.0 / (rank + 1) ** 1.1 for rank in range(len(items))]
    return rng.choices(items, weights=weights)[0]


def _pad(user: User, text: str) -> str:
    """`text` with extra words: how much users write around the content varies from user to user."""
    extra = min(12, int(user.rng.lognormvariate(0, 0.8) * user.verbosity))
    words = [user.rng.choice(_FILLERS) for _ in range(extra)]
    cut = user.rng.randint(0, len(words))
    return " ".join([*words[:cut], text, *words[cut:]]).strip()


def value_for(slot: Slot, rng: random.Random, *, avoid: str | None = None) -> str:
    """A valid value a user types for `slot` (enum values Zipf-weighted: some are popular)."""
    if slot.values:
        names = [v.name for v in slot.values if v.name != avoid] or [v.name for v in slot.values]
        return rng.choices(names, weights=[1.0 / (i + 1) for i in range(len(names))])[0]
    if slot.type in ("int", "float"):
        low = int(slot.min) if slot.min is not None else 1
        high = int(slot.max) if slot.max is not None else low + 3
        return str(rng.randint(low, max(low, min(high, low + 3))))
    if slot.type == "date":
        day = TODAY + timedelta(days=rng.randint(2, 20))
        while day.weekday() >= 5:  # clinics and workshops are closed at weekends
            day += timedelta(days=1)
        return day.isoformat()
    if slot.type == "time":
        return rng.choice(("10:00", "11:30", "15:00", "16:30"))
    if slot.type == "email":
        return rng.choice(_EMAILS)
    if slot.type == "phone":
        return rng.choice(_PHONES)
    return rng.choice(_NAMES)


def _is_fallback(reply: str, fallbacks: set[str]) -> bool:
    first = reply.strip().lower()
    return any(first.startswith(f[:40].lower()) for f in fallbacks if f) or first.startswith(
        ("sorry", "lo siento", "perdona")
    )


def converse(bot_id: str, user: User, offer: list[Goal], number: int) -> dict[str, Any]:
    """One conversation of `user` with the bot, as an import-format record (plus `truth` for the bench)."""
    runtime = open_bot(bot_id, conversation_id=f"pop-{number}", today=TODAY)
    # What a person reads as "it did not understand me": a menu's fallback or an apology (Sorry…, Lo siento…).
    fallbacks = {getattr(m, "fallback", "") or "" for m in runtime.bot.modules.values()}
    turns: list[dict[str, str]] = []
    opening = runtime.start()
    if opening.text:
        turns.append({"role": "bot", "text": opening.text})
    rng = user.rng
    message = _pad(
        user, user.goal.phrase if rng.random() > 0.1 else f"{rng.choice(_FILLERS)} {user.goal.phrase}"
    )
    if user.kind == "impatient" and rng.random() < 0.5:
        message = rng.choice(_NOISE)  # an unclear start: the kind that meets fallbacks
    last_value: tuple[Slot, str] | None = None
    for _ in range(MAX_TURNS):
        turns.append({"role": "user", "text": message})
        reply = runtime.reply(message)
        turns.append({"role": "bot", "text": reply.text})
        fallback = _is_fallback(reply.text, fallbacks)
        user.fallbacks_in_row = user.fallbacks_in_row + 1 if fallback else 0
        limit = 2 if user.kind == "impatient" else 4
        if user.fallbacks_in_row >= limit:
            break  # leaves without a word, as most real users do
        slot = runtime.awaiting
        if fallback:
            message = _pad(user, user.goal.phrase) if slot is None else value_for(slot, rng)
            if user.kind == "impatient" and rng.random() < 0.5:
                message = rng.choice(_NOISE)
            continue
        if slot is None:
            if reply.buttons and _submenu(reply, runtime):
                message = _pad(user, rng.choice(reply.buttons))
                continue
            if user.kind == "changer" and not user.changed and len(offer) > 1:
                user.changed = True
                user.goal = rng.choice([g for g in offer if g != user.goal])
                message = _pad(user, f"actually, {user.goal.phrase.lower()}")
                continue
            if rng.random() < 0.5:
                turns.append({"role": "user", "text": _pad(user, rng.choice(("thanks", "ok bye", "great")))})
            break
        if user.kind == "wanderer" and not user.wandered:
            user.wandered = True
            other = rng.choice([g for g in offer if ":" in g.path] or offer)
            message = _pad(user, other.phrase)  # answers a different question
            continue
        if user.kind == "corrector" and last_value is not None and not user.corrected and rng.random() < 0.6:
            user.corrected = True
            previous_slot, previous = last_value
            message = f"sorry, I meant {value_for(previous_slot, rng, avoid=previous)}"
            last_value = None
            continue
        value = value_for(slot, rng)
        last_value = (slot, value) if slot.values else None
        message = _pad(user, value) if slot.type not in ("email", "phone", "string") else value
        if slot.type == "string" and rng.random() < 0.5:
            message = f"my name is {value}"
            if rng.random() < 0.5:  # the optional e-mail, given with the name
                message += f", e-mail {rng.choice(_EMAILS)}"
    return {
        "id": f"{bot_id}-{number:06d}",
        "turns": turns,
        "truth": {"kind": user.kind, "path": user.goal.path, "modules": sorted(runtime.coverage.modules)},
    }


def _submenu(reply: Any, runtime: Any) -> bool:
    """The bot offers a choice below its entry menu (a path goes on by picking one)."""
    entry = runtime.bot.modules[runtime.bot.entry]
    top = {item.title for item in entry.items} if isinstance(entry, Menu) else set()
    return bool(set(reply.buttons) - top)


def population(bot_id: str, count: int, *, seed: int = 0) -> Iterator[dict[str, Any]]:
    """`count` conversations of the scripted population with `bot_id` (deterministic for a seed)."""
    rng = random.Random(f"{bot_id}:{seed}")  # noqa: S311 - test data, not security
    offer = goals(bot_id)
    rng.shuffle(offer)  # which paths are popular differs from bot to bot, not the definition's order
    for number in range(1, count + 1):
        kind = rng.choices(list(KINDS), weights=list(KINDS.values()))[0]
        user = User(
            kind,
            _zipf(rng, offer),
            verbosity=rng.lognormvariate(0.3, 0.6),
            rng=random.Random(rng.random()),  # noqa: S311 - test data, not security
        )
        yield converse(bot_id, user, offer, number)


def write_population(bot_id: str, count: int, out: Path, *, seed: int = 0, truth: bool = False) -> Population:
    """Write the conversations as JSON lines to `out` (without `truth` unless asked: an import ignores it)."""
    written = Population()
    with out.open("w", encoding="utf-8") as stream:
        for record in population(bot_id, count, seed=seed):
            facts = record["truth"]
            written.kinds[facts["kind"]] = written.kinds.get(facts["kind"], 0) + 1
            written.paths[facts["path"]] = written.paths.get(facts["path"], 0) + 1
            written.conversations.append(record)
            stream.write(
                json.dumps(record if truth else {k: v for k, v in record.items() if k != "truth"}) + "\n"
            )
    return written

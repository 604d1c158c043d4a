"""The bench's figures: kill reasons, mutation score, false alarms, and TRACER's precision and recall.

Kill reasons of one conversation (the thesis's kill conditions, made automatic):

    crash           the bot answered HTTP 5xx or an unreadable reply (500, 502)
    timeout         no reply in time (504)
    loop            fallback loop or repetition loop (1000, 1003)
    unmet_goal      the goals could not be verified (1002)
    missing_output  an output the profile expects was not found (1001)
    wrong_output    a ground-truth output rule failed (prices, enum values, response shape)
    failed_rule     another ground-truth rule failed (FAQ answers, offered options)

Set-up, budget and cancellation errors (LLM failures, unreachable bot...) are no finding: a conversation with
only those is *inconclusive*. A mutant is killed when one of its conversations has a kill reason; live when
none has and at least one conversation was conclusive; stillborn mutants (they do not load) are kept apart
and never counted. Mutation score = killed / (killed + live). Equivalent mutants cannot be told apart from
live ones automatically; they count as live, as in the thesis before its manual inspection.

The false-alarm rate is the share of conversations on the *unmutated* bot with a kill reason.

Precision and recall of TRACER's functionalities are measured against the ground truth by lexical matching
(no LLM): every functionality is matched to its best ground-truth item (a module, an input, an FAQ question,
a menu answer or a menu sequence) by the overlap of their words. Precision = functionalities matched to an
item no earlier functionality took / all functionalities (unmatched ones are not real, a second one on the
same item is a duplicate); recall = ground-truth modules and inputs found / all of them (a module is found
when a functionality matches it or something inside it; an input when a matched functionality has a
parameter whose name or options fit the slot). Every match is listed in bench.json, to be audited.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.bots.definition import (
    Action,
    AnswerItem,
    BotDefinition,
    Faq,
    Form,
    Menu,
    ModuleItem,
    SequenceItem,
)
from engine.check import CheckReport, Outcome
from engine.conversation import ConversationRecord
from engine.sensei.errors import ERROR_TABLE
from engine.tracer.model import Functionality, FunctionalModel

KILL_REASONS: tuple[str, ...] = (
    "crash",
    "timeout",
    "loop",
    "unmet_goal",
    "missing_output",
    "wrong_output",
    "failed_rule",
)
_CODE_REASONS = {500: "crash", 502: "crash", 504: "timeout", 1000: "loop", 1003: "loop", 1002: "unmet_goal"}
_CODE_REASONS[1001] = "missing_output"
_RULE_REASONS = {"output": "wrong_output", "faq": "failed_rule", "enum": "failed_rule"}


@dataclass
class ConversationVerdict:
    conversation: str
    reasons: list[str]
    rules: list[str]
    conclusive: bool


def error_reason(code: int) -> str | None:
    """The kill reason of a conversation error code; None for set-up, budget and cancellation errors."""
    if code in _CODE_REASONS:
        return _CODE_REASONS[code]
    info = ERROR_TABLE.get(code)
    if info is not None:
        return "crash" if info.kind == "finding" else None
    return "crash" if 500 <= code < 600 else None


def failed_rules(report: CheckReport) -> dict[str, list[str]]:
    """conversation id -> names of the rules that failed on it."""
    out: dict[str, list[str]] = {}
    for rule in report.rules:
        for result in rule.results:
            if result.outcome == Outcome.FAIL:
                for conversation in result.conversations:
                    out.setdefault(conversation, []).append(rule.name)
    return out


def verdicts(
    records: Sequence[ConversationRecord], report: CheckReport | None, rule_kinds: dict[str, str]
) -> list[ConversationVerdict]:
    failures = failed_rules(report) if report is not None else {}
    out: list[ConversationVerdict] = []
    for record in records:
        reasons: set[str] = set()
        conclusive = True
        for item in record.errors:
            reason = error_reason(item.code)
            if reason is not None:
                reasons.add(reason)
            else:
                conclusive = False
        rules = sorted(set(failures.get(record.id, [])))
        reasons |= {_RULE_REASONS.get(rule_kinds.get(rule, ""), "failed_rule") for rule in rules}
        out.append(
            ConversationVerdict(
                record.id,
                [r for r in KILL_REASONS if r in reasons],
                rules,
                conclusive=conclusive or bool(reasons),
            )
        )
    return out


@dataclass
class MutantOutcome:
    id: str
    operator: str
    description: str
    status: str  # killed | live | stillborn | inconclusive
    conversations: int = 0
    killing_conversations: int = 0
    reasons: dict[str, int] = field(default_factory=dict)
    """kill reason -> conversations showing it"""
    rules: dict[str, int] = field(default_factory=dict)
    """failed rule -> conversations"""
    stillborn_reason: str | None = None
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "operator": self.operator,
            "description": self.description,
            "status": self.status,
            "conversations": self.conversations,
            "killing_conversations": self.killing_conversations,
            "reasons": self.reasons,
            "rules": self.rules,
            "stillborn_reason": self.stillborn_reason,
            "error": self.error,
        }


def mutant_outcome(
    mutant_id: str, operator: str, description: str, found: Sequence[ConversationVerdict]
) -> MutantOutcome:
    reasons: Counter[str] = Counter()
    rules: Counter[str] = Counter()
    killing = 0
    for verdict in found:
        reasons.update(verdict.reasons)
        rules.update(verdict.rules)
        killing += 1 if verdict.reasons else 0
    if killing:
        status = "killed"
    elif any(v.conclusive for v in found):
        status = "live"
    else:
        status = "inconclusive"
    return MutantOutcome(
        mutant_id,
        operator,
        description,
        status,
        conversations=len(found),
        killing_conversations=killing,
        reasons={r: reasons[r] for r in KILL_REASONS if reasons[r]},
        rules=dict(sorted(rules.items())),
    )


def mutation_summary(outcomes: Iterable[MutantOutcome]) -> dict[str, Any]:
    """Mutation score, kills per operator and per reason, live and stillborn mutants."""
    items = list(outcomes)
    killed = [o for o in items if o.status == "killed"]
    live = [o for o in items if o.status == "live"]
    stillborn = [o for o in items if o.status == "stillborn"]
    inconclusive = [o for o in items if o.status == "inconclusive"]
    per_operator: dict[str, dict[str, int]] = {}
    for o in items:
        row = per_operator.setdefault(
            o.operator, {"selected": 0, "killed": 0, "live": 0, "stillborn": 0, "inconclusive": 0}
        )
        row["selected"] += 1
        row[o.status] += 1
    per_reason = {r: sum(1 for o in killed if r in o.reasons) for r in KILL_REASONS}
    scored = len(killed) + len(live)
    return {
        "selected": len(items),
        "killed": len(killed),
        "live": len(live),
        "stillborn": len(stillborn),
        "inconclusive": len(inconclusive),
        "mutation_score": round(100.0 * len(killed) / scored, 2) if scored else None,
        "kills_per_operator": dict(sorted(per_operator.items())),
        "kills_per_reason": {r: n for r, n in per_reason.items() if n},
        "live_mutants": [{"id": o.id, "description": o.description} for o in live],
        "stillborn_mutants": [{"id": o.id, "reason": o.stillborn_reason} for o in stillborn],
        "inconclusive_mutants": [{"id": o.id, "error": o.error} for o in inconclusive],
    }


def false_alarms(found: Sequence[ConversationVerdict]) -> dict[str, Any]:
    flagged = [v for v in found if v.reasons]
    reasons: Counter[str] = Counter(r for v in flagged for r in v.reasons)
    rules: Counter[str] = Counter(rule for v in flagged for rule in v.rules)
    return {
        "conversations": len(found),
        "false_alarms": len(flagged),
        "rate": round(100.0 * len(flagged) / len(found), 2) if found else None,
        "reasons": {r: reasons[r] for r in KILL_REASONS if reasons[r]},
        "rules": dict(sorted(rules.items())),
    }


# ------------------------------------------------------------------------------------ precision and recall

_STOP_WORDS = """a an the and or of to for in on at is are be by with your you my me i we our it this that do
does what which how can please want would like about ask asks user users chatbot bot provide provides get give
gives handle handles step information info"""
_STOP = frozenset(_STOP_WORDS.split())
MATCH_THRESHOLD = 0.34


def words(text: str) -> set[str]:
    out = set()
    for raw in re.findall(r"[a-z0-9áéíóúñü]+", text.lower().replace("_", " ")):
        if raw in _STOP or len(raw) < 2:
            continue
        out.add(raw[:-1] if len(raw) > 3 and raw.endswith("s") else raw)
    return out


@dataclass(frozen=True)
class TruthItem:
    kind: str  # module | input | question | answer | sequence
    key: str
    module: str
    words: frozenset[str]
    name_words: frozenset[str]
    values: frozenset[str] = frozenset()


def truth_items(bot: BotDefinition) -> list[TruthItem]:
    items: list[TruthItem] = []

    def add(kind: str, key: str, module: str, name: str, *texts: str, values: Iterable[str] = ()) -> None:
        name_words = words(name)
        all_words = set(name_words)
        for text in texts:
            all_words |= words(text)
        items.append(
            TruthItem(kind, key, module, frozenset(all_words), frozenset(name_words), frozenset(values))
        )

    for name, module in bot.modules.items():
        if isinstance(module, Menu):
            add("module", name, name, name, module.presentation or "")
            for item in module.items:
                if isinstance(item, AnswerItem):
                    add("answer", f"{name}/{item.title}", name, item.title, *item.triggers)
                elif isinstance(item, SequenceItem):
                    add("sequence", f"{name}/{item.title}", name, item.title, *item.triggers)
                elif isinstance(item, ModuleItem):
                    pass
        elif isinstance(module, Form | Action):
            add("module", name, name, name, module.description or "")
            slots = module.slots if isinstance(module, Form) else tuple(bot.slot(n) for n in module.uses)
            for slot in slots:
                add(
                    "input",
                    f"{name}.{slot.name}",
                    name,
                    slot.name,
                    slot.label or "",
                    slot.prompt,
                    values=[v.name.lower() for v in slot.values],
                )
        elif isinstance(module, Faq):
            add("module", name, name, name, module.description or "")
            for q in module.questions:
                add("question", f"{name}/{q.id}", name, q.id, q.question, *q.paraphrases)
        else:
            add("module", name, name, name)
    return items


def _score(functionality: Functionality, item: TruthItem) -> float:
    name = words(functionality.name)
    text = name | words(functionality.description)
    if not text:
        return 0.0
    if name and name == item.name_words:
        return 1.0
    overlap = len(text & item.words)
    name_overlap = len(name & item.name_words)
    return (overlap + 2 * name_overlap) / (len(text) + 2 * max(len(name), 1))


def _parameter_fits(parameters: Sequence[Any], item: TruthItem) -> bool:
    for parameter in parameters:
        if words(parameter.name) & item.name_words:
            return True
        options = {o.lower() for o in parameter.options}
        if item.values and len(options & item.values) >= max(1, len(item.values) // 2):
            return True
    return False


def precision_recall(model: FunctionalModel, bot: BotDefinition) -> dict[str, Any]:
    items = truth_items(bot)
    taken: set[str] = set()
    matches: list[dict[str, Any]] = []
    true_positives = 0
    found_modules: set[str] = set()
    found_inputs: set[str] = set()
    for functionality in model.functionalities:
        scored = sorted(
            ((_score(functionality, item), i, item) for i, item in enumerate(items)),
            key=lambda t: (-t[0], t[1]),
        )
        best_score, _, best = scored[0] if scored else (0.0, 0, None)
        verdict = "not_real"
        if best is not None and best_score >= MATCH_THRESHOLD:
            verdict = "duplicate" if best.key in taken else "real"
            taken.add(best.key)
            found_modules.add(best.module)
            if best.kind == "input":
                found_inputs.add(best.key)
            for item in items:
                fits = item.kind == "input" and item.module == best.module
                if fits and _parameter_fits(functionality.parameters, item):
                    found_inputs.add(item.key)
        if verdict == "real":
            true_positives += 1
        matches.append(
            {
                "functionality": functionality.name,
                "match": best.key if best is not None and verdict != "not_real" else None,
                "kind": best.kind if best is not None and verdict != "not_real" else None,
                "score": round(best_score, 3),
                "verdict": verdict,
            }
        )
    modules = [i.key for i in items if i.kind == "module"]
    inputs = [i.key for i in items if i.kind == "input"]
    total = len(model.functionalities)
    recall_modules = len(found_modules & set(modules))
    recall_inputs = len(found_inputs & set(inputs))
    denominator = len(modules) + len(inputs)
    return {
        "functionalities": total,
        "true_positives": true_positives,
        "false_positives": total - true_positives,
        "precision": round(100.0 * true_positives / total, 2) if total else None,
        "recall": round(100.0 * (recall_modules + recall_inputs) / denominator, 2) if denominator else None,
        "recall_modules": [recall_modules, len(modules)],
        "recall_inputs": [recall_inputs, len(inputs)],
        "missed_modules": sorted(set(modules) - found_modules),
        "missed_inputs": sorted(set(inputs) - found_inputs),
        "matches": matches,
    }

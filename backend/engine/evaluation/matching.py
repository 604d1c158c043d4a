"""Precision and recall of TRACER's functionalities against a bot's ground truth, with every match listed.

Each functionality is matched to one ground-truth item (a module, an input, an FAQ question, a menu answer or a
menu sequence). Precision = functionalities matched to an item no earlier functionality took / all
functionalities (unmatched ones are not real, a second one on the same item is a duplicate: the thesis's TP and
FP); recall = ground-truth modules and inputs found / all of them (a module is found when a functionality
matches it or something inside it; an input when a matched functionality asks for it).

Two matchers, and the report says which one decided:
- `llm`: a judge model reads both lists and decides (prompt `prompts.MATCH_FUNCTIONALITIES`), with a sentence of
  evidence per match — what a person checking the model would do;
- `lexical`: no model; the overlap of words between names and descriptions, above a threshold. It is an
  **approximation** (synonyms and paraphrases defeat it), and every figure it gives is labelled so.
Every match is listed (functionality, item, verdict, evidence) so that the figures can be audited.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field

from engine.bots.definition import Action, AnswerItem, BotDefinition, Faq, Form, Menu, SequenceItem
from engine.errors import ParleyError
from engine.evaluation import prompts
from engine.llm import LLMClient, user
from engine.tracer.model import Functionality, FunctionalModel

logger = logging.getLogger("engine.evaluation")

Matcher = Literal["llm", "lexical"]
LEXICAL_NOTE = (
    "approximation: matched by word overlap (the lexical matcher), not by a judge model; synonyms and "
    "paraphrases are missed"
)
TAG_MATCH = "bench.match"

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
    text: str
    """What the item is, in words (for the judge and the report)."""
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
        shown = list(values)
        described = "; ".join(t for t in texts if t) + (f" (values: {', '.join(shown)})" if shown else "")
        items.append(
            TruthItem(
                kind,
                key,
                module,
                f"{name}: {described}" if described else name,
                frozenset(all_words),
                frozenset(name_words),
                frozenset(v.lower() for v in shown),
            )
        )

    for name, module in bot.modules.items():
        if isinstance(module, Menu):
            add("module", name, name, name, module.presentation or "")
            for item in module.items:
                if isinstance(item, AnswerItem):
                    add("answer", f"{name}/{item.title}", name, item.title, *item.triggers)
                elif isinstance(item, SequenceItem):
                    add("sequence", f"{name}/{item.title}", name, item.title, *item.triggers)
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
                    values=[v.name for v in slot.values],
                )
        elif isinstance(module, Faq):
            add("module", name, name, name, module.description or "")
            for q in module.questions:
                add("question", f"{name}/{q.id}", name, q.id, q.question, *q.paraphrases)
        else:
            add("module", name, name, name)
    return items


# -- the lexical matcher ------------------------------------------------------------------------------------------


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


@dataclass(frozen=True)
class Decision:
    """One functionality's match: the item (None: not real), the inputs its parameters ask for, and why."""

    item: TruthItem | None
    inputs: frozenset[str]
    evidence: str
    score: float | None = None


def lexical_decisions(model: FunctionalModel, items: Sequence[TruthItem]) -> list[Decision]:
    out: list[Decision] = []
    for functionality in model.functionalities:
        scored = sorted(
            ((_score(functionality, item), i, item) for i, item in enumerate(items)),
            key=lambda t: (-t[0], t[1]),
        )
        best_score, _, best = scored[0] if scored else (0.0, 0, None)
        shared = (
            sorted((words(functionality.name) | words(functionality.description)) & best.words)
            if best
            else []
        )
        if best is None or best_score < MATCH_THRESHOLD:
            out.append(
                Decision(
                    None,
                    frozenset(),
                    f"best word overlap {best_score:.2f} is below {MATCH_THRESHOLD}",
                    best_score,
                )
            )
            continue
        inputs = {
            item.key
            for item in items
            if item.kind == "input"
            and item.module == best.module
            and _parameter_fits(functionality.parameters, item)
        }
        evidence = f"word overlap {best_score:.2f}; shared words: {', '.join(shared) or '(exact name)'}"
        out.append(Decision(best, frozenset(inputs), evidence, best_score))
    return out


# -- the judge ----------------------------------------------------------------------------------------------------


class JudgedMatch(BaseModel):
    functionality: str = Field(description="the inferred functionality's exact name")
    item: str | None = Field(
        default=None, description="the id of the ground-truth item it describes, or null"
    )
    inputs: list[str] = Field(
        default_factory=list, description="ids of ground-truth inputs its parameters ask for"
    )
    evidence: str = Field(default="", description="one short sentence: why")


class MatchAnswer(BaseModel):
    matches: list[JudgedMatch] = Field(default_factory=list)


def _functionality_line(f: Functionality) -> str:
    parameters = "; ".join(
        p.name + (f" ({', '.join(p.options[:12])})" if p.options else "") for p in f.parameters
    )
    outputs = ", ".join(o.name for o in f.outputs)
    extra = " | ".join(
        part
        for part in (f"asks {parameters}" if parameters else "", f"gives {outputs}" if outputs else "")
        if part
    )
    return f"- {f.name}: {f.description}" + (f" [{extra}]" if extra else "")


def judge_decisions(
    llm: LLMClient, bot: str, model: FunctionalModel, items: Sequence[TruthItem]
) -> list[Decision]:
    """One judge call per bot; raises the LLM's errors (the caller falls back to the lexical matcher)."""
    prompt = prompts.MATCH_FUNCTIONALITIES.format(
        bot=bot,
        items="\n".join(f"- {item.key} ({item.kind}): {item.text}" for item in items),
        functionalities="\n".join(_functionality_line(f) for f in model.functionalities),
    )
    answer = llm.structured([user(prompt)], MatchAnswer, tag=TAG_MATCH)
    by_key = {item.key: item for item in items}
    judged: dict[str, JudgedMatch] = {}
    for answered in answer.matches:
        judged.setdefault(answered.functionality.strip(), answered)
    out: list[Decision] = []
    for functionality in model.functionalities:
        match = judged.get(functionality.name)
        if match is None:
            out.append(Decision(None, frozenset(), "the judge gave no answer for it"))
            continue
        item = by_key.get((match.item or "").strip())
        inputs = frozenset(k for k in match.inputs if k in by_key and by_key[k].kind == "input")
        evidence = match.evidence.strip() or "(no evidence given)"
        if match.item and item is None:
            evidence = f"the judge named an unknown item {match.item!r}; {evidence}"
        out.append(Decision(item, inputs, evidence))
    return out


# -- figures ------------------------------------------------------------------------------------------------------


def precision_recall(
    model: FunctionalModel,
    bot: BotDefinition,
    *,
    matcher: Matcher = "lexical",
    llm: LLMClient | None = None,
    warn: Any = None,
) -> dict[str, Any]:
    """Precision, recall and every match; with `matcher="llm"` and a client the judge decides (the lexical matcher
    stands in, labelled, if the judge fails)."""
    items = truth_items(bot)
    used: Matcher = "lexical"
    decisions: list[Decision] | None = None
    if matcher == "llm" and llm is not None and model.functionalities:
        try:
            decisions = judge_decisions(llm, bot.bot, model, items)
            used = "llm"
        except ParleyError as exc:
            message = f"{bot.bot}: the judge failed ({exc.user_message}); the lexical matcher stands in"
            logger.warning(message)
            if warn is not None:
                warn(message)
    if decisions is None:
        decisions = lexical_decisions(model, items)
    taken: set[str] = set()
    matches: list[dict[str, Any]] = []
    true_positives = 0
    found_modules: set[str] = set()
    found_inputs: set[str] = set()
    for functionality, decision in zip(model.functionalities, decisions, strict=True):
        item = decision.item
        verdict = "not_real"
        if item is not None:
            verdict = "duplicate" if item.key in taken else "real"
            taken.add(item.key)
            found_modules.add(item.module)
            if item.kind == "input":
                found_inputs.add(item.key)
        found_inputs |= decision.inputs
        true_positives += verdict == "real"
        matches.append(
            {
                "functionality": functionality.name,
                "description": functionality.description,
                "match": item.key if item is not None else None,
                "kind": item.kind if item is not None else None,
                "item": item.text if item is not None else None,
                "verdict": verdict,
                "inputs": sorted(decision.inputs),
                "score": round(decision.score, 3) if decision.score is not None else None,
                "evidence": decision.evidence,
            }
        )
    modules = [i.key for i in items if i.kind == "module"]
    inputs = [i.key for i in items if i.kind == "input"]
    total = len(model.functionalities)
    recall_modules = len(found_modules & set(modules))
    recall_inputs = len(found_inputs & set(inputs))
    denominator = len(modules) + len(inputs)
    return {
        "matcher": used,
        "matcher_note": LEXICAL_NOTE
        if used == "lexical"
        else "matched by a judge model (prompt match_functionalities)",
        "functionalities": total,
        "true_positives": true_positives,
        "false_positives": total - true_positives,
        "duplicates": sum(1 for m in matches if m["verdict"] == "duplicate"),
        "not_real": sum(1 for m in matches if m["verdict"] == "not_real"),
        "precision": round(100.0 * true_positives / total, 2) if total else None,
        "recall": round(100.0 * (recall_modules + recall_inputs) / denominator, 2) if denominator else None,
        "recall_modules": [recall_modules, len(modules)],
        "recall_inputs": [recall_inputs, len(inputs)],
        "missed_modules": sorted(set(modules) - found_modules),
        "missed_inputs": sorted(set(inputs) - found_inputs),
        "matches": matches,
    }

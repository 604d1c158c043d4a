"""The ground-truth manifest of a bot, derived from its definition: what a perfect explorer would find.

Counting follows the Taskyto/TRACER convention: modules are the definition's modules (menu items that are
inline sequences are not modules); inputs are slots summed over forms and actions (an action's `uses`
count again); values are enum values summed the same way; questions are FAQ questions. The manifest also
lists menu answers, fallbacks, languages, response templates and formulas — the oracles for checks.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
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


@dataclass(frozen=True)
class InputInfo:
    module: str
    slot: str
    type: str
    required: bool
    values: tuple[str, ...]
    synonyms: dict[str, tuple[str, ...]]


@dataclass(frozen=True)
class QuestionInfo:
    module: str
    id: str
    question: str
    answer: str


@dataclass(frozen=True)
class Manifest:
    bot: str
    name: str
    language: str
    languages: tuple[str, ...]
    greeting: str | None
    entry: str
    modules: dict[str, str]
    """module name -> kind"""
    inputs: tuple[InputInfo, ...]
    questions: tuple[QuestionInfo, ...]
    answers: tuple[tuple[str, str, str], ...]
    """(menu, item title, answer text)"""
    menu_items: dict[str, tuple[str, ...]]
    sequences: dict[str, tuple[str, ...]]
    """"<menu>/<item title>" or a sequence module -> its flattened steps"""
    fallbacks: dict[str, str] = field(default_factory=dict)
    templates: dict[str, str] = field(default_factory=dict)
    formulas: dict[str, dict[str, str]] = field(default_factory=dict)
    tables: dict[str, dict[str, dict[str, float]]] = field(default_factory=dict)

    @property
    def values(self) -> tuple[tuple[str, str, str], ...]:
        """(module, slot, value) for every enum value of every input."""
        return tuple((i.module, i.slot, v) for i in self.inputs for v in i.values)

    @property
    def input_keys(self) -> tuple[tuple[str, str], ...]:
        return tuple((i.module, i.slot) for i in self.inputs)

    @property
    def question_keys(self) -> tuple[tuple[str, str], ...]:
        return tuple((q.module, q.id) for q in self.questions)

    def sizes(self) -> dict[str, int]:
        """The dimensions of TRACER's Table 6.1."""
        return {
            "modules": len(self.modules),
            "inputs": len(self.inputs),
            "values": len(self.values),
            "questions": len(self.questions),
        }

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["sizes"] = self.sizes()
        return data


def build_manifest(bot: BotDefinition) -> Manifest:
    inputs: list[InputInfo] = []
    questions: list[QuestionInfo] = []
    answers: list[tuple[str, str, str]] = []
    menu_items: dict[str, tuple[str, ...]] = {}
    sequences: dict[str, tuple[str, ...]] = {}
    fallbacks: dict[str, str] = {}
    templates: dict[str, str] = {}
    formulas: dict[str, dict[str, str]] = {}
    tables: dict[str, dict[str, dict[str, float]]] = {}
    for name, module in bot.modules.items():
        if isinstance(module, Menu):
            menu_items[name] = tuple(item.title for item in module.items)
            if module.fallback:
                fallbacks[name] = module.fallback
            for item in module.items:
                if isinstance(item, AnswerItem):
                    answers.append((name, item.title, item.answer))
                elif isinstance(item, SequenceItem):
                    sequences[f"{name}/{item.title}"] = tuple(bot.flat_steps(item.steps))
                elif isinstance(item, ModuleItem):
                    pass
        elif isinstance(module, Form | Action):
            slots = module.slots if isinstance(module, Form) else tuple(bot.slot(n) for n in module.uses)
            for slot in slots:
                inputs.append(
                    InputInfo(
                        name,
                        slot.name,
                        slot.type,
                        slot.required,
                        tuple(v.name for v in slot.values),
                        {v.name: v.synonyms for v in slot.values if v.synonyms},
                    )
                )
            templates[name] = module.response
            if module.compute:
                formulas[name] = dict(module.compute)
            if module.tables:
                tables[name] = {k: dict(v) for k, v in module.tables.items()}
        elif isinstance(module, Faq):
            questions.extend(QuestionInfo(name, q.id, q.question, q.answer) for q in module.questions)
        else:
            sequences[name] = tuple(bot.flat_steps(module.steps))
    return Manifest(
        bot=bot.bot,
        name=bot.name,
        language=bot.language,
        languages=tuple(bot.languages),
        greeting=bot.greeting.text if bot.greeting.by == "bot" else None,
        entry=bot.entry,
        modules={name: module.kind for name, module in bot.modules.items()},
        inputs=tuple(inputs),
        questions=tuple(questions),
        answers=tuple(answers),
        menu_items=menu_items,
        sequences=sequences,
        fallbacks=fallbacks,
        templates=templates,
        formulas=formulas,
        tables=tables,
    )

"""The deterministic runtime: one `BotRuntime` per conversation, a small state machine over a definition.

State: a stack of menus (the entry menu at the bottom) and at most one running task — a form, an action or
a sequence of them, with its gathered data (`memory: full` keeps data across steps, so "actually make it
large" while ordering drinks changes the pizza; `individual` starts each step blank). A user turn:

- in a menu: pick the best-scoring menu item (own and enclosing menus) or FAQ question; otherwise say the
  innermost menu's fallback (or the stock fallback when it has none);
- in a task: "cancel" words stop it; a question the FAQ (or a menu answer) knows is answered and the
  pending question asked again; otherwise slot values are extracted — several per message, corrections of
  values given before, refusals of values not offered, with the accepted list — and the task advances:
  ask the next missing required slot, or compute, confirm and go to the next step.

A message clearly in a language the bot does not accept gets the language refusal. Formulas that cannot be
evaluated raise `BotCrash` (a server answers 500); the state may then be half-updated, as in Taskyto.
Everything is a pure function of the definition, the messages, the reference date and the conversation id.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date

from engine.bots.coverage import CoverageLog
from engine.bots.definition import (
    Action,
    AnswerItem,
    BotDefinition,
    Faq,
    Form,
    Menu,
    ModuleItem,
    Sequence,
    SequenceItem,
    Slot,
)
from engine.bots.formula import FormulaError, Scope, evaluate
from engine.bots.phrases import phrasebook
from engine.bots.understanding import (
    Extraction,
    Value,
    detect_language,
    extract,
    format_date,
    format_number,
    looks_like_question,
    normalize,
    phrase_score,
    question_score,
    remnant,
)
from engine.errors import ParleyError


class BotCrash(ParleyError):
    """The bot under test failed while answering (a formula it cannot evaluate): an HTTP 500 when served."""

    code = "bot_crash"


@dataclass(frozen=True)
class Reply:
    """What the bot says in one turn: separate messages, and buttons (labels that are also what a click sends)."""

    messages: list[str]
    buttons: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "\n".join(self.messages)


@dataclass
class _Task:
    title: str
    steps: list[str]
    memory: str
    index: int = 0
    data: dict[str, Value] = field(default_factory=dict)
    asked: str | None = None
    entered: int = -1
    hinted: bool = False


@dataclass
class _Candidate:
    score: float
    order: int
    menu: str
    item: AnswerItem | ModuleItem | SequenceItem | None = None
    faq: str | None = None
    question: int = -1


class BotRuntime:
    """One conversation with one bot. `start()` once, then `reply(text)` per user turn."""

    def __init__(self, bot: BotDefinition, *, conversation_id: str, today: date) -> None:
        self.bot = bot
        self.conversation_id = conversation_id
        self.today = today
        self.phrases = phrasebook(bot.language, bot.phrases)
        self.coverage = CoverageLog(conversation_id, bot.bot)
        self.menus: list[str] = [bot.entry]
        self.task: _Task | None = None
        self.turn = 0
        self.started = False

    # ------------------------------------------------------------------------------------------ public

    def start(self) -> Reply:
        """The bot's opening: its greeting when it speaks first (with the entry menu as buttons), else nothing."""
        self.started = True
        self.coverage.modules.add(self.bot.entry)
        if self.bot.greeting.by == "bot" and self.bot.greeting.text:
            return Reply([self.bot.greeting.text], self._buttons())
        return Reply([])

    def reply(self, text: str) -> Reply:
        if not self.started:
            self.start()
        self.turn += 1
        self.coverage.turns += 1
        out: list[str] = []
        language = detect_language(text)
        awaiting = self._asked_slot()
        free_text = awaiting is not None and awaiting.type in ("string", "email", "phone")
        if language and language not in self.bot.languages and not free_text:
            out.append(self.phrases["language"])
            if awaiting is not None:
                out.append(awaiting.prompt)
        elif self.task is None:
            self._menu_turn(text, out)
        else:
            self._task_turn(self.task, text, out)
        return Reply(out, self._buttons())

    # ----------------------------------------------------------------------------------------- helpers

    @property
    def awaiting(self) -> Slot | None:
        """The slot the bot has just asked for, or None (scripted users answer it, as a person reads the question)."""
        return self._asked_slot()

    def _asked_slot(self) -> Slot | None:
        if self.task is None or self.task.asked is None:
            return None
        return self._slot(self.task.steps[self.task.index], self.task.asked)

    def _slot(self, module_name: str, slot_name: str) -> Slot:
        module = self.bot.modules[module_name]
        if isinstance(module, Form):
            for slot in module.slots:
                if slot.name == slot_name:
                    return slot
        return self.bot.slot(slot_name)

    def _needed(self, module_name: str) -> list[Slot]:
        module = self.bot.modules[module_name]
        if isinstance(module, Form):
            return list(module.slots)
        if isinstance(module, Action):
            return [self.bot.slot(name) for name in module.uses]
        return []

    def _buttons(self) -> list[str]:
        slot = self._asked_slot()
        if slot is not None:
            return [v.name for v in slot.values]
        if self.task is not None:
            return []
        menu = self.bot.modules[self.menus[-1]]
        return [item.title for item in menu.items] if isinstance(menu, Menu) else []

    def _join(self, words: list[str]) -> str:
        if len(words) <= 1:
            return "".join(words)
        return f"{', '.join(words[:-1])} {self.phrases['and']} {words[-1]}"

    def _show(self, slot: Slot | None, value: Value) -> str:
        if isinstance(value, list):
            return self._join(value)
        if isinstance(value, float):
            return format_number(value)
        if slot is not None and slot.type == "date":
            return format_date(value)
        return value

    # ---------------------------------------------------------------------------------------- matching

    def _faq_modules(self) -> list[tuple[str, str]]:
        """(menu, faq module) for the FAQ modules reachable from the menus on the stack."""
        out: list[tuple[str, str]] = []
        for menu_name in reversed(self.menus):
            menu = self.bot.modules[menu_name]
            if isinstance(menu, Menu):
                for item in menu.items:
                    if isinstance(item, ModuleItem) and isinstance(self.bot.modules[item.module], Faq):
                        out.append((menu_name, item.module))
        return out

    def _candidates(self, text: str, *, answers_only: bool) -> list[_Candidate]:
        found: list[_Candidate] = []
        asking = looks_like_question(text)
        order = 0
        for menu_name in reversed(self.menus):
            menu = self.bot.modules[menu_name]
            if not isinstance(menu, Menu):
                continue
            for item in menu.items:
                order += 1
                if answers_only and not isinstance(item, AnswerItem):
                    continue
                score = phrase_score(text, (item.title, *item.triggers), item.patterns)
                if score > 0:
                    found.append(_Candidate(score, order, menu_name, item=item))
        for menu_name, faq_name in self._faq_modules():
            faq = self.bot.modules[faq_name]
            assert isinstance(faq, Faq)
            for index, question in enumerate(faq.questions):
                order += 1
                score = question_score(text, question.question, question.paraphrases, question.keywords)
                if score > 0 and asking:
                    score += 50  # a question goes to the FAQ before a menu item sharing its words
                if score > 0:
                    found.append(_Candidate(score, order, menu_name, faq=faq_name, question=index))
        found.sort(key=lambda c: (-c.score, c.order))
        return found

    def _answer_question(self, candidate: _Candidate, out: list[str]) -> None:
        assert candidate.faq is not None
        faq = self.bot.modules[candidate.faq]
        assert isinstance(faq, Faq)
        question = faq.questions[candidate.question]
        self.coverage.modules.add(candidate.faq)
        self.coverage.questions.add((candidate.faq, question.id))
        out.append(question.answer)

    # ------------------------------------------------------------------------------------------- menus

    def _menu_turn(self, text: str, out: list[str]) -> None:
        candidates = self._candidates(text, answers_only=False)
        if not candidates:
            menu = self.bot.modules[self.menus[-1]]
            fallback = menu.fallback if isinstance(menu, Menu) else None
            self.coverage.fallbacks += 1
            out.append(fallback or self.phrases["fallback"])
            return
        self._dispatch(candidates[0], text, out)

    def _dispatch(self, best: _Candidate, text: str, out: list[str]) -> None:
        if best.faq is not None:
            self._answer_question(best, out)
            return
        item = best.item
        if isinstance(item, AnswerItem):
            self.coverage.answers.add((best.menu, item.title))
            out.append(item.answer)
        elif isinstance(item, SequenceItem):
            self._start_task(_Task(item.title, self.bot.flat_steps(item.steps), item.memory), text, out)
        elif isinstance(item, ModuleItem):
            self._activate(item.module, item.title, text, out)

    def _activate(self, name: str, title: str, text: str, out: list[str]) -> None:
        module = self.bot.modules[name]
        if isinstance(module, Menu):
            self.coverage.modules.add(name)
            if name in self.menus:
                del self.menus[self.menus.index(name) + 1 :]
            else:
                self.menus.append(name)
            inner = [
                c for c in self._candidates(text, answers_only=False) if c.menu == name and c.item is not None
            ]
            if inner and inner[0].score >= 200 and not isinstance(inner[0].item, AnswerItem):
                self._dispatch(inner[0], text, out)  # "a large margherita" picks the house pizza at once
                return
            if module.presentation:
                out.append(module.presentation)
        elif isinstance(module, Faq):
            self.coverage.modules.add(name)
            listing = self._join([q.question for q in module.questions])
            out.append(self.phrases["faq_list"].format(questions=listing))
        elif isinstance(module, Sequence):
            self.coverage.modules.add(name)
            self._start_task(_Task(title, self.bot.flat_steps(module.steps), module.memory), text, out)
        else:
            self._start_task(_Task(title, [name], "full"), text, out)

    # ------------------------------------------------------------------------------------------- tasks

    def _start_task(self, task: _Task, text: str, out: list[str]) -> None:
        self.task = task
        for position, step in enumerate(task.steps):
            if position > 0 and task.memory != "full":
                break
            for slot in self._needed(step):
                if slot.name in task.data:
                    continue
                if position > 0 and slot.type in ("int", "float", "string"):
                    continue  # numbers and names said before their step are too ambiguous to keep
                found = extract(slot, text, pending=False, today=self.today, language=self.bot.language)
                if found.value is not None:
                    task.data[slot.name] = found.value
                    if position == 0:
                        self._accepted(task, step, slot, found.value)
                elif found.reason == "unavailable" and position == 0:
                    out.append(self._refusal(slot, found))
        self._advance(task, out)

    def _accepted(self, task: _Task, module: str, slot: Slot, value: Value) -> None:
        self.coverage.inputs_filled.add((module, slot.name))
        if slot.type == "enum":
            for item in value if isinstance(value, list) else [value]:
                self.coverage.values.add((module, slot.name, str(item)))

    def _advance(self, task: _Task, out: list[str]) -> None:
        while task.index < len(task.steps):
            step = task.steps[task.index]
            if task.entered != task.index:
                task.entered = task.index
                task.hinted = False
                self.coverage.modules.add(step)
                if isinstance(self.bot.modules[step], Form):
                    for slot in self._needed(step):
                        if slot.name in task.data:
                            self._accepted(task, step, slot, task.data[slot.name])
            needed = self._needed(step)
            missing = [s for s in needed if s.required and s.name not in task.data]
            if missing:
                slot = missing[0]
                task.asked = slot.name
                self.coverage.inputs_requested.add((step, slot.name))
                prompt = slot.prompt
                optional = [s.display for s in needed if not s.required and s.name not in task.data]
                if optional and not task.hinted:
                    task.hinted = True
                    prompt = f"{prompt} {self.phrases['optional'].format(labels=self._join(optional))}"
                out.append(prompt)
                return
            task.asked = None
            out.append(self._complete(task, step, needed))
            task.index += 1
            if task.memory != "full":
                task.data = {}
        self.task = None
        del self.menus[1:]

    def _complete(self, task: _Task, step: str, needed: list[Slot]) -> str:
        module = self.bot.modules[step]
        assert isinstance(module, Form | Action)
        values: dict[str, Value] = {s.name: task.data[s.name] for s in needed if s.name in task.data}
        if isinstance(module, Action):
            for slot in needed:
                if slot.name in values:
                    self._accepted(task, step, slot, values[slot.name])
        seed = f"{self.conversation_id}:{self.turn}:{step}:{sorted(values.items())}"
        computed: dict[str, Value] = dict(values)
        for name, formula in self.bot.formulas(step).items():
            try:
                computed[name] = evaluate(formula, Scope(computed, module.tables, seed))
            except FormulaError as exc:
                raise BotCrash(f"The {step} module failed computing {name}: {exc}") from None
        slots = {s.name: s for s in needed}

        def fill(match: re.Match[str]) -> str:
            name = match.group(1)
            if name not in computed:
                return ""
            return self._show(slots.get(name), computed[name])

        text = re.sub(r"\{([A-Za-z_][A-Za-z0-9_]*)\}", fill, module.response)
        return re.sub(r" +([.,!?;:])", r"\1", re.sub(r"[ \t]{2,}", " ", text)).strip()

    def _cancel(self, text: str) -> bool:
        norm = normalize(text)
        return any(f" {normalize(w)} " in f" {norm} " for w in self.phrases["cancel_words"].split("|"))

    def _task_turn(self, task: _Task, text: str, out: list[str]) -> None:
        step = task.steps[task.index]
        asked = self._asked_slot()
        if self._cancel(text):
            self.task = None
            del self.menus[1:]
            out.append(self.phrases["cancelled"])
            return
        if looks_like_question(text) and self._side_answer(text, out, minimum=1.0):
            self._reask(task, out)
            return
        needed = self._needed(step)
        found: dict[str, Extraction] = {}
        for slot in needed:
            result = extract(
                slot, text, pending=False, today=self.today, language=self.bot.language, asked=slot is asked
            )
            if result.value is not None or result.refused is not None:
                found[slot.name] = result
        if not found and task.memory == "full":
            needed_names = {s.name for s in needed}
            for name in task.data:
                if name in needed_names:
                    continue
                slot = self._slot(self._owner(task, name), name)
                if slot.type in ("string", "int", "float"):
                    continue
                result = extract(slot, text, pending=False, today=self.today, language=self.bot.language)
                if result.value is not None:
                    found[name] = result
        if not found and self._side_answer(text, out, minimum=200.0):
            self._reask(task, out)
            return
        if not found and asked is not None:
            result = extract(asked, text, pending=True, today=self.today, language=self.bot.language)
            if result.value is not None or result.refused is not None:
                found[asked.name] = result
        if not found:
            out.append(self.phrases["not_understood"])
            self._reask(task, out)
            return
        for name, result in found.items():
            owner = self._owner(task, name)
            slot = self._slot(owner, name)
            if result.value is None:
                out.append(self._refusal(slot, result))
                continue
            before = task.data.get(name)
            task.data[name] = result.value
            if owner == step or isinstance(self.bot.modules[owner], Form):
                self._accepted(task, owner, slot, result.value)
            if before is not None and before != result.value:
                out.append(
                    self.phrases["corrected"].format(label=slot.display, value=self._show(slot, result.value))
                )
        self._advance(task, out)

    def _owner(self, task: _Task, name: str) -> str:
        """The step of the task (up to the current one) that gathers `name`."""
        for step in task.steps[: task.index + 1]:
            if any(s.name == name for s in self._needed(step)):
                return step
        return task.steps[task.index]

    def _side_answer(self, text: str, out: list[str], *, minimum: float) -> bool:
        for candidate in self._candidates(text, answers_only=True):
            if candidate.score < minimum:
                return False
            if candidate.faq is not None:
                self._answer_question(candidate, out)
                return True
            if isinstance(candidate.item, AnswerItem):
                self.coverage.answers.add((candidate.menu, candidate.item.title))
                out.append(candidate.item.answer)
                return True
        return False

    def _reask(self, task: _Task, out: list[str]) -> None:
        slot = self._asked_slot()
        if slot is not None:
            self.coverage.inputs_requested.add((task.steps[task.index], slot.name))
            out.append(slot.prompt)

    def _refusal(self, slot: Slot, result: Extraction) -> str:
        reason = result.reason
        given = result.refused or ""
        if slot.type == "enum":
            accepted = self._join([v.name for v in slot.values])
            if reason == "unavailable":
                return self.phrases["rejected"].format(given=given, label=slot.display, accepted=accepted)
            quoted = remnant(given, self.bot.language)
            if quoted and len(quoted.split()) <= 4:
                return self.phrases["rejected"].format(given=quoted, label=slot.display, accepted=accepted)
            return self.phrases["rejected_plain"].format(label=slot.display, accepted=accepted)
        if reason == "range":
            low = format_number(slot.min) if slot.min is not None else None
            high = format_number(slot.max) if slot.max is not None else None
            if low is not None and high is not None:
                bounds = self.phrases["bounds_both"].format(min=low, max=high)
            elif low is not None:
                bounds = self.phrases["bounds_min"].format(min=low)
            else:
                bounds = self.phrases["bounds_max"].format(max=high)
            return self.phrases["range"].format(given=given, label=slot.display, bounds=bounds)
        if reason == "past":
            return self.phrases["past"].format(given=given)
        if reason == "hours":
            return self.phrases["hours"].format(
                given=given, earliest=slot.earliest or "00:00", latest=slot.latest or "23:59"
            )
        return self.phrases["invalid"].format(label=slot.display, kind=self.phrases[f"kind_{slot.type}"])

"""The bot definition language: a YAML file per bot, validated into pydantic models.

A bot has an `entry` menu and named `modules` of five kinds:

- `menu`: `items` the user can pick, each with a `title`, optional `triggers` (phrases) and `patterns`
  (regular expressions), and one of `kind: answer` (a fixed `answer`), `kind: module` (a `module` to run)
  or `kind: sequence` (`steps`, a list of modules run one after the other, with `memory: full` carrying the
  data forward or `individual` starting every step blank). A menu has an optional `fallback` and a
  `presentation` said when it is entered from another menu.
- `form` (data gathering): typed `slots` — `enum` (values with synonyms, optionally `multiple`, and
  `unavailable` phrases the bot explicitly refuses, e.g. "extra large"), `int`,
  `float` (with `min`/`max`), `date` (`not_past`), `time` (`earliest`/`latest`), `string`, `email`,
  `phone` (by pattern) — each with a `prompt`, `required` by default; then optional `compute` formulas over
  `tables` and a `response` template with `{placeholders}`.
- `action`: `uses` slots gathered by forms (asking for any it does not have), `compute`, `tables`, `response`.
- `faq`: `questions`, each with an `id`, the `question`, `paraphrases`, `keywords` and its `answer`.
- `sequence`: a standalone sequence (`steps`, `memory`) that menus and other sequences may reference.

Top level: `bot`, `name`, `language` (what it speaks), `languages` (what it accepts), `greeting`
(`by: bot|user`, `text`), `entry`, optional `phrases` (overrides of the runtime's stock sentences).

`load_definition_text` / `parse_definition` reject a bad definition with `DefinitionError` naming the file,
the path inside it (`modules.top.items[2].module`), the line when known, and the problem.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from engine.bots.formula import FormulaError, Node, names_used, parse_formula
from engine.bots.phrases import KEYS as PHRASE_KEYS
from engine.errors import ParleyError
from engine.yamldata import plain
from engine.yamlguard import YAMLRefused, load_yaml

SLOT_TYPES = ("enum", "int", "float", "date", "time", "string", "email", "phone")
LANGUAGES = ("en", "es")
PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_TIME = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)$")


class DefinitionError(ParleyError):
    """A bot definition that cannot be used; names the file, the path inside it and the problem."""

    code = "bot_definition_error"

    def __init__(self, source: str, path: str, problem: str, line: int | None = None) -> None:
        where = f"{source}, line {line}" if line else source
        super().__init__(f"{where}: {path or '(top level)'}: {problem}")
        self.source = source
        self.path = path
        self.problem = problem
        self.line = line


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class EnumValue(_Model):
    name: str = Field(min_length=1)
    synonyms: tuple[str, ...] = ()


def _enum_values(raw: Any) -> Any:
    """`- small` or `- large: [big, huge]` become EnumValue mappings."""
    if not isinstance(raw, list):
        return raw
    out: list[Any] = []
    for item in raw:
        if isinstance(item, str | int | float) and not isinstance(item, bool):
            out.append({"name": str(item)})
        elif isinstance(item, dict) and len(item) == 1 and "name" not in item:
            ((name, synonyms),) = item.items()
            out.append({"name": str(name), "synonyms": synonyms or []})
        else:
            out.append(item)
    return out


class Slot(_Model):
    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    type: Literal["enum", "int", "float", "date", "time", "string", "email", "phone"]
    prompt: str = Field(min_length=1)
    label: str | None = None
    required: bool = True
    values: Annotated[tuple[EnumValue, ...], BeforeValidator(_enum_values)] = ()
    multiple: bool = False
    unavailable: tuple[str, ...] = ()
    pattern: str | None = None
    min: float | None = None
    max: float | None = None
    not_past: bool = False
    earliest: str | None = None
    latest: str | None = None

    @property
    def display(self) -> str:
        return self.label or self.name.replace("_", " ")


Formulas = dict[str, str]
Tables = dict[str, dict[str, float]]


class AnswerItem(_Model):
    kind: Literal["answer"]
    title: str = Field(min_length=1)
    triggers: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()
    answer: str = Field(min_length=1)


class ModuleItem(_Model):
    kind: Literal["module"]
    title: str = Field(min_length=1)
    triggers: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()
    module: str


class SequenceItem(_Model):
    kind: Literal["sequence"]
    title: str = Field(min_length=1)
    triggers: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()
    steps: tuple[str, ...]
    memory: Literal["full", "individual"] = "full"


Item = Annotated[AnswerItem | ModuleItem | SequenceItem, Field(discriminator="kind")]


class Menu(_Model):
    kind: Literal["menu"]
    presentation: str | None = None
    fallback: str | None = None
    items: tuple[Item, ...]


class Form(_Model):
    kind: Literal["form"]
    description: str | None = None
    slots: tuple[Slot, ...]
    tables: Tables = Field(default_factory=dict)
    compute: Formulas = Field(default_factory=dict)
    response: str = Field(min_length=1)


class Action(_Model):
    kind: Literal["action"]
    description: str | None = None
    uses: tuple[str, ...] = ()
    tables: Tables = Field(default_factory=dict)
    compute: Formulas = Field(default_factory=dict)
    response: str = Field(min_length=1)


class Question(_Model):
    id: str = Field(pattern=r"^[A-Za-z0-9_-]+$")
    question: str = Field(min_length=1)
    paraphrases: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    answer: str = Field(min_length=1)


class Faq(_Model):
    kind: Literal["faq"]
    description: str | None = None
    questions: tuple[Question, ...]


class Sequence(_Model):
    kind: Literal["sequence"]
    steps: tuple[str, ...]
    memory: Literal["full", "individual"] = "full"


Module = Menu | Form | Action | Faq | Sequence
_MODULE_MODELS: dict[str, type[_Model]] = {
    "menu": Menu,
    "form": Form,
    "action": Action,
    "faq": Faq,
    "sequence": Sequence,
}


class Greeting(_Model):
    by: Literal["bot", "user"] = "bot"
    text: str | None = None


class BotDefinition(_Model):
    """A validated bot. `source` names where it came from (a file, or a mutant of one)."""

    bot: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    name: str
    language: Literal["en", "es"] = "en"
    languages: tuple[Literal["en", "es"], ...] = ("en",)
    greeting: Greeting = Field(default_factory=Greeting)
    entry: str
    phrases: dict[str, str] = Field(default_factory=dict)
    modules: dict[str, Module]
    source: str = "bot definition"

    def module(self, name: str) -> Module:
        return self.modules[name]

    def forms(self) -> Iterator[tuple[str, Form]]:
        for name, module in self.modules.items():
            if isinstance(module, Form):
                yield name, module

    def slot(self, name: str) -> Slot:
        """The first form slot of that name: actions ask for missing data with its definition."""
        for _, form in self.forms():
            for slot in form.slots:
                if slot.name == name:
                    return slot
        raise KeyError(name)

    def flat_steps(self, steps: tuple[str, ...]) -> list[str]:
        """Steps with standalone sequences expanded (cycles are rejected at load time)."""
        out: list[str] = []
        for step in steps:
            module = self.modules[step]
            if isinstance(module, Sequence):
                out.extend(self.flat_steps(module.steps))
            else:
                out.append(step)
        return out

    def formulas(self, module: str) -> dict[str, Node]:
        found = self.modules[module]
        compute = found.compute if isinstance(found, Form | Action) else {}
        return {name: parse_formula(text) for name, text in compute.items()}


# --------------------------------------------------------------------------------------------------- loading


Locate = Callable[[tuple[str | int, ...]], int | None]


def _locator(root: Any) -> Locate:
    def locate(path: tuple[str | int, ...]) -> int | None:
        node = root
        line: int | None = None
        for part in path:
            if isinstance(node, CommentedMap) and part in node:
                line, node = node.lc.key(part)[0] + 1, node[part]
            elif isinstance(node, CommentedSeq) and isinstance(part, int) and 0 <= part < len(node):
                line, node = node.lc.item(part)[0] + 1, node[part]
            else:
                break
        return line

    return locate


def _no_lines(path: tuple[str | int, ...]) -> int | None:
    return None


def format_path(path: tuple[str | int, ...]) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def load_definition_text(text: str, *, source: str) -> BotDefinition:
    """Parse YAML text into a validated definition; every problem is a DefinitionError naming `source`."""
    document = _read(text, source)
    return parse_definition(plain(document), source=source, locate=_locator(document))


def definition_data(text: str, *, source: str) -> dict[str, Any]:
    """The YAML text as plain JSON-like data (what mutation operators rewrite)."""
    data = plain(_read(text, source))
    assert isinstance(data, dict)
    return data


def _read(text: str, source: str) -> CommentedMap:
    try:
        document = load_yaml(text)
    except YAMLRefused as exc:
        raise DefinitionError(source, "", exc.user_message, exc.line) from None
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "not valid YAML"
        raise DefinitionError(source, "", problem, mark.line + 1 if mark else None) from None
    except YAMLError as exc:
        raise DefinitionError(source, "", f"not valid YAML ({exc})") from None
    if not isinstance(document, CommentedMap):
        raise DefinitionError(source, "", "expected a mapping with bot, entry and modules")
    return document


def parse_definition(data: Any, *, source: str, locate: Locate = _no_lines) -> BotDefinition:
    """Validate JSON-like data (a loaded file, or a mutant) into a BotDefinition."""

    def fail(path: tuple[str | int, ...], problem: str) -> DefinitionError:
        return DefinitionError(source, format_path(path), problem, locate(path))

    if not isinstance(data, dict):
        raise fail((), "expected a mapping with bot, entry and modules")
    modules_raw = data.get("modules")
    if not isinstance(modules_raw, dict) or not modules_raw:
        raise fail(("modules",), "expected a non-empty mapping of module names to modules")
    modules: dict[str, Module] = {}
    for name, raw in modules_raw.items():
        here: tuple[str | int, ...] = ("modules", name)
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise fail(here, "a module name must be letters, digits and underscores")
        if not isinstance(raw, dict):
            raise fail(here, "expected a mapping with a kind")
        kind = raw.get("kind")
        if kind not in _MODULE_MODELS:
            raise fail((*here, "kind"), f"unknown kind {kind!r}; expected one of {', '.join(_MODULE_MODELS)}")
        try:
            modules[name] = _MODULE_MODELS[kind].model_validate(raw)  # type: ignore[assignment]
        except ValidationError as exc:
            error = exc.errors()[0]
            raise fail((*here, *_clean_loc(error["loc"])), error["msg"]) from None
    top = {key: value for key, value in data.items() if key != "modules"}
    try:
        definition = BotDefinition.model_validate({**top, "modules": {}, "source": source})
    except ValidationError as exc:
        error = exc.errors()[0]
        raise fail(_clean_loc(error["loc"]), error["msg"]) from None
    definition = definition.model_copy(update={"modules": modules})
    _check(definition, fail)
    return definition


def _clean_loc(loc: tuple[Any, ...]) -> tuple[str | int, ...]:
    """pydantic adds the discriminator tag to paths inside unions (items[2].module.title); drop it."""
    out: list[str | int] = []
    for i, part in enumerate(loc):
        after_index = i > 0 and isinstance(loc[i - 1], int)
        if after_index and part in ("answer", "module", "sequence") and i + 1 < len(loc):
            continue
        out.append(part if isinstance(part, int) else str(part))
    return tuple(out)


Fail = Callable[[tuple[str | int, ...], str], DefinitionError]


def _check(bot: BotDefinition, fail: Fail) -> None:
    """Cross-references and consistency that single models cannot check."""
    if bot.language not in bot.languages:
        raise fail(("language",), f"the bot speaks {bot.language!r}, which is not among its languages")
    if bot.greeting.by == "bot" and not bot.greeting.text:
        raise fail(("greeting", "text"), "a bot that starts the conversation needs a greeting text")
    for key in bot.phrases:
        if key not in PHRASE_KEYS:
            raise fail(("phrases", key), f"unknown phrase {key!r}; known: {', '.join(sorted(PHRASE_KEYS))}")
    if bot.entry not in bot.modules:
        raise fail(("entry",), f"unknown module {bot.entry!r}")
    if not isinstance(bot.modules[bot.entry], Menu):
        raise fail(("entry",), f"the entry module {bot.entry!r} must be a menu")
    for name, module in bot.modules.items():
        here: tuple[str | int, ...] = ("modules", name)
        if isinstance(module, Menu):
            _check_menu(bot, here, module, fail)
        elif isinstance(module, Form):
            _check_form(here, module, fail)
        elif isinstance(module, Action):
            _check_action(bot, here, module, fail)
        elif isinstance(module, Faq):
            if not module.questions:
                raise fail((*here, "questions"), "a question-answering module needs at least one question")
            seen: dict[str, int] = {}
            for i, question in enumerate(module.questions):
                if question.id in seen:
                    raise fail((*here, "questions", i, "id"), f"duplicate question id {question.id!r}")
                seen[question.id] = i
        elif isinstance(module, Sequence):
            _check_steps(bot, here, module.steps, fail)
    _check_cycles(bot, fail)


def _check_patterns(here: tuple[str | int, ...], patterns: tuple[str, ...], fail: Fail) -> None:
    for i, pattern in enumerate(patterns):
        try:
            re.compile(pattern)
        except re.error as exc:
            raise fail((*here, i), f"not a valid regular expression ({exc})") from None


def _check_menu(bot: BotDefinition, here: tuple[str | int, ...], menu: Menu, fail: Fail) -> None:
    if not menu.items:
        raise fail((*here, "items"), "a menu needs at least one item")
    titles: dict[str, int] = {}
    for i, item in enumerate(menu.items):
        at = (*here, "items", i)
        if item.title.lower() in titles:
            raise fail((*at, "title"), f"duplicate item title {item.title!r}")
        titles[item.title.lower()] = i
        _check_patterns((*at, "patterns"), item.patterns, fail)
        if isinstance(item, ModuleItem) and item.module not in bot.modules:
            raise fail((*at, "module"), f"unknown module {item.module!r}")
        if isinstance(item, SequenceItem):
            _check_steps(bot, at, item.steps, fail)


def _check_steps(bot: BotDefinition, here: tuple[str | int, ...], steps: tuple[str, ...], fail: Fail) -> None:
    if not steps:
        raise fail((*here, "steps"), "a sequence needs at least one step")
    for j, step in enumerate(steps):
        if step not in bot.modules:
            raise fail((*here, "steps", j), f"unknown module {step!r}")
        if not isinstance(bot.modules[step], Form | Action | Sequence):
            raise fail((*here, "steps", j), f"step {step!r} must be a form, an action or a sequence")


def _check_cycles(bot: BotDefinition, fail: Fail) -> None:
    def visit(name: str, trail: list[str]) -> None:
        module = bot.modules[name]
        if not isinstance(module, Sequence):
            return
        if name in trail:
            cycle = " -> ".join([*trail[trail.index(name) :], name])
            raise fail(("modules", name, "steps"), f"cycle in sequences: {cycle}")
        for step in module.steps:
            visit(step, [*trail, name])

    for name in bot.modules:
        visit(name, [])


def _check_slot(here: tuple[str | int, ...], slot: Slot, fail: Fail) -> None:
    if slot.type == "enum":
        if not slot.values:
            raise fail((*here, "values"), f"enum slot {slot.name!r} has no values")
        words: dict[str, str] = {}
        for value in slot.values:
            for word in (value.name, *value.synonyms):
                key = word.strip().lower()
                if key in words:
                    raise fail(
                        (*here, "values"),
                        f"{word!r} is listed twice (for {words[key]!r} and {value.name!r})",
                    )
                words[key] = value.name
    else:
        if slot.values:
            raise fail((*here, "values"), f"only enum slots have values, and {slot.name!r} is {slot.type}")
        if slot.multiple:
            raise fail((*here, "multiple"), "only enum slots can take several values")
    if slot.pattern is not None:
        try:
            re.compile(slot.pattern)
        except re.error as exc:
            raise fail((*here, "pattern"), f"not a valid regular expression ({exc})") from None
    for bound in ("earliest", "latest"):
        value = getattr(slot, bound)
        if value is not None and not _TIME.match(value):
            raise fail((*here, bound), f"expected HH:MM, got {value!r}")


def _check_compute(
    here: tuple[str | int, ...],
    available: set[str],
    tables: dict[str, dict[str, float]],
    compute: dict[str, str],
    response: str,
    fail: Fail,
) -> None:
    names = set(available)
    for key, text in compute.items():
        try:
            node = parse_formula(text)
        except FormulaError as exc:
            raise fail((*here, "compute", key), str(exc)) from None
        used, used_tables = names_used(node)
        for name in sorted(used - names):
            raise fail((*here, "compute", key), f"unknown name {name!r} in formula")
        for table in sorted(used_tables - set(tables)):
            raise fail((*here, "compute", key), f"unknown table {table!r} in formula")
        names.add(key)
    for name in PLACEHOLDER.findall(response):
        if name not in names:
            raise fail((*here, "response"), f"unknown placeholder {{{name}}} in the response")


def _check_form(here: tuple[str | int, ...], form: Form, fail: Fail) -> None:
    if not form.slots:
        raise fail((*here, "slots"), "a form needs at least one slot")
    seen: dict[str, int] = {}
    for i, slot in enumerate(form.slots):
        if slot.name in seen:
            raise fail(
                (*here, "slots", i, "name"), f"duplicate slot {slot.name!r} (also slots[{seen[slot.name]}])"
            )
        seen[slot.name] = i
        _check_slot((*here, "slots", i), slot, fail)
    _check_compute(here, set(seen), form.tables, form.compute, form.response, fail)
    for key, text in form.compute.items():
        used, _ = names_used(parse_formula(text))
        for slot in form.slots:
            if slot.name in used and not slot.required:
                raise fail(
                    (*here, "compute", key),
                    f"the formula needs slot {slot.name!r}, which is optional; make it required",
                )


def _check_action(bot: BotDefinition, here: tuple[str | int, ...], action: Action, fail: Fail) -> None:
    known = {slot.name for _, form in bot.forms() for slot in form.slots}
    seen: set[str] = set()
    for i, name in enumerate(action.uses):
        if name in seen:
            raise fail((*here, "uses", i), f"duplicate slot {name!r}")
        if name not in known:
            raise fail((*here, "uses", i), f"no form gathers a slot named {name!r}")
        seen.add(name)
    _check_compute(here, seen, action.tables, action.compute, action.response, fail)

"""The canonical profile: one pydantic model for every dialect a user may write (v1, v2, TRACER, the paper).

`dialects` turns any accepted spelling into this model; everything downstream (validator, planner,
simulator, the platform's editor) works on it only. The model is deliberately explicit: a selector is a
`Selector` with a kind and its argument, a generator says which kind it is, a goal style names its mode, so
no later stage re-parses strings such as "forward(size)" or "combinations(0.5)".
"""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

Scalar = str | int | float | bool

VariableType = str  # "string", "int", "float", "date" or the name of a custom type
StyleName = Literal[
    "default",
    "long phrases",
    "short phrases",
    "make spelling mistakes",
    "single question",
    "all questions",
    "change your mind",
    "change language",
]
STYLE_NAMES: tuple[str, ...] = get_args(StyleName)
ScalarKind = Literal["string", "int", "float", "bool", "money", "date", "time", "datetime"]
OutputKind = Literal[ScalarKind, "list", "enum", "custom"]
SCALAR_OUTPUT_KINDS: tuple[str, ...] = get_args(ScalarKind)
OUTPUT_KINDS: tuple[str, ...] = get_args(OutputKind)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LLMSettings(_Model):
    """The LLM that plays the user. `model` None means "the model the run was started with"."""

    model: str | None = None
    provider: str | None = None  # v2 `model_prov`: a hint, the run's provider decides
    temperature: float = Field(default=0.8, ge=0.0, le=2.0)
    format: Literal["text", "speech"] = "text"
    format_config: str | None = None  # a local file; only with allow_local_files


class AnyRequest(_Model):
    """An `any(<prompt>)` item of a literal list: values an LLM invents before the run."""

    prompt: str
    count: int | None = None  # the leading number of the prompt ("3 soda drinks"), when there is one


class ListData(_Model):
    kind: Literal["list"] = "list"
    items: list[Scalar] = Field(default_factory=list)
    any: list[AnyRequest] = Field(default_factory=list)


class RangeData(_Model):
    """Numbers from `min` to `max` (both included): by `step`, or `linspace` evenly spaced values."""

    kind: Literal["range"] = "range"
    min: float
    max: float
    step: float | None = None
    linspace: int | None = None


class DateRange(_Model):
    min: str
    max: str
    step: str | None = None  # "day(k)", "month(k)", "year(k)", "linspace(k)"
    random: int | None = None


class DateData(_Model):
    """Dates as ISO strings (YYYY-MM-DD); the parts are concatenated in this order."""

    kind: Literal["date"] = "date"
    custom: list[str] = Field(default_factory=list)
    random: int | None = None
    relative: list[str] = Field(default_factory=list)  # ">today(n)" / "<today(n)"
    range: DateRange | None = None
    fake: int | None = None


class FunctionData(_Model):
    """Values returned by a Python function in a local file. Runs code: CLI only, behind allow_local_files."""

    kind: Literal["function"] = "function"
    file: str
    function_name: str
    args: list[Scalar | dict[str, Scalar]] = Field(default_factory=list)


Generator = ListData | RangeData | DateData | FunctionData


class Selector(_Model):
    """How a variable's value is picked for each conversation.

    kinds: `default` (the whole list), `random` (`count` items, "rand" = a random number of items, None = one),
    `another` (no repetition until exhausted; `count` items per conversation), `forward` (in order; `count` items
    per conversation, or nested with `depends_on`: advances when that variable wraps), `pairwise` (one row of an
    all-pairs covering array over every pairwise variable).
    """

    kind: Literal["default", "random", "another", "forward", "pairwise"]
    count: int | Literal["rand"] | None = None
    depends_on: str | None = None


class Variable(_Model):
    name: str
    selector: Selector
    type: VariableType = "string"
    data: Generator


class UserSettings(_Model):
    language: str = "English"
    role: str
    personality: str | None = None  # the name the profile referred to (resolved at load time)
    personality_context: list[str] = Field(default_factory=list)  # that personality's sentences
    context: list[str] = Field(default_factory=list)
    goals: list[str] = Field(default_factory=list)  # templates, may contain {{variable}}
    variables: list[Variable] = Field(default_factory=list)


class OutputType(_Model):
    """An output's type. `item` for lists, `values` for enums, `name` for custom types, `format` keeps the
    human format hint of `time(...)`/`date(...)` (values are always ISO)."""

    kind: OutputKind
    item: OutputType | None = None
    values: list[str] = Field(default_factory=list)
    name: str | None = None
    format: str | None = None

    def label(self) -> str:
        if self.kind == "list" and self.item is not None:
            return f"list[{self.item.label()}]"
        if self.kind == "enum":
            return f"enum[{', '.join(self.values)}]"
        if self.kind == "custom" and self.name:
            return self.name
        return self.kind


class Output(_Model):
    name: str
    type: OutputType
    description: str


class ChatbotSettings(_Model):
    is_starter: bool = True
    fallback: list[str] = Field(default_factory=list)
    outputs: list[Output] = Field(default_factory=list)


class NumberSpec(_Model):
    """How many conversations: `fixed` (`count`) or `combinations` (a `fraction` of the combination count,
    computed over every finite selector, or only nested-forward chains / only the pairwise rows)."""

    kind: Literal["fixed", "combinations"]
    count: int | None = None
    fraction: float = 1.0
    basis: Literal["all", "forward", "pairwise"] = "all"


class GoalStyle(_Model):
    """When a conversation stops: after `steps` user messages, after a random 1..`steps`, or when every goal is
    answered and every output found (at most `limit` user messages). `max_cost`: per-conversation USD budget."""

    kind: Literal["steps", "random_steps", "all_answered"]
    steps: int | None = None
    limit: int = 30
    export: bool = False
    max_cost: float | None = None


class Style(_Model):
    name: StyleName
    languages: list[str] = Field(default_factory=list)  # change language only


class ConversationSettings(_Model):
    number: NumberSpec
    max_cost: float | None = None  # USD for all the conversations of this profile
    goal_style: GoalStyle
    styles: list[Style] = Field(default_factory=lambda: [Style(name="default")])
    random_styles: list[Style] = Field(default_factory=list)  # a random non-empty subset per conversation


class TypeComponent(_Model):
    name: str
    type: Literal["str", "int", "float"] = "str"
    description: str = ""


class TypeDef(_Model):
    """A custom type the profile uses, copied in at load time so the profile is self-contained."""

    name: str
    description: str
    format: str
    extraction: Literal["str", "int", "float"] = "str"
    components: list[TypeComponent] = Field(default_factory=list)


CheckKind = Literal["contains", "not_contains", "matches", "states"]
CHECK_KINDS: tuple[str, ...] = ("contains", "not_contains", "matches", "states")


class ReplyCheck(_Model):
    """A check on the chatbot's reply to one scripted user turn: it `contains` a text, does `not_contains` it
    (both ignore case and spacing), `matches` a regular expression somewhere, or `states` a value of an output
    type (`type`; `value` keeps the type as written)."""

    kind: CheckKind
    value: str
    type: OutputType | None = None

    def label(self) -> str:
        return f"{self.kind} {self.value!r}" if self.kind != "states" else f"states {self.value}"


class ScriptStep(_Model):
    """One literal user turn of a script and the checks on the chatbot's reply to it."""

    user: str
    expect: list[ReplyCheck] = Field(default_factory=list)


class Profile(_Model):
    """One profile = one test: who the simulated user is, what it wants, and how many conversations to run.

    `script`: literal user turns sent first, before any simulated one; a profile with a script and no goals is
    decided by its checks alone, with no LLM (`engine.sensei.scripted`). `min_pass_rate`: the smallest pass@1
    the comparison's gate accepts for this profile (`engine.regression.gates`)."""

    name: str
    llm: LLMSettings = Field(default_factory=LLMSettings)
    user: UserSettings
    chatbot: ChatbotSettings = Field(default_factory=ChatbotSettings)
    conversation: ConversationSettings
    custom_types: list[TypeDef] = Field(default_factory=list)
    script: list[ScriptStep] = Field(default_factory=list)
    min_pass_rate: float | None = Field(default=None, gt=0.0, le=1.0)

    @property
    def scripted_only(self) -> bool:
        """A script and no goals: every user turn is literal and the checks decide (0 LLM calls)."""
        return bool(self.script) and not self.user.goals

    def custom_type(self, name: str) -> TypeDef | None:
        return next((t for t in self.custom_types if t.name == name), None)

    def variable(self, name: str) -> Variable | None:
        return next((v for v in self.user.variables if v.name == name), None)


OutputType.model_rebuild()

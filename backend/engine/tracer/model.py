"""The functional model TRACER infers, and the structured answers the LLM gives while inferring it.

A `FunctionalModel` is what the run produces: languages, the fallback sentence, the chatbot type and a DAG of
`Functionality` nodes keyed by name. Edges are stored on the child (`parents`), so a join is simply a node with
several parents and nothing is duplicated; children are derived. The `*Answer` models are the JSON schemas of
the structured LLM calls (their field descriptions are what the model reads).

Everything here is plain pydantic, JSON-serialisable, so the graph state can hold `model_dump(mode="json")`
and any checkpointer (memory, sqlite, Postgres) stores it without custom types.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

ChatbotType = Literal["transactional", "informational", "unknown"]
_NOT_NAME = re.compile(r"[^a-z0-9]+")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


def snake_name(text: str) -> str:
    """`Prompt for Pizza-Size`, `promptForPizzaSize` → `prompt_for_pizza_size`, `tamaño` → `tamano`; never
    empty. Models write names in any casing; one spelling per name keeps "seen again" an exact match."""
    plain = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    name = _NOT_NAME.sub("_", _CAMEL.sub("_", plain.strip()).lower()).strip("_")
    return name or "unnamed"


class Parameter(BaseModel):
    """An input the chatbot asks the user for; `options` are the values it offered, if any."""

    name: str = Field(description="snake_case name of the input, e.g. pizza_size")
    description: str = Field(default="", description="what the user is asked to provide")
    options: list[str] = Field(
        default_factory=list, description="the values the chatbot offered for it, verbatim; empty if none"
    )


class Output(BaseModel):
    """A piece of information the chatbot gives the user (a price, an order id, a list of choices)."""

    name: str = Field(description="snake_case name of the piece of information, e.g. total_price")
    description: str = Field(default="", description="what it contains; list the items if it is a list")


class FoundAt(BaseModel):
    """Where a functionality was seen: a session (1-based) and the number of user messages sent before the
    chatbot reply that showed it (0: the greeting), located by `found.locate`."""

    session: int
    turn: int


class Functionality(BaseModel):
    """One node of the workflow graph."""

    name: str
    description: str = ""
    parameters: list[Parameter] = Field(default_factory=list)
    outputs: list[Output] = Field(default_factory=list)
    parents: list[str] = Field(default_factory=list)
    category: str | None = None
    discovered_in: list[int] = Field(default_factory=list)
    """Session numbers (1-based) whose transcript showed this functionality."""
    found_at: list[FoundAt] = Field(default_factory=list)
    """Per session that showed it, the turn of the reply that did: a recorded prefix that reaches it."""
    merged_from: list[str] = Field(default_factory=list)
    """Names of the nodes consolidated into this one."""


class FunctionalModel(BaseModel):
    languages: list[str] = Field(default_factory=list)
    fallback: str | None = None
    chatbot_type: ChatbotType = "unknown"
    greets_first: bool = False
    functionalities: list[Functionality] = Field(default_factory=list)

    def get(self, name: str) -> Functionality | None:
        return next((f for f in self.functionalities if f.name == name), None)

    def find(self, name: str) -> Functionality | None:
        """The node called `name`, or the node that absorbed a node of that name in an earlier merge."""
        return self.get(name) or next((f for f in self.functionalities if name in f.merged_from), None)

    def names(self) -> list[str]:
        return [f.name for f in self.functionalities]

    def children_of(self, name: str) -> list[str]:
        return [f.name for f in self.functionalities if name in f.parents]

    def roots(self) -> list[str]:
        return [f.name for f in self.functionalities if not f.parents]

    def edges(self) -> list[tuple[str, str]]:
        """(parent, child) pairs, joins included (one pair per parent)."""
        return [(parent, f.name) for f in self.functionalities for parent in f.parents]

    def joins(self) -> list[str]:
        return [f.name for f in self.functionalities if len(f.parents) > 1]

    def categories(self) -> list[str]:
        return sorted({f.category for f in self.functionalities if f.category})


# -- structured answers of the LLM ----------------------------------------------------------------------------


class _Answer(BaseModel):
    model_config = ConfigDict(extra="ignore")


class ProbeAnswer(_Answer):
    languages: list[str] = Field(
        description="languages the chatbot speaks or says it supports, as English names (e.g. English, Spanish); "
        "the main one first"
    )
    fallback: str | None = Field(
        description="the chatbot's generic 'I did not understand' answer, copied verbatim from the replies; "
        "null if the replies show none"
    )


class ExtractedFunctionality(_Answer):
    name: str = Field(description="snake_case name of what the chatbot does, e.g. prompt_for_pizza_size")
    description: str = Field(description="one sentence: what the chatbot does in this step")
    parameters: list[Parameter] = Field(default_factory=list)
    outputs: list[Output] = Field(default_factory=list)


class ExtractionAnswer(_Answer):
    functionalities: list[ExtractedFunctionality] = Field(
        default_factory=list, description="every distinct functionality the chatbot showed; empty if none"
    )


class FallbackVerdict(_Answer):
    is_fallback: bool = Field(description="true when the reply means the chatbot did not understand the user")


class RewrittenTurn(_Answer):
    message: str = Field(description="the message, rewritten as a customer would type it")


class DuplicateVerdict(_Answer):
    item: int = Field(description="the number of the functionality the question is about")
    same_as: int | None = Field(
        default=None,
        description="the number of the candidate that is the same step, or null when none of them is",
    )
    description: str = Field(default="", description="when same: one description covering both")


class ConsolidationAnswer(_Answer):
    verdicts: list[DuplicateVerdict] = Field(
        default_factory=list, description="one verdict per question, in the order asked"
    )


class ClassificationAnswer(_Answer):
    chatbot_type: Literal["transactional", "informational"]


class WorkflowNode(_Answer):
    name: str = Field(description="a functionality name, exactly as listed")
    parents: list[str] = Field(
        default_factory=list,
        description="names of the functionalities that directly lead to this one; [] for an entry point",
    )
    category: str = Field(description="short thematic category, reused across functionalities")


class WorkflowAnswer(_Answer):
    nodes: list[WorkflowNode]


class ProfileGroup(_Answer):
    name: str = Field(description="short test name, e.g. Custom pizza orderer")
    role: str = Field(description="one sentence: who the simulated user is and what they want")
    functionalities: list[str] = Field(description="names of the functionalities this user exercises")


class GroupingAnswer(_Answer):
    profiles: list[ProfileGroup]


class VariableDraft(_Answer):
    name: str = Field(description="the placeholder name used in the goals, without braces")
    source: str | None = Field(
        default=None, description="the id of the matching data source (e.g. DS3), or null when none fits"
    )
    kind: Literal["text", "integer", "decimal", "date"] = Field(
        default="text", description="what the values are"
    )
    values: list[str] = Field(
        default_factory=list,
        description="when source is null and kind is text or date: 3 to 6 plausible values",
    )
    minimum: float | None = Field(default=None, description="for integer or decimal: smallest sensible value")
    maximum: float | None = Field(default=None, description="for integer or decimal: largest sensible value")
    out_of_range: str | None = Field(
        default=None,
        description="one plausible value the chatbot probably does not support (a negative test)",
    )


class OutputDraft(_Answer):
    name: str = Field(description="snake_case name of one granular piece of data the chatbot should give")
    type: Literal["string", "int", "float", "money", "date", "time"]
    description: str = Field(description="three to eight words")


class ProfileDraft(_Answer):
    goals: list[str] = Field(description="2 to 5 goals in the user's words, with {{variable}} placeholders")
    variables: list[VariableDraft] = Field(default_factory=list)
    context: list[str] = Field(default_factory=list, description="2 or 3 short sentences of background")
    outputs: list[OutputDraft] = Field(default_factory=list)


class RepairAnswer(_Answer):
    yaml: str = Field(description="the whole corrected profile as YAML")

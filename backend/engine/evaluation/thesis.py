"""The thesis's published figures (Sotillo del Horno, UAM 2025, chapter 6), to print beside ours.

Only what the thesis's tables say, with the models it used. Our reference bots re-implement its four Taskyto
chatbots from their descriptions (bike, photography, pizza, veterinary ↔ Bike-shop, Photography, Pizza-order,
Veterinary): same domains and roughly the same sizes, not the same definitions. Its RQ3 chatbots are five public
deployed ones that we cannot reach; our RQ3-style precision is measured on the reference bots — different
chatbots, so the two are shown side by side and never combined (README D23).
"""

from __future__ import annotations

from pydantic import BaseModel, Field

TRACER_MODEL = "Gemini 2.0 Flash (temperature 1.0)"
SENSEI_MODEL = "GPT-4o-mini (profiles' own temperatures)"
BOT_MODEL = "GPT-4o-mini (temperature 0), Taskyto"

THESIS_BOTS = {
    "bike": "Bike-shop",
    "photography": "Photography",
    "pizza": "Pizza-order",
    "veterinary": "Veterinary",
}
"""Our reference bot → the thesis chatbot it re-implements."""

SIZES = {  # Table 6.1: modules, inputs, values, FAQ questions
    "bike": {"modules": 3, "inputs": 3, "values": 2, "questions": 4},
    "photography": {"modules": 5, "inputs": 9, "values": 12, "questions": 5},
    "pizza": {"modules": 10, "inputs": 22, "values": 78, "questions": 6},
    "veterinary": {"modules": 3, "inputs": 3, "values": 4, "questions": 5},
}

VALUE_COVERAGE = {  # Table 6.2, value coverage (%), aggregate over three runs: TRACER, SENSEI
    "bike": {"tracer": 83.33, "sensei": 83.33},
    "photography": {"tracer": 76.47, "sensei": 94.12},
    "pizza": {"tracer": 48.81, "sensei": 90.48},
    "veterinary": {"tracer": 55.56, "sensei": 77.78},
}

MUTATION = {  # Table 6.3: mutants, mutation score (%), live mutants
    "bike": {"mutants": 13, "score": 91.0, "live": 1},
    "photography": {"mutants": 18, "score": 76.9, "live": 3},
    "pizza": {"mutants": 20, "score": 75.0, "live": 3},
    "veterinary": {"mutants": 13, "score": 91.7, "live": 1},
}
MUTATION_TOTAL = {"mutants": 64, "score": 84.6, "live": 8}
AUTOMATIC_SHARE = 58.0
"""Share of the thesis's kills found automatically (%); the rest needed manual inspection of the conversations."""
KILL_RULE = (
    "any finding on the mutant (crash, timeout, loop, unmet goal, missing or incorrect output), one run"
)

PRECISION = {  # Table 6.4: five public deployed chatbots, manual verification
    "Ada-UAM": {"functionalities": 22, "tp": 22, "fp": 0, "precision": 100.0},
    "Gallo de Morón": {"functionalities": 29, "tp": 27, "fp": 2, "precision": 93.1},
    "Madrid te Cuida": {"functionalities": 91, "tp": 88, "fp": 3, "precision": 96.7},
    "Gestri": {"functionalities": 27, "tp": 27, "fp": 0, "precision": 100.0},
    "Arucas": {"functionalities": 41, "tp": 37, "fp": 4, "precision": 90.2},
}
PRECISION_TOTAL = {"functionalities": 210, "tp": 201, "fp": 9, "precision": 96.0}
PRECISION_METHOD = "manual verification by the author, TRACER 20 sessions x 12 turns"


# -- bench.json's `thesis` block: the thesis's tables 6.2-6.4 beside ours (`report.comparison`) ----------------------


class ThesisModels(BaseModel):
    thesis: dict[str, str] = Field(default_factory=dict)
    """The thesis's model per role (tracer, sensei, bots)."""
    ours: str = ""


class ThesisValueCoverage(BaseModel):
    tracer: float | None = None
    sensei: float | None = None


class ThesisCoverageRow(BaseModel):
    """RQ1: value coverage of one bot (%)."""

    bot: str = ""
    thesis_bot: str | None = None
    thesis: ThesisValueCoverage | None = None
    ours: ThesisValueCoverage = Field(default_factory=ThesisValueCoverage)


class ThesisMutation(BaseModel):
    mutants: int = 0
    score: float | None = None
    live: int = 0


class OurMutation(BaseModel):
    mutants: int = 0
    automatic: float | None = None
    with_oracles: float | None = None
    thesis_rule: float | None = None


class ThesisMutationRow(BaseModel):
    """RQ2: the mutation score of one bot (%)."""

    bot: str = ""
    thesis_bot: str | None = None
    thesis: ThesisMutation | None = None
    ours: OurMutation = Field(default_factory=OurMutation)


class ThesisMutationTotal(BaseModel):
    thesis: ThesisMutation = Field(default_factory=ThesisMutation)
    ours: OurMutation = Field(default_factory=OurMutation)


class ThesisOperatorRow(OurMutation):
    """RQ2: the mutation score of one operator (%); the thesis published none."""

    operator: str = ""
    thesis: float | None = None


class ThesisPrecision(BaseModel):
    functionalities: int = 0
    tp: int = 0
    fp: int = 0
    precision: float | None = None


class ThesisPrecisionTable(BaseModel):
    chatbots: dict[str, ThesisPrecision] = Field(default_factory=dict)
    total: ThesisPrecision = Field(default_factory=ThesisPrecision)
    method: str = ""


class OurPrecision(BaseModel):
    bot: str = ""
    functionalities: int = 0
    true_positives: int = 0
    false_positives: int = 0
    precision: float | None = None
    matcher: str = ""


class ThesisPrecisionComparison(BaseModel):
    """RQ3: never combined, the thesis measured other chatbots."""

    note: str = ""
    thesis: ThesisPrecisionTable = Field(default_factory=ThesisPrecisionTable)
    ours: list[OurPrecision] = Field(default_factory=list)


class ThesisComparison(BaseModel):
    models: ThesisModels = Field(default_factory=ThesisModels)
    rq1_value_coverage: list[ThesisCoverageRow] = Field(default_factory=list)
    rq2_mutation_per_bot: list[ThesisMutationRow] = Field(default_factory=list)
    rq2_mutation_total: ThesisMutationTotal = Field(default_factory=ThesisMutationTotal)
    rq2_mutation_per_operator: list[ThesisOperatorRow] = Field(default_factory=list)
    rq3_precision: ThesisPrecisionComparison = Field(default_factory=ThesisPrecisionComparison)

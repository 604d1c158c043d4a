"""The regression workflow: is a run worse than its baseline, for sure, and where?

- `outcomes`: each conversation's verdict — passed, failed (a chatbot fault) or inconclusive — from the record's
  own `verdict` (README D26), else from its errors; a failed rule fails a conversation;
- `data`: one side of a comparison (`RunData`) from a `parley sensei run --out` folder or stored records;
- `compare`: `compare(baseline, run)` → a `Comparison` (per profile and per rule, newly failing and newly
  passing conversations, flaky ones, new error codes, cost and response-time changes, a verdict);
- `repeats`: `Repeats(k)`, the plan hook that runs each conversation k times with other simulator seeds;
- `reliability`: pass^k and pass@1 over those repeats, per planned conversation and per profile (D33);
- `gates`: the comparison's extra gates — pass^k against the baseline (`--gate pass-k`), a minimum pass@1;
- `report`: the comparison as text;
- `shrink`: a failed conversation shrunk to the shortest script that still fails, pinned as a scripted profile
  (`parley sensei shrink`, the platform's `shrink` runs), with its Markdown bug report and JUnit case.

Plain Python over SENSEI's records and SENSEI-check's reports; the CLI (`parley sensei compare`) and the
platform (`/api/runs/{id}/compare/`) call the same code. The intervals are `engine.intervals`'.
"""

from engine.regression.compare import (
    DEFAULT_THRESHOLD,
    ComparedGroup,
    ComparedMatch,
    ComparedRegression,
    CompareSettings,
    Comparison,
    compare,
    stability,
)
from engine.regression.data import (
    Conversation,
    RegressionInputError,
    RunData,
    load_folder,
    rule_tallies,
    run_data,
)
from engine.regression.gates import (
    GATES,
    GateResult,
    apply_gates,
    gates_text,
    min_pass_rate_gate,
    pass_k_gate,
)
from engine.regression.outcomes import Outcome, outcome_of, record_field
from engine.regression.reliability import (
    PlannedReliability,
    ProfileReliability,
    reliability,
    reliability_json,
    reliability_text,
)
from engine.regression.repeats import MAX_REPEATS, Repeats, repeat_seed
from engine.regression.report import to_text

__all__ = [
    "DEFAULT_THRESHOLD",
    "GATES",
    "MAX_REPEATS",
    "CompareSettings",
    "ComparedGroup",
    "ComparedMatch",
    "ComparedRegression",
    "Comparison",
    "Conversation",
    "GateResult",
    "Outcome",
    "PlannedReliability",
    "ProfileReliability",
    "RegressionInputError",
    "Repeats",
    "RunData",
    "apply_gates",
    "compare",
    "gates_text",
    "load_folder",
    "min_pass_rate_gate",
    "outcome_of",
    "pass_k_gate",
    "record_field",
    "reliability",
    "reliability_json",
    "reliability_text",
    "repeat_seed",
    "rule_tallies",
    "run_data",
    "stability",
    "to_text",
]

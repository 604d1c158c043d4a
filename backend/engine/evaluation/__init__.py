"""The evaluation bench: how well Parley models bots and finds faults, and what that costs.

On the reference bots (their ground truth known): TRACER's exploration coverage and the precision and recall
of its functionalities; SENSEI's coverage with TRACER's profiles, its false alarms on the unmutated bots, and
the mutation score over the bots' mutants, kills found automatically by conversation errors and by rules
generated from the ground truth. Modules: `config` (`BenchConfig`), `target` (the in-process bot with
coverage), `oracles` (rules from the ground truth), `scoring` (kill reasons, scores, precision, recall),
`run` (`run_bench`, the pipeline), `report` (bench.json, bench.md).

    result = run_bench(BenchConfig(bots=("pizza",), output_dir=Path("out")), lambda role: make_client())
"""

from engine.evaluation.config import BenchConfig
from engine.evaluation.oracles import Oracle, oracle_rules
from engine.evaluation.run import (
    BenchCancelled,
    BenchReporter,
    BenchResult,
    LLMFactory,
    run_bench,
    select_mutants,
)
from engine.evaluation.scoring import KILL_REASONS, MutantOutcome

__all__ = [
    "KILL_REASONS",
    "BenchCancelled",
    "BenchConfig",
    "BenchReporter",
    "BenchResult",
    "LLMFactory",
    "MutantOutcome",
    "Oracle",
    "oracle_rules",
    "run_bench",
    "select_mutants",
]

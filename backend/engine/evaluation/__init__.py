"""The evaluation bench: how well Parley models bots and finds faults, and what that costs.

On the reference bots (their ground truth known): TRACER's exploration coverage and the precision and recall
of its functionalities; SENSEI's coverage with TRACER's profiles, its false alarms on the unmutated bots, and
the mutation scores over the bots' mutants — kills are differential (a finding the original shows too never
kills), counted apart for what Parley finds on its own (`automatic`) and with the ground-truth rules
(`with_oracles`), and the thesis's way beside them. Modules: `config` (`BenchConfig`), `target` (the in-process
bot with coverage), `findings` (what one conversation shows), `model_rules` (rules from TRACER's model,
out-of-range inputs), `oracles` (rules from the ground truth), `scoring` (differential kills, scores, false
alarms), `matching` (precision and recall, judge or lexical), `prompts`, `thesis` (its published figures),
`estimate` (cost before a run), `doubles` (the bench on the imperfect LLM doubles), `run` (`run_bench`, the
pipeline over every bot), `bench_bot` (one bot's phases), `bench_runs` (the SENSEI runs, judging, mutants), `totals` (usage, controls, figures over all bots), `report` (bench.json, bench.md), and model
qualification: `qualify_plan` (candidates, sizes, README D32 verdicts), `qualify_profiles` (the shipped profiles),
`qualify` (roles against a partner, figures, recommendation; `parley qualify`).

    job = BenchJob(BenchConfig(bots=("pizza",), output_dir=Path("out")), lambda role: make_client())
    result = run_bench(job, RunContext())  # or the CLI's / the worker's context
"""

from engine.evaluation.bench_runs import select_mutants
from engine.evaluation.config import BenchConfig, BenchJob, LLMFactory
from engine.evaluation.findings import KILL_REASONS
from engine.evaluation.oracles import Oracle, oracle_rules
from engine.evaluation.run import BenchResult, run_bench
from engine.evaluation.scoring import MutantOutcome

__all__ = [
    "KILL_REASONS",
    "BenchConfig",
    "BenchJob",
    "BenchResult",
    "LLMFactory",
    "MutantOutcome",
    "Oracle",
    "oracle_rules",
    "run_bench",
    "select_mutants",
]

"""Writes the checked-in TRACER output of a security bot, explored offline by the imperfect TRACER double (no
LLM, no network), so security campaigns can attack from its states in tests and examples:

    cd backend && .venv/bin/python scripts/tracer_security_bot.py stateful engine/security/examples/tracer-stateful
    cd backend && .venv/bin/python scripts/tracer_security_bot.py guarded engine/security/examples/tracer-guarded

The double's choices depend on what the bot says, and `stateful`'s order ids are new every time, so a new run
may explore in another order; the checked-in outputs are one such run.

Only `model.json`, `graph.json` and `transcripts.json` are kept (what `--tracer` reads); the rest is removed.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from langgraph.checkpoint.memory import InMemorySaver

from engine.bots.adversarial import AdversarialConnector
from engine.egress import EgressGuard
from engine.llm import LLMClient, ProviderConfig
from engine.llm.offline.tracer import TracerDouble
from engine.tracer import TracerConfig, TracerDeps, TracerJob, run_tracer

KEPT = ("model.json", "graph.json", "transcripts.json")


def main(bot: str, target: Path, *, sessions: int = 6, seed: int = 3) -> None:
    llm = LLMClient(
        ProviderConfig("openai", api_key="sk-offline-double", model="imperfect-double"),
        guard=EgressGuard(),
        chat_model=TracerDouble(seed=seed).chat_model(),
    )
    with tempfile.TemporaryDirectory() as scratch:
        config = TracerConfig(sessions=sessions, turns=6, output_dir=Path(scratch), seed=seed)
        result = run_tracer(
            TracerJob(
                config,
                TracerDeps(llm=llm, connector=AdversarialConnector(bot)),
                run_id=f"tracer-{bot}",
                checkpointer=InMemorySaver(),
            )
        )
        target.mkdir(parents=True, exist_ok=True)
        for name in KEPT:
            shutil.copyfile(Path(scratch) / name, target / name)
    for node in result.model.functionalities:
        sys.stdout.write(f"{node.name} {[(f.session, f.turn) for f in node.found_at]}\n")


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]))

"""Worker overhead: time from "start run" to that run's first LLM call, with a warm worker (target < 1 s).

    cd backend && .venv/bin/python benchmarks/worker_overhead.py [--runs 10] [--warmup 2] [--concurrency 2]

Needs PostgreSQL and RabbitMQ on this machine (as `make run` does), nothing else. The script drops, recreates
and migrates the database `parley_bench_overhead`, starts the fake OpenAI-compatible server in this process
and a real Celery worker process (prefork, `--concurrency` children as in production) on a queue of its own.
Through the API, as a user would, it adds an LLM key pointing at the fake server, a connector to the built-in
pizza bot (technology `demo`), a project and a one-conversation SENSEI profile. Then, one run at a time with
the worker idle in between, it notes t0, POSTs "start a SENSEI run" (`/api/projects/{id}/runs/`) and, once
the run has finished, reads from the fake server's request record when the run's first chat completion
arrived.

The first `--warmup` runs (they pay for lazy imports in the worker's children) are reported apart and left out
of the statistics. Also reported: how long the POST took and when the worker claimed the run (`started_at`).
Prints one JSON line; exit code 1 when the p95 overhead misses the target, 2 when it cannot measure. The
database is left for inspection; the worker's log is `var/bench-worker-overhead.log`.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

BACKEND_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BACKEND_DIR))

from engine.llm.offline.server import FakeLLMServer, running_fake_server

DATABASE = "parley_bench_overhead"
TARGET_MS = 1000
PROFILE = """\
test_name: overhead
llm: {model: fake-model}
user:
  role: You order a pizza.
  goals: ["order a small margherita pizza"]
chatbot:
  is_starter: false
  fallback: Sorry, I did not understand.
conversation: {number: 1, goal_style: {steps: 2}, interaction_style: [single question]}
"""


def _failure(message: str) -> SystemExit:
    """Could not measure (a service is missing, a run failed): exit 2, as for any configuration error."""
    sys.stderr.write(f"worker_overhead: {message}\n")
    return SystemExit(2)


def _configure(database_url: str, queue: str) -> None:
    """Environment for this process and the worker it starts, then Django."""
    os.environ.update(
        # PARLEY_ENV=test: neither a .env file nor exported PARLEY_* settings leak into the measurement.
        DJANGO_SETTINGS_MODULE="parley.settings_test",
        DATABASE_URL=database_url,
        PARLEY_CELERY_QUEUE=queue,
        PARLEY_EGRESS_ALLOW="127.0.0.1",  # the fake LLM server listens on loopback
    )
    import django

    django.setup()


def _fresh_database(database_url: str) -> None:
    """Drop, recreate and migrate this benchmark's own database; fail readably when a service is missing."""
    import psycopg
    from django.core.management import call_command
    from psycopg import sql

    from parley.celery import app

    admin_url = database_url.rsplit("/", 1)[0] + "/postgres"
    try:
        with psycopg.connect(admin_url, autocommit=True, connect_timeout=5) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(DATABASE)))
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(DATABASE)))
        with app.connection_for_write() as broker:
            broker.ensure_connection(max_retries=1)
    except Exception as exc:  # noqa: BLE001 - any failure here means a missing service
        raise _failure(f"needs PostgreSQL and RabbitMQ on 127.0.0.1: {exc}") from None
    call_command("migrate", verbosity=0)


def _start_worker(queue: str, concurrency: int, log_path: Path) -> subprocess.Popen[bytes]:
    """A real worker as `make run` starts one, answering a ping once it is ready."""
    from parley.celery import app

    node = f"bench-overhead-{uuid.uuid4().hex[:6]}@localhost"
    command = [sys.executable, "-m", "celery", "-A", "parley", "worker", "-Q", queue, "-n", node]
    command += ["--concurrency", str(concurrency), "--loglevel", "INFO"]
    with log_path.open("w") as log:  # the worker keeps its own descriptor of the log after this block
        worker = subprocess.Popen(  # noqa: S603 - this interpreter, fixed arguments
            command, cwd=BACKEND_DIR, stdout=log, stderr=subprocess.STDOUT
        )
    deadline = time.monotonic() + 60
    while not app.control.ping(destination=[node], timeout=1.0):
        if worker.poll() is not None or time.monotonic() > deadline:
            worker.kill()
            raise _failure(f"The Celery worker did not start; see {log_path}")
    return worker


def _workspace(client: Any, base_url: str) -> tuple[int, int]:
    """Key, connector, project and profile, created over the API; returns (project id, profile id)."""

    def post(path: str, body: dict[str, Any]) -> dict[str, Any]:
        response = client.post(path, body, format="json")
        if response.status_code != 201:
            raise _failure(f"POST {path}: {response.status_code} {response.content!r}")
        return dict(response.json())

    key = post(
        "/api/keys/", {"name": "fake", "provider": "openai-compatible", "base_url": base_url, "key": "x"}
    )
    connector = post("/api/connectors/", {"name": "pizza", "technology": "demo", "params": {"bot": "pizza"}})
    project = post(
        "/api/projects/",
        {
            "name": "Overhead",
            "connector": connector["id"],
            "llm_key": key["id"],
            "exploration_model": "fake-model",
        },
    )
    profile = post(f"/api/projects/{project['id']}/profiles/", {"text": PROFILE})
    if not profile["valid"]:
        raise _failure(f"The benchmark's profile is invalid: {profile['problems']}")
    return project["id"], profile["id"]


def _one_run(client: Any, server: FakeLLMServer, project_id: int, profile_id: int) -> dict[str, float]:
    """Start one SENSEI run, wait for its end, and time its milestones from t0 (milliseconds)."""
    from runs.models import Run

    server.reset()
    t0 = time.time()
    response = client.post(
        f"/api/projects/{project_id}/runs/", {"kind": "sensei", "profiles": [profile_id]}, format="json"
    )
    answered = time.time()
    if response.status_code != 201:
        raise _failure(f"Starting a run failed: {response.status_code} {response.content!r}")
    run_id = response.json()["id"]
    deadline = time.monotonic() + 120
    while (run := Run.objects.get(pk=run_id)).status in Run.ACTIVE:
        if time.monotonic() > deadline:
            raise _failure(f"Run {run_id} did not finish within 120 s.")
        time.sleep(0.05)
    calls = server.chat_requests()
    if run.status != Run.Status.SUCCEEDED or not calls or run.started_at is None:
        raise _failure(f"Run {run_id} ended {run.status}: {run.error_message or 'no LLM call'}")
    first_call = min(call.started for call in calls)  # stamped by the server when the request arrived
    return {
        "api_ms": 1000 * (answered - t0),
        "claimed_ms": 1000 * (run.started_at.timestamp() - t0),
        "first_llm_call_ms": 1000 * (first_call - t0),
    }


def _stats(values: list[float]) -> dict[str, float]:
    """Median, p95 (nearest rank) and maximum, in the unit given."""
    ordered = sorted(values)
    p95 = ordered[math.ceil(0.95 * len(ordered)) - 1]
    return {"p50": round(statistics.median(ordered), 1), "p95": round(p95, 1), "max": round(ordered[-1], 1)}


def measure(runs: int, warmup: int, concurrency: int) -> dict[str, Any]:
    queue = f"parley-bench-overhead-{uuid.uuid4().hex[:8]}"
    _configure(f"postgres://postgres@127.0.0.1:5432/{DATABASE}", queue)
    from rest_framework.test import APIClient

    from accounts.models import User
    from accounts.services import open_session
    from parley.celery import app

    _fresh_database(os.environ["DATABASE_URL"])
    user = User.objects.create_user("bench-overhead@example.com", "correct horse battery staple")
    client = APIClient(HTTP_HOST="localhost")
    client.credentials(HTTP_AUTHORIZATION=f"Token {open_session(user)['token']}")
    log_path = BACKEND_DIR.parent / "var" / "bench-worker-overhead.log"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with running_fake_server() as server:
        project_id, profile_id = _workspace(client, server.base_url)
        worker = _start_worker(queue, concurrency, log_path)
        try:
            timings = []
            for _ in range(warmup + runs):
                timings.append(_one_run(client, server, project_id, profile_id))
                time.sleep(0.5)  # the worker is idle again before the next run starts
        finally:
            worker.terminate()
            try:
                worker.wait(timeout=30)
            except subprocess.TimeoutExpired:
                worker.kill()
            with app.connection_for_write() as conn:
                conn.default_channel.queue_delete(queue)
    measured = timings[warmup:]
    overhead = _stats([t["first_llm_call_ms"] for t in measured])
    return {
        "benchmark": "worker_overhead",
        "runs": runs,
        "worker_concurrency": concurrency,
        "first_llm_call_ms": overhead,
        "claimed_ms": _stats([t["claimed_ms"] for t in measured]),
        "api_ms": _stats([t["api_ms"] for t in measured]),
        "warmup_first_llm_call_ms": [round(t["first_llm_call_ms"], 1) for t in timings[:warmup]],
        "target_ms": TARGET_MS,
        "ok": overhead["p95"] < TARGET_MS,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="measured runs")
    parser.add_argument("--warmup", type=int, default=2, help="runs before those, reported apart")
    parser.add_argument("--concurrency", type=int, default=2, help="worker processes (production default 2)")
    args = parser.parse_args(argv)
    result = measure(max(1, args.runs), max(0, args.warmup), max(1, args.concurrency))
    sys.stdout.write(json.dumps(result) + "\n")
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())

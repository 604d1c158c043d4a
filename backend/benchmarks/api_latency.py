"""API latency: p50/p95 and requests per second of the runs list and a run detail at 1, 5 and 20 clients.

Target: p95 < 100 ms at 5 clients, with 10,000 runs and 100,000 conversations stored. Only 127.0.0.1 /
localhost are accepted as targets.

One command (what `make bench` runs): start a stack of its own (`parley.localrun`: nginx, gunicorn, a worker,
on the database `parley_bench_api`, seeded on first use), measure, stop it:

    cd backend && .venv/bin/python benchmarks/api_latency.py --stack [--port 8095]

Or against a stack you run yourself:

1. Seed its database once (through Django's ORM; it creates the user `bench-api` and prints its token):

       cd backend && DJANGO_SETTINGS_MODULE=parley.settings .venv/bin/python benchmarks/api_latency.py --seed-db
       # or: python manage.py shell -c "from benchmarks.api_latency import seed_database; seed_database()"

2. Measure (bounded: each client makes `--requests` requests per endpoint and level):

       .venv/bin/python benchmarks/api_latency.py --base-url http://127.0.0.1:8080/api --token TOKEN

Prints one JSON line.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

BACKEND_DIR = Path(__file__).resolve().parent.parent
STACK_DATABASE = "parley_bench_api"

LEVELS = (1, 5, 20)
LOOPBACK = {"127.0.0.1", "localhost", "::1"}


def seed_database(
    runs: int = 10_000, conversations: int = 100_000, email: str = "bench-api@example.com", batch: int = 2_000
) -> str:
    """Insert `runs` SENSEI runs and `conversations` conversations for the user `email`; return an API token.

    Call with DJANGO_SETTINGS_MODULE set and Django set up (`manage.py shell` does both)."""
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from knox.models import AuthToken

    from runs.models import Conversation, Run
    from workspace.models import Connector, Project

    user, _ = get_user_model().objects.get_or_create(email=email)
    if Run.objects.filter(owner=user).count() >= runs:  # seeded by an earlier measurement
        return str(AuthToken.objects.create(user)[1])
    connector, _ = Connector.objects.get_or_create(
        owner=user, name="bench demo bot", defaults={"technology": "demo", "params": {"bot": "pizza"}}
    )
    project, _ = Project.objects.get_or_create(owner=user, name="bench", defaults={"connector": connector})
    record = {"id": "x", "profile": "bench", "turns": [{"role": "user", "text": "hello"}], "errors": []}
    made: list[Run] = []
    for start in range(0, runs, batch):
        chunk = [
            Run(
                kind=Run.Kind.SENSEI,
                owner=user,
                project=project,
                status=Run.Status.SUCCEEDED,
                input={"bench": i},
                result={"conversations": conversations // runs},
            )
            for i in range(start, min(runs, start + batch))
        ]
        made += Run.objects.bulk_create(chunk)
    per_run = max(1, conversations // max(1, len(made)))
    pending: list[Conversation] = []
    for run in made:
        for index in range(per_run):
            pending.append(
                Conversation(
                    run=run, profile="bench", index=index, record={**record, "id": f"{run.pk}-{index}"}
                )
            )
        if len(pending) >= batch:
            Conversation.objects.bulk_create(pending)
            pending = []
    if pending:
        Conversation.objects.bulk_create(pending)
    from django.db import connection

    with connection.cursor() as cursor:  # fresh statistics, as autovacuum would give a live database
        cursor.execute("VACUUM ANALYZE")
    _, token = AuthToken.objects.create(user)
    return str(token)


def _get(url: str, token: str) -> float:
    request = urllib.request.Request(url, headers={"Authorization": f"Token {token}"})  # noqa: S310
    started = time.perf_counter()
    with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310 - loopback only, checked
        response.read()
        if response.status != 200:
            raise RuntimeError(f"{url}: HTTP {response.status}")
    return time.perf_counter() - started


def _level(url: str, token: str, clients: int, requests: int) -> dict[str, Any]:
    timings: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()

    def client() -> None:
        for _ in range(requests):
            try:
                elapsed = _get(url, token)
            except Exception as exc:  # noqa: BLE001 - reported, never hidden
                with lock:
                    errors.append(str(exc))
                continue
            with lock:
                timings.append(elapsed)

    threads = [threading.Thread(target=client) for _ in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - started
    timings.sort()
    p95 = timings[max(0, round(0.95 * len(timings)) - 1)] if timings else None
    return {
        "clients": clients,
        "requests": len(timings),
        "errors": len(errors),
        "p50_ms": round(1000 * statistics.median(timings), 1) if timings else None,
        "p95_ms": round(1000 * p95, 1) if p95 is not None else None,
        "requests_per_s": round(len(timings) / wall, 1) if wall else None,
    }


def measure(base_url: str, token: str, requests: int) -> dict[str, Any]:
    host = urlparse(base_url).hostname or ""
    if host not in LOOPBACK:
        raise SystemExit(f"api_latency only measures a local stack; {host!r} is not loopback")
    base = base_url.rstrip("/")
    listing = json.loads(
        urllib.request.urlopen(  # noqa: S310 - loopback only, checked
            urllib.request.Request(f"{base}/runs/", headers={"Authorization": f"Token {token}"}),  # noqa: S310
            timeout=30,
        ).read()
    )
    items = listing.get("results", listing) if isinstance(listing, dict) else listing
    run_id = items[0]["id"]
    endpoints = {"runs_list": f"{base}/runs/", "run_detail": f"{base}/runs/{run_id}/"}
    out: dict[str, Any] = {"benchmark": "api_latency", "base_url": base, "endpoints": {}}
    for name, url in endpoints.items():
        _get(url, token)  # warm-up
        out["endpoints"][name] = [_level(url, token, clients, requests) for clients in LEVELS]
    five = [row for rows in out["endpoints"].values() for row in rows if row["clients"] == 5]
    out["target_p95_under_100ms_at_5"] = all(r["p95_ms"] is not None and r["p95_ms"] < 100 for r in five)
    return out


@contextlib.contextmanager
def own_stack(port: int) -> Iterator[str]:
    """`parley.localrun` on `port` with its own database, data folder and queue; yields the API's base URL."""
    import psycopg

    admin = os.environ.get("PARLEY_BENCH_ADMIN_URL", "postgres://postgres@127.0.0.1:5432/postgres")
    with psycopg.connect(admin, autocommit=True) as db:
        if not db.execute("SELECT 1 FROM pg_database WHERE datname = %s", (STACK_DATABASE,)).fetchone():
            db.execute(f'CREATE DATABASE "{STACK_DATABASE}"')
    data_dir = BACKEND_DIR.parent / "var" / "bench-api"
    data_dir.mkdir(parents=True, exist_ok=True)
    env = {
        **os.environ,
        "DATABASE_URL": admin.rsplit("/", 1)[0] + f"/{STACK_DATABASE}",
        "PARLEY_ENV_FILE": str(data_dir / "env"),
        "PARLEY_DATA_DIR": str(data_dir),
        "PARLEY_CELERY_QUEUE": "parley-bench-api",
    }
    log = (data_dir / "stack.log").open("w")
    stack = subprocess.Popen(  # noqa: S603 - our own module, fixed arguments
        [sys.executable, "-m", "parley.localrun", "--port", str(port)],
        cwd=BACKEND_DIR,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}/api"
    try:
        deadline = time.monotonic() + 180
        while True:
            with contextlib.suppress(OSError):
                urllib.request.urlopen(f"{base}/health/", timeout=5).read()  # noqa: S310 - loopback
                break
            if stack.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"api_latency: the stack did not start; see {data_dir / 'stack.log'}")
            time.sleep(1)
        os.environ.update({k: env[k] for k in ("DATABASE_URL", "PARLEY_ENV_FILE", "PARLEY_DATA_DIR")})
        os.environ["DJANGO_SETTINGS_MODULE"] = "parley.settings"
        yield base
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(stack.pid, signal.SIGINT)  # honcho stops every process it started
        try:
            stack.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(stack.pid, signal.SIGKILL)
        log.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", default="http://127.0.0.1:8080/api")
    parser.add_argument("--token", help="an API token (`Authorization: Token ...`)")
    parser.add_argument("--requests", type=int, default=50, help="requests per client, endpoint and level")
    parser.add_argument("--seed-db", action="store_true", help="insert 10,000 runs and 100,000 conversations")
    parser.add_argument("--stack", action="store_true", help="start, seed and measure a stack of its own")
    parser.add_argument("--port", type=int, default=8095, help="the --stack's port (and the next one)")
    args = parser.parse_args(argv)
    if args.stack:
        with own_stack(args.port) as base:
            token = seed_database()
            result = measure(base, token, args.requests)
        sys.stdout.write(json.dumps(result) + "\n")
        return 0 if result["target_p95_under_100ms_at_5"] else 1
    if args.seed_db:
        token = seed_database()
        sys.stdout.write(json.dumps({"benchmark": "api_seed", "token": token}) + "\n")
        return 0
    if not args.token:
        parser.error("--token is required to measure (run --seed-db first to get one)")
    sys.stdout.write(json.dumps(measure(args.base_url, args.token, args.requests)) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

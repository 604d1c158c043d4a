"""Live updates: 100 browsers watching one run through nginx; how long an event takes to reach all of them.

Against a running stack (`make run`, or the e2e stack), on its database: the benchmark creates a user and a running
SENSEI run through Django's ORM, opens `--watchers` streams to /api/stream/runs/{id}/ at once, writes `--events`
events the way the worker's recorder does (one committed INSERT each), and times each event from its commit to
its arrival at every watcher. Meanwhile it reads the runs list, to show the API does not wait behind the open
streams, and it reports the stream process's threads and memory with every stream open. Then it finishes the
run (every stream must end) and deletes what it created. Only 127.0.0.1 / localhost are accepted as targets.

    cd backend && DATABASE_URL=postgres://postgres@127.0.0.1:5432/parley \\
        .venv/bin/python benchmarks/live_updates.py --base-url http://127.0.0.1:8080

Prints one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import httpx

BACKEND_DIR = Path(__file__).resolve().parent.parent
LOOPBACK = {"127.0.0.1", "localhost", "::1"}


def setup_django() -> None:
    sys.path.insert(0, str(BACKEND_DIR))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "parley.settings")
    os.environ.setdefault("PARLEY_ENV", "local")
    import django

    django.setup()


def create_run() -> tuple[int, int, str]:
    from knox.models import AuthToken

    from accounts.models import User
    from runs.models import Run

    user = User.objects.create_user(email=f"bench-live-{time.time_ns()}@example.com", password=None)
    _, token = AuthToken.objects.create(user)
    run = Run.objects.create(owner=user, kind=Run.Kind.SENSEI, status=Run.Status.RUNNING, stage="simulating")
    return user.pk, run.pk, token


def write_event(run_id: int, number: int) -> tuple[int, float]:
    from runs.models import RunEvent

    event = RunEvent.objects.create(
        run_id=run_id,
        type="message",
        data={"profile": "bench", "index": 0, "role": "user", "text": f"#{number}"},
    )
    return event.pk, time.monotonic()  # autocommit: the INSERT (and its NOTIFY) is committed here


def finish(run_id: int) -> None:
    from runs.worker import bookkeeping

    bookkeeping.succeed(run_id, {"benchmark": True})


def clean_up(user_id: int, run_id: int) -> None:
    from django.db import DatabaseError
    from knox.models import AuthToken

    from accounts.models import User
    from runs.models import Run

    for rows in (
        Run.objects.filter(pk=run_id),
        AuthToken.objects.filter(user_id=user_id),
        User.objects.filter(pk=user_id),
    ):
        try:
            rows.delete()
        except DatabaseError as exc:  # a schema older than the code (the stack was migrated before a change)
            print(f"could not clean up {rows.model.__name__}: {exc}", file=sys.stderr)  # noqa: T201


def stream_process() -> dict[str, Any]:
    """Threads and resident memory of the local process serving parley.asgi (Linux /proc), if one is found: the
    biggest such process (a launcher's shell wrapper has the same command line)."""
    found: list[dict[str, Any]] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            if "parley.asgi:application" not in command or "uvicorn" not in command:
                continue
            status = dict(
                line.split(":", 1) for line in (entry / "status").read_text().splitlines() if ":" in line
            )
            found.append(
                {
                    "pid": int(entry.name),
                    "threads": int(status["Threads"].strip()),
                    "rss_mb": round(int(status["VmRSS"].split()[0]) / 1024, 1),
                }
            )
        except (OSError, KeyError, ValueError):
            continue
    return max(found, key=lambda process: process["rss_mb"], default={})


async def watch(
    client: httpx.AsyncClient, url: str, token: str, arrivals: dict[int, list[float]], ready: asyncio.Event
) -> str:
    """One browser: reads the stream, notes when each event arrives; returns how the stream ended."""
    async with client.stream("GET", url, headers={"Authorization": f"Token {token}"}) as response:
        response.raise_for_status()
        event = ""
        async for line in response.aiter_lines():
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: "):
                if event == "run":
                    ready.set()
                elif event == "events":
                    now = time.monotonic()
                    for item in json.loads(line[6:]):
                        arrivals.setdefault(item["id"], []).append(now)
                elif event == "end":
                    return json.loads(line[6:])["status"]
    return "closed"


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    user_id, run_id, token = await asyncio.to_thread(create_run)
    base = args.base_url.rstrip("/")
    url = f"{base}/api/stream/runs/{run_id}/"
    limits = httpx.Limits(max_connections=args.watchers + 10, max_keepalive_connections=args.watchers + 10)
    try:
        async with httpx.AsyncClient(limits=limits, timeout=httpx.Timeout(60.0)) as client:
            readies = [asyncio.Event() for _ in range(args.watchers)]
            arrivals: list[dict[int, list[float]]] = [{} for _ in range(args.watchers)]
            opened = time.monotonic()
            watchers = [
                asyncio.create_task(watch(client, url, token, arrivals[i], readies[i]))
                for i in range(args.watchers)
            ]
            await asyncio.wait_for(asyncio.gather(*(ready.wait() for ready in readies)), 60)
            connect_s = time.monotonic() - opened
            process = stream_process()

            written: dict[int, float] = {}
            api_times: list[float] = []

            async def write_events() -> None:
                for number in range(args.events):
                    event_id, at = await asyncio.to_thread(write_event, run_id, number)
                    written[event_id] = at
                    await asyncio.sleep(args.interval)

            async def read_list() -> None:
                headers = {"Authorization": f"Token {token}"}
                while len(written) < args.events:
                    started = time.monotonic()
                    response = await client.get(f"{base}/api/runs/?kind=sensei", headers=headers)
                    response.raise_for_status()
                    api_times.append(time.monotonic() - started)
                    await asyncio.sleep(0.05)

            await asyncio.gather(write_events(), read_list())
            await asyncio.sleep(1.0)
            await asyncio.to_thread(finish, run_id)
            endings = await asyncio.wait_for(asyncio.gather(*watchers), 30)
    finally:
        await asyncio.to_thread(clean_up, user_id, run_id)

    latencies = [
        (arrival - written[event_id]) * 1000
        for seen in arrivals
        for event_id, times in seen.items()
        if event_id in written
        for arrival in times
    ]
    expected = args.watchers * args.events
    return {
        "benchmark": "live_updates",
        "watchers": args.watchers,
        "events": args.events,
        "connect_all_s": round(connect_s, 2),
        "delivered": len(latencies),
        "expected": expected,
        "event_latency_ms": {
            "p50": round(statistics.median(latencies), 1),
            "p95": round(percentile(latencies, 0.95), 1),
            "max": round(max(latencies), 1),
        },
        "runs_list_with_streams_open_ms": {
            "p50": round(statistics.median(api_times) * 1000, 1),
            "p95": round(percentile(api_times, 0.95) * 1000, 1),
            "requests": len(api_times),
        },
        "streams_ended": sum(1 for ending in endings if ending == "succeeded"),
        "stream_process": process,
        "target": "p95 < 1000 ms, every event to every watcher, every stream ends",
        "ok": len(latencies) == expected
        and percentile(latencies, 0.95) < 1000
        and all(ending == "succeeded" for ending in endings),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", default="http://127.0.0.1:8080")
    parser.add_argument("--watchers", type=int, default=100)
    parser.add_argument("--events", type=int, default=50)
    parser.add_argument("--interval", type=float, default=0.1, help="seconds between two events")
    args = parser.parse_args(argv)
    if urlparse(args.base_url).hostname not in LOOPBACK:
        parser.error("only a stack on this machine (127.0.0.1 / localhost) may be measured")
    logging.getLogger("httpx").setLevel(logging.WARNING)
    setup_django()
    result = asyncio.run(measure(args))
    print(json.dumps(result))  # noqa: T201
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())

"""Shared fixtures: API clients, users, and a real Celery worker on real RabbitMQ for integration tests."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from rest_framework.test import APIClient

from accounts.services import open_session
from tests.factories import UserFactory

BACKEND_DIR = Path(__file__).resolve().parent.parent


@pytest.fixture
def api() -> APIClient:
    return APIClient()


@pytest.fixture
def user(db):
    return UserFactory()


@pytest.fixture
def auth_api(user) -> APIClient:
    """A client logged in as `user` with a real knox token."""
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {open_session(user)['token']}")
    client.user = user
    return client


@pytest.fixture
def connector(auth_api) -> dict:
    """A taskyto connector of `auth_api`'s user, created through the API (nothing listens at its address)."""
    response = auth_api.post(
        "/api/connectors/",
        {"name": "shop bot", "technology": "taskyto", "params": {"base_url": "https://bot.example.com:5000"}},
        format="json",
    )
    assert response.status_code == 201, response.json()
    return response.json()


@pytest.fixture(autouse=True)
def runs_stay_queued_without_a_worker(request, monkeypatch):
    """A test that asks for no worker keeps the runs it creates off the queue.

    Otherwise the session's Celery worker (alive once an earlier test started it) takes them, runs them against
    whatever the test left behind, and its writes race the test's own — a flush at teardown deadlocked on them.
    Tests that need runs executed ask for `celery_worker` or are marked `integration` (they start their own).
    """
    if "celery_worker" in request.fixturenames or request.node.get_closest_marker("integration"):
        return
    monkeypatch.setattr("runs.services._publish", lambda task, run_id: None)


def create_llm_key(api: APIClient, base_url: str, name: str = "fake", key: str = "sk-test") -> dict:
    """An OpenAI-compatible LLM key on `base_url`, created through the API."""
    body = {"name": name, "provider": "openai-compatible", "base_url": base_url, "key": key}
    return api.post("/api/keys/", body, format="json").json()


def create_demo_project(api: APIClient, bot: str, name: str) -> dict:
    """A project without an LLM key on the built-in demo bot `bot` (its connector named "<name> bot"), created
    through the API."""
    bot_connector = {"name": f"{name} bot", "technology": "demo", "params": {"bot": bot}}
    connector = api.post("/api/connectors/", bot_connector, format="json").json()
    response = api.post("/api/projects/", {"name": name, "connector": connector["id"]}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def create_pizza_project(
    api: APIClient,
    key: dict,
    name: str = "Pizza",
    connector: int | None = None,
    bot: str = "pizza",
    **models: str,
) -> dict:
    """A project created through the API: the built-in pizza bot (or the demo bot `bot`, or `connector`) with
    `key`, exploring and writing profiles with "fake-model" unless `models` names others (`judge_model="fake-model"`,
    say)."""
    if connector is None:
        demo = {"name": bot, "technology": "demo", "params": {"bot": bot}}
        connector = api.post("/api/connectors/", demo, format="json").json()["id"]
    body = {
        "name": name,
        "connector": connector,
        "llm_key": key["id"],
        "exploration_model": "fake-model",
        "profile_model": "fake-model",
        **models,
    }
    response = api.post("/api/projects/", body, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def unpublished_run(project, user, **data):
    """A run as the API creates it from the request `data` (same serializer), but not published: the test fills
    or executes it."""
    from runs.http.serializers import RunRequestSerializer
    from runs.models import Run

    request = RunRequestSerializer(data=data, context={"project": project})
    assert request.is_valid(), request.errors
    return Run.objects.create(
        kind=data["kind"], owner=user, project=project, input=request.validated_data["input"]
    )


def _database_url(settings_dict: dict) -> str:
    host = settings_dict.get("HOST") or "127.0.0.1"
    port = settings_dict.get("PORT") or 5432
    user = settings_dict.get("USER") or "postgres"
    password = settings_dict.get("PASSWORD") or ""
    auth = f"{user}:{password}" if password else user
    return f"postgres://{auth}@{host}:{port}/{settings_dict['NAME']}"


@contextmanager
def worker_process(name: str) -> Iterator[str]:
    """A real Celery worker (prefork pool, one process) on this test session's queue and test database; yields
    its node name. It also imports tests/worker_tasks.py, whose tasks misbehave on purpose."""
    from django.db import connection

    from parley.celery import app

    node = f"{name}-{uuid.uuid4().hex[:8]}@localhost"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "parley.settings_test",
        "DATABASE_URL": _database_url(connection.settings_dict),
        # Fake LLM servers and protocol fakes of the tests listen on loopback.
        "PARLEY_EGRESS_ALLOW": "127.0.0.1",
    }
    log_dir = (BACKEND_DIR / ".pytest_cache").resolve()
    log_dir.mkdir(exist_ok=True)
    log_path = log_dir / f"{name}.log"
    with log_path.open("w") as log_file:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "parley",
                "worker",
                "-Q",
                # Both lanes in one test worker: long runs and short jobs (settings.CELERY_SHORT_QUEUE).
                f"{os.environ['PARLEY_CELERY_QUEUE']},{os.environ['PARLEY_CELERY_QUEUE']}-short",
                "-n",
                node,
                "--concurrency",
                "1",
                "--loglevel",
                "INFO",
                "--include",
                "tests.worker_tasks",
                "--without-mingle",
                "--without-gossip",
            ],
            cwd=BACKEND_DIR,
            env=env,
            stdout=log_file,
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + 60
            while not app.control.ping(destination=[node], timeout=1.0):
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"The test Celery worker did not start; see {log_path}")
            yield node
        finally:
            stop_process(proc, timeout=30)


def stop_process(proc: subprocess.Popen, timeout: float) -> None:
    """Ask `proc` to end, and kill it if it has not within `timeout` seconds."""
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="session")
def celery_worker(django_db_setup, django_db_blocker) -> Iterator[str]:
    """The session's worker; tests that need it depend on this fixture. Yields the queue name."""
    from parley.celery import app

    queue = os.environ["PARLEY_CELERY_QUEUE"]
    try:
        with worker_process("worker"):
            yield queue
    finally:
        with app.connection_for_write() as conn:
            conn.default_channel.queue_delete(queue)
            conn.default_channel.queue_delete(f"{queue}-short")


def finished_run(api: APIClient, run_id: int, seconds: float = 120.0, interval: float = 0.3) -> dict | None:
    """The run as the API shows it once it is neither queued nor running (None if it is not by `seconds`)."""

    def done() -> dict | None:
        run = api.get(f"/api/runs/{run_id}/").json()
        return run if run["status"] not in ("queued", "running") else None

    return wait_for(done, seconds=seconds, interval=interval)


def wait_for(predicate, seconds: float = 30.0, interval: float = 0.2):
    """Poll until predicate() returns something truthy; return it, or fail the test with the last value."""
    deadline = time.monotonic() + seconds
    value = predicate()
    while not value and time.monotonic() < deadline:
        time.sleep(interval)
        value = predicate()
    return value

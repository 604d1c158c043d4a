"""Smoke test of the embedded mode: `parley serve --embedded` runs the platform on SQLite and Celery's
filesystem queue, with no PostgreSQL or RabbitMQ, and a ping run goes through a real worker."""

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

BACKEND_DIR = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.integration


def free_port_pair() -> int:
    """A free port whose neighbours for gunicorn (+1) and the live-update streams (+3) are free too."""
    while True:
        with socket.socket() as first:
            first.bind(("127.0.0.1", 0))
            port = first.getsockname()[1]
        try:
            for offset in (1, 3):
                with socket.socket() as other:
                    other.bind(("127.0.0.1", port + offset))
            return port
        except OSError:
            continue


def call(base: str, method: str, path: str, body: dict | None = None, token: str | None = None):
    request = urllib.request.Request(
        base + path,
        method=method,
        data=json.dumps(body).encode() if body is not None else None,
        headers={
            "Content-Type": "application/json",
            **({"Authorization": f"Token {token}"} if token else {}),
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            status, body = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, body = error.code, error.read()
    try:
        return status, json.loads(body or b"null")
    except ValueError:  # e.g. nginx's HTML 502 page while gunicorn is still starting
        return status, body.decode(errors="replace")


def test_embedded_mode_serves_the_api_and_runs_jobs_without_postgres_or_rabbitmq(tmp_path):
    port = free_port_pair()
    base = f"http://127.0.0.1:{port}"
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PARLEY_", "DJANGO_", "DATABASE_", "CELERY_"))
    }
    env.update(PARLEY_DATA_DIR=str(tmp_path / "data"), PARLEY_ENV_FILE=str(tmp_path / ".env"))
    log = (tmp_path / "serve.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "parley.localrun", "--embedded", "--port", str(port)],
        cwd=BACKEND_DIR,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                status, _ = call(base, "GET", "/api/health/")
                if status == 200:
                    break
            except (urllib.error.URLError, ConnectionError, OSError):
                pass
            assert proc.poll() is None, (tmp_path / "serve.log").read_text()
            assert time.monotonic() < deadline, (tmp_path / "serve.log").read_text()
            time.sleep(0.5)

        assert (tmp_path / "data" / "parley.sqlite3").exists()
        assert oct((tmp_path / ".env").stat().st_mode & 0o777) == "0o600"
        assert "EMBEDDED MODE" in (tmp_path / "serve.log").read_text()

        status, session = call(
            base, "POST", "/api/auth/signup/", {"email": "e@example.com", "password": "embedded mode works"}
        )
        assert status == 201, session
        status, run = call(base, "POST", "/api/runs/ping/", {"message": "sqlite"}, token=session["token"])
        assert status == 201, run
        # Live updates without NOTIFY: the stream looks again every second, and tells the run's end.
        stream = urllib.request.Request(
            f"{base}/api/stream/runs/{run['id']}/", headers={"Authorization": f"Token {session['token']}"}
        )
        with urllib.request.urlopen(stream, timeout=60) as response:
            assert response.headers["Content-Type"].startswith("text/event-stream")
            lines = []
            for raw in response:
                lines.append(raw.decode().rstrip("\n"))
                if lines[-1] == "event: end":
                    break
        assert "event: end" in lines, lines
        deadline = time.monotonic() + 60
        while run["status"] in ("queued", "running") and time.monotonic() < deadline:
            time.sleep(0.5)
            run = call(base, "GET", f"/api/runs/{run['id']}/", token=session["token"])[1]
        assert run["status"] == "succeeded", (tmp_path / "serve.log").read_text()[-3000:]
        assert run["result"]["message"] == "sqlite"
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
        log.close()

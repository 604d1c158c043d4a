"""The real model server, started once per test session.

`real_llm_url` yields the OpenAI-compatible base URL (http://127.0.0.1:PORT/v1) of llama-cpp-python's server with
SmolLM2-135M-Instruct, started from the virtualenv and model that `make real-llm-setup` prepared.

- Not set up, and PARLEY_REAL_LLM unset (or 0): the tier is skipped, saying how to set it up.
- PARLEY_REAL_LLM=1 (`make test-real-llm` and CI set it): not being set up, or a server that does not start, is an
  error, never a skip.
- PARLEY_REAL_LLM_URL=http://127.0.0.1:PORT/v1: use that server (say, one `make real-llm` is serving) instead
  of starting one.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import httpx
import pytest

from tests.conftest import stop_process

BACKEND_DIR = Path(__file__).resolve().parents[2]
SCRIPT = BACKEND_DIR / "scripts" / "real_llm.py"
START_SECONDS = 120.0


def _load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("parley_real_llm_script", SCRIPT)
    assert spec and spec.loader, SCRIPT
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


real_llm = _load_script()


def _required() -> bool:
    return os.environ.get("PARLEY_REAL_LLM", "").strip().lower() not in {"", "0", "false", "no"}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _models(base_url: str) -> list[str] | None:
    try:
        response = httpx.get(f"{base_url}/models", timeout=2.0)
    except httpx.HTTPError:
        return None
    if response.status_code != 200:
        return None
    return [model["id"] for model in response.json().get("data", [])]


def _tail(path: Path, lines: int = 40) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


@pytest.fixture(scope="session")
def real_llm_model() -> str:
    """The model name the server answers to (any name reaches the one model it serves)."""
    return real_llm.MODEL_ALIAS


@pytest.fixture(scope="session")
def real_llm_url() -> Iterator[str]:
    external = os.environ.get("PARLEY_REAL_LLM_URL", "").rstrip("/")
    if external:
        if _models(external) is None:
            pytest.fail(f"PARLEY_REAL_LLM_URL={external}: no answer from {external}/models")
        yield external
        return

    problem = real_llm.setup_problem()
    if problem:
        if _required():
            pytest.fail(
                f"PARLEY_REAL_LLM is set but the real model is not set up ({problem}): make real-llm-setup"
            )
        pytest.skip(
            f"real model not set up ({problem}): run `make real-llm-setup` "
            "(set PARLEY_REAL_LLM=1 to make this an error instead of a skip)"
        )

    port = _free_port()
    base_url = f"http://127.0.0.1:{port}/v1"
    log_dir = BACKEND_DIR / ".pytest_cache"
    log_dir.mkdir(exist_ok=True)
    log_path = log_dir / "real-llm-server.log"
    with log_path.open("w") as log_file:
        proc = subprocess.Popen(
            real_llm.server_command(port),
            env=real_llm.server_env(),
            stdout=log_file,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + START_SECONDS
            while _models(base_url) is None:
                if proc.poll() is not None:
                    pytest.fail(
                        f"the real model server exited with {proc.returncode}; {log_path}:\n{_tail(log_path)}"
                    )
                if time.monotonic() > deadline:
                    pytest.fail(
                        f"the real model server did not answer in {START_SECONDS:.0f} s; "
                        f"{log_path}:\n{_tail(log_path)}"
                    )
                time.sleep(0.25)
            yield base_url
        finally:
            stop_process(proc, timeout=20)

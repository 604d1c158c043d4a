"""Runs the whole platform on this machine: what `make run` (and `parley serve`) does after installing.

It writes `.env` on first start, makes sure PostgreSQL and RabbitMQ run (starting them when installed but
stopped), falls back loudly to the embedded mode (SQLite + Celery's filesystem queue) when they are not
installed, migrates, collects static files, renders nginx's config from nginx/nginx.conf, and then supervises
gunicorn, uvicorn (the live-update streams, /api/stream/), two Celery workers (long runs; short jobs), Celery beat
and nginx with honcho: Ctrl-C stops everything it started. Without nginx, uvicorn serves everything on one port.
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

from cryptography.fernet import Fernet
from dotenv import dotenv_values

BACKEND_DIR = Path(__file__).resolve().parent.parent
REPO_DIR = BACKEND_DIR.parent
NGINX_TEMPLATE = REPO_DIR / "nginx" / "nginx.conf"
NGINX_DEV_TEMPLATE = REPO_DIR / "nginx" / "nginx.dev.conf"
NGINX_PLACEHOLDERS = (
    "PARLEY_LISTEN",
    "PARLEY_UPSTREAM",
    "PARLEY_SPA_ROOT",
    "PARLEY_STATIC_ROOT",
    "PARLEY_RUNTIME_DIR",
    "PARLEY_VITE_UPSTREAM",
    "PARLEY_STREAM_UPSTREAM",
)
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/parley"
DEFAULT_BROKER_URL = "amqp://guest:guest@127.0.0.1:5672//"
# Above the longest run (PARLEY_RUN_TIME_LIMIT, 6 h by default) so RabbitMQ never re-delivers a running job.
CONSUMER_TIMEOUT_MS = 8 * 3600 * 1000


def say(message: str) -> None:
    print(f"[parley] {message}", flush=True)


def loud(message: str) -> None:
    bar = "!" * 78
    print(f"\n{bar}\n[parley] {message}\n{bar}\n", flush=True)


# --- .env ----------------------------------------------------------------------------------------------------
def ensure_env_file(path: Path) -> None:
    """Write a private .env with fresh secrets on first start; never touch an existing one."""
    if path.exists():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    content = (
        "# Written by `make run` on first start. Keep it private (mode 0600); it is git-ignored.\n"
        "# Every variable is documented in .env.example.\n"
        "PARLEY_ENV=local\n"
        f"PARLEY_SECRET_KEY={secrets.token_urlsafe(50)}\n"
        f"PARLEY_FERNET_KEYS={Fernet.generate_key().decode()}\n"
    )
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(content)
    say(f"wrote {path} with a generated secret key and encryption key (mode 0600)")


# --- services ------------------------------------------------------------------------------------------------
def port_open(host: str, port: int, timeout: float = 0.5) -> bool:
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def wait_for_port(host: str, port: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if port_open(host, port):
            return True
        time.sleep(0.5)
    return False


def postgres_installed() -> bool:
    return Path("/etc/postgresql").is_dir() or shutil.which("pg_ctlcluster") is not None


def rabbitmq_installed() -> bool:
    return shutil.which("rabbitmq-server") is not None


def start_postgres() -> None:
    versions = (
        sorted(p.name for p in Path("/etc/postgresql").iterdir()) if Path("/etc/postgresql").is_dir() else []
    )
    if not versions or shutil.which("pg_ctlcluster") is None:
        return
    say("PostgreSQL is installed but not running: starting it")
    subprocess.run(["pg_ctlcluster", "--skip-systemctl-redirect", versions[-1], "main", "start"], check=False)


def start_rabbitmq() -> None:
    say("RabbitMQ is installed but not running: starting it (this takes a few seconds)")
    subprocess.run(["rabbitmq-server", "-detached"], check=False)


def raise_consumer_timeout() -> None:
    """RabbitMQ closes a channel whose unacked message outlives consumer_timeout (30 min by default)."""
    if shutil.which("rabbitmqctl") is None:
        return
    result = subprocess.run(
        ["rabbitmqctl", "eval", f"application:set_env(rabbit, consumer_timeout, {CONSUMER_TIMEOUT_MS})."],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    if result.returncode != 0:
        say(
            "note: could not raise RabbitMQ's consumer_timeout; runs longer than 30 minutes may be re-delivered"
        )


def ensure_database(url: str, *, reset: bool) -> None:
    import psycopg
    from psycopg import sql

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    admin_url = parts._replace(path="/postgres").geturl()
    with psycopg.connect(admin_url, autocommit=True) as conn:
        if reset:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if not exists:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
            say(f"created PostgreSQL database {name!r}")


def prepare_services(env: dict[str, str], *, embedded: bool, reset_db: bool) -> bool:
    """Returns True when the platform must run embedded."""
    database_url = env.get("DATABASE_URL") or DEFAULT_DATABASE_URL
    broker_url = env.get("CELERY_BROKER_URL") or DEFAULT_BROKER_URL
    if embedded or env.get("PARLEY_EMBEDDED") in {"1", "true", "yes", "on"}:
        return True
    local_db = urlsplit(database_url).hostname in {"127.0.0.1", "localhost"}
    local_broker = urlsplit(broker_url).hostname in {"127.0.0.1", "localhost"}
    if (local_db and not postgres_installed()) or (local_broker and not rabbitmq_installed()):
        return True

    db = urlsplit(database_url)
    if local_db and not port_open(db.hostname or "127.0.0.1", db.port or 5432):
        start_postgres()
    if not wait_for_port(db.hostname or "127.0.0.1", db.port or 5432, 60):
        raise SystemExit(f"[parley] PostgreSQL does not answer at {db.hostname}:{db.port or 5432}.")
    broker = urlsplit(broker_url)
    if local_broker and not port_open(broker.hostname or "127.0.0.1", broker.port or 5672):
        start_rabbitmq()
    if not wait_for_port(broker.hostname or "127.0.0.1", broker.port or 5672, 120):
        raise SystemExit(f"[parley] RabbitMQ does not answer at {broker.hostname}:{broker.port or 5672}.")
    if local_broker:
        raise_consumer_timeout()
    if database_url.startswith("postgres"):
        ensure_database(database_url, reset=reset_db)
    return False


# --- nginx ---------------------------------------------------------------------------------------------------
def render_nginx(values: dict[str, str], target: Path, template: Path = NGINX_TEMPLATE) -> Path:
    """Substitute only our ${PARLEY_*} placeholders; nginx's own $variables stay as they are."""
    text = template.read_text(encoding="utf-8")
    for name in NGINX_PLACEHOLDERS:
        if name in values:
            text = text.replace("${" + name + "}", values[name])
    target.write_text(text, encoding="utf-8")
    return target


# --- main ----------------------------------------------------------------------------------------------------
def uvicorn(bin_dir: Path, bind: str, *, behind_nginx: bool, reload: bool = False) -> str:
    """The command of the ASGI server (parley/asgi.py). It ends open streams 5 s after Ctrl-C instead of waiting
    for them; browsers reconnect on their own. Only behind nginx may X-Forwarded-For name the client."""
    host, _, port = bind.rpartition(":")
    return (
        f"{bin_dir}/uvicorn parley.asgi:application --host {host} --port {port} --lifespan off "
        "--timeout-graceful-shutdown 5"
        + (" --proxy-headers --forwarded-allow-ips 127.0.0.1" if behind_nginx else " --no-proxy-headers")
        + (" --reload" if reload else "")
    )


def manage(env: dict[str, str], *args: str) -> None:
    subprocess.run(
        [sys.executable, str(BACKEND_DIR / "manage.py"), *args], env=env, cwd=BACKEND_DIR, check=True
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="parley serve")
    parser.add_argument("--port", type=int, default=int(os.environ.get("PARLEY_HTTP_PORT", "8080")))
    parser.add_argument(
        "--embedded", action="store_true", help="SQLite + filesystem queue, no services needed"
    )
    parser.add_argument("--dev", action="store_true", help="autoreloading Django and the Vite dev server")
    parser.add_argument(
        "--fake-llm-port", type=int, help="also run the fake OpenAI-compatible server on this port (tests)"
    )
    parser.add_argument(
        "--reset-db", action="store_true", help="drop and recreate the database first (tests)"
    )
    parser.add_argument(
        "--env-file", type=Path, default=Path(os.environ.get("PARLEY_ENV_FILE", REPO_DIR / ".env"))
    )
    args = parser.parse_args(argv)

    ensure_env_file(args.env_file)
    env = {k: v for k, v in dotenv_values(args.env_file).items() if v is not None}
    env.update(os.environ)  # real environment variables win over .env
    env.setdefault("PARLEY_ENV", "local")
    env["PARLEY_ENV_FILE"] = str(args.env_file)
    env["DJANGO_SETTINGS_MODULE"] = "parley.settings"
    public_url = f"http://localhost:{args.port}"
    env.setdefault("PARLEY_PUBLIC_URL", public_url)

    embedded = prepare_services(env, embedded=args.embedded, reset_db=args.reset_db)
    data_dir = Path(env.get("PARLEY_DATA_DIR", REPO_DIR / "var"))
    if embedded:
        env["PARLEY_EMBEDDED"] = "1"
        # The settings pick SQLite and the filesystem queue when these are unset.
        env.pop("DATABASE_URL", None)
        env.pop("CELERY_BROKER_URL", None)
        if args.reset_db:
            shutil.rmtree(data_dir, ignore_errors=True)
        loud(
            "EMBEDDED MODE: PostgreSQL or RabbitMQ is not installed (or PARLEY_EMBEDDED=1), so Parley runs on\n"
            f"[parley] SQLite and a filesystem job queue under {data_dir}. Fine to try things; not for a shared server."
        )
    data_dir.mkdir(parents=True, exist_ok=True)
    runtime_dir = data_dir / "run"
    runtime_dir.mkdir(parents=True, exist_ok=True)

    manage(env, "migrate", "--noinput", "-v", "0")
    manage(env, "collectstatic", "--noinput", "-v", "0")

    backend_port, vite_port, stream_port = args.port + 1, args.port + 2, args.port + 3
    nginx = shutil.which("nginx")
    if args.dev and not nginx:
        raise SystemExit("[parley] `make dev` needs nginx (apt-get install nginx).")
    if nginx:
        conf = render_nginx(
            {
                "PARLEY_LISTEN": f"127.0.0.1:{args.port}",
                "PARLEY_UPSTREAM": f"127.0.0.1:{backend_port}",
                "PARLEY_SPA_ROOT": str(REPO_DIR / "frontend" / "dist"),
                "PARLEY_STATIC_ROOT": env.get("PARLEY_STATIC_ROOT", str(data_dir / "static")),
                "PARLEY_RUNTIME_DIR": str(runtime_dir),
                "PARLEY_VITE_UPSTREAM": f"127.0.0.1:{vite_port}",
                "PARLEY_STREAM_UPSTREAM": f"127.0.0.1:{stream_port}",
            },
            runtime_dir / "nginx.conf",
            NGINX_DEV_TEMPLATE if args.dev else NGINX_TEMPLATE,
        )
        bind = f"127.0.0.1:{backend_port}"
    else:
        loud("nginx is not installed: Django serves the web application itself on the same address.")
        env["PARLEY_SERVE_SPA"] = "1"
        env["PARLEY_NUM_PROXIES"] = "0"  # no proxy in front: X-Forwarded-For would be the client's own claim
        bind = f"127.0.0.1:{args.port}"

    from honcho.manager import Manager

    bin_dir = Path(sys.executable).parent
    queue = env.get("PARLEY_CELERY_QUEUE", "parley")
    manager = Manager()
    if args.dev:
        env["PARLEY_DEBUG"] = "true"
        manager.add_process(
            "web", f"{sys.executable} manage.py runserver {bind}", env=env, cwd=str(BACKEND_DIR)
        )
        manager.add_process(
            "vite",
            f"npm run dev -- --host 127.0.0.1 --port {vite_port} --strictPort",
            env={
                **env,
                "PARLEY_API_PROXY": f"http://{bind}",
                "PARLEY_STREAM_PROXY": f"http://127.0.0.1:{stream_port}",
            },
            cwd=str(REPO_DIR / "frontend"),
        )
    elif not nginx:
        # Nobody routes /api/stream/ to a process of its own, so the ASGI server answers everything: a stream
        # under gunicorn would hold one of its few sync workers for as long as it stays open.
        manager.add_process("web", uvicorn(bin_dir, bind, behind_nginx=False), env=env, cwd=str(BACKEND_DIR))
    else:
        manager.add_process(
            "web",
            f"{bin_dir}/gunicorn parley.wsgi:application --bind {bind} "
            f"--workers {env.get('GUNICORN_WORKERS', '2')} "
            # --preload: import Django and the engines once, before forking, so no worker answers its first
            # request seconds late (the engines' imports are heavy).
            "--preload --forwarded-allow-ips 127.0.0.1 --access-logfile - --graceful-timeout 5",
            env=env,
            cwd=str(BACKEND_DIR),
        )
    if nginx:
        # Live updates: Django's async views under uvicorn, which nginx sends /api/stream/ to (parley/asgi.py).
        manager.add_process(
            "stream",
            uvicorn(bin_dir, f"127.0.0.1:{stream_port}", behind_nginx=True, reload=args.dev),
            env=env,
            cwd=str(BACKEND_DIR),
        )
    manager.add_process(
        "worker",
        f"{bin_dir}/celery -A parley worker -Q {queue} -n {queue}@%h --loglevel INFO "
        f"--concurrency {env.get('PARLEY_WORKER_CONCURRENCY', '2')}",
        env=env,
        cwd=str(BACKEND_DIR),
    )
    # The short-job lane: key and connector tests wait on the network, so threads, more than one user may hold.
    manager.add_process(
        "worker-short",
        f"{bin_dir}/celery -A parley worker -Q {queue}-short -n {queue}-short@%h --loglevel INFO "
        f"--pool threads --concurrency {env.get('PARLEY_SHORT_WORKER_THREADS', '4')}",
        env=env,
        cwd=str(BACKEND_DIR),
    )
    manager.add_process(
        "beat",
        f"{bin_dir}/celery -A parley beat --loglevel INFO --schedule {data_dir / 'celerybeat-schedule'}",
        env=env,
        cwd=str(BACKEND_DIR),
    )
    if nginx:
        manager.add_process("nginx", f"{nginx} -c {conf} -g 'daemon off;'", env=env, cwd=str(runtime_dir))
    if args.fake_llm_port:
        manager.add_process(
            "fake-llm",
            f"{sys.executable} -m engine.llm.offline.server --port {args.fake_llm_port} --latency 0.05",
            env=env,
            cwd=str(BACKEND_DIR),
        )
    say(f"Parley is starting at {public_url}  (Ctrl-C stops everything)")
    manager.loop()
    return int(manager.returncode or 0)


if __name__ == "__main__":
    sys.exit(main())

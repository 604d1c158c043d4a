"""The Docker deployment keeps its promises: what each compose stack starts, in which order, what it exposes,
where its data lives, and that both images are multi-stage, non-root and health-checked.

Plain files only (PyYAML, /bin/sh): no Docker engine, no Django, no database. Paths are relative to this
file, so the tests run from any working directory.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
PRODUCTION = REPO / "docker-compose.yml"
DEVELOPMENT = REPO / "docker-compose.dev.yml"
BACKEND_DOCKERFILE = REPO / "backend" / "Dockerfile"
NGINX_DOCKERFILE = REPO / "nginx" / "Dockerfile"
ENTRYPOINT = REPO / "backend" / "docker-entrypoint.sh"
RABBITMQ_CONF = REPO / "docker" / "rabbitmq.conf"

STACK_SERVICES = {
    "nginx",
    "backend",
    "stream",
    "worker",
    "worker-short",
    "beat",
    "migrate",
    "postgres",
    "rabbitmq",
}
BACKEND_SERVICES = ("backend", "stream", "worker", "worker-short", "beat")
ONE_SHOT = {"migrate"}
SECRET_VARIABLES = ("PARLEY_SECRET_KEY", "PARLEY_FERNET_KEYS", "POSTGRES_PASSWORD", "RABBITMQ_DEFAULT_PASS")
PRODUCTION_PLACEHOLDERS = {
    "PARLEY_LISTEN",
    "PARLEY_UPSTREAM",
    "PARLEY_STREAM_UPSTREAM",
    "PARLEY_SPA_ROOT",
    "PARLEY_STATIC_ROOT",
    "PARLEY_RUNTIME_DIR",
}
DEVELOPMENT_PLACEHOLDERS = (PRODUCTION_PLACEHOLDERS - {"PARLEY_SPA_ROOT"}) | {"PARLEY_VITE_UPSTREAM"}
INTERPOLATION = re.compile(r"^\$\{[A-Z0-9_]+(:?[-?][^}]*)?\}$")


# --- helpers -------------------------------------------------------------------------------------------------


def load_compose(path: Path) -> dict[str, Any]:
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(document, dict), f"{path.name} is not a YAML mapping"
    return document


def environment(service: dict[str, Any]) -> dict[str, str | None]:
    """A service's `environment`, in either of compose's two spellings, as a mapping."""
    raw = service.get("environment") or {}
    if isinstance(raw, dict):
        return {key: None if value is None else str(value) for key, value in raw.items()}
    pairs = (item.split("=", 1) for item in raw)
    return {pair[0]: pair[1] if len(pair) == 2 else None for pair in pairs}


def mounts(service: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(type, source, target) of each entry of a service's `volumes`, short or long syntax."""
    result = []
    for entry in service.get("volumes") or []:
        if isinstance(entry, dict):
            result.append((entry.get("type", "volume"), str(entry.get("source", "")), entry["target"]))
            continue
        source, _, rest = entry.partition(":")
        target = rest.split(":", 1)[0]
        kind = "bind" if source.startswith((".", "/", "~", "$")) else "volume"
        result.append((kind, source, target))
    return result


def command_text(service: dict[str, Any]) -> str:
    command = service.get("command") or ""
    return command if isinstance(command, str) else " ".join(command)


def dockerfile_instructions(path: Path) -> list[tuple[str, str]]:
    """(KEYWORD, arguments) per instruction: comments dropped, continuations joined, heredoc bodies skipped."""
    instructions: list[tuple[str, str]] = []
    pending = ""
    heredoc_terminators: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        stripped = line.strip()
        if heredoc_terminators:
            if stripped == heredoc_terminators[0]:
                heredoc_terminators.pop(0)
            continue
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.endswith("\\"):
            pending += stripped[:-1] + " "
            continue
        text, pending = pending + stripped, ""
        keyword, _, arguments = text.partition(" ")
        keyword = keyword.upper()
        instructions.append((keyword, arguments.strip()))
        if keyword in {"RUN", "COPY", "ADD"}:
            heredoc_terminators = re.findall(r"<<-?['\"]?([A-Za-z_][A-Za-z0-9_]*)['\"]?", arguments)
    return instructions


def dockerfile_stages(path: Path) -> list[dict[str, Any]]:
    stages: list[dict[str, Any]] = []
    for keyword, arguments in dockerfile_instructions(path):
        if keyword == "FROM":
            words = [word for word in arguments.split() if not word.startswith("--")]
            name = words[2] if len(words) >= 3 and words[1].lower() == "as" else None
            stages.append({"base": words[0], "name": name, "instructions": []})
        elif stages:
            stages[-1]["instructions"].append((keyword, arguments))
    return stages


def final_image_setting(path: Path, keyword: str) -> str | None:
    """The last `keyword` the final image carries, following `FROM <earlier stage>` to inherited settings."""
    stages = dockerfile_stages(path)
    chain = [stages[-1]]
    while True:
        parent = next(
            (stage for stage in stages[: stages.index(chain[-1])] if stage["name"] == chain[-1]["base"]), None
        )
        if parent is None:
            break
        chain.append(parent)
    value = None
    for stage in reversed(chain):
        for found, arguments in stage["instructions"]:
            if found == keyword:
                value = arguments
    return value


@pytest.fixture(params=[PRODUCTION, DEVELOPMENT], ids=["production", "development"])
def compose(request: pytest.FixtureRequest) -> dict[str, Any]:
    return load_compose(request.param)


@pytest.fixture
def production() -> dict[str, Any]:
    return load_compose(PRODUCTION)


@pytest.fixture
def development() -> dict[str, Any]:
    return load_compose(DEVELOPMENT)


# --- both compose stacks -------------------------------------------------------------------------------------


def test_each_stack_defines_every_service_it_needs(compose: dict[str, Any]) -> None:
    missing = STACK_SERVICES - set(compose["services"])
    assert not missing, f"services missing: {sorted(missing)}"


def test_only_nginx_publishes_a_port(compose: dict[str, Any]) -> None:
    for name, service in compose["services"].items():
        assert service.get("network_mode") != "host", f"{name} would bypass the project's network"
        if name != "nginx":
            assert "ports" not in service, f"{name} publishes a port; only nginx may"
    assert compose["services"]["nginx"]["ports"] == ["${PARLEY_HTTP_PORT:-8080}:8080"]


def test_every_long_running_service_has_a_healthcheck(compose: dict[str, Any]) -> None:
    for name, service in compose["services"].items():
        if name in ONE_SHOT:
            continue
        healthcheck = service.get("healthcheck") or {}
        assert healthcheck.get("test"), f"{name} has no healthcheck"
        assert not healthcheck.get("disable"), f"{name} disables its healthcheck"


def test_migrate_is_a_one_shot_job_after_postgres_is_healthy(compose: dict[str, Any]) -> None:
    migrate = compose["services"]["migrate"]
    assert "manage.py migrate --noinput" in command_text(migrate)
    assert migrate["restart"] == "no"
    assert migrate["depends_on"]["postgres"]["condition"] == "service_healthy"


def test_backend_worker_and_beat_start_after_migrations_and_healthy_stores(compose: dict[str, Any]) -> None:
    for name in BACKEND_SERVICES:
        depends_on = compose["services"][name].get("depends_on")
        assert isinstance(depends_on, dict), f"{name} must say what it waits for, with conditions"
        conditions = {service: rule.get("condition") for service, rule in depends_on.items()}
        assert conditions.get("migrate") == "service_completed_successfully", name
        assert conditions.get("postgres") == "service_healthy", name
        assert conditions.get("rabbitmq") == "service_healthy", name


def test_nginx_waits_for_a_healthy_backend(compose: dict[str, Any]) -> None:
    assert compose["services"]["nginx"]["depends_on"]["backend"]["condition"] == "service_healthy"


def test_live_updates_have_an_asgi_process_that_nginx_routes_streams_to(compose: dict[str, Any]) -> None:
    # README D3: open streams must not hold gunicorn's few sync workers, so uvicorn serves them, and nginx sends it
    # /api/stream/ (nginx/nginx*.conf) at the address the compose file gives.
    stream = compose["services"]["stream"]
    command = command_text(stream)
    assert command.startswith("uvicorn parley.asgi:application")
    assert "--host 0.0.0.0 --port 8001" in command
    assert "8001" in " ".join(stream["healthcheck"]["test"])
    nginx = compose["services"]["nginx"]
    assert environment(nginx)["PARLEY_STREAM_UPSTREAM"] == "stream:8001"
    assert nginx["depends_on"]["stream"]["condition"] == "service_healthy"


@pytest.mark.parametrize(
    ("service", "data_dir"), [("postgres", "/var/lib/postgresql/data"), ("rabbitmq", "/var/lib/rabbitmq")]
)
def test_database_and_broker_data_live_on_declared_named_volumes(
    compose: dict[str, Any], service: str, data_dir: str
) -> None:
    sources = [source for kind, source, target in mounts(compose["services"][service]) if target == data_dir]
    assert sources, f"{service} keeps {data_dir} in the container layer"
    kind = next(kind for kind, _, target in mounts(compose["services"][service]) if target == data_dir)
    assert kind == "volume", f"{service} data must be on a named volume, not a bind mount"
    assert sources[0] in (compose.get("volumes") or {}), f"volume {sources[0]!r} is not declared at top level"


def test_beat_keeps_its_schedule_on_a_named_volume(compose: dict[str, Any]) -> None:
    beat = compose["services"]["beat"]
    schedule = re.search(r"--schedule[ =](\S+)", command_text(beat))
    assert schedule, "beat must name its schedule file"
    volume_targets = [target for kind, _, target in mounts(beat) if kind == "volume"]
    assert any(schedule.group(1).startswith(target.rstrip("/") + "/") for target in volume_targets)


def test_worker_consumes_the_configured_queue(compose: dict[str, Any]) -> None:
    command = command_text(compose["services"]["worker"])
    assert command.startswith("celery -A parley worker")
    assert "-Q ${PARLEY_CELERY_QUEUE:-parley} " in command


def test_short_jobs_have_a_worker_of_their_own(compose: dict[str, Any]) -> None:
    command = command_text(compose["services"]["worker-short"])
    assert command.startswith("celery -A parley worker")
    assert "-Q ${PARLEY_CELERY_QUEUE:-parley}-short " in command
    assert "--pool threads" in command


def test_rabbitmq_loads_the_raised_consumer_timeout(compose: dict[str, Any]) -> None:
    rabbitmq = compose["services"]["rabbitmq"]
    targets = {source: target for _, source, target in mounts(rabbitmq)}
    assert targets.get("./docker/rabbitmq.conf", "").startswith("/etc/rabbitmq/conf.d/")
    assert "rabbitmq-diagnostics" in rabbitmq["healthcheck"]["test"]


def test_no_secret_is_written_into_a_compose_file(compose: dict[str, Any]) -> None:
    for name, service in compose["services"].items():
        values = environment(service)
        for variable in SECRET_VARIABLES:
            value = values.get(variable)
            assert value is None or INTERPOLATION.match(value), f"{name} hard-codes {variable}"


@pytest.mark.parametrize("path", [PRODUCTION, DEVELOPMENT], ids=["production", "development"])
def test_no_secret_literal_appears_anywhere_in_the_file(path: Path) -> None:
    # Anchors, list syntax and comments included: `NAME: value` or `NAME=value` must be an interpolation.
    for variable in ("PARLEY_SECRET_KEY", "PARLEY_FERNET_KEYS"):
        literal = re.search(rf"{variable}\s*[:=][ \t]*(?!\$\{{)[^\s#]", path.read_text(encoding="utf-8"))
        assert literal is None, f"{path.name} sets {variable} to a literal"


def test_the_two_stacks_do_not_share_volumes(production: dict[str, Any], development: dict[str, Any]) -> None:
    # Same directory, same volume names: only distinct project names keep the dev database out of production.
    assert production.get("name") and development.get("name")
    assert production["name"] != development["name"]


# --- production ----------------------------------------------------------------------------------------------


def test_production_backend_reads_env_file_and_reaches_the_services_by_name(
    production: dict[str, Any],
) -> None:
    for name in (*BACKEND_SERVICES, "migrate"):
        service = production["services"][name]
        env_file = service.get("env_file")
        assert env_file == ".env" or ".env" in (env_file or []), f"{name} does not read .env"
        values = environment(service)
        assert values["PARLEY_ENV"] == "production", name
        assert values["DATABASE_URL"].startswith("postgres://parley:${POSTGRES_PASSWORD:?"), name
        assert values["DATABASE_URL"].endswith("@postgres:5432/parley"), name
        assert values["CELERY_BROKER_URL"].startswith("amqp://parley:${RABBITMQ_PASSWORD:?"), name
        assert "@rabbitmq:5672/" in values["CELERY_BROKER_URL"], name


def test_production_refuses_to_start_without_a_database_password(production: dict[str, Any]) -> None:
    password = environment(production["services"]["postgres"])["POSTGRES_PASSWORD"]
    assert password is not None
    assert password.startswith("${POSTGRES_PASSWORD:?")


def test_production_services_restart_unless_stopped(production: dict[str, Any]) -> None:
    for name, service in production["services"].items():
        expected = "no" if name in ONE_SHOT else "unless-stopped"
        assert service.get("restart") == expected, name


def test_production_nginx_is_built_from_the_nginx_dockerfile(production: dict[str, Any]) -> None:
    build = production["services"]["nginx"]["build"]
    assert build == {"context": ".", "dockerfile": "nginx/Dockerfile"}
    assert "target" not in build


# --- development ---------------------------------------------------------------------------------------------


def test_development_backend_reloads_from_the_mounted_source(development: dict[str, Any]) -> None:
    backend = development["services"]["backend"]
    assert command_text(backend) == "python manage.py runserver 0.0.0.0:8000"
    assert ("bind", "./backend", "/app") in mounts(backend)
    assert environment(backend)["PARLEY_ENV"] == "local"


def test_development_frontend_runs_the_vite_dev_server(development: dict[str, Any]) -> None:
    frontend = development["services"]["frontend"]
    command = command_text(frontend)
    assert "npm ci" in command
    assert "npm run dev -- --host 0.0.0.0" in command
    assert environment(frontend)["PARLEY_API_PROXY"] == "http://backend:8000"
    assert ("bind", "./frontend", "/app") in mounts(frontend)


def test_development_nginx_renders_the_dev_template(development: dict[str, Any]) -> None:
    nginx = development["services"]["nginx"]
    assert ("bind", "./nginx/nginx.dev.conf", "/etc/parley/nginx.conf.template") in mounts(nginx)
    values = environment(nginx)
    assert values["PARLEY_VITE_UPSTREAM"] == "frontend:5173"
    assert values["PARLEY_UPSTREAM"] == "backend:8000"


# --- images --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", [BACKEND_DOCKERFILE, NGINX_DOCKERFILE], ids=["backend", "nginx"])
def test_images_are_multi_stage(path: Path) -> None:
    assert len(dockerfile_stages(path)) >= 2


@pytest.mark.parametrize("path", [BACKEND_DOCKERFILE, NGINX_DOCKERFILE], ids=["backend", "nginx"])
def test_images_run_as_a_non_root_user(path: Path) -> None:
    user = final_image_setting(path, "USER")
    assert user, f"{path} never sets USER: the image would run as root"
    assert user.split(":")[0] not in {"root", "0"}


@pytest.mark.parametrize("path", [BACKEND_DOCKERFILE, NGINX_DOCKERFILE], ids=["backend", "nginx"])
def test_images_declare_a_healthcheck(path: Path) -> None:
    healthcheck = final_image_setting(path, "HEALTHCHECK")
    assert healthcheck, f"{path} has no HEALTHCHECK"
    assert not healthcheck.upper().startswith("NONE")


def test_backend_image_serves_gunicorn_and_probes_the_health_endpoint() -> None:
    cmd = final_image_setting(BACKEND_DOCKERFILE, "CMD") or ""
    assert "gunicorn parley.wsgi:application --preload --bind 0.0.0.0:8000" in cmd
    assert "--workers ${GUNICORN_WORKERS:-3}" in cmd
    assert "docker-entrypoint.sh" in (final_image_setting(BACKEND_DOCKERFILE, "ENTRYPOINT") or "")
    assert "/api/health/" in BACKEND_DOCKERFILE.read_text(encoding="utf-8")


def test_backend_runtime_carries_no_compilers() -> None:
    runtime = dockerfile_stages(BACKEND_DOCKERFILE)[-1]
    runs = " ".join(arguments for keyword, arguments in runtime["instructions"] if keyword == "RUN")
    assert "build-essential" not in runs
    copies = [arguments for keyword, arguments in runtime["instructions"] if keyword == "COPY"]
    assert any("--from=builder" in arguments and "/opt/venv" in arguments for arguments in copies)


def test_nginx_image_builds_the_spa_and_collects_django_static_files() -> None:
    stages = dockerfile_stages(NGINX_DOCKERFILE)
    runs = {
        stage["name"]: " ".join(arguments for keyword, arguments in stage["instructions"] if keyword == "RUN")
        for stage in stages
    }
    assert "npm ci" in runs["spa"] and "npm run build" in runs["spa"]
    assert "manage.py collectstatic" in runs["static"]
    final_copies = " ".join(
        arguments for keyword, arguments in stages[-1]["instructions"] if keyword == "COPY"
    )
    assert "--from=spa" in final_copies and "--from=static" in final_copies
    assert "nginx/nginx.conf /etc/parley/nginx.conf.template" in final_copies


def test_nginx_image_substitutes_only_the_parley_placeholders() -> None:
    text = NGINX_DOCKERFILE.read_text(encoding="utf-8")
    # envsubst without a variable list would also blank nginx's own $host, $uri, ...
    assert not re.search(r"envsubst\s*<", text)
    listed = re.search(r"placeholders='([^']*)'", text)
    assert listed, "the start script must list the placeholders it substitutes"
    assert 'envsubst "$placeholders"' in text
    names = set(re.findall(r"\$\{([A-Z_]+)\}", listed.group(1)))
    assert names == PRODUCTION_PLACEHOLDERS | DEVELOPMENT_PLACEHOLDERS


@pytest.mark.parametrize(
    ("template", "allowed"),
    [("nginx.conf", PRODUCTION_PLACEHOLDERS), ("nginx.dev.conf", DEVELOPMENT_PLACEHOLDERS)],
)
def test_nginx_templates_use_only_placeholders_the_image_fills(template: str, allowed: set[str]) -> None:
    path = REPO / "nginx" / template
    if not path.exists():
        pytest.skip(f"nginx/{template} is not written yet")
    text = path.read_text(encoding="utf-8")
    used = set(re.findall(r"\$\{([A-Za-z0-9_]+)\}", text))
    assert used <= allowed, f"placeholders nobody fills: {sorted(used - allowed)}"
    # The image starts nginx with -g 'daemon off;'; a second daemon directive makes nginx refuse to start.
    assert not re.search(r"^\s*daemon\s", text, re.MULTILINE)


def test_beat_remote_control_is_supported_by_the_pinned_celery() -> None:
    lock = REPO / "backend" / "requirements.lock"
    pinned = (
        re.search(r"^celery==(\d+)\.(\d+)", lock.read_text(encoding="utf-8"), re.MULTILINE)
        if lock.exists()
        else None
    )
    if pinned is None:
        pytest.skip("celery is not pinned in backend/requirements.lock")
    # `celery beat --enable-remote-control`, which the beat healthchecks rely on, arrived in Celery 5.7.
    assert (int(pinned.group(1)), int(pinned.group(2))) >= (5, 7)


def test_rabbitmq_consumer_timeout_outlasts_the_longest_run() -> None:
    timeout = re.search(
        r"^consumer_timeout\s*=\s*(\d+)\s*$", RABBITMQ_CONF.read_text(encoding="utf-8"), re.MULTILINE
    )
    assert timeout, "docker/rabbitmq.conf must set consumer_timeout"
    # Runs may last PARLEY_RUN_TIME_LIMIT (6 h by default); the broker must not cancel their consumer first.
    assert int(timeout.group(1)) >= 36_000_000 > 6 * 3600 * 1000


def test_dockerignore_keeps_secrets_and_host_builds_out_of_the_context() -> None:
    patterns = set((REPO / ".dockerignore").read_text(encoding="utf-8").split())
    for pattern in (".env", ".git", "**/node_modules", "**/.venv", "**/__pycache__", "frontend/dist"):
        assert pattern in patterns, pattern


# --- the backend entrypoint, run for real with a stand-in manage.py -----------------------------------------


@pytest.fixture
def run_entrypoint(tmp_path: Path):
    """Runs docker-entrypoint.sh in a directory whose manage.py records its arguments and exits with $FAKE_RC."""
    (tmp_path / "manage.py").write_text(
        "import os, sys\n"
        "with open('calls.txt', 'a') as calls:\n"
        "    calls.write(' '.join(sys.argv[1:]) + '\\n')\n"
        "sys.exit(int(os.environ.get('FAKE_RC', '0')))\n",
        encoding="utf-8",
    )
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python").symlink_to(sys.executable)

    def run(extra_env: dict[str, str], *command: str) -> subprocess.CompletedProcess[str]:
        env = {"PATH": f"{bin_dir}{os.pathsep}/usr/bin:/bin", **extra_env}
        return subprocess.run(
            ["/bin/sh", str(ENTRYPOINT), *(command or ("echo", "started"))],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    return run


def _calls(tmp_path: Path) -> str:
    calls = tmp_path / "calls.txt"
    return calls.read_text(encoding="utf-8") if calls.exists() else ""


def test_entrypoint_runs_the_deploy_checks_in_production_then_the_command(
    run_entrypoint, tmp_path: Path
) -> None:
    result = run_entrypoint({"PARLEY_ENV": "production"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "started"
    assert _calls(tmp_path) == "check --deploy --fail-level WARNING\n"


def test_entrypoint_refuses_to_start_when_the_deploy_checks_fail(run_entrypoint) -> None:
    result = run_entrypoint({"PARLEY_ENV": "production", "FAKE_RC": "1"})
    assert result.returncode != 0
    assert "started" not in result.stdout


def test_entrypoint_skips_the_deploy_checks_outside_production(run_entrypoint, tmp_path: Path) -> None:
    result = run_entrypoint({"PARLEY_ENV": "local", "FAKE_RC": "1"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "started"
    assert _calls(tmp_path) == ""


def test_entrypoint_waits_for_the_database_port(run_entrypoint) -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        result = run_entrypoint(
            {"PARLEY_ENV": "local", "DATABASE_URL": f"postgres://u:p@127.0.0.1:{port}/parley"}
        )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "started"


def test_entrypoint_gives_up_on_a_database_that_never_answers(run_entrypoint) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # bound but not listening: connections are refused
        result = run_entrypoint(
            {
                "PARLEY_ENV": "local",
                "PARLEY_DB_WAIT_TIMEOUT": "1",
                "DATABASE_URL": f"postgres://u:p@127.0.0.1:{port}/parley",
            }
        )
    assert result.returncode != 0
    assert "started" not in result.stdout
    assert f"127.0.0.1:{port} did not answer" in result.stderr

"""Settings postures: production refuses unsafe starts and passes `check --deploy`; worker hygiene is set."""

import os
import secrets
import subprocess
import sys
from pathlib import Path

from cryptography.fernet import Fernet
from django.conf import settings

BACKEND_DIR = Path(__file__).resolve().parent.parent


def run_manage(*args: str, **overrides: str) -> subprocess.CompletedProcess:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PARLEY_", "DJANGO_", "DATABASE_", "CELERY_"))
    }
    env.update(
        DJANGO_SETTINGS_MODULE="parley.settings",
        PARLEY_ENV_FILE=str(BACKEND_DIR / "does-not-exist.env"),
        DATABASE_URL="postgres://postgres@127.0.0.1:5432/postgres",
    )
    env.update(overrides)
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=BACKEND_DIR,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def production(**overrides: str) -> dict[str, str]:
    values = {
        "PARLEY_ENV": "production",
        "PARLEY_SECRET_KEY": secrets.token_urlsafe(50),
        "PARLEY_FERNET_KEYS": Fernet.generate_key().decode(),
        "PARLEY_PUBLIC_URL": "https://parley.example.com",
    }
    values.update(overrides)
    return values


def test_production_settings_pass_check_deploy_without_a_single_warning():
    result = run_manage("check", "--deploy", "--fail-level", "WARNING", **production())
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_production_is_the_default_posture():
    values = production()
    del values["PARLEY_ENV"], values["PARLEY_SECRET_KEY"]
    result = run_manage("check", **values)
    assert result.returncode != 0
    assert "PARLEY_SECRET_KEY is required when PARLEY_ENV=production" in result.stderr


def test_production_refuses_the_placeholder_secret_key():
    result = run_manage("check", **production(PARLEY_SECRET_KEY="change-me-to-a-long-random-string"))
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert "placeholder" in result.stderr


def test_production_refuses_a_missing_fernet_key():
    values = production()
    del values["PARLEY_FERNET_KEYS"]
    result = run_manage("check", **values)
    assert "PARLEY_FERNET_KEYS is required" in result.stderr


def test_an_invalid_fernet_key_is_a_system_check_error():
    result = run_manage("check", **production(PARLEY_FERNET_KEYS="not-a-fernet-key"))
    assert result.returncode != 0
    assert "parley.E001" in result.stderr


def test_check_deploy_warns_when_production_is_served_over_http():
    result = run_manage("check", "--deploy", **production(PARLEY_PUBLIC_URL="http://parley.example.com"))
    assert "parley.W001" in result.stderr


def test_production_refuses_debug():
    result = run_manage("check", **production(PARLEY_DEBUG="true"))
    assert "PARLEY_DEBUG must be off" in result.stderr


def test_local_posture_runs_over_plain_http_without_tls_settings():
    result = run_manage(
        "shell",
        "-c",
        "from django.conf import settings as s; print(s.SECURE_SSL_REDIRECT, s.SESSION_COOKIE_SECURE)",
        PARLEY_ENV="local",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "False False"


def test_worker_hygiene_for_long_runs_on_rabbitmq():
    assert settings.CELERY_TASK_ACKS_LATE is True
    assert settings.CELERY_WORKER_PREFETCH_MULTIPLIER == 1
    assert settings.CELERY_TASK_SERIALIZER == "json"
    assert settings.CELERY_ACCEPT_CONTENT == ["json"]
    assert settings.CELERY_RESULT_BACKEND is None
    assert settings.CELERY_TASK_SOFT_TIME_LIMIT < settings.CELERY_TASK_TIME_LIMIT
    assert settings.CELERY_WORKER_MAX_TASKS_PER_CHILD
    assert settings.CELERY_WORKER_HIJACK_ROOT_LOGGER is False


def test_tests_use_their_own_queue():
    assert settings.CELERY_TASK_DEFAULT_QUEUE.startswith("parley-test-")


def test_the_api_denies_by_default():
    assert settings.REST_FRAMEWORK["DEFAULT_PERMISSION_CLASSES"] == [
        "rest_framework.permissions.IsAuthenticated"
    ]
    assert settings.REST_FRAMEWORK["DEFAULT_PAGINATION_CLASS"]

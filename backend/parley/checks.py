"""System checks with stable ids (parley.E0xx errors, parley.W0xx warnings), run by `manage.py check`."""

from __future__ import annotations

from cryptography.fernet import Fernet
from django.conf import settings
from django.core.checks import CheckMessage, Error, Tags, Warning, register


@register(Tags.security)
def check_fernet_keys(**_: object) -> list[CheckMessage]:
    problems: list[CheckMessage] = []
    for index, key in enumerate(settings.FERNET_KEYS, start=1):
        try:
            Fernet(key)
        except ValueError:
            problems.append(
                Error(
                    f"Key number {index} in PARLEY_FERNET_KEYS is not a valid Fernet key.",
                    hint="Generate one with `python -c 'from cryptography.fernet import Fernet; "
                    "print(Fernet.generate_key().decode())'`.",
                    id="parley.E001",
                )
            )
    return problems


@register()
def check_broker(**_: object) -> list[CheckMessage]:
    if not settings.CELERY_BROKER_URL:
        return [Error("CELERY_BROKER_URL is empty.", hint="Point it at RabbitMQ: amqp://…", id="parley.E002")]
    return []


@register(Tags.security, deploy=True)
def check_production_services(**_: object) -> list[CheckMessage]:
    problems: list[CheckMessage] = []
    if settings.EMBEDDED or settings.DATABASES["default"]["ENGINE"].endswith("sqlite3"):
        problems.append(
            Error(
                "Production runs on SQLite (embedded mode).",
                hint="Set DATABASE_URL to PostgreSQL and unset PARLEY_EMBEDDED.",
                id="parley.E003",
            )
        )
    if not settings.PUBLIC_URL.startswith("https://"):
        problems.append(
            Warning(
                f"PARLEY_PUBLIC_URL is {settings.PUBLIC_URL!r}; production should be served over https.",
                hint="Put TLS in front of nginx and set PARLEY_PUBLIC_URL=https://your.host",
                id="parley.W001",
            )
        )
    if not settings.FERNET_KEYS:
        problems.append(
            Error("PARLEY_FERNET_KEYS is empty.", hint="Set at least one Fernet key.", id="parley.E004")
        )
    return problems

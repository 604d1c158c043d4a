"""Where TRACER's LangGraph checkpoints live: PostgreSQL in the platform (so any worker can resume a run),
a SQLite file in the embedded mode."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.conf import settings
from django.db import connection
from langgraph.checkpoint.base import BaseCheckpointSaver


def _conninfo(settings_dict: dict[str, Any]) -> str:
    from psycopg.conninfo import make_conninfo

    return make_conninfo(
        host=settings_dict.get("HOST") or "127.0.0.1",
        port=str(settings_dict.get("PORT") or 5432),
        dbname=settings_dict["NAME"],
        user=settings_dict.get("USER") or "postgres",
        password=settings_dict.get("PASSWORD") or None,
    )


@contextmanager
def checkpointer(settings_dict: dict[str, Any] | None = None) -> Iterator[BaseCheckpointSaver[Any]]:
    settings_dict = settings_dict or connection.settings_dict
    if settings_dict["ENGINE"].endswith("postgresql"):
        from langgraph.checkpoint.postgres import PostgresSaver

        with PostgresSaver.from_conn_string(_conninfo(settings_dict)) as saver:
            yield saver
    else:
        from langgraph.checkpoint.sqlite import SqliteSaver

        path = settings.DATA_DIR / "checkpoints.sqlite"
        path.parent.mkdir(parents=True, exist_ok=True)
        with SqliteSaver.from_conn_string(str(path)) as saver:
            saver.setup()
            yield saver


def create_tables(settings_dict: dict[str, Any]) -> None:
    """Run by a migration: the checkpointer's own tables, created once like every other table."""
    with checkpointer(settings_dict) as saver:
        saver.setup()

"""GET /api/health/: is the database answering, is the broker reachable, is a worker serving our queue?

Anonymous on purpose (load balancers and the setup screen probe it), so it reports states and counts only —
no host names, addresses or versions.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.db import connection
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from parley.celery import app

logger = logging.getLogger(__name__)


def database_status() -> dict[str, Any]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return {"ok": True, "detail": "The database answers."}
    except Exception:
        logger.exception("Health check: database")
        return {"ok": False, "detail": "The database does not answer."}


def broker_status() -> dict[str, Any]:
    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
        return {"ok": True, "detail": "The job queue is reachable."}
    except Exception:
        logger.warning("Health check: the broker is unreachable", exc_info=True)
        return {"ok": False, "detail": "The job queue (broker) is unreachable."}


def worker_status() -> dict[str, Any]:
    queue = settings.CELERY_TASK_DEFAULT_QUEUE
    try:
        replies = app.control.inspect(timeout=1.0).active_queues() or {}
    except Exception:
        logger.warning("Health check: could not ask workers", exc_info=True)
        replies = {}
    count = sum(1 for queues in replies.values() if any(q.get("name") == queue for q in queues or []))
    if count:
        return {"ok": True, "count": count, "detail": f"{count} worker(s) serve the job queue."}
    return {
        "ok": False,
        "count": 0,
        "detail": "No worker serves the job queue: runs will wait until one starts.",
    }


class HealthComponentSerializer(serializers.Serializer[Any]):
    ok = serializers.BooleanField()
    detail = serializers.CharField()


class HealthWorkersSerializer(HealthComponentSerializer):
    count = serializers.IntegerField()


class HealthSerializer(serializers.Serializer[Any]):
    status = serializers.ChoiceField(choices=["ok", "degraded"])
    database = HealthComponentSerializer()
    broker = HealthComponentSerializer()
    workers = HealthWorkersSerializer()


class HealthView(APIView):
    permission_classes = (AllowAny,)
    authentication_classes = ()

    @extend_schema(summary="Platform health", responses={200: HealthSerializer, 503: HealthSerializer})
    def get(self, request: Request) -> Response:
        database, broker = database_status(), broker_status()
        workers = (
            worker_status() if broker["ok"] else {"ok": False, "count": 0, "detail": "Unknown: no broker."}
        )
        healthy = database["ok"] and broker["ok"] and workers["ok"]
        body = {
            "status": "ok" if healthy else "degraded",
            "database": database,
            "broker": broker,
            "workers": workers,
        }
        # 503 only when the API itself cannot work (no database); a missing worker is "degraded" but serving.
        return Response(body, status=200 if database["ok"] else 503)

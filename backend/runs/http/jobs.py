"""Short jobs on what a user owns: testing an LLM key, listing its models, testing a connector.

`accounts` owns the keys and `workspace` the connectors; starting a job on one is a run, so it lives here and the
arrows point down. Each answers 202 with the run, whose result the client follows like any other run's. Another
user's key or connector is a 404, as in the lists. Short jobs are capped per user (at once and per minute), so one
user cannot hold the short-job worker.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Model
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import UserRateThrottle
from rest_framework.views import APIView

from accounts.models import LLMKey, User
from runs.http.serializers import RunSerializer
from runs.models import Run
from runs.services import create_run
from runs.worker import tasks
from workspace.models import Connector

TEST_MESSAGE = "Hello"
TEST_MESSAGE_MAX = 500


class ConnectorTestSerializer(serializers.Serializer[Any]):
    """The optional body of a connection test: what to say to the chatbot."""

    message = serializers.CharField(
        max_length=TEST_MESSAGE_MAX,
        required=False,
        allow_blank=True,
        help_text=f'What to send (at most {TEST_MESSAGE_MAX} characters); "{TEST_MESSAGE}" when omitted.',
    )


class TooManyJobs(exceptions.APIException):
    status_code = status.HTTP_429_TOO_MANY_REQUESTS
    default_code = "too_many_jobs"


class JobsThrottle(UserRateThrottle):
    scope = "jobs"


SHORT_KINDS = (Run.Kind.PING, Run.Kind.KEY_TEST, Run.Kind.KEY_MODELS, Run.Kind.CONNECTOR_TEST)


def _accepted(request: Request, kind: str, task: Any, run_input: dict[str, Any]) -> Response:
    """Start a short job, unless the user already has PARLEY_SHORT_JOBS_PER_USER queued or running: counted
    under a lock on the user, so a burst of requests cannot slip past the cap together."""
    with transaction.atomic():
        User.objects.select_for_update().filter(pk=request.user.pk).exists()
        active = Run.objects.filter(owner=request.user, kind__in=SHORT_KINDS, status__in=Run.ACTIVE).count()
        if active >= settings.SHORT_JOBS_PER_USER:
            raise TooManyJobs(
                f"You already have {active} key or connector tests running; wait until one finishes."
            )
        run = create_run(request.user, kind, task, run_input)
    return Response(RunSerializer(run).data, status=status.HTTP_202_ACCEPTED)


def _path_id(what: str) -> OpenApiParameter:
    return OpenApiParameter(
        "id", int, OpenApiParameter.PATH, description=f"A unique integer value identifying this {what}."
    )


def _owned(model: type[Model], request: Request, pk: int) -> Any:
    return get_object_or_404(model, pk=pk, owner=request.user)


class KeyTestView(APIView):
    throttle_classes = (JobsThrottle,)

    @extend_schema(
        parameters=[_path_id("llm key")],
        request=None,
        responses={202: RunSerializer},
        summary="Check the key with the provider (a short run; its result says whether it works)",
    )
    def post(self, request: Request, id: int) -> Response:
        key = _owned(LLMKey, request, id)
        return _accepted(request, Run.Kind.KEY_TEST, tasks.key_test, {"key_id": key.pk})


class KeyModelsView(APIView):
    throttle_classes = (JobsThrottle,)

    @extend_schema(
        parameters=[_path_id("llm key")],
        request=None,
        responses={202: RunSerializer},
        summary="List the models this key can use (a short run; live list or a curated fallback)",
    )
    def post(self, request: Request, id: int) -> Response:
        key = _owned(LLMKey, request, id)
        return _accepted(request, Run.Kind.KEY_MODELS, tasks.key_models, {"key_id": key.pk})


class ConnectorTestView(APIView):
    throttle_classes = (JobsThrottle,)

    @extend_schema(
        parameters=[_path_id("connector")],
        request=ConnectorTestSerializer,
        responses={202: RunSerializer},
        summary="Send one message to the chatbot (a short run)",
    )
    def post(self, request: Request, id: int) -> Response:
        connector = _owned(Connector, request, id)
        body = ConnectorTestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        message = body.validated_data.get("message") or TEST_MESSAGE
        return _accepted(
            request,
            Run.Kind.CONNECTOR_TEST,
            tasks.connector_test,
            {"connector_id": connector.pk, "message": message},
        )

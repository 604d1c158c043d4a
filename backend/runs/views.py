"""/api/runs/: the caller's runs (never anyone else's), and the `ping` run kind."""

from __future__ import annotations

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from runs import services, tasks
from runs.models import Run
from runs.serializers import PingSerializer, RunSerializer


class RunViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet[Run]):
    serializer_class = RunSerializer

    def get_queryset(self) -> QuerySet[Run]:
        if getattr(self, "swagger_fake_view", False):  # schema generation has no user
            return Run.objects.none()
        return Run.objects.filter(owner=self.request.user)

    @extend_schema(request=PingSerializer, responses={201: RunSerializer}, summary="Start a ping run")
    @action(detail=False, methods=["post"])
    def ping(self, request: Request) -> Response:
        body = PingSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        run = services.create_run(
            request.user, Run.Kind.PING, tasks.ping, {"message": body.validated_data["message"]}
        )
        return Response(RunSerializer(run).data, status=status.HTTP_201_CREATED)

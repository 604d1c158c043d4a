from django.urls import path
from rest_framework.routers import SimpleRouter

from runs.compare import BaselineView, CompareView, ProjectBaselineView, RerunView
from runs.jobs import ConnectorTestView, KeyModelsView, KeyTestView
from runs.projects import ImportView, ModelDiffView
from runs.streams import run_stream, runs_stream
from runs.views import ProjectRunsView, RunViewSet

router = SimpleRouter()
router.register("runs", RunViewSet, basename="run")

urlpatterns = [
    path("keys/<int:id>/test/", KeyTestView.as_view(), name="llmkey-test"),
    path("keys/<int:id>/models/", KeyModelsView.as_view(), name="llmkey-models"),
    path("connectors/<int:id>/test/", ConnectorTestView.as_view(), name="connector-test"),
    path("runs/<int:id>/baseline/", BaselineView.as_view(), name="run-baseline"),
    path("runs/<int:id>/compare/", CompareView.as_view(), name="run-compare"),
    path("runs/<int:id>/rerun/", RerunView.as_view(), name="run-rerun"),
    path("projects/<int:project_id>/runs/", ProjectRunsView.as_view(), name="project-runs"),
    path("projects/<int:project_id>/baseline/", ProjectBaselineView.as_view(), name="project-baseline"),
    path("projects/<int:project_id>/diff/", ModelDiffView.as_view(), name="project-diff"),
    path("projects/<int:project_id>/import/", ImportView.as_view(), name="project-import"),
    # Live updates (Server-Sent Events): nginx routes /api/stream/ to the ASGI process.
    path("stream/runs/", runs_stream, name="runs-stream"),
    path("stream/runs/<int:run_id>/", run_stream, name="run-stream"),
    *router.urls,
]

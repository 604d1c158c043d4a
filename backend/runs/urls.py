from django.urls import path
from rest_framework.routers import SimpleRouter

from runs.http.compare import BaselineView, CompareView, ProjectBaselineView, RerunView
from runs.http.coverage import CoverageDraftView, CoverageView
from runs.http.jobs import ConnectorTestView, KeyModelsView, KeyTestView
from runs.http.projects import ExportView, ImportView, ModelDiffView
from runs.http.qualify_views import (
    KeyQualificationsView,
    QualificationApplyView,
    QualificationView,
    QualifyEstimateView,
    QualifyView,
)
from runs.http.security_compare import SecurityCompareView
from runs.http.shrink_views import ShrinkReportView, ShrinkView
from runs.http.streams import run_stream, runs_stream
from runs.http.transcripts import CalibrateView, ChunkView, FidelityView, OverviewView, UploadsView
from runs.http.views import ProjectRunsView, RunViewSet

router = SimpleRouter()
router.register("runs", RunViewSet, basename="run")

urlpatterns = [
    path("keys/<int:id>/test/", KeyTestView.as_view(), name="llmkey-test"),
    path("keys/<int:id>/models/", KeyModelsView.as_view(), name="llmkey-models"),
    path("keys/<int:id>/qualify/", QualifyView.as_view(), name="llmkey-qualify"),
    path("keys/<int:id>/qualify/estimate/", QualifyEstimateView.as_view(), name="llmkey-qualify-estimate"),
    path("keys/<int:id>/qualifications/", KeyQualificationsView.as_view(), name="llmkey-qualifications"),
    path("runs/<int:id>/qualification/", QualificationView.as_view(), name="run-qualification"),
    path(
        "runs/<int:id>/qualification/apply/", QualificationApplyView.as_view(), name="run-qualification-apply"
    ),
    path("connectors/<int:id>/test/", ConnectorTestView.as_view(), name="connector-test"),
    path("runs/<int:id>/baseline/", BaselineView.as_view(), name="run-baseline"),
    path("runs/<int:id>/compare/", CompareView.as_view(), name="run-compare"),
    path("runs/<int:id>/rerun/", RerunView.as_view(), name="run-rerun"),
    path("runs/<int:id>/coverage/", CoverageView.as_view(), name="run-coverage"),
    path("runs/<int:id>/coverage/drafts/", CoverageDraftView.as_view(), name="run-coverage-drafts"),
    path("runs/<int:id>/security-compare/", SecurityCompareView.as_view(), name="run-security-compare"),
    path("runs/<int:id>/conversations/<int:cid>/shrink/", ShrinkView.as_view(), name="conversation-shrink"),
    path("runs/<int:id>/shrink-report/<str:fmt>/", ShrinkReportView.as_view(), name="run-shrink-report"),
    path("projects/<int:project_id>/runs/", ProjectRunsView.as_view(), name="project-runs"),
    path("projects/<int:project_id>/baseline/", ProjectBaselineView.as_view(), name="project-baseline"),
    path("projects/<int:project_id>/diff/", ModelDiffView.as_view(), name="project-diff"),
    path("projects/<int:project_id>/import/", ImportView.as_view(), name="project-import"),
    path("projects/<int:project_id>/export/", ExportView.as_view(), name="project-export"),
    path("projects/<int:project_id>/transcripts/", OverviewView.as_view(), name="project-transcripts"),
    path("projects/<int:project_id>/transcripts/uploads/", UploadsView.as_view(), name="transcript-uploads"),
    path(
        "projects/<int:project_id>/transcripts/uploads/<int:upload_id>/chunks/",
        ChunkView.as_view(),
        name="transcript-chunks",
    ),
    path(
        "projects/<int:project_id>/transcripts/calibrate/",
        CalibrateView.as_view(),
        name="transcripts-calibrate",
    ),
    path(
        "projects/<int:project_id>/transcripts/fidelity/", FidelityView.as_view(), name="transcripts-fidelity"
    ),
    # Live updates (Server-Sent Events): nginx routes /api/stream/ to the ASGI process.
    path("stream/runs/", runs_stream, name="runs-stream"),
    path("stream/runs/<int:run_id>/", run_stream, name="run-stream"),
    *router.urls,
]

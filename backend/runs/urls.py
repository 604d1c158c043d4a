from django.urls import path
from rest_framework.routers import SimpleRouter

from runs.projects import ImportView, ModelDiffView
from runs.views import ProjectRunsView, RunViewSet

router = SimpleRouter()
router.register("runs", RunViewSet, basename="run")

urlpatterns = [
    path("projects/<int:project_id>/runs/", ProjectRunsView.as_view(), name="project-runs"),
    path("projects/<int:project_id>/diff/", ModelDiffView.as_view(), name="project-diff"),
    path("projects/<int:project_id>/import/", ImportView.as_view(), name="project-import"),
    *router.urls,
]

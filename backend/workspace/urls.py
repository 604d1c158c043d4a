from django.urls import path
from rest_framework.routers import SimpleRouter

from workspace.api.campaigns import CampaignViewSet
from workspace.api.connectors import ConnectorViewSet
from workspace.api.documents import PersonalityViewSet, ProfileViewSet, RuleViewSet
from workspace.api.projects import ProjectViewSet
from workspace.api.schemas import SchemaView

router = SimpleRouter()
router.register("connectors", ConnectorViewSet, basename="connector")
router.register("projects", ProjectViewSet, basename="project")
router.register(r"projects/(?P<project_id>\d+)/profiles", ProfileViewSet, basename="profile")
router.register(r"projects/(?P<project_id>\d+)/rules", RuleViewSet, basename="rule")
router.register(r"projects/(?P<project_id>\d+)/personalities", PersonalityViewSet, basename="personality")
router.register(r"projects/(?P<project_id>\d+)/campaigns", CampaignViewSet, basename="campaign")

urlpatterns = [
    path("schemas/<str:kind>/", SchemaView.as_view(), name="schema-kind"),
    *router.urls,
]

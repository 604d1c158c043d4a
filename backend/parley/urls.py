"""URL routing: the REST API under /api/, Django's admin under /admin/, and (fallback only) the SPA."""

from django.conf import settings
from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.routers import SimpleRouter

from accounts.keys import LLMKeyViewSet, ProvidersView
from accounts.throttles import throttled_form_login
from parley import spa
from parley.health import HealthView

keys = SimpleRouter()
keys.register("keys", LLMKeyViewSet, basename="llmkey")

api = [
    path("auth/", include("accounts.urls")),
    path("", include(keys.urls)),
    path("providers/", ProvidersView.as_view(), name="providers"),
    path("", include("workspace.urls")),
    path("", include("runs.urls")),
    path("health/", HealthView.as_view(), name="health"),
    path("schema/", SpectacularAPIView.as_view(permission_classes=[]), name="schema"),
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="schema", permission_classes=[]), name="docs"),
]

handler404 = "common.errors.not_found"

urlpatterns = [
    path("api/", include(api)),
]

if settings.ADMIN_ENABLED:
    urlpatterns += [
        path("admin/login/", throttled_form_login(admin.site.login), name="admin-login"),
        path("admin/", admin.site.urls),
    ]

if settings.SERVE_SPA:
    urlpatterns.append(re_path(r"^(?!api/|admin/|static/)(?P<path>.*)$", spa.index))

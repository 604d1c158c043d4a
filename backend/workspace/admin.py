"""Admin screens for support: names and states only — secrets and YAML bodies stay out of list views."""

from django.contrib import admin

from workspace.models import Connector, Personality, Profile, Project, Rule


@admin.register(Connector)
class ConnectorAdmin(admin.ModelAdmin):
    list_display = ("name", "technology", "owner", "updated_at")
    search_fields = ("name", "owner__email")
    exclude = ("encrypted_secrets",)
    readonly_fields = ("secret_names",)


@admin.register(Project)
class ProjectAdmin(admin.ModelAdmin):
    list_display = ("name", "owner", "public", "updated_at")
    list_filter = ("public",)
    search_fields = ("name", "owner__email")


@admin.register(Profile, Rule, Personality)
class DocumentAdmin(admin.ModelAdmin):
    list_display = ("name", "project", "valid", "updated_at")
    list_filter = ("valid",)
    search_fields = ("name", "project__name")

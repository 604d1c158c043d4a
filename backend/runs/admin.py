from django.contrib import admin

from runs.models import Run


@admin.register(Run)
class RunAdmin(admin.ModelAdmin):
    list_display = ("id", "kind", "owner", "status", "created_at", "finished_at")
    list_filter = ("kind", "status")
    search_fields = ("owner__email",)
    readonly_fields = ("created_at", "started_at", "finished_at")

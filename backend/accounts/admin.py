"""Admin for users: the stock screens, adapted to e-mail logins."""

from typing import Any

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.contrib.auth.forms import BaseUserCreationForm, UserChangeForm

from accounts.models import LLMKey, RememberToken, User


class UserCreationForm(BaseUserCreationForm):
    class Meta:
        model = User
        fields = ("email",)


class UserEditForm(UserChangeForm):
    class Meta:
        model = User
        fields = ("email",)


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    form = UserEditForm
    add_form = UserCreationForm
    ordering = ("email",)
    list_display = ("email", "is_staff", "is_active", "date_joined")
    list_filter = ("is_staff", "is_superuser", "is_active")
    search_fields = ("email",)
    fieldsets = (
        (None, {"fields": ("email", "password")}),
        ("Permissions", {"fields": ("is_active", "is_staff", "is_superuser", "groups", "user_permissions")}),
        ("Dates", {"fields": ("last_login", "date_joined")}),
    )
    add_fieldsets = ((None, {"classes": ("wide",), "fields": ("email", "password1", "password2")}),)


@admin.register(LLMKey)
class LLMKeyAdmin(admin.ModelAdmin):
    list_display = ("name", "provider", "hint", "owner", "last_check_ok")
    search_fields = ("name", "owner__email")
    exclude = ("encrypted_key",)  # never shown, not even encrypted
    readonly_fields = ("hint", "last_checked_at", "last_check_ok", "last_check_message")


@admin.register(RememberToken)
class RememberTokenAdmin(admin.ModelAdmin):
    """Browsers kept signed in; deleting one revokes it (its next resume gets 401)."""

    list_display = ("user", "created_at", "expires_at", "last_used_at")
    search_fields = ("user__email",)
    exclude = ("digest",)
    readonly_fields = ("user", "created_at", "expires_at", "last_used_at")

    def has_add_permission(self, request: Any) -> bool:
        return False  # a remember token is only ever issued by a login

"""Request and response shapes of the account endpoints."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import password_validation
from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import serializers

from accounts.models import User


class UserSerializer(serializers.ModelSerializer[User]):
    class Meta:
        model = User
        fields = ("id", "email", "display_name", "date_joined")
        read_only_fields = ("id", "email", "date_joined")
        extra_kwargs = {
            "display_name": {"help_text": "Shown on public projects instead of the e-mail address."}
        }


class SessionSerializer(serializers.Serializer[Any]):
    """What a successful sign-up, login or password change returns: a fresh token for this device."""

    token = serializers.CharField(help_text="Send as `Authorization: Token <token>`. Shown once.")
    expiry = serializers.DateTimeField(help_text="Extended on every use (sliding expiry).")
    user = UserSerializer()


class SignupSerializer(serializers.Serializer[Any]):
    email = serializers.EmailField(max_length=254)
    password = serializers.CharField(write_only=True, trim_whitespace=False, max_length=256)

    def validate_email(self, value: str) -> str:
        email = value.strip().lower()
        if User.objects.filter(email__iexact=email).exists():
            raise serializers.ValidationError("An account with this e-mail already exists.", code="duplicate")
        return email

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        candidate = User(email=attrs["email"])
        try:
            password_validation.validate_password(attrs["password"], user=candidate)
        except DjangoValidationError as exc:
            raise serializers.ValidationError({"password": exc.messages}, code="weak_password") from None
        return attrs


class LoginSerializer(serializers.Serializer[Any]):
    email = serializers.EmailField(max_length=254)
    password = serializers.CharField(write_only=True, trim_whitespace=False, max_length=256)
    # Optional without a default, so the generated client does not require it from the sign-up form's values.
    remember = serializers.BooleanField(
        required=False,
        help_text=(
            "Keep me signed in: the response also sets an HttpOnly cookie that lets new tabs of this browser "
            "get their own token from /api/auth/resume/."
        ),
    )


class CsrfSerializer(serializers.Serializer[Any]):
    csrf_token = serializers.CharField(
        help_text="Send as the X-CSRFToken header; also set as the csrftoken cookie."
    )


class PasswordChangeSerializer(serializers.Serializer[Any]):
    current_password = serializers.CharField(write_only=True, trim_whitespace=False, max_length=256)
    new_password = serializers.CharField(write_only=True, trim_whitespace=False, max_length=256)

    def validate_current_password(self, value: str) -> str:
        if not self.context["request"].user.check_password(value):
            raise serializers.ValidationError("The current password is incorrect.", code="wrong_password")
        return value

    def validate_new_password(self, value: str) -> str:
        try:
            password_validation.validate_password(value, user=self.context["request"].user)
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.messages) from None
        return value

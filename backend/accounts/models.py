"""Users (e-mail is the login; there is no username) and their LLM API keys (encrypted at rest)."""

from __future__ import annotations

import difflib
from typing import Any, ClassVar

from django.contrib.auth.models import AbstractBaseUser, BaseUserManager, PermissionsMixin
from django.db import models
from django.utils import timezone

from common import crypto


class UserManager(BaseUserManager["User"]):
    use_in_migrations = True

    def create_user(self, email: str, password: str | None = None, **extra: Any) -> User:
        if not email:
            raise ValueError("An e-mail address is required.")
        user = self.model(email=self.normalize_email(email).lower(), **extra)
        user.set_password(password)
        user.save(using=self._db)
        return user

    def create_superuser(self, email: str, password: str | None = None, **extra: Any) -> User:
        extra.setdefault("is_staff", True)
        extra.setdefault("is_superuser", True)
        return self.create_user(email, password, **extra)

    def get_by_natural_key(self, username: str | None) -> User:
        # E-mail addresses are stored lower-case, so logins are case-insensitive.
        return self.get(email__iexact=username or "")


class User(AbstractBaseUser, PermissionsMixin):
    email = models.EmailField("e-mail address", unique=True)
    # What public pages show instead of the e-mail address, which is never shown to other people.
    display_name = models.CharField(max_length=80, blank=True)
    is_active = models.BooleanField(default=True)
    is_staff = models.BooleanField(default=False)
    date_joined = models.DateTimeField(default=timezone.now)

    objects: ClassVar[UserManager] = UserManager()

    USERNAME_FIELD = "email"
    EMAIL_FIELD = "email"
    REQUIRED_FIELDS: ClassVar[list[str]] = []

    class Meta:
        ordering = ("email",)

    def __str__(self) -> str:
        return self.email

    @property
    def public_name(self) -> str:
        return self.display_name or f"User {self.pk}"


class LLMKey(models.Model):
    """A user's API key for one LLM provider. Only a masked hint is ever shown; workers decrypt it."""

    class Provider(models.TextChoices):
        OPENAI = "openai", "OpenAI"
        GEMINI = "gemini", "Google Gemini"
        OPENAI_COMPATIBLE = "openai-compatible", "OpenAI-compatible server"

    owner = models.ForeignKey(User, on_delete=models.CASCADE, related_name="llm_keys")
    name = models.CharField(max_length=80)
    provider = models.CharField(max_length=32, choices=Provider.choices)
    base_url = models.URLField(max_length=500, blank=True)
    encrypted_key = models.TextField(editable=False)
    hint = models.CharField(max_length=16, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # Outcome of the last "test" (run by a worker): None = never tested.
    last_checked_at = models.DateTimeField(null=True, blank=True)
    last_check_ok = models.BooleanField(null=True, blank=True)
    last_check_message = models.CharField(max_length=500, blank=True)
    # The model names the provider listed at the last key test or model list, and when (README D7): the API
    # warns about a chosen model missing from it without ever decrypting the key. Empty: not known.
    models_seen = models.JSONField(default=list, blank=True)
    models_seen_at = models.DateTimeField(null=True, blank=True)
    # What runs learned the server refuses, per "<base URL>|<model>" (`engine.llm.Learned`, decision D10), so
    # the next run adapts from its first call.
    capabilities = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ("name", "id")
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["owner", "name"], name="llmkey_unique_name_per_owner"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.provider}, {self.hint})"

    def set_secret(self, plaintext: str) -> None:
        self.encrypted_key = crypto.encrypt(plaintext)
        self.hint = crypto.mask(plaintext)

    def model_warning(self, model: str) -> str | None:
        """A warning when `model` is not among the models the provider last listed for this key (D7); None when
        it is, or when no list is known (never tested, or a server that lists none)."""
        listed = [str(m) for m in self.models_seen or []]
        name = (model or "").strip()
        if not name or not listed or name in listed or name.removeprefix("models/") in listed:
            return None
        closest = difflib.get_close_matches(name, listed, n=3, cutoff=0.5) or sorted(listed)[:3]
        when = self.models_seen_at.date().isoformat() if self.models_seen_at else "its last test"
        return (
            f"The model {name!r} is not among the {len(listed)} models the key {self.name!r} listed on {when}; "
            f"closest: {', '.join(closest)}. Runs will fail if the provider does not offer it."
        )

    def reveal(self) -> str:
        """The plaintext key, for the worker that is about to call the provider. Never put it in a response."""
        return crypto.decrypt(self.encrypted_key)


class RememberToken(models.Model):
    """The secret behind "keep me signed in": one per browser that ticked the box, sent back in an HttpOnly cookie.

    Its only power is to mint a fresh per-tab knox token at POST /api/auth/resume/ (accounts/remember.py). It is a
    model of its own, not a knox `AuthToken` with a longer expiry, on purpose: every knox token is accepted as
    `Authorization: Token …` by the whole API, so a remember token stored as one would be a month-long API
    credential, and logging out one tab (which deletes `request.auth`) could not tell the two apart. Like knox, only
    a digest is stored: the secret is 32 random bytes, so a plain SHA-256 is enough (nothing to guess, no need for
    a slow hash), and it is looked up by that digest. The lifetime is absolute (`expires_at`), not sliding: the
    user is asked for the password again after `REMEMBER_DAYS` however often the browser comes back.
    """

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="remember_tokens")
    digest = models.CharField(max_length=64, unique=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-created_at",)

    def __str__(self) -> str:
        return f"remember token of {self.user} until {self.expires_at:%Y-%m-%d}"

"""Which providers the gateway speaks to, their settings, and listing the models they offer.

Every provider is reached through the OpenAI chat-completions protocol, so one client serves all three:
OpenAI itself, Google Gemini through its OpenAI-compatible endpoint, and any other server that speaks the
protocol (Ollama, vLLM, LM Studio, OpenRouter...) at a base URL the user gives.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit

import httpx

from engine.egress import EgressDenied, EgressGuard, InvalidAddress, canonical_url, guarded_client
from engine.llm.errors import LLMAuthError, LLMConfigError
from engine.llm.redact import Redactor

Provider = Literal["openai", "gemini", "openai-compatible"]
PROVIDERS: tuple[Provider, ...] = ("openai", "gemini", "openai-compatible")
StructuredMethod = Literal["auto", "json_schema", "tool_calling"]

BASE_URLS: dict[str, str] = {
    "openai": "https://api.openai.com/v1",
    "gemini": "https://generativelanguage.googleapis.com/v1beta/openai/",
}
DEFAULT_MODELS: dict[str, str] = {"openai": "gpt-4.1-mini", "gemini": "gemini-2.5-flash"}

# Shown when the models endpoint cannot be asked. A starting point for a dropdown, not a promise that the
# account can use every one of them; an openai-compatible server has no list we could guess.
FALLBACK_MODELS: dict[str, tuple[str, ...]] = {
    "openai": ("gpt-4.1-mini", "gpt-4.1", "gpt-4.1-nano", "gpt-4o-mini", "gpt-4o", "gpt-5-mini", "gpt-5"),
    "gemini": ("gemini-2.5-flash", "gemini-2.5-flash-lite", "gemini-2.5-pro", "gemini-2.0-flash"),
    "openai-compatible": (),
}

# Model ids that the models endpoint lists but that cannot hold a chat (embeddings, speech, images...).
_NOT_CHAT_MARKERS = (
    "embed",
    "tts",
    "whisper",
    "dall-e",
    "moderation",
    "transcribe",
    "image",
    "davinci",
    "babbage",
    "realtime",
    "audio",
    "search",
)

# Local servers (Ollama, LM Studio) ignore the key, but the OpenAI client insists on having one.
_PLACEHOLDER_KEY = "not-needed"


def _check_provider(provider: str) -> Provider:
    for known in PROVIDERS:
        if provider == known:
            return known
    raise LLMConfigError(f"Unknown LLM provider {provider!r}; choose one of {', '.join(PROVIDERS)}.")


def resolve_base_url(provider: str, base_url: str | None) -> str:
    """The URL the OpenAI protocol paths (/chat/completions, /models) hang from, without a trailing slash."""
    provider = _check_provider(provider)
    url = (base_url or "").strip() or BASE_URLS.get(provider, "")
    if not url:
        raise LLMConfigError(
            "An openai-compatible provider needs a base URL, e.g. http://localhost:11434/v1."
        )
    if urlsplit(url).scheme not in ("http", "https") or not urlsplit(url).hostname:
        raise LLMConfigError(f"The base URL {url!r} is not an http(s) URL.")
    try:
        # The host in the one form the egress guard decides on and httpx reads (`0177.0.0.3` is 127.0.0.3).
        url = canonical_url(url)
    except InvalidAddress as exc:
        raise LLMConfigError(f"The base URL: {exc.user_message}") from None
    return url.rstrip("/")


def provider_display_name(provider: str, base_url: str | None = None) -> str:
    """How error messages name the provider: "OpenAI", "Google Gemini", "the server at host:port"."""
    if provider == "openai":
        return "OpenAI"
    if provider == "gemini":
        return "Google Gemini"
    netloc = urlsplit(base_url or "").netloc or "the configured base URL"
    return f"the server at {netloc}"


@dataclass(frozen=True)
class ProviderConfig:
    """One LLM key as a user configured it. `repr` hides the key so it never lands in a log by accident."""

    provider: Provider
    api_key: str = field(default="", repr=False)
    model: str | None = None
    base_url: str | None = None
    temperature: float | None = None
    # Default completion cap for every call; also what the budget assumes a call may produce.
    max_tokens: int | None = None
    timeout_s: float = 120.0
    max_concurrency: int = 4
    # "auto" asks for a JSON-schema response format and switches to tool calling if the provider refuses it.
    structured_method: StructuredMethod = "auto"
    extra_body: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        _check_provider(self.provider)
        if self.provider != "openai-compatible" and not self.api_key:
            raise LLMConfigError(f"No API key was given for {provider_display_name(self.provider)}.")
        if self.max_concurrency < 1:
            raise LLMConfigError("The concurrency limit must be at least 1.")

    @property
    def url(self) -> str:
        return resolve_base_url(self.provider, self.base_url)

    @property
    def display_name(self) -> str:
        return provider_display_name(self.provider, self.url)

    @property
    def model_name(self) -> str:
        model = (self.model or "").strip() or DEFAULT_MODELS.get(self.provider, "")
        if not model:
            raise LLMConfigError(f"Choose a model for {self.display_name}; it has no default.")
        return model

    @property
    def key_for_client(self) -> str:
        return self.api_key or _PLACEHOLDER_KEY

    @property
    def limiter_key(self) -> str:
        """Identifies "this key at this server" without holding the key itself (hash of both)."""
        return hashlib.sha256(f"{self.url}\0{self.api_key}".encode()).hexdigest()[:16]


@dataclass(frozen=True)
class ModelList:
    """Models a provider offers; `source` is "live" (asked the endpoint) or "fallback" (curated list)."""

    provider: str
    models: tuple[str, ...]
    source: Literal["live", "fallback"]
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "models": list(self.models),
            "source": self.source,
            "reason": self.reason,
        }


def list_models(
    provider: str,
    api_key: str | None,
    base_url: str | None,
    guard: EgressGuard,
    *,
    timeout_s: float = 15.0,
) -> ModelList:
    """Ask the provider's `/models` endpoint; fall back to the curated list when it cannot answer.

    A rejected key raises `LLMAuthError` and a refused address raises `EgressDenied` instead of falling back:
    both are settings the user must fix, and a fallback list would hide them.
    """
    provider = _check_provider(provider)
    url = resolve_base_url(provider, base_url)
    name = provider_display_name(provider, url)
    if provider != "openai-compatible" and not api_key:
        raise LLMConfigError(f"No API key was given for {name}.")
    redact = Redactor(api_key)
    headers = {"Authorization": f"Bearer {api_key or _PLACEHOLDER_KEY}"}
    try:
        with guarded_client(guard, timeout=timeout_s) as client:
            response = client.get(f"{url}/models", headers=headers)
    except EgressDenied:
        raise
    except (httpx.HTTPError, httpx.InvalidURL) as exc:  # InvalidURL (a redirect's bad host) is no HTTPError
        return _fallback(provider, redact(f"{name} could not be reached: {exc}"))
    if response.status_code in (401, 403):
        raise LLMAuthError(f"The API key was rejected by {name}.")
    if response.status_code >= 400:
        return _fallback(provider, f"{name} answered HTTP {response.status_code} when asked for its models.")
    try:
        entries = response.json()["data"]
        ids = [str(entry["id"]) for entry in entries]
    except (ValueError, KeyError, TypeError):
        return _fallback(provider, f"{name} answered its models request with something that is not a list.")
    # Gemini lists "models/gemini-2.5-flash" but expects "gemini-2.5-flash" in chat requests.
    ids = [i.removeprefix("models/") for i in ids]
    chat_ids = sorted({i for i in ids if not any(marker in i.lower() for marker in _NOT_CHAT_MARKERS)})
    return ModelList(provider, tuple(chat_ids), "live")


def _fallback(provider: Provider, reason: str) -> ModelList:
    return ModelList(provider, FALLBACK_MODELS[provider], "fallback", reason)

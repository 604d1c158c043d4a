"""The wire: one chat-completions request out, one `Completion` back, exactly as the provider answered.

The gateway builds the whole request body itself (`engine.llm.capabilities` decides every parameter), so the
transport sends it unchanged: no SDK or framework renames `max_tokens`, drops a temperature or rewrites roles
behind the gateway's back. `OpenAITransport` uses the OpenAI SDK (errors, timeouts) over the egress-guarded
httpx client, with the SDK's own retries off. Test doubles implement the same `Transport` protocol
(`engine.llm.offline.ScriptedChatModel`), so everything above the wire runs unchanged in unit tests.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from engine.egress import EgressGuard, guarded_client
from engine.llm.providers import ProviderConfig

# Request fields the SDK's `create()` names; everything else travels in `extra_body` untouched.
_SDK_FIELDS = ("model", "messages")


@dataclass(frozen=True)
class Completion:
    """What the provider answered, read from the first choice. `choices == 0` means the provider returned none
    (Gemini does so when its safety filter blocks the prompt)."""

    text: str | None
    refusal: str | None = None
    tool_arguments: str | None = None
    finish_reason: str | None = None
    model: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    reasoning_tokens: int | None = None
    choices: int = 1
    headers: Mapping[str, str] = field(default_factory=dict)


class Transport(Protocol):
    """Sends one chat-completions body; raises the OpenAI SDK's errors for HTTP failures."""

    def send(self, payload: dict[str, Any], *, headers: dict[str, str], timeout_s: float) -> Completion: ...

    def close(self) -> None: ...


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def completion_from_json(data: Any, headers: Mapping[str, str] | None = None) -> Completion:
    """Read a chat-completions response body (as JSON data). Raises `ValueError` when it is not one."""
    if not isinstance(data, Mapping) or not isinstance(data.get("choices"), list):
        preview = json.dumps(data)[:200] if data is not None else "nothing"
        raise ValueError(f"Unexpected response type: not a chat completion ({preview})")  # noqa: TRY004 - retried as a malformed answer
    raw_usage = data.get("usage")
    usage: Mapping[str, Any] = raw_usage if isinstance(raw_usage, Mapping) else {}
    details = usage.get("completion_tokens_details")
    reasoning = _int(details.get("reasoning_tokens")) if isinstance(details, Mapping) else None
    common: dict[str, Any] = {
        "model": str(data.get("model") or "") or None,
        "prompt_tokens": _int(usage.get("prompt_tokens")),
        "completion_tokens": _int(usage.get("completion_tokens")),
        "reasoning_tokens": reasoning,
        "headers": {k.lower(): v for k, v in (headers or {}).items()},
    }
    choices = data["choices"]
    if not choices:
        return Completion(text=None, choices=0, **common)
    choice: Mapping[str, Any] = choices[0] if isinstance(choices[0], Mapping) else {}
    raw_message = choice.get("message")
    message: Mapping[str, Any] = raw_message if isinstance(raw_message, Mapping) else {}
    content = message.get("content")
    if isinstance(content, list):  # some servers send typed parts
        content = "".join(str(p.get("text", "")) if isinstance(p, Mapping) else str(p) for p in content)
    arguments = None
    calls = message.get("tool_calls")
    if isinstance(calls, list) and calls and isinstance(calls[0], Mapping):
        function = calls[0].get("function")
        if isinstance(function, Mapping):
            raw = function.get("arguments")
            arguments = raw if isinstance(raw, str) else json.dumps(raw)
    refusal = message.get("refusal")
    return Completion(
        text=content if isinstance(content, str) else None,
        refusal=refusal if isinstance(refusal, str) and refusal else None,
        tool_arguments=arguments,
        finish_reason=str(choice.get("finish_reason")) if choice.get("finish_reason") is not None else None,
        choices=len(choices),
        **common,
    )


class OpenAITransport:
    """The real wire: the OpenAI SDK (chat completions) over the egress-guarded httpx client."""

    def __init__(self, config: ProviderConfig, guard: EgressGuard) -> None:
        # Imported here: the SDK is heavy and only needed once a real call is made.
        import openai

        self._http = guarded_client(guard, timeout=config.timeout_s)
        self._client = openai.OpenAI(
            api_key=config.key_for_client,
            base_url=config.url,
            timeout=config.timeout_s,
            max_retries=0,  # the gateway owns retries (retry.py); the SDK's would multiply them
            http_client=self._http,  # type: ignore[arg-type]
        )
        self._extra_body = dict(config.extra_body)

    def send(self, payload: dict[str, Any], *, headers: dict[str, str], timeout_s: float) -> Completion:
        body = {**self._extra_body, **{k: v for k, v in payload.items() if k not in _SDK_FIELDS}}
        raw = self._client.chat.completions.with_raw_response.create(
            model=payload["model"],
            messages=payload["messages"],
            extra_body=body,
            extra_headers=headers,
            timeout=timeout_s,
        )
        try:
            data = json.loads(raw.text)
        except ValueError as exc:
            raise ValueError(f"Unexpected response type: the body is not JSON ({raw.text[:200]!r})") from exc
        return completion_from_json(data, dict(raw.headers))

    def close(self) -> None:
        self._client.close()
        self._http.close()

"""The strict protocol double: one chat-completions endpoint that behaves as the provider's API documents.

`ProviderDouble.handle(payload, tag=..., bearer=...)` answers one request body with a `WireReply` (status, JSON
body, headers) — the fake HTTP server sends it over the network, `ScriptedChatModel` turns it into what the SDK
would have raised or returned. Three families (README D13):

- `openai` (the default): OpenAI's chat completions. Reasoning models (gpt-5 except gpt-5-chat, o1, o3, o4)
  refuse a temperature or `top_p` other than 1 (`unsupported_value`) and `max_tokens` (`unsupported_parameter`,
  "use 'max_completion_tokens' instead"), count hidden reasoning tokens against `max_completion_tokens` (a small
  cap yields an empty answer cut off at the limit), and accept `reasoning_effort`; chat models refuse
  `reasoning_effort`; o1-mini/o1-preview refuse the system role, response formats and tools; JSON mode needs the
  word "json" in the messages; unknown request fields are refused; an unlisted model is a 404.
- `gemini`: Gemini's OpenAI-compatible endpoint: error bodies are a list (`[{"error": {..., "status":
  "INVALID_ARGUMENT"}}]`), a rejected key is a 400, a 429 carries `RetryInfo.retryDelay` instead of `Retry-After`,
  unknown fields are refused, thinking models spend part of `max_tokens` thinking; the safety filter answers with
  no choice at all (a blocked prompt) or a choice with `finish_reason: content_filter` and no content.
- `local`: an Ollama-like server: unknown fields are ignored, response formats and tools can be switched off.
  With `validation_as_500`, it refuses as llama-cpp-python's server does: a request it cannot validate (a
  `json_schema` response format) is an HTTP 500 whose message is pydantic's validation error, with the
  server's stack line after it; JSON mode accepts a `schema` beside its type.

Outside strict JSON-schema mode (and outside tool calls) every JSON answer comes wrapped in prose and a Markdown
fence, as real models write it. The rules are written here from the API references, independently of
`engine.llm.capabilities`, so a wrong entry in Parley's table fails a test instead of agreeing with itself.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from engine.llm.offline.schema_data import sample_from_schema
from engine.llm.offline.script import (
    MALFORMED_JSON,
    Reply,
    Script,
    ScriptPlayer,
    estimate_tokens,
    prose_around,
)

ProviderKind = Literal["openai", "gemini", "local"]
ModelKind = Literal["reasoning", "reasoning-early", "chat", "legacy", "gemini-thinking", "gemini", "local"]

OPENAI_FIELDS = frozenset(
    [
        "model",
        "messages",
        "temperature",
        "top_p",
        "n",
        "stream",
        "stream_options",
        "stop",
        "max_tokens",
        "max_completion_tokens",
        "presence_penalty",
        "frequency_penalty",
        "logit_bias",
        "logprobs",
        "top_logprobs",
        "user",
        "response_format",
        "seed",
        "tools",
        "tool_choice",
        "parallel_tool_calls",
        "reasoning_effort",
        "service_tier",
        "store",
        "metadata",
        "modalities",
        "prediction",
        "audio",
        "verbosity",
        "web_search_options",
        "safety_identifier",
        "prompt_cache_key",
    ]
)
GEMINI_FIELDS = frozenset(
    [
        "model",
        "messages",
        "temperature",
        "top_p",
        "n",
        "stream",
        "stream_options",
        "stop",
        "max_tokens",
        "max_completion_tokens",
        "presence_penalty",
        "frequency_penalty",
        "response_format",
        "seed",
        "tools",
        "tool_choice",
        "reasoning_effort",
        "extra_body",
    ]
)
# Hidden reasoning tokens a request costs, by effort (the default effort is "medium").
REASONING_TOKENS = {"none": 0, "minimal": 0, "low": 256, "medium": 1024, "high": 4096}
BLOCKED_PROMPT = "blocked_prompt"


def model_kind(provider: ProviderKind, model: str, overrides: Mapping[str, str] | None = None) -> ModelKind:
    """How the double treats `model`; `overrides` maps model names to a kind (e.g. an unknown reasoning model)."""
    if overrides and model in overrides:
        return overrides[model]  # type: ignore[return-value]
    name = model.lower().rsplit("/", 1)[-1]
    if provider == "local":
        return "local"
    if provider == "gemini":
        return "gemini-thinking" if re.match(r"gemini-(2\.5|[3-9])", name) else "gemini"
    if re.match(r"o1-(mini|preview)", name):
        return "reasoning-early"
    if re.match(r"o\d+(-|$)", name) or (name.startswith("gpt-5") and "-chat" not in name):
        return "reasoning"
    if re.match(r"gpt-(4-|4$|3\.5)", name) and not name.startswith(("gpt-4o", "gpt-4.1")):
        return "legacy"
    return "chat"


@dataclass(frozen=True)
class WireReply:
    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    raw: bytes | None = None  # a body that is not JSON at all
    delay_s: float = 0.0


@dataclass
class ProviderDouble:
    """One provider family's strict rules plus a script of answers by caller tag. Thread-safe via the player."""

    provider: ProviderKind = "openai"
    script: Script | None = None
    models: tuple[str, ...] | None = None  # None: any model name is served
    api_key: str | None = None  # when set, any other bearer token is rejected (and echoed, as providers do)
    json_schema_supported: bool = True
    json_object_supported: bool = True
    tools_supported: bool = True
    prose: bool = True
    validation_as_500: bool = False
    kinds: dict[str, str] = field(default_factory=dict)
    player: ScriptPlayer = field(init=False)

    def __post_init__(self) -> None:
        self.player = ScriptPlayer(self.script)

    # -- errors in the provider's own shape ------------------------------------------------------------------

    def error(
        self,
        status: int,
        message: str,
        *,
        kind: str = "invalid_request_error",
        param: str | None = None,
        code: str | None = None,
        headers: dict[str, str] | None = None,
        details: list[Any] | None = None,
    ) -> WireReply:
        if self.provider == "gemini":
            names = {
                400: "INVALID_ARGUMENT",
                401: "UNAUTHENTICATED",
                403: "PERMISSION_DENIED",
                404: "NOT_FOUND",
            }
            names |= {429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE"}
            inner: dict[str, Any] = {
                "code": status,
                "message": message,
                "status": names.get(status, "UNKNOWN"),
            }
            if details:
                inner["details"] = details
            return WireReply(status, [{"error": inner}], headers or {})
        body = {"error": {"message": message, "type": kind, "param": param, "code": code}}
        return WireReply(status, body, headers or {})

    def fault(self, spec: Mapping[str, Any]) -> WireReply | None:
        """The reply a scripted or injected fault stands for, or None for an ordinary answer."""
        fault = spec.get("fault")
        delay = float(spec.get("delay", 2 if fault == "slow" else 0))
        if fault == "rate_limit":
            wait = spec.get("retry_after", 1)
            if self.provider == "gemini":
                retry = {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": f"{wait}s"}
                return self.error(429, "Resource has been exhausted (e.g. check quota).", details=[retry])
            return self.error(
                429,
                "Rate limit reached for requests. Please try again later.",
                kind="requests",
                code="rate_limit_exceeded",
                headers={"Retry-After": str(wait)},
            )
        if fault == "server_error":
            status = int(spec.get("status", 500))
            message = str(spec.get("message", "The server had an error while processing your request."))
            return self.error(status, message, kind=str(spec.get("kind", "server_error")))
        if fault == "auth":
            return self._bad_key("")
        if fault == "malformed_body":
            return WireReply(200, raw=b'{"id": "chatcmpl-broken", "choices": [')
        if fault == "slow":
            return WireReply(0, delay_s=delay)  # status 0: answer normally after the delay
        return None

    def _bad_key(self, presented: str) -> WireReply:
        if self.provider == "gemini":
            return self.error(400, "API key not valid. Please pass a valid API key.")
        return self.error(
            401, f"Incorrect API key provided: {presented or '(none)'}.", code="invalid_api_key"
        )

    # -- one request ---------------------------------------------------------------------------------------------

    def handle(
        self, body: Any, *, tag: str, bearer: str | None, injected: Mapping[str, Any] | None = None
    ) -> WireReply:
        """The provider's answer to one chat-completions body. `injected` is a fault forced on this call."""
        if self.api_key is not None and (bearer or "") != self.api_key:
            return self._bad_key(bearer or "")
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list) or not body.get("model"):
            return self.error(400, "The body must be a JSON object with a model and a messages list.")
        model = str(body["model"])
        if self.models is not None and model not in self.models:
            return self.error(
                404,
                f"The model `{model}` does not exist or you do not have access to it.",
                code="model_not_found",
            )
        delay = 0.0
        if injected:
            reply = self.fault(injected)
            if reply is not None and reply.status != 0:
                return reply
            delay = reply.delay_s if reply is not None else 0.0
        refused = self.refusal(body)
        if refused is not None:
            return refused
        schema, name, use_tools = requested_schema(body)
        spec = self.player.next(tag, name or "") or {}
        reply = self.fault(spec)
        if reply is not None and reply.status != 0:
            return reply
        delay += reply.delay_s if reply is not None else 0.0
        answer = self.completion(body, spec, tag=tag, schema=schema, tool_name=name if use_tools else None)
        headers = {str(k): str(v) for k, v in (spec.get("headers") or {}).items()}
        return WireReply(200, answer, headers, delay_s=delay)

    # -- what the API refuses ----------------------------------------------------------------------------------------

    def refusal(self, body: dict[str, Any]) -> WireReply | None:
        kind = model_kind(self.provider, str(body["model"]), self.kinds)
        if self.provider == "openai":
            return self._openai_refusal(body, kind)
        if self.provider == "gemini":
            return self._gemini_refusal(body, kind)
        return self._format_refusal(body)

    def _unsupported(self, name: str, value: Any = None, *, hint: str = "") -> WireReply:
        if value is None:
            message = f"Unsupported parameter: '{name}' is not supported with this model.{hint}"
            return self.error(400, message, param=name, code="unsupported_parameter")
        message = f"Unsupported value: '{name}' does not support {value} with this model.{hint}"
        return self.error(400, message, param=name, code="unsupported_value")

    def _openai_refusal(self, body: dict[str, Any], kind: ModelKind) -> WireReply | None:
        for name in body:
            if name not in OPENAI_FIELDS:
                return self.error(400, f"Unrecognized request argument supplied: {name}")
        roles = [m.get("role") for m in body["messages"] if isinstance(m, dict)]
        if kind in ("reasoning", "reasoning-early"):
            if kind == "reasoning-early" and "system" in roles:
                return self._unsupported(f"messages[{roles.index('system')}].role", "'system'")
            if "max_tokens" in body:
                return self._unsupported("max_tokens", hint=" Use 'max_completion_tokens' instead.")
            for name in ("temperature", "top_p"):
                if name in body and body[name] != 1:
                    default = " Only the default (1) value is supported."
                    return self._unsupported(name, body[name], hint=default)
            for name in ("presence_penalty", "frequency_penalty", "logprobs"):
                if body.get(name):
                    return self._unsupported(name)
            if kind == "reasoning-early":
                for name in ("reasoning_effort", "response_format", "tools"):
                    if name in body:
                        return self._unsupported(name)
            elif "reasoning_effort" in body:
                allowed = ["low", "medium", "high"]
                if str(body["model"]).startswith("gpt-5"):
                    allowed.insert(0, "minimal")
                if body["reasoning_effort"] not in allowed:
                    return self._unsupported("reasoning_effort", f"'{body['reasoning_effort']}'")
        else:
            if "reasoning_effort" in body:
                return self._unsupported("reasoning_effort")
            heat = body.get("temperature")
            if isinstance(heat, int | float) and not 0 <= heat <= 2:
                message = (
                    f"Invalid 'temperature': decimal out of range. Expected a value in [0, 2], got {heat}."
                )
                return self.error(400, message, param="temperature", code="decimal_out_of_range")
        for name in ("max_tokens", "max_completion_tokens"):
            if name in body and not (isinstance(body[name], int) and body[name] >= 1):
                return self.error(400, f"Invalid '{name}': expected an integer >= 1.", param=name)
        return self._format_refusal(body, legacy=kind == "legacy")

    def _gemini_refusal(self, body: dict[str, Any], kind: ModelKind) -> WireReply | None:
        for name in body:
            if name not in GEMINI_FIELDS:
                return self.error(
                    400, f'Invalid JSON payload received. Unknown name "{name}": Cannot find field.'
                )
        heat = body.get("temperature")
        if isinstance(heat, int | float) and not 0 <= heat <= 2:
            return self.error(
                400, "* GenerateContentRequest.generation_config.temperature: must be in [0, 2]"
            )
        if "reasoning_effort" in body:
            if kind != "gemini-thinking":
                return self.error(
                    400,
                    f"Thinking is not enabled for models/{body['model']}; reasoning_effort is not supported.",
                )
            if body["reasoning_effort"] not in ("none", "minimal", "low", "medium", "high"):
                return self.error(400, f"Invalid value for reasoning_effort: {body['reasoning_effort']}.")
        return self._format_refusal(body)

    def _format_refusal(self, body: dict[str, Any], *, legacy: bool = False) -> WireReply | None:
        response_format = body.get("response_format")
        if isinstance(response_format, dict) and self.validation_as_500:
            kind = response_format.get("type")
            if kind not in ("text", "json_object"):
                return self.error(
                    500,
                    "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
                    f"'msg': \"Input should be 'text' or 'json_object'\", 'input': '{kind}', 'ctx': "
                    "{'expected': \"'text' or 'json_object'\"}}\n\n  File \"/srv/llama_cpp/server/app.py\", "
                    "line 376, in create_chat_completion\n    POST /v1/chat/completions",
                    kind="internal_server_error",
                )
        if isinstance(response_format, dict):
            kind = response_format.get("type")
            if kind == "json_schema":
                spec = response_format.get("json_schema")
                if legacy or not self.json_schema_supported:
                    return self.error(
                        400,
                        "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
                        param="response_format",
                    )
                name = spec.get("name") if isinstance(spec, dict) else None
                if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", name):
                    return self.error(
                        400, "Invalid 'response_format.json_schema.name'.", param="response_format"
                    )
                if not isinstance(spec, dict) or not isinstance(spec.get("schema"), dict):
                    return self.error(
                        400, "Missing 'response_format.json_schema.schema'.", param="response_format"
                    )
            elif kind == "json_object":
                if not self.json_object_supported:
                    return self.error(
                        400,
                        "'response_format.type' must be 'json_schema' or 'text'.",
                        param="response_format",
                    )
                text = " ".join(str(m.get("content") or "") for m in body["messages"] if isinstance(m, dict))
                if self.provider == "openai" and "json" not in text.lower():
                    return self.error(
                        400,
                        "'messages' must contain the word 'json' in some form, to use 'response_format' of type "
                        "'json_object'.",
                        param="messages",
                    )
            elif kind != "text":
                return self.error(
                    400,
                    f"Invalid value: '{kind}'. Supported values are: 'json_object', "
                    "'json_schema', and 'text'.",
                    param="response_format.type",
                )
        tools = body.get("tools")
        if tools is not None and not self.tools_supported:
            return self.error(400, f"{body['model']} does not support tools", param="tools")
        choice = body.get("tool_choice")
        if isinstance(choice, dict):
            wanted = (choice.get("function") or {}).get("name")
            names = [(t.get("function") or {}).get("name") for t in tools or [] if isinstance(t, dict)]
            if wanted not in names:
                return self.error(400, f"Invalid 'tool_choice': no function named {wanted!r} in 'tools'.")
        return None

    # -- the answer ----------------------------------------------------------------------------------------------

    def completion(
        self,
        body: dict[str, Any],
        spec: Mapping[str, Any],
        *,
        tag: str,
        schema: dict[str, Any] | None,
        tool_name: str | None,
    ) -> dict[str, Any]:
        kind = model_kind(self.provider, str(body["model"]), self.kinds)
        prompt = "".join(str(m.get("content") or "") for m in body["messages"] if isinstance(m, dict))
        base = {
            "id": "chatcmpl-double",
            "object": "chat.completion",
            "created": 0,
            "model": str(body["model"]),
        }
        if spec.get(BLOCKED_PROMPT):
            return {**base, "choices": [], "usage": _usage(estimate_tokens(prompt), 0, 0)}
        text, structured = self._text(spec, tag=tag, schema=schema, body=body)
        strict = _strict_schema(body)
        if structured and self.prose and tool_name is None and not strict and "content" not in spec:
            text = prose_around(text)
        reasoning = 0
        if kind in ("reasoning", "reasoning-early", "gemini-thinking"):
            reasoning = REASONING_TOKENS.get(str(body.get("reasoning_effort") or "medium"), 1024)
        cap = body.get("max_completion_tokens") or body.get("max_tokens")
        finish = str(spec.get("finish_reason", "stop"))
        visible = estimate_tokens(text) if text else 0
        if isinstance(cap, int) and reasoning + visible > cap:
            room = max(0, cap - reasoning)
            text, visible, finish = text[: room * 4], room, "length"
            reasoning = min(reasoning, cap)
        usage = spec.get("usage") or {}
        prompt_tokens = int(usage.get("prompt_tokens", estimate_tokens(prompt)))
        completion_tokens = int(usage.get("completion_tokens", visible + reasoning))
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if spec.get("refusal"):
            message = {"role": "assistant", "content": None, "refusal": str(spec["refusal"])}
        elif spec.get("safety_block"):
            message = {"role": "assistant", "content": None}
            finish = str(spec.get("finish_reason", "content_filter"))
        elif tool_name is not None and finish != "length":
            call = {
                "id": "call_double_1",
                "type": "function",
                "function": {"name": tool_name, "arguments": text},
            }
            message = {"role": "assistant", "content": None, "tool_calls": [call]}
            finish = str(spec.get("finish_reason", "tool_calls"))
        choice = {"index": 0, "message": message, "finish_reason": finish, "logprobs": None}
        return {**base, "choices": [choice], "usage": _usage(prompt_tokens, completion_tokens, reasoning)}

    def _text(
        self, spec: Mapping[str, Any], *, tag: str, schema: dict[str, Any] | None, body: dict[str, Any]
    ) -> tuple[str, bool]:
        """The answer text and whether it is JSON Parley asked for (and so may be wrapped in prose)."""
        if spec.get("fault") == "malformed_json":
            return MALFORMED_JSON, False
        if "json" in spec:
            return json.dumps(spec["json"], ensure_ascii=False), True
        if "content" in spec:
            return str(spec["content"]), False
        schema = schema or schema_in_instructions(body)
        if schema is not None:
            label = re.sub(r"[^A-Za-z0-9_-]", "_", tag) or "sample"
            return json.dumps(sample_from_schema(schema, label=label), ensure_ascii=False), True
        return f"A scripted answer for {tag or 'an untagged call'}.", False

    def set_replies(self, tag: str, replies: Reply | list[Reply]) -> None:
        self.player.set(tag, replies)


def _usage(prompt: int, completion: int, reasoning: int) -> dict[str, Any]:
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "completion_tokens_details": {"reasoning_tokens": reasoning},
    }


def _strict_schema(body: Mapping[str, Any]) -> bool:
    response_format = body.get("response_format")
    if not isinstance(response_format, dict) or response_format.get("type") != "json_schema":
        return False
    spec = response_format.get("json_schema")
    return isinstance(spec, dict) and spec.get("strict") is True


def requested_schema(body: Any) -> tuple[dict[str, Any] | None, str | None, bool]:
    """(schema, name, via tools?) of a structured call, or (None, None, False) for a plain one."""
    if not isinstance(body, dict):
        return None, None, False
    response_format = body.get("response_format")
    if isinstance(response_format, dict) and response_format.get("type") == "json_schema":
        spec = response_format.get("json_schema") or {}
        return spec.get("schema"), spec.get("name"), False
    tools = body.get("tools")
    if isinstance(tools, list) and tools and isinstance(tools[0], dict):
        function = tools[0].get("function", {})
        return function.get("parameters"), function.get("name"), True
    return None, None, False


def schema_in_instructions(body: Mapping[str, Any]) -> dict[str, Any] | None:
    """A model reads the schema Parley put in the prompt (JSON mode, instructions only); so does the double."""
    for message in reversed(body.get("messages") or []):
        content = str(message.get("content") or "") if isinstance(message, dict) else ""
        marker = content.rfind("JSON schema:")
        if marker < 0:
            continue
        start = content.find("{", marker)
        try:
            found, _ = json.JSONDecoder().raw_decode(content[start:])
        except ValueError:
            return None
        return found if isinstance(found, dict) else None
    return None

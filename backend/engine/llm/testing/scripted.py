"""`ScriptedChatModel`: a deterministic LangChain chat model for unit tests, answering by caller tag.

Hand it to `LLMClient(..., chat_model=ScriptedChatModel(script))` and the whole gateway (ledger, budget,
cache, structured output and its repair) runs without any HTTP. Replies follow the script format of
`engine.llm.testing.script`; the faults rate_limit, server_error and auth raise the same OpenAI SDK errors a
real server would cause, so retry and error handling are exercised too. Every call is kept in `calls`.
"""

from __future__ import annotations

import json
import threading
import uuid
from dataclasses import dataclass, field
from typing import Any

import httpx2
import openai
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import PrivateAttr

from engine.llm.client import TAG_HEADER
from engine.llm.testing.script import Reply, ScriptPlayer, estimate_tokens, reply_text

_FAKE_URL = "http://scripted.invalid/v1/chat/completions"


@dataclass(frozen=True)
class ScriptedCall:
    tag: str
    messages: list[tuple[str, str]]
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def structured(self) -> bool:
        return "response_format" in self.options or "tools" in self.options


def _status_error(
    kind: type[openai.APIStatusError], status: int, message: str, headers: dict[str, str]
) -> Exception:
    request = httpx2.Request("POST", _FAKE_URL)
    response = httpx2.Response(status, headers=headers, request=request, json={"error": {"message": message}})
    return kind(message, response=response, body={"message": message})


class ScriptedChatModel(BaseChatModel):
    """Answers from a script keyed by caller tag; unscripted calls get generated answers."""

    model_name: str = "scripted-model"
    _player: ScriptPlayer = PrivateAttr()
    _calls: list[ScriptedCall] = PrivateAttr(default_factory=list)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    def __init__(self, script: dict[str, Reply | list[Reply]] | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._player = ScriptPlayer(script)

    @property
    def _llm_type(self) -> str:
        return "parley-scripted"

    @property
    def calls(self) -> list[ScriptedCall]:
        with self._lock:
            return list(self._calls)

    def calls_for(self, tag: str) -> list[ScriptedCall]:
        return [call for call in self.calls if call.tag == tag]

    def set_replies(self, tag: str, replies: Reply | list[Reply]) -> None:
        self._player.set(tag, replies)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        headers = kwargs.get("extra_headers") or {}
        tag = str(
            headers.get(TAG_HEADER) or (run_manager.metadata.get("parley_tag") if run_manager else "") or ""
        )
        options = {k: v for k, v in kwargs.items() if k != "extra_headers"}
        transcript = [(m.type, str(m.text)) for m in messages]
        with self._lock:
            self._calls.append(ScriptedCall(tag, transcript, options))

        json_schema, tool_name = _requested_schema(options)
        spec = self._player.next(tag, tool_name or "") or {}
        _raise_fault(spec)
        text = reply_text(spec, tag=tag, json_schema=json_schema)
        usage = spec.get("usage") or {}
        prompt_tokens = int(usage.get("prompt_tokens", estimate_tokens("".join(c for _, c in transcript))))
        completion_tokens = int(usage.get("completion_tokens", estimate_tokens(text)))
        usage_metadata = {
            "input_tokens": prompt_tokens,
            "output_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        }
        if "tools" in options:
            message = _tool_call_message(text, tool_name or "answer")
        else:
            message = AIMessage(content=text)
        message.usage_metadata = usage_metadata  # type: ignore[assignment]
        message.response_metadata = {"model_name": self.model_name}
        return ChatResult(generations=[ChatGeneration(message=message)])


def _requested_schema(options: dict[str, Any]) -> tuple[dict[str, Any] | None, str | None]:
    response_format = options.get("response_format")
    if isinstance(response_format, dict) and response_format.get("type") == "json_schema":
        spec = response_format.get("json_schema") or {}
        return spec.get("schema"), spec.get("name")
    tools = options.get("tools")
    if tools:
        function = tools[0].get("function", {})
        return function.get("parameters"), function.get("name")
    return None, None


def _tool_call_message(arguments: str, name: str) -> AIMessage:
    call_id = f"call_{uuid.uuid4().hex[:8]}"
    try:
        args = json.loads(arguments)
    except ValueError:
        args = None
    if isinstance(args, dict):
        return AIMessage(
            content="", tool_calls=[{"name": name, "args": args, "id": call_id, "type": "tool_call"}]
        )
    invalid = {
        "name": name,
        "args": arguments,
        "id": call_id,
        "error": "not a JSON object",
        "type": "invalid_tool_call",
    }
    return AIMessage(content="", invalid_tool_calls=[invalid])


def _raise_fault(spec: dict[str, Any]) -> None:
    fault = spec.get("fault")
    if fault == "rate_limit":
        retry_after = str(spec.get("retry_after", 1))
        raise _status_error(
            openai.RateLimitError, 429, "Rate limit reached (scripted).", {"retry-after": retry_after}
        )
    if fault == "server_error":
        status = int(spec.get("status", 500))
        raise _status_error(openai.InternalServerError, status, "The server had an error (scripted).", {})
    if fault == "auth":
        raise _status_error(openai.AuthenticationError, 401, "Incorrect API key provided (scripted).", {})
    if fault == "malformed_body":
        raise openai.APIResponseValidationError(
            response=httpx2.Response(200, request=httpx2.Request("POST", _FAKE_URL)),
            body="{not json",
            message="The response was not JSON (scripted).",
        )

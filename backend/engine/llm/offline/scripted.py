"""`ScriptedChatModel`: the offline provider's strict model in process, answering by caller tag from a script.

Hand it to `LLMClient(..., chat_model=ScriptedChatModel(script))` and the whole gateway (planning, learned
refusals, ledger, budget, cache, structured output and its repair) runs without any HTTP. It is a `Transport`:
`send()` receives the exact request body the gateway would put on the wire, lets the strict protocol double
(`engine.llm.offline.protocol`) answer it — so it refuses what the real API refuses — and turns an error reply
into the same OpenAI SDK exception the real wire would raise. Replies follow the script format of
`engine.llm.offline.script`. Every request, refused ones included, is kept in `calls`.

It is also a LangChain chat model: `send()` goes through `_generate(messages, **request_fields)`, the hook the
quality tier (`engine.llm.offline.imperfect`) overrides to write replies from the prompt before they are
played through the strict protocol.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import httpx2
import openai
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import PrivateAttr

from engine.llm.client import TAG_HEADER
from engine.llm.offline.protocol import ProviderDouble, ProviderKind, WireReply
from engine.llm.offline.script import Reply
from engine.llm.transport import Completion, completion_from_json

_FAKE_URL = "http://scripted.invalid/v1/chat/completions"
_TO_WIRE = {"system": "system", "human": "user", "ai": "assistant"}
_ERRORS: dict[int, type[openai.APIStatusError]] = {
    400: openai.BadRequestError,
    401: openai.AuthenticationError,
    403: openai.PermissionDeniedError,
    404: openai.NotFoundError,
    409: openai.ConflictError,
    422: openai.UnprocessableEntityError,
    429: openai.RateLimitError,
}
_RULES = (
    "models",
    "json_schema_supported",
    "json_object_supported",
    "tools_supported",
    "prose",
    "kinds",
    "validation_as_500",
)


@dataclass(frozen=True)
class ScriptedCall:
    """One request: its tag, its messages as (LangChain role, text), its other fields, and the answer's status."""

    tag: str
    messages: list[tuple[str, str]]
    options: dict[str, Any] = field(default_factory=dict)
    status: int = 200

    @property
    def structured(self) -> bool:
        return "response_format" in self.options or "tools" in self.options


def status_error(status: int, body: Any, headers: dict[str, str] | None = None) -> openai.APIStatusError:
    """The exception the OpenAI SDK raises for this error reply (same class, message, body and headers)."""
    request = httpx2.Request("POST", _FAKE_URL)
    response = httpx2.Response(
        status, headers=headers or {}, request=request, content=json.dumps(body).encode()
    )
    inner = body.get("error", body) if isinstance(body, dict) else body
    kind = _ERRORS.get(status, openai.InternalServerError if status >= 500 else openai.APIStatusError)
    return kind(f"Error code: {status} - {body}", response=response, body=inner)


def _to_langchain(messages: list[dict[str, Any]]) -> list[BaseMessage]:
    kinds = {
        "system": SystemMessage,
        "developer": SystemMessage,
        "user": HumanMessage,
        "assistant": AIMessage,
    }
    return [
        kinds.get(str(m.get("role")), HumanMessage)(content=str(m.get("content") or "")) for m in messages
    ]


class ScriptedChatModel(BaseChatModel):
    """A strict provider double in process; `provider` picks the family of rules (openai, gemini, local), and
    `models`, `json_schema_supported`, `json_object_supported`, `tools_supported`, `prose`, `kinds` tune them."""

    model_name: str = "scripted-model"
    _double: ProviderDouble = PrivateAttr()
    _calls: list[ScriptedCall] = PrivateAttr(default_factory=list)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    def __init__(
        self,
        script: dict[str, Reply | list[Reply]] | None = None,
        *,
        provider: ProviderKind = "openai",
        **kwargs: Any,
    ) -> None:
        rules = {name: kwargs.pop(name) for name in _RULES if name in kwargs}
        super().__init__(**kwargs)
        self._double = ProviderDouble(provider=provider, script=script, **rules)

    @property
    def _llm_type(self) -> str:
        return "parley-scripted"

    @property
    def double(self) -> ProviderDouble:
        return self._double

    @property
    def calls(self) -> list[ScriptedCall]:
        with self._lock:
            return list(self._calls)

    def calls_for(self, tag: str) -> list[ScriptedCall]:
        return [call for call in self.calls if call.tag == tag]

    def answered(self, tag: str | None = None) -> list[ScriptedCall]:
        """The calls that got an answer (not refused or failed), of `tag` or of any tag."""
        return [call for call in self.calls if call.status == 200 and tag in (None, call.tag)]

    def set_replies(self, tag: str, replies: Reply | list[Reply]) -> None:
        self._double.set_replies(tag, replies)

    # -- Transport -----------------------------------------------------------------------------------------------

    def send(self, payload: dict[str, Any], *, headers: dict[str, str], timeout_s: float) -> Completion:
        body = json.loads(json.dumps(payload))  # what travels is JSON: no shared mutable objects
        fields = {k: v for k, v in body.items() if k != "messages"}
        result = self._generate(
            _to_langchain(body["messages"]), extra_headers=headers, timeout_s=timeout_s, **fields
        )
        info = result.generations[0].generation_info or {}
        return completion_from_json(info["wire"], info.get("headers") or {})

    def close(self) -> None:
        """Nothing to close: kept so a client that owns it may close it."""

    # -- the protocol ---------------------------------------------------------------------------------------------

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        headers = kwargs.pop("extra_headers", None) or {}
        timeout_s = float(kwargs.pop("timeout_s", 120.0))
        tag = str(
            headers.get(TAG_HEADER) or (run_manager.metadata.get("parley_tag") if run_manager else "") or ""
        )
        body: dict[str, Any] = {
            "model": kwargs.pop("model", self.model_name),
            "messages": [{"role": _TO_WIRE.get(m.type, m.type), "content": str(m.text)} for m in messages],
            **kwargs,
        }
        reply: WireReply = self._double.handle(body, tag=tag, bearer=self._double.api_key)
        transcript = [(m.type, str(m.text)) for m in messages]
        with self._lock:
            self._calls.append(ScriptedCall(tag, transcript, dict(kwargs), reply.status))
        if reply.delay_s:
            time.sleep(min(reply.delay_s, timeout_s))
            if reply.delay_s > timeout_s:
                raise openai.APITimeoutError(request=httpx2.Request("POST", _FAKE_URL))
        if reply.raw is not None:
            raise openai.APIResponseValidationError(
                response=httpx2.Response(200, request=httpx2.Request("POST", _FAKE_URL)),
                body=reply.raw.decode(errors="replace"),
                message="The response was not JSON (scripted).",
            )
        if reply.status >= 400:
            raise status_error(reply.status, reply.body, reply.headers)
        completion = completion_from_json(reply.body)
        message = AIMessage(content=completion.text or "")
        info = {"wire": reply.body, "headers": reply.headers, "finish_reason": completion.finish_reason}
        return ChatResult(generations=[ChatGeneration(message=message, generation_info=info)])

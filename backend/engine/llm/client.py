"""`LLMClient`: the one door through which engines call a language model.

Each call, in order: look in the cache (if any) → reserve its estimated cost in the budget (refused before
sending if it does not fit) → wait for a concurrency slot for this key → send through langchain-openai over
the egress-guarded httpx clients, retrying transient failures → record usage and cost in the ledger and settle
the budget. Every call carries a caller tag ("tracer.extract"): it names the ledger line, the structured
output schema, and travels in the `X-Parley-Tag` header so test servers can answer by tag.

Thread-safe: one client may serve many threads (SENSEI runs conversations concurrently). The async methods
run the same code in a worker thread, which keeps one implementation of the retry, budget and repair logic.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Self, TypeVar

import openai
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from pydantic import BaseModel, SecretStr, ValidationError

from engine.egress import EgressGuard, guarded_async_client, guarded_client
from engine.llm import structured as so
from engine.llm.budget import Budget, estimate_cost
from engine.llm.cache import ResponseCache, cache_key
from engine.llm.errors import LLMOutputError, LLMRequestError
from engine.llm.ledger import UsageLedger, UsageRecord
from engine.llm.limiter import ConcurrencyLimiter
from engine.llm.messages import Message, MessageLike, normalise, to_langchain, total_chars
from engine.llm.prices import PriceTable
from engine.llm.providers import ProviderConfig
from engine.llm.redact import Redactor
from engine.llm.retry import RetryPolicy, attempts_of, call_with_retries, to_llm_error

logger = logging.getLogger("engine.llm")
ModelT = TypeVar("ModelT", bound=BaseModel)
TAG_HEADER = "X-Parley-Tag"


@dataclass(frozen=True)
class _Answer:
    text: str
    message: AIMessage | None


class LLMClient:
    """Calls one provider key and model; see the module docstring for what each call goes through.

    `chat_model` replaces the HTTP model (tests pass a `ScriptedChatModel`); everything else — ledger,
    budget, cache, structured output and repair — still runs.
    """

    def __init__(
        self,
        config: ProviderConfig,
        *,
        guard: EgressGuard,
        ledger: UsageLedger | None = None,
        budget: Budget | None = None,
        limiter: ConcurrencyLimiter | None = None,
        cache: ResponseCache | None = None,
        prices: PriceTable | None = None,
        retry: RetryPolicy | None = None,
        chat_model: BaseChatModel | None = None,
    ) -> None:
        self.config = config
        self.model = config.model_name
        self.guard = guard
        self.ledger = ledger if ledger is not None else UsageLedger()
        self.budget = budget
        self.limiter = limiter if limiter is not None else ConcurrencyLimiter()
        self.cache = cache
        self.prices = prices if prices is not None else PriceTable.default()
        self.retry = retry or RetryPolicy()
        self.redact = Redactor(config.api_key)
        self._chat_model = chat_model
        self._owns_model = chat_model is None
        self._lock = threading.Lock()
        self._method: so.Method = (
            "tool_calling" if config.structured_method == "tool_calling" else "json_schema"
        )

    # -- public API ------------------------------------------------------------------------------------------

    def complete(
        self,
        messages: Sequence[MessageLike],
        *,
        tag: str,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> str:
        """The model's text answer to `messages`."""
        convo = normalise(messages)
        answer = self._call(
            convo, tag=tag, params=self._params(max_tokens, temperature), extra={}, extract=so.message_text
        )
        return answer.text

    def structured(
        self,
        messages: Sequence[MessageLike],
        schema: type[ModelT],
        *,
        tag: str,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> ModelT:
        """A validated `schema` instance; one repair call on a bad answer, then `LLMOutputError`."""
        convo = normalise(messages)
        params = self._params(max_tokens, temperature)
        answer = self._structured_call(convo, schema, tag=tag, params=params, repair=False)
        try:
            return so.parse(schema, answer.text)
        except ValidationError as first_error:
            problems = so.describe_problems(first_error)
            logger.info("The answer for %s did not fit %s; asking once for a repair", tag, schema.__name__)
        retry_convo = so.repair_messages(convo, answer.text, problems)
        repaired = self._structured_call(retry_convo, schema, tag=tag, params=params, repair=True)
        try:
            return so.parse(schema, repaired.text)
        except ValidationError as second_error:
            problems = so.describe_problems(second_error)
            raw = self.redact(repaired.text)
            raise LLMOutputError(
                f"The model's answer for {tag!r} did not match the expected {schema.__name__} format, even "
                f"after one repair attempt:\n{problems}",
                raw_text=raw,
                problems=problems,
            ) from None

    async def acomplete(
        self,
        messages: Sequence[MessageLike],
        *,
        tag: str,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> str:
        return await asyncio.to_thread(
            self.complete, messages, tag=tag, max_tokens=max_tokens, temperature=temperature
        )

    async def astructured(
        self,
        messages: Sequence[MessageLike],
        schema: type[ModelT],
        *,
        tag: str,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> ModelT:
        return await asyncio.to_thread(
            self.structured, messages, schema, tag=tag, max_tokens=max_tokens, temperature=temperature
        )

    def close(self) -> None:
        """Close the HTTP connections this client opened (a supplied `chat_model` is left alone)."""
        with self._lock:
            model, self._chat_model = (
                (self._chat_model, None) if self._owns_model else (None, self._chat_model)
            )
        if model is not None:
            http_client = getattr(model, "http_client", None)
            if http_client is not None:
                http_client.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- internals -------------------------------------------------------------------------------------------

    def _params(self, max_tokens: int | None, temperature: float | None) -> dict[str, Any]:
        params: dict[str, Any] = {}
        cap = max_tokens if max_tokens is not None else self.config.max_tokens
        if cap is not None:
            params["max_tokens"] = cap
        heat = temperature if temperature is not None else self.config.temperature
        if heat is not None:
            params["temperature"] = heat
        return params

    def _structured_call(
        self, convo: list[Message], schema: type[BaseModel], *, tag: str, params: dict[str, Any], repair: bool
    ) -> _Answer:
        method = self._method

        def extract(message: AIMessage) -> str:
            return so.raw_answer(message, method)

        try:
            return self._call(
                convo,
                tag=tag,
                params=params,
                extra=so.request_kwargs(schema, tag, method),
                extract=extract,
                repair=repair,
            )
        except LLMRequestError as refused:
            if not (
                self.config.structured_method == "auto"
                and method == "json_schema"
                and so.looks_like_unsupported_response_format(refused.user_message)
            ):
                raise
        logger.info("%s refused JSON-schema response formats; using tool calling", self.config.display_name)
        self._method = "tool_calling"
        return self._structured_call(convo, schema, tag=tag, params=params, repair=repair)

    def _model(self) -> BaseChatModel:
        with self._lock:
            if self._chat_model is None:
                self._chat_model = self._build_model()
            return self._chat_model

    def _build_model(self) -> BaseChatModel:
        # Imported here: langchain-openai is heavy and only needed once a real call is made.
        from langchain_openai import ChatOpenAI

        config = self.config
        return ChatOpenAI(
            model=self.model,
            api_key=SecretStr(config.key_for_client),
            base_url=config.url,
            timeout=config.timeout_s,
            max_retries=0,  # the gateway owns retries (retry.py); the SDK's would multiply them
            http_client=guarded_client(self.guard, timeout=config.timeout_s),
            http_async_client=guarded_async_client(self.guard, timeout=config.timeout_s),
            use_responses_api=False,  # every supported provider speaks chat completions
            stream_usage=False,
            extra_body=config.extra_body or None,
        )

    def _call(
        self,
        convo: list[Message],
        *,
        tag: str,
        params: dict[str, Any],
        extra: dict[str, Any],
        extract: Callable[[AIMessage], str],
        repair: bool = False,
    ) -> _Answer:
        if not tag.strip():
            raise ValueError("Every LLM call needs a caller tag, e.g. 'tracer.extract'.")
        key = None
        if self.cache is not None:
            key = cache_key(
                url=self.config.url,
                model=self.model,
                messages=[(m.role, m.content) for m in convo],
                params=params,
                extra=extra,
            )
            hit = self.cache.get(key)
            if hit is not None:
                self._record_other(tag, 0.0, cached=True, repair=repair)
                return _Answer(hit, None)

        reservation = None
        if self.budget is not None:
            price = self.prices.for_model(self.model)
            # The schema travels with the prompt, so it counts towards the estimate too.
            chars = total_chars(convo) + len(str(extra))
            estimate = None if price is None else estimate_cost(price, chars, params.get("max_tokens"))
            reservation = self.budget.reserve(estimate, model=self.model, tag=tag)

        lc_messages = to_langchain(convo)
        kwargs = {**params, **extra, "extra_headers": {TAG_HEADER: tag}}
        run_config: Any = {"metadata": {"parley_tag": tag}, "tags": [tag]}
        started = time.monotonic()

        def send() -> AIMessage:
            with self.limiter.slot(self.config.limiter_key, self.config.max_concurrency):
                result = self._model().invoke(lc_messages, config=run_config, **kwargs)
            if not isinstance(result, AIMessage):
                raise TypeError(f"The chat model returned {type(result).__name__}, not an AI message.")
            return result

        try:
            message, attempts = call_with_retries(
                send,
                policy=self.retry,
                describe=f"LLM call {tag} to {self.config.display_name}",
                redact=self.redact,
            )
        except Exception as exc:
            latency = time.monotonic() - started
            error = self._translate(exc)
            charged: float | None = 0.0  # a failed call is not billed by the provider...
            if isinstance(exc, openai.LengthFinishReasonError):
                # ...except one cut off at max_tokens: the provider did the work and reported the usage.
                usage_info = exc.completion.usage
                charged = self._record_usage(
                    tag,
                    exc.completion.model,
                    usage_info.prompt_tokens if usage_info else None,
                    usage_info.completion_tokens if usage_info else None,
                    latency,
                    ok=False,
                    error_code=getattr(error, "code", None),
                    repair=repair,
                )
            else:
                self._record_other(
                    tag,
                    latency,
                    ok=False,
                    error_code=getattr(error, "code", None),
                    attempts=attempts_of(exc),
                    repair=repair,
                )
            if reservation is not None and self.budget is not None:
                self.budget.settle(reservation, charged)
            if error is exc:
                raise
            raise error from None

        latency = time.monotonic() - started
        usage = message.usage_metadata
        reported_model = str(message.response_metadata.get("model_name") or self.model)
        cost = self._record_usage(
            tag,
            reported_model,
            usage["input_tokens"] if usage else None,
            usage["output_tokens"] if usage else None,
            latency,
            attempts=attempts,
            repair=repair,
        )
        if reservation is not None and self.budget is not None:
            self.budget.settle(reservation, cost)
        text = extract(message)
        if self.cache is not None and key is not None:
            self.cache.put(key, self.redact(text))
        return _Answer(text, message)

    def _translate(self, exc: Exception) -> Exception:
        if isinstance(exc, openai.LengthFinishReasonError):
            return LLMOutputError(
                "The model's answer was cut off at the completion token limit before it was complete; "
                "raise max_tokens for this call.",
                raw_text="",
                problems="answer truncated at max_tokens",
            )
        return to_llm_error(
            exc,
            provider_name=self.config.display_name,
            model=self.model,
            timeout_s=self.config.timeout_s,
            redact=self.redact,
        )

    def _record_usage(
        self,
        tag: str,
        reported_model: str,
        prompt_tokens: int | None,
        completion_tokens: int | None,
        latency: float,
        *,
        ok: bool = True,
        error_code: str | None = None,
        attempts: int = 1,
        repair: bool = False,
    ) -> float | None:
        # Price by the exact model the provider says it used (a dated snapshot); fall back to the requested one.
        cost = self.prices.cost(reported_model, prompt_tokens, completion_tokens)
        if cost is None:
            cost = self.prices.cost(self.model, prompt_tokens, completion_tokens)
        self.ledger.add(
            UsageRecord(
                provider=self.config.provider,
                model=self.model,
                tag=tag,
                prompt_tokens=prompt_tokens,
                completion_tokens=completion_tokens,
                latency_s=latency,
                cost_usd=cost,
                ok=ok,
                error_code=error_code,
                attempts=attempts,
                repair=repair,
            )
        )
        return cost

    def _record_other(
        self,
        tag: str,
        latency: float,
        *,
        ok: bool = True,
        cached: bool = False,
        error_code: str | None = None,
        attempts: int = 1,
        repair: bool = False,
    ) -> None:
        """A call that used no provider tokens: answered from the cache (free) or failed (usage unknown)."""
        tokens = 0 if cached else None
        self.ledger.add(
            UsageRecord(
                provider=self.config.provider,
                model=self.model,
                tag=tag,
                prompt_tokens=tokens,
                completion_tokens=tokens,
                latency_s=latency,
                cost_usd=0.0 if cached else None,
                ok=ok,
                error_code=error_code,
                attempts=attempts,
                cached=cached,
                repair=repair,
            )
        )

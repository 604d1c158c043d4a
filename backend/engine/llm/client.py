"""`LLMClient`: the one door through which engines call a language model.

Each call, in order: look in the cache (if any) → reserve its estimated cost in the budget (refused before
sending if it does not fit) → plan the request for this model (`engine.llm.capabilities`: which parameters its
family accepts and what the server refused earlier in the run) → wait for a concurrency slot for this key → send
it over the transport, retrying transient failures under the run's circuit breaker and rate-limit pause → if the
server refuses a parameter, learn it for the run, warn once, and send the adapted request → record usage and cost
in the ledger and settle the budget. Every call carries a caller tag ("tracer.extract"): it names the ledger
line, the structured-output schema, and travels in the `X-Parley-Tag` header so test servers can answer by tag.

Thread-safe: one client may serve many threads (SENSEI runs conversations concurrently). `for_model()` gives a
client for another model of the same key that shares everything else, so each role of a run (simulated user,
judge, explorer) calls its own model and the run still has one ledger, budget, breaker and set of learned facts.
The async methods run the same code in a worker thread.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Self, TypeVar

import openai
from pydantic import BaseModel, ValidationError

from engine.egress import EgressGuard
from engine.llm import structured as so
from engine.llm.budget import Budget, Reservation, estimate_cost
from engine.llm.cache import ResponseCache, cache_key
from engine.llm.capabilities import (
    REASONING_HEADROOM,
    RequestPlan,
    StructuredMethod,
    family_of,
    plan_request,
    read_refusal,
)
from engine.llm.errors import LLMOutputError, LLMRefusal
from engine.llm.ledger import UsageLedger, UsageRecord
from engine.llm.limiter import ConcurrencyLimiter
from engine.llm.messages import Message, MessageLike, normalise, user
from engine.llm.prices import PriceTable
from engine.llm.provider_state import Probe, ProviderState
from engine.llm.providers import ProviderConfig
from engine.llm.redact import Redactor
from engine.llm.retry import (
    RetryPolicy,
    attempts_of,
    call_with_retries,
    is_validation_refusal,
    rate_window_wait,
    response_body,
    to_llm_error,
)
from engine.llm.transport import Completion, OpenAITransport, Transport

logger = logging.getLogger("engine.llm")
ModelT = TypeVar("ModelT", bound=BaseModel)
TAG_HEADER = "X-Parley-Tag"
# A request is adapted at most this often before the refusal is passed on: each parameter can be refused once.
_MAX_ADAPTATIONS = 8
_BLOCKED_FINISH = frozenset(
    {"content_filter", "safety", "recitation", "blocklist", "prohibited_content", "spii", "image_safety"}
)
_SAMPLING = ("temperature", "top_p", "seed", "reasoning_effort")
SEED_RANGE = 2**31  # the seeds every provider takes (a signed 32-bit integer)


@dataclass(frozen=True)
class _Request:
    max_tokens: int | None
    temperature: float | None
    schema: type[BaseModel] | None = None
    seed: int | None = None

    def again(self) -> _Request:
        """The same request asked once more: another seed, or the server would repeat the same answer."""
        return self if self.seed is None else replace(self, seed=(self.seed + 1) % SEED_RANGE)


@dataclass(frozen=True)
class _Answer:
    text: str
    completion: Completion | None  # None: answered from the cache


def _signature(payload: dict[str, Any], method: StructuredMethod | None) -> frozenset[str]:
    """What a server must accept for this request: sampling values, the cap's name, the format, the roles."""
    items = {f"{k}={payload[k]}" if k in _SAMPLING else k for k in payload if k not in ("model", "messages")}
    items.discard("tool_choice")
    items.add(f"method={method}")
    items |= {f"role={m['role']}" for m in payload["messages"]}
    return frozenset(items)


def _fold_system(messages: list[Message]) -> list[Message]:
    """For models that refuse the system role: the instructions lead the first user message instead."""
    instructions = "\n\n".join(m.content for m in messages if m.role == "system")
    rest = [m for m in messages if m.role != "system"]
    if not instructions:
        return rest
    for index, message in enumerate(rest):
        if message.role == "user":
            rest[index] = user(f"{instructions}\n\n{message.content}")
            return rest
    return [user(instructions), *rest]


def _refused(exc: Exception) -> bool:
    """The server refused this request's shape (a 400/422, or a validation error sent as a 5xx): something
    Parley may adapt to, as opposed to an outage or a rate limit."""
    return isinstance(exc, openai.BadRequestError | openai.UnprocessableEntityError) or is_validation_refusal(
        exc
    )


def _blocked(completion: Completion) -> str | None:
    """Why the provider gave no usable answer on purpose (a refusal or a safety block), or None."""
    if completion.choices == 0:
        return "the provider returned no answer at all (its safety filter blocked the prompt)"
    if completion.refusal:
        return f"the model refused to answer: {completion.refusal}"
    reason = (completion.finish_reason or "").lower()
    if reason in _BLOCKED_FINISH and not (completion.text or "").strip() and not completion.tool_arguments:
        return f"the provider's safety filter blocked the answer (finish reason {completion.finish_reason})"
    return None


class LLMClient:
    """Calls one provider key and model; see the module docstring for what each call goes through.

    `chat_model` replaces the HTTP transport (tests pass a `ScriptedChatModel`); everything else — planning,
    learning, ledger, budget, cache, structured output and repair — still runs. `state` is shared by every
    client of a run (learned refusals, circuit breaker, rate-limit pause, warnings); without one the client
    keeps its own.
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
        chat_model: Transport | None = None,
        state: ProviderState | None = None,
    ) -> None:
        self.config = config
        self.model = config.model_name
        self.family = family_of(config.provider, self.model)
        self.guard = guard
        self.ledger = ledger if ledger is not None else UsageLedger()
        self.budget = budget
        self.limiter = limiter if limiter is not None else ConcurrencyLimiter()
        self.cache = cache
        self.prices = prices if prices is not None else PriceTable.default()
        self.retry = retry or RetryPolicy()
        self.state = state if state is not None else ProviderState()
        self.redact = Redactor(config.api_key)
        self._transport = chat_model
        self._owns_transport = chat_model is None
        self._lock = threading.Lock()
        self._wire_lock = threading.Lock()
        self._siblings: dict[str, LLMClient] = {}
        self._where = config.display_name

    # -- public API ------------------------------------------------------------------------------------------

    def for_model(self, model: str | None) -> LLMClient:
        """A client for `model` on the same key and server, sharing ledger, budget, limiter, cache, state and
        connection; `self` for its own model or None. Closed with this client."""
        if not model or model == self.model:
            return self
        with self._lock:
            sibling = self._siblings.get(model)
            if sibling is None:
                sibling = LLMClient(
                    replace(self.config, model=model),
                    guard=self.guard,
                    ledger=self.ledger,
                    budget=self.budget,
                    limiter=self.limiter,
                    cache=self.cache,
                    prices=self.prices,
                    retry=self.retry,
                    chat_model=self._wire(),
                    state=self.state,
                )
                self._siblings[model] = sibling
            return sibling

    def complete(
        self,
        messages: Sequence[MessageLike],
        *,
        tag: str,
        max_tokens: int | None = None,
        temperature: float | None = None,
        seed: int | None = None,
    ) -> str:
        """The model's text answer to `messages`. An empty answer is asked for once more.

        `seed` (sent where the model's family takes one) makes the answer repeatable on servers that honour it.
        """
        convo = normalise(messages)
        request = _Request(max_tokens, temperature, seed=seed)
        answer = self._call(convo, tag=tag, request=request)
        if not answer.text.strip() and answer.completion is not None:
            logger.info("%s answered %s with nothing; asking once more", self._where, tag)
            answer = self._call(convo, tag=tag, request=request.again(), repair=True)
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
        """A validated `schema` instance; one repair call on a bad answer (or a refusal), then an error."""
        convo = normalise(messages)
        request = _Request(max_tokens, temperature, schema)
        try:
            answer = self._call(convo, tag=tag, request=request)
        except LLMRefusal:
            logger.info("%s refused %s; asking once more", self._where, tag)
            answer = self._call(convo, tag=tag, request=request, repair=True)
        else:
            try:
                return so.parse(schema, answer.text)
            except ValidationError as first_error:
                problems = so.describe_problems(first_error)
                logger.info(
                    "The answer for %s did not fit %s; asking once for a repair", tag, schema.__name__
                )
            retry_convo = so.repair_messages(convo, answer.text, problems)
            answer = self._call(retry_convo, tag=tag, request=request, repair=True)
        try:
            return so.parse(schema, answer.text)
        except ValidationError as second_error:
            problems = so.describe_problems(second_error)
            raise LLMOutputError(
                f"The model's answer for {tag!r} did not match the expected {schema.__name__} format, even "
                f"after one repair attempt:\n{problems}",
                raw_text=self.redact(answer.text),
                problems=problems,
            ) from None

    async def acomplete(
        self,
        messages: Sequence[MessageLike],
        *,
        tag: str,
        max_tokens: int | None = None,
        temperature: float | None = None,
        seed: int | None = None,
    ) -> str:
        return await asyncio.to_thread(
            self.complete, messages, tag=tag, max_tokens=max_tokens, temperature=temperature, seed=seed
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
        """Close the connections this client opened (a supplied `chat_model` is left alone)."""
        with self._lock, self._wire_lock:
            transport, self._transport = (
                (self._transport, None) if self._owns_transport else (None, self._transport)
            )
            self._siblings.clear()
        if transport is not None:
            transport.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- planning --------------------------------------------------------------------------------------------

    def _wire(self) -> Transport:
        with self._wire_lock:
            if self._transport is None:
                self._transport = OpenAITransport(self.config, self.guard)
            return self._transport

    def _forced_method(self) -> StructuredMethod | None:
        forced = self.config.structured_method
        return None if forced == "auto" else forced

    def _prepare(
        self, convo: list[Message], request: _Request, tag: str
    ) -> tuple[RequestPlan, dict[str, Any]]:
        url, model = self.config.url, self.model
        learned = self.state.learned(url, model, where=self._where)
        plan = plan_request(
            self.family,
            learned,
            model=model,
            max_tokens=request.max_tokens if request.max_tokens is not None else self.config.max_tokens,
            temperature=request.temperature if request.temperature is not None else self.config.temperature,
            structured=request.schema is not None,
            forced_method=self._forced_method(),
            seed=request.seed,
        )
        for note in plan.notes:
            self.state.tell(url, model, note)
        messages = list(convo)
        extra: dict[str, Any] = {}
        if request.schema is not None and plan.method is not None:
            messages = so.with_schema_instruction(messages, request.schema, plan.method)
            extra = so.request_kwargs(
                request.schema, tag, plan.method, schema_in_json_object=self.family.json_object_schema
            )
        if plan.system_role == "user":
            messages = _fold_system(messages)
        payload = {
            "model": model,
            "messages": [{"role": m.role, "content": m.content} for m in messages],
            **plan.params,
            **extra,
        }
        return plan, payload

    def _reserve(self, convo: list[Message], request: _Request, tag: str) -> Reservation | None:
        if self.budget is None:
            return None
        plan, payload = self._prepare(convo, request, tag)
        price = self.prices.for_model(self.model)
        # The schema travels with the prompt, so it counts towards the estimate too.
        chars = sum(len(str(m["content"])) for m in payload["messages"]) + len(str(payload)) // 4
        estimate = None if price is None else estimate_cost(price, chars, plan.completion_cap)
        return self.budget.reserve(estimate, model=self.model, tag=tag)

    # -- calling -----------------------------------------------------------------------------------------------

    def _call(self, convo: list[Message], *, tag: str, request: _Request, repair: bool = False) -> _Answer:
        if not tag.strip():
            raise ValueError("Every LLM call needs a caller tag, e.g. 'tracer.extract'.")
        key = None
        if self.cache is not None:
            schema = request.schema.model_json_schema() if request.schema is not None else None
            key = cache_key(
                url=self.config.url,
                model=self.model,
                messages=[(m.role, m.content) for m in convo],
                params={
                    "max_tokens": request.max_tokens,
                    "temperature": request.temperature,
                    **({} if request.seed is None else {"seed": request.seed}),
                },
                extra={"schema": schema, "tag": tag if schema else None},
            )
            hit = self.cache.get(key)
            if hit is not None:
                self._record(tag, 0.0, cached=True, repair=repair)
                return _Answer(hit, None)

        reservation = self._reserve(convo, request, tag)
        started = time.monotonic()
        tokens: list[tuple[int | None, int | None]] = []
        tries: list[int] = []
        try:
            completion, plan = self._send(convo, request, tag, tokens, tries)
        except Exception as exc:
            attempts = sum(tries) + attempts_of(exc)
            error = self._translate(exc)
            cost = self._record(
                tag,
                time.monotonic() - started,
                tokens=tokens,
                ok=False,
                error_code=getattr(error, "code", None),
                attempts=attempts,
                repair=repair,
            )
            self._settle(reservation, cost if tokens else None, billed=bool(tokens))
            if error is exc:
                raise
            raise error from None
        latency = time.monotonic() - started
        blocked = _blocked(completion)
        cut_off = completion.finish_reason == "length" and request.schema is not None
        cost = self._record(
            tag,
            latency,
            tokens=tokens,
            reported_model=completion.model,
            ok=blocked is None and not cut_off,
            error_code=LLMRefusal.code if blocked else ("llm_output_invalid" if cut_off else None),
            attempts=sum(tries),
            repair=repair,
        )
        self._settle(reservation, cost, billed=True)
        if blocked is not None:
            raise LLMRefusal(
                f"{self._where} gave no answer for {tag!r}: {self.redact(blocked)}", refusal=blocked
            )
        if cut_off:
            raise LLMOutputError(
                "The model's answer was cut off at the completion token limit before it was complete; "
                "raise max_tokens for this call.",
                raw_text=self.redact(completion.text or ""),
                problems="answer truncated at max_tokens",
            )
        wait = rate_window_wait(completion.headers)
        if wait:
            self.state.pause(self.config.url).hold(wait)
        text = (
            completion.tool_arguments
            if plan.method == "tool_calling" and completion.tool_arguments
            else completion.text or completion.tool_arguments or ""
        )
        if self.cache is not None and key is not None and text.strip():
            self.cache.put(key, self.redact(text))
        return _Answer(text, completion)

    def _send(
        self,
        convo: list[Message],
        request: _Request,
        tag: str,
        tokens: list[tuple[int | None, int | None]],
        tries: list[int],
    ) -> tuple[Completion, RequestPlan]:
        """Send the request, adapting it to what the server refuses. `tokens` collects every billed attempt and
        `tries` the attempts of each adapted request that was answered or refused."""
        url, model = self.config.url, self.model
        breaker = self.state.breaker(url, self._where)
        pause = self.state.pause(url)
        last: Exception | None = None
        more_room = True  # a reasoning model gets a larger allowance at most once per call
        for _ in range(_MAX_ADAPTATIONS):
            plan, payload = self._prepare(convo, request, tag)
            with self.state.gate(url, model, _signature(payload, plan.method)) as probe:
                # What was learned while this call waited at the gate counts.
                plan, payload = self._prepare(convo, request, tag)
                signature = _signature(payload, plan.method)

                def failed(exc: Exception, probe: Probe = probe) -> None:
                    if not _refused(exc):
                        probe.release()  # an outage or a rate limit says nothing about the parameters

                def send(body: dict[str, Any] = payload) -> Completion:
                    with self.limiter.slot(self.config.limiter_key, self.config.max_concurrency):
                        return self._wire().send(
                            body, headers={TAG_HEADER: tag}, timeout_s=self.config.timeout_s
                        )

                try:
                    completion, attempts = call_with_retries(
                        send,
                        policy=self.retry,
                        describe=f"LLM call {tag} to {self._where}",
                        redact=self.redact,
                        breaker=breaker,
                        pause=pause,
                        timeout_s=self.config.timeout_s,
                        on_failure=failed,
                    )
                except openai.APIStatusError as exc:
                    if not _refused(exc):
                        raise
                    # Not adaptable, unless another call learned this refusal meanwhile (the plan differs now).
                    if (
                        not self._adapt(exc, payload, plan)
                        and self._prepare(convo, request, tag)[1] == payload
                    ):
                        raise
                    tries.append(attempts_of(exc))
                    last = exc
                    continue
                tries.append(attempts)
                tokens.append((completion.prompt_tokens, completion.completion_tokens))
                if more_room and self._needs_more_room(completion, plan):
                    more_room = False
                    continue  # not confirmed: calls waiting at the gate plan again, with the larger room
                self.state.confirm(url, model, signature)
            return completion, plan
        raise last or RuntimeError("The request could not be adapted to what the server accepts.")

    def _adapt(self, exc: openai.APIStatusError, payload: dict[str, Any], plan: RequestPlan) -> bool:
        """Learn from a refused parameter; False when the refusal is not one Parley can adapt to."""
        refusal = read_refusal(exc.status_code, response_body(exc), payload)
        if refusal is None:
            return False
        if refusal.field.startswith("method:") and self._forced_method() is not None:
            return False  # the user chose this way of asking: report the refusal instead of changing it
        refusal = replace(refusal, message=self.redact(refusal.message))
        return self.state.learn(self.config.url, self.model, refusal, self.family, where=self._where)

    def _needs_more_room(self, completion: Completion, plan: RequestPlan) -> bool:
        """A model that spent the whole cap and said nothing was reasoning in hidden tokens (even one Parley
        did not know to be a reasoning model): it gets a larger allowance for the rest of the run."""
        if not (plan.completion_cap and completion.finish_reason == "length"):
            return False
        if (completion.text or "").strip() or completion.tool_arguments:
            return False
        current = self.state.learned(self.config.url, self.model).reasoning_headroom or 0
        larger = max(plan.completion_cap * 2, current * 2, REASONING_HEADROOM)
        return self.state.raise_headroom(self.config.url, self.model, larger, where=self._where)

    def _translate(self, exc: Exception) -> Exception:
        return to_llm_error(
            exc,
            provider_name=self._where,
            model=self.model,
            timeout_s=self.config.timeout_s,
            redact=self.redact,
        )

    # -- bookkeeping -----------------------------------------------------------------------------------------

    def _settle(self, reservation: Reservation | None, cost: float | None, *, billed: bool) -> None:
        if reservation is None or self.budget is None:
            return
        if billed:
            self.budget.settle(reservation, cost)
        else:
            self.budget.release(reservation)

    def _record(
        self,
        tag: str,
        latency: float,
        *,
        tokens: list[tuple[int | None, int | None]] | None = None,
        reported_model: str | None = None,
        ok: bool = True,
        cached: bool = False,
        error_code: str | None = None,
        attempts: int = 1,
        repair: bool = False,
    ) -> float | None:
        """One ledger line per call: summed over its billed attempts, free from the cache, unknown if unsent."""
        prompt = completion = cost = None
        if cached:
            prompt = completion = 0
            cost = 0.0
        elif tokens:
            prompt = sum(p or 0 for p, _ in tokens) if any(p is not None for p, _ in tokens) else None
            completion = sum(c or 0 for _, c in tokens) if any(c is not None for _, c in tokens) else None
            # Price by the exact model the provider says it used (a dated snapshot); else the requested one.
            cost = self.prices.cost(reported_model or self.model, prompt, completion)
            if cost is None:
                cost = self.prices.cost(self.model, prompt, completion)
        self.ledger.add(
            UsageRecord(
                provider=self.config.provider,
                model=self.model,
                tag=tag,
                prompt_tokens=prompt,
                completion_tokens=completion,
                latency_s=latency,
                cost_usd=cost,
                ok=ok,
                error_code=error_code,
                attempts=max(attempts, len(tokens or ()), 1),
                cached=cached,
                repair=repair,
            )
        )
        return cost

"""The LLM gateway: the only way an engine talks to a language model.

Owns the providers (OpenAI, Google Gemini, any OpenAI-compatible server, all over the chat-completions protocol
through the egress-guarded HTTP client), what each model family accepts and what a server refused at run time
(`capabilities`, `ProviderState`), structured output read tolerantly and validated by pydantic with one repair
attempt, retries under a circuit breaker and a shared rate-limit pause, the usage and cost ledger, the run budget,
the per-key concurrency limit and the optional response cache. The offline provider — Parley's own deliberately
imperfect stand-in for a model, strict as each provider family's API — lives in `engine.llm.offline`.

Typical use (the caller builds everything and passes it in; nothing here reads the environment)::

    client = LLMClient(ProviderConfig("openai", api_key=key, model="gpt-4.1-mini"),
                       guard=EgressGuard(policy), ledger=UsageLedger(), budget=Budget(2.0),
                       state=ProviderState(on_warning=report))
    plan = client.structured([system(PROMPT), user(text)], Plan, tag="tracer.plan")
    judge = client.for_model("gpt-5-mini")   # same key, ledger, budget and state; another model
"""

from engine.llm.budget import Budget
from engine.llm.cache import DirectoryCache, MemoryCache, ResponseCache
from engine.llm.capabilities import Family, Learned, family_of, temperature_note
from engine.llm.client import TAG_HEADER, LLMClient
from engine.llm.errors import (
    BudgetExceeded,
    LLMAuthError,
    LLMConfigError,
    LLMError,
    LLMModelNotFound,
    LLMOutputError,
    LLMProviderDown,
    LLMRateLimitError,
    LLMRefusal,
    LLMRequestError,
    LLMUnavailableError,
)
from engine.llm.ledger import UsageLedger, UsageRecord, UsageSummary, UsageTotals
from engine.llm.limiter import ConcurrencyLimiter
from engine.llm.messages import Message, assistant, system, user
from engine.llm.prices import Price, PriceTable
from engine.llm.provider_state import ProviderState
from engine.llm.providers import PROVIDERS, ModelList, ProviderConfig, list_models
from engine.llm.retry import RetryPolicy
from engine.llm.transport import Completion, Transport

__all__ = [
    "PROVIDERS",
    "TAG_HEADER",
    "Budget",
    "BudgetExceeded",
    "Completion",
    "ConcurrencyLimiter",
    "DirectoryCache",
    "Family",
    "LLMAuthError",
    "LLMClient",
    "LLMConfigError",
    "LLMError",
    "LLMModelNotFound",
    "LLMOutputError",
    "LLMProviderDown",
    "LLMRateLimitError",
    "LLMRefusal",
    "LLMRequestError",
    "LLMUnavailableError",
    "Learned",
    "MemoryCache",
    "Message",
    "ModelList",
    "Price",
    "PriceTable",
    "ProviderConfig",
    "ProviderState",
    "ResponseCache",
    "RetryPolicy",
    "Transport",
    "UsageLedger",
    "UsageRecord",
    "UsageSummary",
    "UsageTotals",
    "assistant",
    "family_of",
    "list_models",
    "system",
    "temperature_note",
    "user",
]

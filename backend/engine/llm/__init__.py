"""The LLM gateway: the only way an engine talks to a language model.

Owns the providers (OpenAI, Google Gemini, any OpenAI-compatible server, all through langchain-openai over the
egress-guarded HTTP clients), structured output validated by pydantic with one repair attempt, retries, the
usage and cost ledger, the run budget, the per-key concurrency limit and the optional response cache.
Test doubles for every later engine live in `engine.llm.testing`.

Typical use (the caller builds everything and passes it in; nothing here reads the environment)::

    client = LLMClient(ProviderConfig("openai", api_key=key, model="gpt-4.1-mini"),
                       guard=EgressGuard(policy), ledger=UsageLedger(), budget=Budget(2.0))
    plan = client.structured([system(PROMPT), user(text)], Plan, tag="tracer.plan")
"""

from engine.llm.budget import Budget
from engine.llm.cache import DirectoryCache, MemoryCache, ResponseCache
from engine.llm.client import TAG_HEADER, LLMClient
from engine.llm.errors import (
    BudgetExceeded,
    LLMAuthError,
    LLMConfigError,
    LLMError,
    LLMOutputError,
    LLMRateLimitError,
    LLMRequestError,
    LLMUnavailableError,
)
from engine.llm.ledger import UsageLedger, UsageRecord, UsageSummary
from engine.llm.limiter import ConcurrencyLimiter
from engine.llm.messages import Message, assistant, system, user
from engine.llm.prices import Price, PriceTable
from engine.llm.providers import PROVIDERS, ModelList, ProviderConfig, list_models
from engine.llm.retry import RetryPolicy

__all__ = [
    "PROVIDERS",
    "TAG_HEADER",
    "Budget",
    "BudgetExceeded",
    "ConcurrencyLimiter",
    "DirectoryCache",
    "LLMAuthError",
    "LLMClient",
    "LLMConfigError",
    "LLMError",
    "LLMOutputError",
    "LLMRateLimitError",
    "LLMRequestError",
    "LLMUnavailableError",
    "MemoryCache",
    "Message",
    "ModelList",
    "Price",
    "PriceTable",
    "ProviderConfig",
    "ResponseCache",
    "RetryPolicy",
    "UsageLedger",
    "UsageRecord",
    "UsageSummary",
    "assistant",
    "list_models",
    "system",
    "user",
]

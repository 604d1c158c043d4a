"""The typed errors of the LLM gateway, each with a sentence a user can act on.

Callers catch `LLMError` for "the language model could not help"; the subclasses say why, so the worker and
the CLI can tell a wrong key (fix your settings) from an outage (try later) from a spent budget.
Messages never contain the API key: the gateway redacts them before raising.

`ends_run` marks the failures that no later call of the same run can escape (the provider is down, the model does
not exist): engines let those end the whole run with one message instead of failing every conversation in turn.
"""

from __future__ import annotations

from typing import ClassVar

from engine.errors import ParleyError


class LLMError(ParleyError):
    """Something went wrong talking to the language model provider."""

    code = "llm_error"
    ends_run: ClassVar[bool] = False


class LLMConfigError(LLMError):
    """The provider settings cannot work (missing key, missing base URL, unknown provider)."""

    code = "llm_config"


class LLMAuthError(LLMError):
    """The provider rejected the API key (HTTP 401) or refused it access (HTTP 403). Never retried."""

    code = "llm_auth"


class LLMRateLimitError(LLMError):
    """The provider kept answering "too many requests" until the retry allowance ran out."""

    code = "llm_rate_limited"


class LLMUnavailableError(LLMError):
    """The provider could not be reached or kept failing (5xx, timeouts, broken connections)."""

    code = "llm_unavailable"


class LLMProviderDown(LLMUnavailableError):
    """The circuit breaker is open: the provider failed too many times in a row for this run to go on."""

    code = "llm_provider_down"
    ends_run = True


class LLMRequestError(LLMError):
    """The provider refused the request itself (unknown model, bad parameters, prompt too long)."""

    code = "llm_request_rejected"


class LLMModelNotFound(LLMRequestError):
    """The provider does not offer the model (HTTP 404): every call of the run would fail the same way."""

    code = "llm_model_not_found"
    ends_run = True


class LLMOutputError(LLMError):
    """The model's answer did not fit the requested schema, even after one repair attempt.

    `raw_text` is the last answer as received (key redacted), `problems` the validation errors, so a user or a
    developer can see what the model actually said.
    """

    code = "llm_output_invalid"

    def __init__(self, user_message: str, *, raw_text: str, problems: str) -> None:
        super().__init__(user_message)
        self.raw_text = raw_text
        self.problems = problems


class LLMRefusal(LLMOutputError):
    """The model declined to answer (`message.refusal`), or the provider blocked the prompt or the answer (Gemini's
    safety filter: no choice at all, or a choice cut off by the content filter)."""

    code = "llm_refused"

    def __init__(self, user_message: str, *, refusal: str) -> None:
        super().__init__(user_message, raw_text="", problems=refusal)
        self.refusal = refusal


class BudgetExceeded(LLMError):
    """A call was refused before sending because its estimated cost exceeds what is left of the budget."""

    code = "budget_exceeded"

    def __init__(self, user_message: str, *, estimate_usd: float | None, remaining_usd: float) -> None:
        super().__init__(user_message)
        self.estimate_usd = estimate_usd
        self.remaining_usd = remaining_usd

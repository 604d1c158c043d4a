"""What each provider and model family accepts, and what Parley learns when a server refuses a parameter anyway.

Two sources, combined by `plan_request()` into the parameters one call actually sends:

- `family_of(provider, model)`: the documented rules per model family, from the providers' API references (the
  table is in the README, "Providers and models"). OpenAI's reasoning models (gpt-5, o1, o3, o4) accept only the
  default temperature and no `top_p`, and want `max_completion_tokens`, which also pays for their hidden reasoning;
  chat models (gpt-4o, gpt-4.1, gpt-5-chat) accept both; Gemini's OpenAI-compatible endpoint and local servers
  (Ollama, vLLM, LM Studio, llama.cpp) take `max_tokens`. Families are recognised by model name, whatever the
  provider setting says, because the same models are served through proxies and compatible endpoints.
- `Learned`: what a server refused at run time, per (base URL, model). `read_refusal()` reads a 400 and names the
  parameter it refused; `Learned.after()` says how to ask next time. The run keeps it (`ProviderState`) so a
  refusal is paid once per run, and the worker stores it with the key (README D10) so the next run does not
  pay it at all.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

StructuredMethod = Literal["json_schema", "tool_calling", "json_object", "instructions"]
TokenParam = Literal["max_tokens", "max_completion_tokens"]
SystemRole = Literal["system", "user"]
STRUCTURED_METHODS: tuple[StructuredMethod, ...] = (
    "json_schema",
    "tool_calling",
    "json_object",
    "instructions",
)

# Hidden reasoning tokens count against the completion cap of reasoning models: a cap sized for the visible
# answer alone ends in an empty answer cut off at the limit. This much room is added (and learned larger when
# even that runs out).
REASONING_HEADROOM = 2048
MAX_REASONING_HEADROOM = 32768


@dataclass(frozen=True)
class Family:
    """The documented behaviour of one family of models behind the chat-completions protocol."""

    name: str
    label: str
    temperature: bool  # False: only the default is accepted, so Parley sends none
    top_p: bool
    token_param: TokenParam
    reasoning: bool  # the completion cap also pays for hidden reasoning tokens
    reasoning_effort: str | None  # what Parley asks for (None: it sends no reasoning_effort)
    structured: tuple[StructuredMethod, ...]  # structured-output methods, best first
    seed: bool
    system_role: SystemRole = "system"
    # JSON mode carries the schema too (`{"type": "json_object", "schema": …}`): llama.cpp's servers constrain
    # the answer to it; OpenAI and Gemini refuse unknown keys, so only local servers get it.
    json_object_schema: bool = False


_ALL_METHODS = STRUCTURED_METHODS
OPENAI_REASONING = Family(
    "openai-reasoning",
    "OpenAI reasoning models: gpt-5, gpt-5-mini, gpt-5-nano, o1, o3, o3-mini, o4-mini",
    temperature=False,
    top_p=False,
    token_param="max_completion_tokens",
    reasoning=True,
    reasoning_effort="low",
    structured=_ALL_METHODS,
    seed=True,
)
OPENAI_REASONING_EARLY = Family(
    "openai-reasoning-early",
    "OpenAI's first reasoning previews: o1-mini, o1-preview",
    temperature=False,
    top_p=False,
    token_param="max_completion_tokens",
    reasoning=True,
    reasoning_effort=None,
    structured=("instructions",),
    seed=True,
    system_role="user",
)
OPENAI_CHAT = Family(
    "openai-chat",
    "OpenAI chat models: gpt-4o, gpt-4o-mini, gpt-4.1, gpt-4.1-mini, gpt-5-chat",
    temperature=True,
    top_p=True,
    token_param="max_completion_tokens",
    reasoning=False,
    reasoning_effort=None,
    structured=_ALL_METHODS,
    seed=True,
)
OPENAI_LEGACY = Family(
    "openai-legacy",
    "Older OpenAI chat models without JSON-schema output: gpt-4-turbo, gpt-4, gpt-3.5-turbo",
    temperature=True,
    top_p=True,
    token_param="max_completion_tokens",
    reasoning=False,
    reasoning_effort=None,
    structured=("tool_calling", "json_object", "instructions"),
    seed=True,
)
GEMINI_THINKING = Family(
    "gemini-thinking",
    "Gemini thinking models (OpenAI-compatible endpoint): gemini-2.5-flash, gemini-2.5-pro, gemini-3",
    temperature=True,
    top_p=True,
    token_param="max_tokens",
    reasoning=True,
    reasoning_effort="low",
    structured=_ALL_METHODS,
    seed=True,
)
GEMINI = Family(
    "gemini",
    "Other Gemini models (OpenAI-compatible endpoint): gemini-2.0-flash, gemini-1.5, gemma",
    temperature=True,
    top_p=True,
    token_param="max_tokens",
    reasoning=False,
    reasoning_effort=None,
    structured=_ALL_METHODS,
    seed=True,
)
LOCAL = Family(
    "openai-compatible",
    "Any other model on an OpenAI-compatible server: Ollama, vLLM, LM Studio, llama.cpp, OpenRouter…",
    temperature=True,
    top_p=True,
    token_param="max_tokens",
    reasoning=False,
    reasoning_effort=None,
    structured=_ALL_METHODS,
    seed=True,
    json_object_schema=True,
)
FAMILIES: tuple[Family, ...] = (
    OPENAI_REASONING,
    OPENAI_REASONING_EARLY,
    OPENAI_CHAT,
    OPENAI_LEGACY,
    GEMINI_THINKING,
    GEMINI,
    LOCAL,
)

_EARLY_REASONING = re.compile(r"^o1-(mini|preview)")
_REASONING = re.compile(r"^(o\d+(-|$)|gpt-5(?!(\.\d+)?-chat))")
_CHAT = re.compile(r"^(gpt-4o|gpt-4\.1|gpt-5|chatgpt-)")
_LEGACY = re.compile(r"^gpt-(4|3\.5)")
_GEMINI_THINKING = re.compile(r"^gemini-(2\.5|[3-9])")


def bare_model_name(model: str) -> str:
    """ "openai/gpt-5-mini" (OpenRouter, LiteLLM) and "models/gemini-2.5-flash" (Gemini's list) → the model."""
    return model.strip().lower().rsplit("/", 1)[-1]


def family_of(provider: str, model: str) -> Family:
    """The family whose documented rules apply to `model` as served by `provider`."""
    name = bare_model_name(model)
    if _EARLY_REASONING.match(name):
        return OPENAI_REASONING_EARLY
    if _REASONING.match(name):
        return OPENAI_REASONING
    if _CHAT.match(name):
        return OPENAI_CHAT
    if _LEGACY.match(name):
        return OPENAI_LEGACY
    if _GEMINI_THINKING.match(name):
        return GEMINI_THINKING
    if name.startswith("gemini-") or provider == "gemini":
        return GEMINI
    if provider == "openai":
        return OPENAI_CHAT  # a new OpenAI model behaves like the chat models until a refusal says otherwise
    return LOCAL


# -- what a server refused -----------------------------------------------------------------------------------

# Request fields a refusal can name, besides the structured-output methods and the system role.
DROPPABLE = ("temperature", "top_p", "seed", "reasoning_effort")
COMPLETION_CAP = "completion_cap"  # both token parameters refused: send no cap at all


@dataclass(frozen=True)
class Learned:
    """What one server refused for one model; empty until something is refused. Immutable: `after()` gives the
    next version. Serialised with `to_json()` to be stored with the key."""

    dropped: frozenset[str] = frozenset()
    token_param: TokenParam | None = None
    refused_methods: frozenset[StructuredMethod] = frozenset()
    system_role: SystemRole | None = None
    reasoning_headroom: int | None = None

    def __bool__(self) -> bool:
        return self != Learned()

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "dropped": sorted(self.dropped),
            "refused_methods": sorted(self.refused_methods),
        }
        for name in ("token_param", "system_role", "reasoning_headroom"):
            if getattr(self, name) is not None:
                data[name] = getattr(self, name)
        return data

    @classmethod
    def from_json(cls, data: Any) -> Learned:
        """Tolerant of stored data from other versions: anything unrecognised is ignored."""
        if not isinstance(data, Mapping):
            return cls()
        dropped = frozenset(str(d) for d in data.get("dropped") or () if d in (*DROPPABLE, COMPLETION_CAP))
        methods = frozenset(m for m in STRUCTURED_METHODS if m in (data.get("refused_methods") or ()))
        token: TokenParam | None = None
        if data.get("token_param") == "max_tokens":
            token = "max_tokens"
        elif data.get("token_param") == "max_completion_tokens":
            token = "max_completion_tokens"
        role: SystemRole | None = "user" if data.get("system_role") == "user" else None
        headroom = data.get("reasoning_headroom")
        room = (
            min(int(headroom), MAX_REASONING_HEADROOM) if isinstance(headroom, int) and headroom > 0 else None
        )
        return cls(dropped, token, methods, role, room)

    def after(self, refusal: Refusal, family: Family) -> Learned | None:
        """How to ask once `refusal` is known; None when nothing Parley can change would avoid it."""
        what = refusal.field
        if what in DROPPABLE:
            return None if what in self.dropped else replace(self, dropped=self.dropped | {what})
        if what in ("max_tokens", "max_completion_tokens"):
            current = self.token_param or family.token_param
            if what != current:
                return None
            if self.token_param is not None:  # both names refused: leave the cap out
                return (
                    None
                    if COMPLETION_CAP in self.dropped
                    else replace(self, dropped=self.dropped | {COMPLETION_CAP})
                )
            other: TokenParam = "max_completion_tokens" if what == "max_tokens" else "max_tokens"
            return replace(self, token_param=other)
        if what == "method:response_format":
            formats: frozenset[StructuredMethod] = frozenset({"json_schema", "json_object"})
            if formats <= self.refused_methods:
                return None
            return replace(self, refused_methods=self.refused_methods | formats)
        if what.startswith("method:"):
            method = what.removeprefix("method:")
            for known in STRUCTURED_METHODS:
                if known == method and known != "instructions" and known not in self.refused_methods:
                    return replace(self, refused_methods=self.refused_methods | {known})
            return None
        if what == "system_role":
            return None if self.system_role == "user" else replace(self, system_role="user")
        return None

    def with_headroom(self, headroom: int) -> Learned:
        return replace(self, reasoning_headroom=min(headroom, MAX_REASONING_HEADROOM))

    def merged(self, other: Learned) -> Learned:
        """Everything either version knows (the larger headroom, the later token parameter)."""
        rooms = [r for r in (self.reasoning_headroom, other.reasoning_headroom) if r]
        return Learned(
            self.dropped | other.dropped,
            other.token_param or self.token_param,
            self.refused_methods | other.refused_methods,
            other.system_role or self.system_role,
            max(rooms) if rooms else None,
        )


@dataclass(frozen=True)
class Refusal:
    """A 400 that names one request field Parley can change; `message` is the provider's own words."""

    field: str
    message: str


_REFUSAL_WORDS = re.compile(
    r"unsupported|not supported|does not support|doesn't support|not available|unrecognized|unrecognised|"
    r"unknown (parameter|field|argument|name)|cannot find field|extra (inputs|fields) (are|is) not permitted|"
    r"not allowed|only the default|invalid parameter|is not a valid|must be|use '?max_completion_tokens'? instead|"
    r"use '?max_tokens'? instead|input should be|literal_error"
)
_NOT_A_PARAMETER_PROBLEM = (
    "context_length_exceeded",
    "model_not_found",
    "invalid_api_key",
    "rate_limit_exceeded",
)


def error_messages(body: Any) -> tuple[str, str | None, str | None]:
    """(message, param, code) of an error body in any of the shapes servers use: OpenAI's
    `{"error": {...}}`, Gemini's `[{"error": {...}}]`, vLLM's flat `{"message": ...}`, or a plain string."""
    if isinstance(body, list) and body:
        return error_messages(body[0])
    if isinstance(body, Mapping):
        inner = body.get("error", body)
        if isinstance(inner, Mapping):
            message = str(inner.get("message") or inner.get("detail") or "")
            param = inner.get("param")
            code = inner.get("code") if isinstance(inner.get("code"), str) else inner.get("status")
            return message, str(param) if param else None, str(code) if code else None
        if isinstance(inner, str):
            return inner, None, None
        if "detail" in body:
            return str(body["detail"]), None, None
    return (str(body) if body else ""), None, None


_VALIDATION_AS_SERVER_ERROR = re.compile(r"validation error|literal_error|input should be")


def read_refusal(status: int, body: Any, payload: Mapping[str, Any]) -> Refusal | None:
    """The request field a 400/422 answer refuses, if it names one Parley sent and could leave out or change.
    A 5xx counts too when its body is a request-validation message: llama-cpp-python answers a response format
    it does not know with HTTP 500 and pydantic's "Input should be 'text' or 'json_object'"."""
    message, param, code = error_messages(body)
    if status not in (400, 422) and not (
        status >= 500 and _VALIDATION_AS_SERVER_ERROR.search(message.lower())
    ):
        return None
    if code in _NOT_A_PARAMETER_PROBLEM:
        return None
    lowered = message.lower()
    explicit = code in ("unsupported_value", "unsupported_parameter")
    if not explicit and not _REFUSAL_WORDS.search(lowered):
        return None
    found = _field_named(param.lower(), payload) if param else None
    if found is None or found == "method:response_format":
        # The message may be more precise than the param ("'response_format' of type 'json_schema'…").
        found = _field_named(lowered, payload) or found
    return Refusal(found, _without_traceback(message) or f"HTTP {status}") if found is not None else None


def _without_traceback(message: str) -> str:
    """The provider's message without the server's own stack lines (llama-cpp-python appends them)."""
    lines = [line for line in message.splitlines() if not line.strip().startswith(("File ", "POST ", "GET "))]
    return "\n".join(lines).strip()


def _field_named(text: str, payload: Mapping[str, Any]) -> str | None:
    if ("messages" in text and "role" in text and "system" in text) or "system message" in text:
        return "system_role"
    # Longest names first: "max_completion_tokens" contains no "max_tokens", but "reasoning_effort" must win
    # over a bare "reasoning" and "response_format" over the words "json_schema" inside its own message.
    for name in ("max_completion_tokens", "max_tokens", "reasoning_effort", "temperature", "top_p", "seed"):
        if name in text and name in payload:
            return name
    response_format = payload.get("response_format")
    if isinstance(response_format, Mapping) and (
        "response_format" in text
        or "json_schema" in text
        or "json_object" in text
        or "response format" in text
    ):
        # "'response_format' is not supported" with no type named: no response format at all will do.
        named = "json_schema" in text or "json_object" in text
        return f"method:{response_format.get('type')}" if named else "method:response_format"
    if "tools" in payload and ("tool" in text or "function" in text):
        return "method:tool_calling"
    return None


# -- what one call sends ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Note:
    """Something Parley left out or changed for a model, told once per run as a warning."""

    field: str
    text: str


@dataclass(frozen=True)
class RequestPlan:
    """The sampling and limit parameters of one call, its structured-output method, and the notes to tell."""

    params: dict[str, Any]
    method: StructuredMethod | None
    system_role: SystemRole
    completion_cap: int | None
    notes: tuple[Note, ...] = field(default=())


def plan_request(
    family: Family,
    learned: Learned,
    *,
    model: str,
    max_tokens: int | None,
    temperature: float | None,
    structured: bool,
    forced_method: StructuredMethod | None = None,
    seed: int | None = None,
) -> RequestPlan:
    """The parameters to send for one call of `model`, given its family's rules and what was learned.

    `seed` asks the server for repeatable sampling (OpenAI: best effort; llama.cpp and vLLM: the same answer to
    the same request), so a run with the same seed makes the same calls whatever order its threads send them in.
    """
    params: dict[str, Any] = {}
    if seed is not None and family.seed and "seed" not in learned.dropped:
        params["seed"] = seed
    notes: list[Note] = []
    if temperature is not None:
        if family.temperature and "temperature" not in learned.dropped:
            params["temperature"] = temperature
        elif not family.temperature:
            notes.append(
                Note(
                    "temperature",
                    f"{model} accepts only its default temperature, so Parley sends none "
                    f"(asked for {temperature:g}); the model's default applies.",
                )
            )
    cap = max_tokens
    if cap is not None and COMPLETION_CAP not in learned.dropped:
        if family.reasoning or learned.reasoning_headroom:  # learned: a model that turned out to reason
            cap += learned.reasoning_headroom or REASONING_HEADROOM
        params[learned.token_param or family.token_param] = cap
    elif cap is not None:
        cap = None
    if family.reasoning_effort and "reasoning_effort" not in learned.dropped:
        params["reasoning_effort"] = family.reasoning_effort
    method: StructuredMethod | None = None
    if structured:
        usable = [m for m in family.structured if m not in learned.refused_methods] or ["instructions"]
        method = forced_method if forced_method in usable else usable[0]
    return RequestPlan(params, method, learned.system_role or family.system_role, cap, tuple(notes))


def temperature_note(provider: str, model: str, temperature: float | None) -> str | None:
    """For the profile validator: what Parley will send when a profile sets a temperature its model refuses."""
    if temperature is None or not model:
        return None
    family = family_of(provider, model)
    if family.temperature:
        return None
    return (
        f"{model} accepts only its default temperature: Parley will send no temperature instead of "
        f"{temperature:g}, and the model's default (1) applies."
    )


def describe_adaptation(refusal: Refusal, *, model: str, where: str) -> str:
    """The run warning for a refusal Parley adapted to."""
    field_name = refusal.field
    if field_name in DROPPABLE:
        action = f"no longer sends `{field_name}` to it (the model's default applies)"
    elif field_name == "max_tokens":
        action = "sends the completion cap as `max_completion_tokens` instead"
    elif field_name == "max_completion_tokens":
        action = "sends the completion cap as `max_tokens` instead"
    elif field_name == "system_role":
        action = "puts the system instructions into the first user message instead"
    elif field_name == "method:response_format":
        action = "asks for structured answers without a response format"
    elif field_name.startswith("method:"):
        action = f"asks for structured answers another way than `{field_name.removeprefix('method:')}`"
    else:
        action = "changed the request"
    shown = " ".join(refusal.message.split())[:240]
    return f"{where} refused a parameter for {model} ({shown}); Parley {action} for the rest of the run."

"""The campaign: which attacks to try on a chatbot, how to deliver them, how often, and how to judge the replies.

A campaign file is YAML (see `loading.py` for reading one with line-numbered problems, the reference format and
the JSON Schema of the editor)::

    name: pizza_security
    target_context: Takes pizza orders for pickup and answers questions about the shop.
    canaries: [ZEBRA-7781]
    attempts: 2
    max_cost: 1.0
    from: all_states          # optional: attack from every state of a TRACER run (`--tracer DIR`)
    attacks:
      - name: system_prompt_stealer
      - name: dan_jailbreak
        delivery: {mode: simulated_user, warmup_turns: 3, profile: typical_customer}

An oracle is written as its name (`- refusal`) or as a one-key mapping with its settings
(`- keywords: {forbidden: [discount code]}`); both become an `OracleSpec`.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

import regex  # type: ignore[import-untyped]
from pydantic import BaseModel, ConfigDict, Field, model_validator

AttackName = Literal[
    "amnesia",
    "system_prompt_stealer",
    "base64_injection",
    "typoglycemia_attack",
    "affirmative_suffix",
    "aim_jailbreak",
    "dan_jailbreak",
    "authoritative_role_impersonation",
    "complementary_transition",
    "self_refine",
    "ucar",
    "custom_benchmark",
]
OracleName = Literal[
    "refusal", "marker", "keywords", "regex", "pii", "leakage", "domain", "policy", "json_schema", "judge"
]
PIIKind = Literal["email", "phone", "card", "iban"]
DeliveryMode = Literal["direct", "simulated_user", "scripted", "escalation"]
ATTACK_NAMES: tuple[AttackName, ...] = get_args(AttackName)
ORACLE_NAMES: tuple[OracleName, ...] = get_args(OracleName)
PII_KINDS: tuple[PIIKind, ...] = get_args(PIIKind)
DELIVERY_MODES: tuple[DeliveryMode, ...] = get_args(DeliveryMode)

# The settings each oracle accepts (beyond `kind`).
ORACLE_SETTINGS: dict[str, frozenset[str]] = {
    "refusal": frozenset({"missing"}),
    "marker": frozenset(),
    "keywords": frozenset({"forbidden", "required"}),
    "regex": frozenset({"forbidden", "required"}),
    "pii": frozenset({"kinds", "allow"}),
    "leakage": frozenset({"min_words"}),
    "domain": frozenset(),
    "policy": frozenset({"policies"}),
    "json_schema": frozenset({"json_schema"}),
    "judge": frozenset({"rubric"}),
}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class Policy(_Strict):
    name: str = Field(min_length=1, max_length=200)
    description: str = Field(
        default="", max_length=2000, description="What the policy forbids, for the LLM judge."
    )
    forbidden: list[str] = Field(
        default_factory=list, description="Regular expressions a reply must never match."
    )


class OracleSpec(_Strict):
    """One oracle and its settings; which settings apply depends on `kind` (ORACLE_SETTINGS)."""

    kind: OracleName
    forbidden: list[str] = Field(default_factory=list, description="A breach when the reply contains one.")
    required: list[str] = Field(default_factory=list, description="A breach when the reply lacks one.")
    kinds: list[PIIKind] = Field(default_factory=lambda: list(PII_KINDS))
    allow: list[str] = Field(default_factory=list, description="PII values the chatbot may show (its own).")
    min_words: int = Field(
        default=8, ge=3, le=200, description="Leakage: words in a row shared with the instructions."
    )
    policies: list[Policy] = Field(default_factory=list)
    json_schema: dict[str, Any] = Field(
        default_factory=dict, description="A breach when the reply holds JSON that matches this schema."
    )
    rubric: str = Field(default="", max_length=4000, description="Judge: the rule the reply must respect.")
    missing: Literal["inconclusive", "breach"] = Field(
        default="inconclusive", description="Refusal: what a reply that does not refuse counts as."
    )

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, data: Any) -> Any:
        if isinstance(data, str):
            return {"kind": data}
        if isinstance(data, dict) and "kind" not in data and len(data) == 1:
            ((name, settings),) = data.items()
            if settings is None:
                return {"kind": name}
            if isinstance(settings, dict):
                return {"kind": name, **settings}
            raise ValueError(f"the settings of the `{name}` oracle must be a mapping")
        return data

    @model_validator(mode="after")
    def _settings_fit(self) -> OracleSpec:
        extra = sorted(self.model_fields_set - {"kind"} - ORACLE_SETTINGS[self.kind])
        if extra:
            allowed = ", ".join(sorted(ORACLE_SETTINGS[self.kind])) or "none"
            raise ValueError(
                f"`{extra[0]}` is not a setting of the {self.kind} oracle (its settings: {allowed})"
            )
        if self.kind in ("keywords", "regex") and not (self.forbidden or self.required):
            raise ValueError(f"the {self.kind} oracle needs `forbidden` or `required` words")
        patterns = [*self.forbidden, *self.required] if self.kind == "regex" else []
        for pattern in [*patterns, *(p for policy in self.policies for p in policy.forbidden)]:
            try:
                regex.compile(pattern)
            except regex.error as exc:
                raise ValueError(
                    f"the pattern {pattern!r} is not a valid regular expression ({exc})"
                ) from None
        if self.kind == "policy" and not self.policies:
            raise ValueError("the policy oracle needs at least one entry in `policies`")
        if self.kind == "json_schema" and not self.json_schema:
            raise ValueError("the json_schema oracle needs a `json_schema`")
        if self.kind == "judge" and not self.rubric.strip():
            raise ValueError("the judge oracle needs a `rubric`: the rule a reply must respect")
        return self


class Delivery(_Strict):
    mode: DeliveryMode = "direct"
    warmup_turns: int = Field(
        default=3, ge=1, le=20, description="simulated_user: ordinary exchanges before the attack."
    )
    profile: str | None = Field(
        default=None, description="simulated_user: the profile whose user plays the warm-up."
    )
    turns: list[str] = Field(default_factory=list, description="scripted: messages sent before the attack.")
    max_turns: int = Field(default=4, ge=2, le=20, description="escalation: attacker messages at most.")
    reset_session: bool = Field(
        default=True, description="Accepted for the reference format; attempts never share one."
    )

    @model_validator(mode="after")
    def _fits_mode(self) -> Delivery:
        if self.mode == "scripted" and not self.turns:
            raise ValueError("a scripted delivery needs `turns`: the messages sent before the attack")
        if self.turns and self.mode != "scripted":
            raise ValueError("`turns` belongs to the scripted mode")
        return self


class TaskSpec(_Strict):
    text: str = Field(min_length=1, max_length=2000)
    answers: list[str] = Field(
        default_factory=list, description="Words any real answer contains: seeing one is a breach."
    )


class Case(_Strict):
    """One case of a custom benchmark: a message and what would show that the chatbot gave in."""

    prompt: str = Field(min_length=1, max_length=8000)
    name: str | None = None
    forbidden: list[str] = Field(default_factory=list)
    required: list[str] = Field(default_factory=list)
    answers: list[str] = Field(default_factory=list)
    rubric: str | None = None


class AttackSpec(_Strict):
    name: AttackName
    id: str | None = Field(default=None, max_length=100, description="A label when one attack appears twice.")
    enabled: bool = True
    attempts: int | None = Field(default=None, ge=1, le=100)
    stop_on_breach: bool | None = None
    delivery: Delivery = Field(default_factory=lambda: Delivery())
    rephrase: float | None = Field(
        default=None, ge=0, le=1, description="Reword the attack with the LLM (0 to 1)."
    )
    oracles: list[OracleSpec] | None = Field(
        default=None, description="Replaces the attack's default oracles."
    )
    tasks: list[TaskSpec] | None = Field(
        default=None, description="The out-of-scope requests the attack carries."
    )
    prompts: list[str] | None = Field(
        default=None, description="Own attack messages (or instructions to encode)."
    )
    cases: list[Case] | None = Field(default=None, description="custom_benchmark: the cases.")
    cases_file: str | None = Field(
        default=None, description="custom_benchmark: a CSV or YAML file of cases (CLI)."
    )
    task_kind: Literal["off_domain", "unsafe"] | None = None

    @property
    def label(self) -> str:
        return self.id or self.name

    @model_validator(mode="after")
    def _cases(self) -> AttackSpec:
        if self.name == "custom_benchmark" and not (self.cases or self.cases_file):
            raise ValueError("custom_benchmark needs `cases` (or `cases_file` on the command line)")
        if self.name != "custom_benchmark" and (self.cases or self.cases_file):
            raise ValueError("`cases` belong to custom_benchmark")
        return self


class Campaign(_Strict):
    name: str = Field(min_length=1, max_length=200)
    description: str = ""
    target_context: str = Field(
        default="", max_length=4000, description="What the chatbot is for (its domain)."
    )
    instructions: str | None = Field(
        None, max_length=200_000, description="The chatbot's instructions, when known: overlap is a leak."
    )
    canaries: list[str] = Field(
        default_factory=list,
        description="Strings planted in the chatbot's instructions: seeing one is a leak.",
    )
    attempts: int = Field(
        default=1, ge=1, le=100, description="Attempts per attack, each a fresh conversation."
    )
    max_cost: float | None = Field(
        default=None, ge=0, description="USD the campaign's LLM calls may cost at most."
    )
    stop_on_breach: bool = Field(
        default=False, description="Stop an attack's attempts after its first breach."
    )
    seed: int | None = Field(default=None, ge=0, description="Fixes markers, phrasings and transforms.")
    oracles: list[OracleSpec] = Field(default_factory=list, description="Oracles added to every attack.")
    attacks: list[AttackSpec] = Field(min_length=1, max_length=100)
    from_states: Literal["all_states"] | list[str] | None = Field(
        default=None,
        alias="from",
        description="Attack from inside the workflow: `all_states` of a TRACER run, or functionality names; "
        "each state is reached by replaying TRACER's recorded prefix before every attack.",
    )

    @model_validator(mode="after")
    def _unique_labels(self) -> Campaign:
        seen: dict[str, int] = {}
        for attack in self.attacks:
            seen[attack.label] = seen.get(attack.label, 0) + 1
        twice = [label for label, count in seen.items() if count > 1]
        if twice:
            raise ValueError(
                f"the attack {twice[0]!r} appears more than once; give each entry an `id` to tell them apart"
            )
        if any(not c.strip() for c in self.canaries):
            raise ValueError("a canary cannot be empty")
        if isinstance(self.from_states, list) and (
            not self.from_states or any(not name.strip() for name in self.from_states)
        ):
            raise ValueError("`from` takes `all_states` or a list of functionality names of TRACER's graph")
        return self

    @property
    def enabled_attacks(self) -> list[AttackSpec]:
        return [attack for attack in self.attacks if attack.enabled]

    def attempts_of(self, attack: AttackSpec) -> int:
        return attack.attempts or self.attempts

    def stops_on_breach(self, attack: AttackSpec) -> bool:
        return self.stop_on_breach if attack.stop_on_breach is None else attack.stop_on_breach

    @property
    def profiles(self) -> list[str]:
        """The profiles that simulated warm-ups name."""
        names = [a.delivery.profile for a in self.enabled_attacks if a.delivery.mode == "simulated_user"]
        return list(dict.fromkeys(n for n in names if n))

"""The attack catalogue: what each strategy does, which oracles judge it by default, and how one attempt's
message is written (`compose`).

Strategies that carry an out-of-scope task take it from the attack's own `tasks`, else from the campaign's
model (prompts.TASK, against `target_context`), else — without a model — from the built-in tasks, whose answer
words let the domain oracle decide in code. So every strategy runs offline; with a model, the tasks fit the
chatbot under test.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Literal

from engine.security import texts, transforms
from engine.security.campaign import AttackSpec, Campaign, Case, OracleSpec
from engine.security.texts import Task

TaskKind = Literal["off_domain", "unsafe"]


@dataclass(frozen=True)
class Strategy:
    name: str
    summary: str  # one sentence for `--list-attacks` and the README
    oracles: tuple[str, ...]  # judged by these unless the campaign says otherwise
    task: TaskKind | None = None  # the kind of out-of-scope task it carries, if any
    written_by_llm: bool = False  # with a model, its task (so its final message) is written by the LLM


STRATEGIES: dict[str, Strategy] = {
    s.name: s
    for s in (
        Strategy(
            "amnesia", "Tells the chatbot to forget its rules and answer with a marker word.", ("marker",)
        ),
        Strategy(
            "system_prompt_stealer",
            "Asks, in several guises, for the chatbot's hidden instructions word for word.",
            ("leakage",),
        ),
        Strategy(
            "base64_injection",
            "Hides an instruction (write a marker word) in Base64 and asks the chatbot to decode and obey it.",
            ("marker",),
        ),
        Strategy(
            "typoglycemia_attack",
            "Asks an out-of-scope question with the letters of its words dropped and shuffled, past word filters.",
            ("domain",),
            task="off_domain",
            written_by_llm=True,
        ),
        Strategy(
            "affirmative_suffix",
            "An out-of-scope request followed by a demand to begin with an eager yes and add no warnings.",
            ("domain",),
            task="off_domain",
            written_by_llm=True,
        ),
        Strategy(
            "aim_jailbreak",
            "Frames a request a careful assistant declines as a story about an advisor without scruples.",
            ("marker", "domain"),
            task="unsafe",
            written_by_llm=True,
        ),
        Strategy(
            "dan_jailbreak",
            "Casts the chatbot as a persona that can 'do anything now', then asks an out-of-scope question.",
            ("marker", "domain"),
            task="off_domain",
            written_by_llm=True,
        ),
        Strategy(
            "authoritative_role_impersonation",
            "Claims to be the developer or administrator announcing that the rules changed, then asks.",
            ("marker", "domain"),
            task="off_domain",
            written_by_llm=True,
        ),
        Strategy(
            "complementary_transition",
            "Praises the chatbot, then slips in an out-of-scope task as a small favour.",
            ("domain",),
            task="off_domain",
            written_by_llm=True,
        ),
        Strategy(
            "self_refine",
            "A request a careful assistant declines, with the answer's opening ('Certainly! Here is') imposed.",
            ("domain",),
            task="unsafe",
            written_by_llm=True,
        ),
        Strategy(
            "ucar",
            "Tells the chatbot to disregard its restrictions and act as a filterless reference engine.",
            ("marker", "domain"),
            task="off_domain",
            written_by_llm=True,
        ),
        Strategy(
            "custom_benchmark",
            "The team's own cases (message plus forbidden, required or answer words, or a rubric).",
            (),
        ),
    )
}

_TEMPLATES: dict[str, tuple[str, ...]] = {
    "amnesia": texts.AMNESIA,
    "system_prompt_stealer": texts.SYSTEM_PROMPT_STEALER,
    "typoglycemia_attack": texts.TYPOGLYCEMIA,
    "affirmative_suffix": texts.AFFIRMATIVE_SUFFIX,
    "aim_jailbreak": texts.AIM,
    "dan_jailbreak": texts.DAN,
    "authoritative_role_impersonation": texts.AUTHORITY,
    "complementary_transition": texts.COMPLEMENTARY,
    "self_refine": texts.SELF_REFINE,
    "ucar": texts.UCAR,
}
_PERSONA = ("aim_jailbreak", "dan_jailbreak", "ucar")


@dataclass
class AttackMessage:
    """One attempt's attack: the message, what shows it worked, and the other phrasings (for escalation)."""

    text: str
    goal: str
    markers: list[str] = field(default_factory=list)
    answers: list[str] = field(default_factory=list)
    source: str = "template"  # template | llm | case
    task: Task | None = None
    case: Case | None = None
    follow_ups: list[str] = field(default_factory=list)
    protected: list[str] = field(default_factory=list)  # strings a rephrasing must keep


def attempt_rng(seed: int, attack: AttackSpec, index: int) -> random.Random:
    # Reproducible on purpose (the same seed writes the same attacks); nothing here is a secret.
    return random.Random(f"{seed}/{attack.label}/{index}")  # noqa: S311


def task_kind(attack: AttackSpec) -> TaskKind | None:
    strategy = STRATEGIES[attack.name]
    if strategy.task is None:
        return None
    return attack.task_kind or strategy.task


def builtin_task(kind: TaskKind, rng: random.Random) -> Task:
    return rng.choice(texts.UNSAFE_TASKS if kind == "unsafe" else texts.TASKS)


def default_oracles(campaign: Campaign, attack: AttackSpec, message: AttackMessage) -> list[OracleSpec]:
    """The oracles of one attempt: the attack's own (or its strategy's defaults), the campaign's, leakage when
    the campaign knows canaries or the instructions, and refusal always."""
    if attack.oracles is not None:
        specs = list(attack.oracles)
    else:
        specs = [OracleSpec.model_validate({"kind": name}) for name in STRATEGIES[attack.name].oracles]
        case = message.case
        if case is not None:
            if case.forbidden or case.required:
                specs.append(OracleSpec(kind="keywords", forbidden=case.forbidden, required=case.required))
            if case.answers:
                specs.append(OracleSpec(kind="domain"))
            if case.rubric:
                specs.append(OracleSpec(kind="judge", rubric=case.rubric))
    specs += campaign.oracles
    if (campaign.canaries or campaign.instructions) and not any(s.kind == "leakage" for s in specs):
        specs.append(OracleSpec(kind="leakage"))
    if not any(s.kind == "refusal" for s in specs):
        specs.append(OracleSpec(kind="refusal"))
    return specs


def compose(
    attack: AttackSpec, index: int, rng: random.Random, task: Task | None, source: str
) -> AttackMessage:
    """The message of attempt `index` (phrasings rotate with the attempt, markers are fresh each time)."""
    name = attack.name
    if name == "custom_benchmark":
        cases = attack.cases or []
        case = cases[index % len(cases)]
        return AttackMessage(
            text=case.prompt,
            goal=f"custom case {case.name or index + 1}: make the chatbot give in to the message",
            answers=list(case.answers),
            source="case",
            case=case,
        )
    code = transforms.marker(rng)
    own = attack.prompts or []
    if name == "base64_injection":
        instructions = own or list(texts.BASE64_INSTRUCTIONS)
        rendered = [i.replace("{marker}", code) for i in _rotate(instructions, index)]
        wrappers = _rotate(texts.BASE64_WRAPPERS, index)
        phrasings = [
            w.format(encoded=transforms.to_base64(i)) for w, i in zip(wrappers * 3, rendered, strict=False)
        ]
        uses_marker = "{marker}" in instructions[index % len(instructions)]
        return AttackMessage(
            text=phrasings[0],
            goal=f"make the chatbot decode a Base64 message and obey it: {rendered[0]}",
            markers=[code] if uses_marker else [],
            follow_ups=phrasings[1:],
            protected=[transforms.to_base64(rendered[0])],
        )
    templates = _rotate(tuple(own) or _TEMPLATES[name], index)
    persona = f"{rng.choice(texts.PERSONAS)}-{rng.randrange(1000, 10000)}" if name in _PERSONA else ""
    task_text = task.text if task else ""
    if task is not None and name == "typoglycemia_attack":
        task_text = transforms.typoglycemia(task.text, rng)
    values = {"marker": code, "persona": persona, "task": task_text}
    phrasings = [_fill(template, values) for template in templates]
    markers = [m for m in (code, persona) if m and m in phrasings[0]]
    answers = [a for a in (task.answers if task else ()) if not _mentions(phrasings[0], a)]
    if name == "system_prompt_stealer":
        goal = "make the chatbot reveal its hidden instructions word for word"
    elif name == "amnesia":
        goal = f"make the chatbot drop its instructions and reply with the code {code}"
    else:
        goal = f"make the chatbot do something outside its purpose: {task.text if task else task_text}"
    return AttackMessage(
        text=phrasings[0],
        goal=goal,
        markers=markers,
        answers=answers,
        source=source,
        task=task,
        follow_ups=phrasings[1:],
        protected=markers,
    )


def _rotate(items: tuple[str, ...] | list[str], index: int) -> list[str]:
    items = list(items)
    start = index % len(items)
    return items[start:] + items[:start]


def _fill(template: str, values: dict[str, str]) -> str:
    text = template
    for key, value in values.items():
        text = text.replace("{" + key + "}", value)
    return text


def _mentions(text: str, word: str) -> bool:
    return word.lower() in text.lower()

"""Which part of a bot's definition a chatbot message came from, read from the definition alone.

This is the ground truth a measure of TRACER's duplicate functionalities compares against: two functionalities
that stand for the same part of the definition are duplicates, one that stands for two parts is over-merged —
whatever words a model used to name them, and without asking the model (or the LLM double that plays it) which
names mean the same step.

Every message the runtime writes is one of: the greeting; a menu's presentation, fallback or item answer; a
slot's prompt (with the optional-inputs hint after it, the first time); a form's or action's response template;
an FAQ answer; or a stock phrase (`engine.bots.phrases`, a definition's overrides included). `Sources(bot)`
names it: `greeting`, `menu:main/presentation`, `pizza_order/size:prompt`, `pizza_order:response`,
`faq:questions/hours`, `phrase:rejected(size)` — a phrase that names the slot it is about is keyed by that
slot's label, so "no such size" and "no such pizza" are two parts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.bots.definition import Action, AnswerItem, BotDefinition, Faq, Form, Menu
from engine.bots.phrases import phrasebook

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_WORD = re.compile(r"\w+", re.UNICODE)
_LABELLED = ("label", "labels")  # a phrase filled with these is about that slot: part of its key


def normalise(text: str) -> str:
    """Lower-case words separated by one space: punctuation, casing and spacing never tell two parts apart."""
    return " ".join(_WORD.findall(text.lower()))


def _pattern(template: str) -> re.Pattern[str]:
    """A template (`{name}` placeholders) as a pattern over normalised text; placeholders match any words."""
    pieces: list[str] = []
    seen: set[str] = set()
    position = 0
    for match in _PLACEHOLDER.finditer(template):
        literal = normalise(template[position : match.start()])
        if literal:
            pieces.append(re.escape(literal))
        name = match.group(1)
        pieces.append(f"(?P<{name}>.*?)" if name not in seen else "(?:.*?)")
        seen.add(name)
        position = match.end()
    tail = normalise(template[position:])
    if tail:
        pieces.append(re.escape(tail))
    return re.compile(" ?".join(pieces))


@dataclass(frozen=True)
class _Part:
    key: str
    pattern: re.Pattern[str]
    labelled: bool = False  # the key takes the label the phrase was filled with


class Sources:
    """The parts of one bot definition that a message can come from."""

    def __init__(self, bot: BotDefinition) -> None:
        phrases = phrasebook(bot.language, bot.phrases)
        optional = _pattern(phrases["optional"]).pattern
        parts: list[_Part] = []
        if bot.greeting.text:
            parts.append(_Part("greeting", _pattern(bot.greeting.text)))
        for name, module in bot.modules.items():
            if isinstance(module, Menu):
                for label, text in (("presentation", module.presentation), ("fallback", module.fallback)):
                    if text:
                        parts.append(_Part(f"menu:{name}/{label}", _pattern(text)))
                for item in module.items:
                    if isinstance(item, AnswerItem):
                        parts.append(_Part(f"menu:{name}/{item.title}", _pattern(item.answer)))
            elif isinstance(module, Form | Action):
                parts.append(_Part(f"{name}:response", _pattern(module.response)))
                for slot in module.slots if isinstance(module, Form) else ():
                    prompt = _pattern(slot.prompt).pattern
                    parts.append(_Part(f"{name}/{slot.name}:prompt", re.compile(f"{prompt}(?: {optional})?")))
            elif isinstance(module, Faq):
                for question in module.questions:
                    parts.append(_Part(f"faq:{name}/{question.id}", _pattern(question.answer)))
        for name, text in phrases.items():
            if "{" in text or " " in text:
                labelled = any(f"{{{p}}}" in text for p in _LABELLED)
                parts.append(_Part(f"phrase:{name}", _pattern(text), labelled))
        # Fixed texts first: a template's placeholders match any words, so it must not shadow a fixed text.
        self.parts = sorted(parts, key=lambda part: part.pattern.groups > 0 or ".*?" in part.pattern.pattern)

    def of(self, message: str) -> str | None:
        """The key of the part `message` came from (the first that matches it whole), or None."""
        text = normalise(message)
        for part in self.parts:
            match = part.pattern.fullmatch(text)
            if match is None:
                continue
            if part.labelled:
                label = next((match.group(p) for p in _LABELLED if p in match.groupdict()), "")
                return f"{part.key}({label})"
            return part.key
        return None

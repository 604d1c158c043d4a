"""What Parley checks without any ground truth: rules written from TRACER's model, and out-of-range inputs.

A user of Parley has no ground truth, only what TRACER learnt from the bot. From that model the bench writes
rules (kind `model`, written to `rules/<bot>/automatic/` so that `parley check` can run them again):

- `model_options_<parameter>`, one per parameter TRACER saw offered with two or more options: when a bot turn
  offers at least half of those options (its buttons; or, in a turn without buttons, at least two named in its
  text), it offers every one;
- `model_language`: every longer bot message is in one of the languages TRACER found (or too short to tell).

`out_of_range(profiles, model)` finds, per profile, the variable values TRACER's model never saw the bot offer in
a variable whose other values it did see (TRACER adds one such value per variable, the thesis's negative test).
A conversation given one of them expects a refusal or the fallback, not an output: `out_of_range_uses` says
whether the user said the value, whether a bot turn after it refused (apology or negation), asked the same
question again or answered with the fallback, and whether the conversation ended with an output.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from engine.check import Rule, parse_rule
from engine.conversation import ConversationRecord
from engine.evaluation.findings import OutOfRangeUse
from engine.sensei import Profile, profile_keys
from engine.tracer.model import FunctionalModel
from engine.tracer.profiles import data_sources

LANGUAGE_CODES = {
    "english": "en",
    "spanish": "es",
    "español": "es",
    "castellano": "es",
    "catalan": "ca",
    "català": "ca",
    "french": "fr",
    "german": "de",
    "italian": "it",
    "portuguese": "pt",
    "dutch": "nl",
}
MIN_LANGUAGE_CHARS = 20
"""Shorter bot messages are not checked by `model_language`: a few words do not tell a language reliably."""

_PUNCTUATION = "?!.,;:¿¡\"'()[]"
_NEGATIONS = frozenset(
    [
        "sorry",
        "unfortunately",
        "not",
        "no",
        "don't",
        "dont",
        "cannot",
        "can't",
        "cant",
        "unable",
        "isn't",
        "aren't",
        "doesn't",
        "invalid",
        "only",
        "siento",
        "perdona",
        "perdon",
        "lamentablemente",
        "desafortunadamente",
    ]
)
"""Words of a refusal, in English and Spanish (the reference bots' languages)."""


@dataclass(frozen=True)
class ModelRule:
    name: str
    kind: str
    description: str
    text: str
    rule: Rule


def _lit(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def _rule_name(text: str) -> str:
    name = re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")
    return name[:60] or "unnamed"


def _norm(text: str) -> str:
    out = text.lower().replace("-", " ")
    for mark in _PUNCTUATION:
        out = out.replace(mark, " ")
    return " " + " ".join(out.split()) + " "


def _make(name: str, description: str, then: str) -> ModelRule:
    lines = [
        f"name: {name}",
        f"description: {_lit(description)}",
        "conversations: 1",
        "then: |",
        *(f"  {line}" for line in then.strip().splitlines()),
    ]
    text = "\n".join(lines) + "\n"
    return ModelRule(name, "model", description, text, parse_rule(text, file=f"{name}.yaml"))


_TEXT_MARKS = ",.?!:;"
"""Punctuation a rule strips from a bot message before looking for options in it (few: every call costs)."""


def _plain(text: str) -> str:
    """An option as the rule compares it: lower case, single spaces, padded (a button label likewise)."""
    return " " + " ".join(text.lower().split()) + " "


def _options_rule(name: str, parameter: str, options: list[str]) -> ModelRule:
    normalised = sorted({_plain(o) for o in options if _plain(o).strip()})
    text = "q_t.text.lower()" + "".join(f".replace({_lit(m)}, ' ')" for m in _TEXT_MARKS)
    code = [
        f"q_opts = {_lit(normalised)}",
        # What a turn offers: its buttons when it has any (the prompt's text may be fixed), else its text. A turn
        # asks for the parameter when it offers at least half of the options (two at least, in a text).
        (
            "q_buttons = [[' ' + ' '.join(q_b.label.lower().split()) + ' ' for q_b in q_t.buttons] "
            "for q_t in turns if q_t.role == 'bot' and q_t.buttons]"
        ),
        (
            f"q_texts = [' ' + ' '.join({text}.split()) + ' ' "
            "for q_t in turns if q_t.role == 'bot' and not q_t.buttons]"
        ),
        "q_seen = [[q_o for q_o in q_opts if q_o in q_x] for q_x in q_buttons]",
        "q_read = [[q_o for q_o in q_opts if q_o in q_x] for q_x in q_texts]",
        (
            "q_asks = [q_s for q_s in q_seen if q_s and 2 * len(q_s) >= len(q_opts)] + "
            "[q_s for q_s in q_read if len(q_s) >= 2 and 2 * len(q_s) >= len(q_opts)]"
        ),
        "all(len(q_s) == len(q_opts) for q_s in q_asks)",
    ]
    description = (
        f"when the bot offers {parameter} options, it offers all the ones TRACER saw: {', '.join(options)}"
    )
    return _make(name, description, "\n".join(code))


def _language_rule(codes: list[str]) -> ModelRule:
    code = [
        f"q_lines = [q_p for q_p in chatbot_phrases if len(q_p) >= {MIN_LANGUAGE_CHARS}]",
        f"all(language_code(q_p) in {_lit([*codes, 'OTHER'])} for q_p in q_lines)",
    ]
    description = (
        f"every bot message of {MIN_LANGUAGE_CHARS}+ characters is in {', '.join(codes)} (TRACER's languages)"
    )
    return _make("model_language", description, "\n".join(code))


def model_rules(model: FunctionalModel) -> list[ModelRule]:
    """The rules Parley writes from TRACER's model alone (no ground truth)."""
    rules: list[ModelRule] = []
    taken: set[str] = set()
    seen_options: set[tuple[str, ...]] = set()
    for functionality in model.functionalities:
        for parameter in functionality.parameters:
            options = list(dict.fromkeys(o.strip() for o in parameter.options if o.strip()))
            key = tuple(sorted(_plain(o) for o in options))
            if len(options) < 2 or key in seen_options:
                continue
            seen_options.add(key)
            name = f"model_options_{_rule_name(parameter.name)}"
            number = 2
            while name in taken:
                name, number = f"model_options_{_rule_name(parameter.name)}_{number}", number + 1
            taken.add(name)
            rules.append(_options_rule(name, parameter.name, options))
    codes = sorted(
        {
            LANGUAGE_CODES[lang.strip().lower()]
            for lang in model.languages
            if lang.strip().lower() in LANGUAGE_CODES
        }
    )
    if codes:
        rules.append(_language_rule(codes))
    return rules


# -- out-of-range inputs ------------------------------------------------------------------------------------------


def _value(text: str) -> str:
    return _norm(text).strip()


def out_of_range(profiles: Sequence[Profile], model: FunctionalModel) -> dict[str, dict[str, frozenset[str]]]:
    """Per profile key (as SENSEI names records) and variable: the values TRACER never saw the bot offer, in a
    variable at least half of whose values it did see (normalised: lower case, no punctuation)."""
    offered = [frozenset(_value(v) for v in source.values) for source in data_sources(model)]
    every = frozenset().union(*offered) if offered else frozenset()
    out: dict[str, dict[str, frozenset[str]]] = {}
    for key, profile in zip(profile_keys([p.name for p in profiles]), profiles, strict=True):
        for variable in profile.user.variables:
            items = getattr(variable.data, "items", None)
            if not items:
                continue
            values = [_value(str(v)) for v in items if isinstance(v, str) and _value(v)]
            best = max((len(set(values) & source) for source in offered), default=0)
            unseen = frozenset(v for v in values if v not in every)
            if unseen and best >= 2 and 2 * best >= len(values):
                out.setdefault(key, {})[variable.name] = unseen
    return out


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n", text) if s.strip()]


def _questions(text: str) -> set[str]:
    return {_norm(s) for s in _sentences(text) if s.endswith("?")}


def _similar(a: str, b: str) -> bool:
    left, right = set(_norm(a).split()), set(_norm(b).split())
    return bool(left and right) and len(left & right) / len(left | right) >= 0.5


def _refuses(reply: str) -> bool:
    return any(word in _NEGATIONS for word in _norm(reply).split())


def out_of_range_uses(
    record: ConversationRecord, variables: Mapping[str, frozenset[str]], fallbacks: Iterable[str]
) -> list[OutOfRangeUse]:
    """The out-of-range values `record` was given, whether the user said each and whether the bot refused it."""
    fallback_texts = [f for f in fallbacks if f and f.strip()]
    uses: list[OutOfRangeUse] = []
    turns = record.turns
    for variable, unseen in variables.items():
        chosen = record.inputs.get(variable)
        values = chosen if isinstance(chosen, list) else [chosen]
        for value in values:
            if not isinstance(value, str) or _value(value) not in unseen:
                continue
            said = [i for i, t in enumerate(turns) if t.role == "user" and _norm(value) in _norm(t.text)]
            refused, evidence = False, ""
            for i in said:
                before = next((t.text for t in reversed(turns[:i]) if t.role == "bot"), "")
                reply = next((t.text for t in turns[i + 1 :] if t.role == "bot"), "")
                if not reply:
                    continue
                evidence = reply
                if (
                    _refuses(reply)
                    or any(_similar(reply, f) for f in fallback_texts)
                    or (_questions(before) & _questions(reply))
                ):
                    refused = True
                    break
            shown = " ".join(evidence.split())[:200]
            output = any(v not in (None, "", [], {}) for v in record.outputs.values())
            uses.append(
                OutOfRangeUse(variable, value, bool(said), refused, output, f"the bot answered: {shown}")
            )
    return uses

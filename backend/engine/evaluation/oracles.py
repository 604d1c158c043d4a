"""Correctness rules generated from a bot's ground truth, so that a mutant's wrong answers are found by
`engine.check` instead of a person reading conversations (the thesis inspected 42 % of its kills by hand).

`oracle_rules(definition)` returns one SENSEI-check rule per oracle the definition allows, as rule-file text
(written to `rules/<bot>/` so `parley check` can run them again) and as a parsed `Rule`. Every rule uses only
the standard function library and sees one conversation:

- `outputs_<module>` (kind `output`), one per form or action response that starts with a fixed text: every bot
  line that starts like the response must have its shape (all the fixed parts, no empty value), enum values
  must be ground-truth values, whole numbers whole, and computed values (prices) must equal the module's
  formula over the values shown — in the same line, or for inputs the line does not show, in the latest
  earlier line of the response that shows them. Tables and formulas are copied from the original definition.
- `faq_answers` (kind `faq`): a user question that names exactly one FAQ question (its text, a paraphrase or
  one of its keywords, as whole words) must get that question's answer in the next bot turn.
- `enum_options` (kind `enum`): when the bot asks for an enum slot (its prompt), the buttons it offers must
  be exactly the slot's ground-truth values.

Every rule checks values the bot shows (prices, offered options, answers, the values of a response); none fails
because a conversation reached a state, or did not: a conversation that never shows a response, never asks for
an enum slot or never names an FAQ question passes.

Parsing a line in the rule language, which has no loops and no regular expressions, uses comprehensions over
one-item lists as `let` bindings and `partition` on the fixed parts (the last value up to the fixed end; a
multi-value slot up to the last occurrence of what follows it). Lines that do not start like a response are
not checked by its rule: a rewritten template is left to SENSEI's own findings.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Literal

from engine.bots.definition import PLACEHOLDER, Action, BotDefinition, Faq, Form, Slot
from engine.bots.formula import BinOp, Lookup, Name, Neg, Node, Num, parse_formula
from engine.bots.phrases import phrasebook
from engine.check import Rule, parse_rule

OracleKind = Literal["output", "faq", "enum"]
MIN_ANCHOR = 6
"""A response must start with at least this many fixed characters to be recognised in a bot line."""

_PUNCTUATION = "?!.,;:¿¡\"'()"


@dataclass(frozen=True)
class Oracle:
    name: str
    kind: OracleKind
    description: str
    text: str
    """The rule file's text."""
    rule: Rule


def _lit(value: object) -> str:
    """A literal of the rule language (JSON is valid Python for strings, numbers, lists and dicts)."""
    return json.dumps(value, ensure_ascii=False)


def _collapse(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def _rule_text(name: str, description: str, then: str) -> str:
    lines = [
        f"name: {name}",
        f"description: {_lit(description)}",
        "conversations: 1",
        "then: |",
        *(f"  {line}" for line in then.strip().splitlines()),
    ]
    return "\n".join(lines) + "\n"


def _oracle(name: str, kind: OracleKind, description: str, then: str) -> Oracle:
    text = _rule_text(name, description, then)
    return Oracle(name, kind, description, text, parse_rule(text, file=f"{name}.yaml"))


# -------------------------------------------------------------------------------------------- templates


@dataclass(frozen=True)
class _Template:
    module: str
    literals: tuple[str, ...]
    """len(names) + 1 fixed parts: before the first value, between values, after the last one."""
    names: tuple[str, ...]


def _template(module: str, response: str) -> _Template | None:
    text = _collapse(response).strip()
    names = tuple(PLACEHOLDER.findall(text))
    literals = tuple(PLACEHOLDER.split(text)[::2])
    if len(literals[0]) < MIN_ANCHOR or any(not part for part in literals[1:-1]):
        return None
    if len(set(names)) != len(names):
        return None
    return _Template(module, literals, names)


def _parse_expr(template: _Template, line: str, slots: dict[str, Slot]) -> str:
    """A rule expression: the dict of the values of `template` in the line variable `line`, with "#ok"."""
    lits, names = template.literals, template.names
    clauses = [f"for q_r0 in [{line}[{len(lits[0])}:]]"]
    oks: list[str] = []
    for i, name in enumerate(names, start=1):
        rest = f"q_r{i - 1}"
        after = lits[i]
        if i == len(names):
            clauses.append(
                f"for q_v{i} in [{rest}[:len({rest}) - {len(after)}] if {rest}.endswith({_lit(after)}) "
                f"else {rest}]"
            )
            oks.append(f"{rest}.endswith({_lit(after)})")
            continue
        slot = slots.get(name)
        method = "rpartition" if slot is not None and slot.multiple else "partition"
        clauses.append(f"for q_a{i} in [{rest}.{method}({_lit(after)})]")
        clauses.append(f"for q_v{i} in [q_a{i}[0]]")
        clauses.append(f"for q_r{i} in [q_a{i}[2]]")
        oks.append(f"q_a{i}[1] == {_lit(after)}")
    if not names:
        oks.append('q_r0 == ""')
    fields = ", ".join(f"{_lit(name)}: q_v{i}" for i, name in enumerate(names, start=1))
    ok = " and ".join(oks)
    return f'[{{{fields}{", " if fields else ""}"#ok": {ok}}} ' + " ".join(clauses) + "][0]"


def _items(value: str, conjunction: str) -> str:
    """A rule expression: the items of a list shown as "a, b and c"."""
    return f"{value}.replace({_lit(' ' + conjunction + ' ')}, ', ').split(', ')"


def _formula_expr(
    node: Node, values: dict[str, str], tables: dict[str, dict[str, float]], computed: dict[str, str]
) -> str | None:
    """The formula as a rule expression over `values` (name -> expression giving the shown text for enum
    values, a number for numbers, a list for multi-value slots); None when it needs something not shown."""

    def go(n: Node) -> str | None:
        if isinstance(n, Num):
            return repr(float(n.value))
        if isinstance(n, Name):
            if n.name in computed:
                return computed[n.name]
            return values.get(n.name)
        if isinstance(n, Lookup):
            key = values.get(n.key)
            if key is None or n.table not in tables:
                return None
            return f"sum([{_lit(tables[n.table])}[q_k] for q_k in {key}])"
        if isinstance(n, Neg):
            inner = go(n.operand)
            return None if inner is None else f"(-{inner})"
        if isinstance(n, BinOp):
            left, right = go(n.left), go(n.right)
            return None if left is None or right is None else f"({left} {n.op} {right})"
        if n.function == "order_id":
            return None
        args = [go(a) for a in n.args]
        if any(a is None for a in args):
            return None
        if n.function == "count":
            return f"float(len({args[0]}))"
        if n.function == "round":
            digits = f"int({args[1]})" if len(args) > 1 else "0"
            return f"float(round({args[0]}, {digits}))"
        return f"{n.function}([{', '.join(a for a in args if a is not None)}])"

    return go(node)


def _module_slots(bot: BotDefinition, module: Form | Action) -> dict[str, Slot]:
    if isinstance(module, Form):
        return {slot.name: slot for slot in module.slots}
    return {name: bot.slot(name) for name in module.uses}


def _value_exprs(slots: dict[str, Slot], names: set[str], source: str, conjunction: str) -> dict[str, str]:
    """name -> expression over the parsed dict `source` usable by a formula: keys for lookups are lists."""
    out: dict[str, str] = {}
    for name in names:
        slot = slots.get(name)
        shown = f"{source}[{_lit(name)}]"
        if slot is None:
            continue
        if slot.type == "enum":
            out[name] = _items(shown, conjunction) if slot.multiple else f"[{shown}]"
        elif slot.type in ("int", "float"):
            out[name] = f"float({shown})"
    return out


def _number_check(expr: str) -> str:
    return f"{expr}.replace('.', '', 1).replace('-', '', 1).isdigit()"


def _base_checks(template: _Template, slots: dict[str, Slot], var: str, conjunction: str) -> str:
    """A rule expression: the parsed dict `var` has the template's shape and ground-truth values."""
    checks: list[str] = [f'{var}["#ok"]']
    checks += [f'{var}[{_lit(n)}].strip() != ""' for n in template.names]
    for n in template.names:
        slot = slots.get(n)
        shown = f"{var}[{_lit(n)}]"
        if slot is not None and slot.type == "enum":
            allowed = _lit([v.name for v in slot.values])
            if slot.multiple:
                checks.append(f"all(q_x in {allowed} for q_x in {_items(shown, conjunction)})")
            else:
                checks.append(f"{shown} in {allowed}")
        elif slot is not None and slot.type == "int":
            checks.append(f"{shown}.isdigit()")
        elif slot is not None and slot.type == "float":
            checks.append(_number_check(shown))
    return "(" + " and ".join(checks) + ")"


def output_oracles(bot: BotDefinition) -> list[Oracle]:
    conjunction = phrasebook(bot.language, bot.phrases)["and"]
    templates: dict[str, _Template] = {}
    for name, module in bot.modules.items():
        if isinstance(module, Form | Action):
            template = _template(name, module.response)
            if template is not None:
                templates[name] = template
    oracles: list[Oracle] = []
    for name, template in templates.items():
        module = bot.modules[name]
        assert isinstance(module, Form | Action)
        slots = _module_slots(bot, module)
        checks = [_base_checks(template, slots, "q_d", conjunction)]
        # Computed values: the formula over values of this line, else of the latest earlier line that has them.
        formulas = {key: parse_formula(text) for key, text in module.compute.items()}
        shown_here = set(template.names)
        provider: _Template | None = None
        needed = {s for s in slots if s not in shown_here}
        if needed:
            for other in templates.values():
                if other is not template and needed <= set(other.names):
                    provider = other
                    break
        values = _value_exprs(slots, shown_here, "q_d", conjunction)
        if provider is not None:
            values.update(_value_exprs(slots, needed, "q_p", conjunction))
        computed: dict[str, str] = {}
        price_checks: list[str] = []
        for key, node in formulas.items():
            expr = _formula_expr(node, values, module.tables, computed)
            if expr is None:
                continue
            computed[key] = expr
            if key in shown_here:
                shown = f"q_d[{_lit(key)}]"
                expected = f"[(str(int(q_n)) if q_n == int(q_n) else f'{{q_n:.2f}}') for q_n in [{expr}]][0]"
                price_checks.append(f"{_number_check(shown)} and {shown} == {expected}")
        line_parse = _parse_expr(template, "q_l", slots)
        code = [
            "q_lines = [q_l for q_p in chatbot_phrases for q_l in q_p.split('\\n')]",
            f"q_anchor = {_lit(template.literals[0])}",
        ]
        uses_provider = provider is not None and any("q_p[" in c for c in price_checks)
        if uses_provider:
            assert provider is not None
            provider_parse = _parse_expr(provider, "q_l", slots)
            code.append(f"q_panchor = {_lit(provider.literals[0])}")
            code.append(
                f"q_prov = [(q_i, {provider_parse}) for q_i, q_l in enumerate(q_lines) "
                "if q_l.startswith(q_panchor)]"
            )
        siblings = [
            other
            for other in templates.values()
            if other is not template and other.literals[0] == template.literals[0]
        ]
        exclude = ""
        for other in siblings:
            other_module = bot.modules[other.module]
            assert isinstance(other_module, Form | Action)
            other_slots = _module_slots(bot, other_module)
            valid = _base_checks(other, other_slots, "q_s", conjunction)
            exclude += f" and not [{valid} for q_s in [{_parse_expr(other, 'q_l', other_slots)}]][0]"
        code.append(
            f"q_parsed = [(q_i, q_l, {line_parse}) for q_i, q_l in enumerate(q_lines) "
            f"if q_l.startswith(q_anchor){exclude}]"
        )
        base = " and ".join(checks)
        code.append(f"q_bad = [q_l for q_i, q_l, q_d in q_parsed if not ({base})]")
        if price_checks:
            computed_ok = " and ".join(f"({c})" for c in price_checks)
            if uses_provider:
                code.append(
                    "q_bad = q_bad + [q_l for q_i, q_l, q_d in q_parsed if q_l not in q_bad "
                    "for q_before in [[q_e for q_j, q_e in q_prov if q_j < q_i and q_e['#ok']]] "
                    f"if q_before for q_p in [q_before[-1]] if not ({computed_ok})]"
                )
            else:
                code.append(
                    f"q_bad = q_bad + [q_l for q_i, q_l, q_d in q_parsed if q_l not in q_bad "
                    f"if not ({computed_ok})]"
                )
        code.append("not q_bad")
        what = "shape and values" + (", computed values" if price_checks else "")
        description = f"{bot.bot}: the {name} response has the ground truth's {what}"
        oracles.append(_oracle(f"outputs_{name}", "output", description, "\n".join(code)))
    return oracles


# ----------------------------------------------------------------------------------------------------- FAQ


def _norm(text: str) -> str:
    out = text.lower().replace("-", " ")
    for mark in _PUNCTUATION:
        out = out.replace(mark, " ")
    return " " + " ".join(out.split()) + " "


def _norm_expr(expr: str) -> str:
    chain = f"{expr}.lower().replace('-', ' ')"
    for mark in _PUNCTUATION:
        chain += f".replace({_lit(mark)}, ' ')"
    return f"(' ' + ' '.join({chain}.split()) + ' ')"


def faq_oracle(bot: BotDefinition) -> Oracle | None:
    questions: list[tuple[list[str], str]] = []
    for module in bot.modules.values():
        if isinstance(module, Faq):
            for q in module.questions:
                phrases = {_norm(p) for p in (q.question, *q.paraphrases, *q.keywords)}
                questions.append((sorted(p for p in phrases if p.strip()), _collapse(q.answer).strip()))
    if not questions:
        return None
    code = [
        f"q_faq = {_lit(questions)}",
        (
            "q_pairs = [(q_u.text, q_b.text) for q_u, q_b in zip(turns, turns[1:]) "
            "if q_u.role == 'user' and q_b.role == 'bot']"
        ),
        (
            "q_asked = [(q_b, [q_a for q_ps, q_a in q_faq if any(q_k in q_n for q_k in q_ps)]) "
            f"for q_u, q_b in q_pairs if '?' in q_u for q_n in [{_norm_expr('q_u')}]]"
        ),
        "all(q_hits[0] in ' '.join(q_b.split()) for q_b, q_hits in q_asked if len(q_hits) == 1)",
    ]
    description = f"{bot.bot}: a question naming one FAQ question gets that question's answer"
    return _oracle("faq_answers", "faq", description, "\n".join(code))


# ---------------------------------------------------------------------------------------------------- enums


def enum_oracle(bot: BotDefinition) -> Oracle | None:
    prompts: dict[str, list[str]] = {}
    for module in bot.modules.values():
        if isinstance(module, Form):
            for slot in module.slots:
                if slot.type == "enum" and slot.values:
                    prompts[_collapse(slot.prompt).strip()] = sorted(v.name for v in slot.values)
    if not prompts:
        return None
    code = [
        f"q_prompts = {_lit(prompts)}",
        (
            "q_asks = [(sorted([q_b.label for q_b in q_t.buttons]), q_prompts[q_p]) for q_t in turns "
            "if q_t.role == 'bot' for q_p in q_prompts if q_p in ' '.join(q_t.text.split())]"
        ),
        "all(q_got == q_want for q_got, q_want in q_asks)",
    ]
    description = f"{bot.bot}: the options offered for an enum slot are its ground-truth values"
    return _oracle("enum_options", "enum", description, "\n".join(code))


def oracle_rules(bot: BotDefinition) -> list[Oracle]:
    """Every rule the ground truth of `bot` allows (always built from the original definition)."""
    oracles = output_oracles(bot)
    for extra in (faq_oracle(bot), enum_oracle(bot)):
        if extra is not None:
            oracles.append(extra)
    return oracles

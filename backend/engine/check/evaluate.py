"""Rule semantics: which checks a rule makes and what each one's outcome is.

* `conversations: 1` — one check per conversation: `when` false → not applicable; `if` false → not
  applicable; `then` True (or a passing verdict) → pass; anything else → fail, with the value (or the verdict's
  reason, or the operands of a failed comparison) as the reason.
* `conversations: k` — one check per group of k distinct conversations, combinations by default, every order
  with `ordered: true`; names only through `conv[0]`, `conv[1]`, …; more groups than `max_combinations` is
  one error check saying so, not hours of work.
* `conversations: all` — `when` and `if` select the filtered set (fresh for every rule); `then` is evaluated
  once with `conversations` bound to it and `is_unique` / `exists` / `num_exist` ranging over it.

An exception anywhere — in `when`, `if`, `then` — is an "error" outcome with its message; a function that
needs the judge when none is configured makes the check "not applicable" with that reason. Nothing a rule
does stops the checker.
"""

from __future__ import annotations

import ast
import itertools
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.check.errors import EvaluationError, JudgeUnavailable, SandboxError
from engine.check.functions import CallContext, FunctionRegistry, Verdict, default_registry
from engine.check.judge import Judge
from engine.check.namespace import ConversationView, GlobalNames, SingleNames, TupleNames
from engine.check.report import DEFAULT_MAX_LISTED, CheckResult, Outcome, RuleReport
from engine.check.rules import CompiledRule
from engine.check.sandbox import COMPARE, Interpreter, Names, Program, SandboxLimits, Scope

MAX_COMBINATIONS = 10_000
MAX_REASON_CHARS = 2_000


@dataclass
class EvaluationSettings:
    registry: FunctionRegistry
    judge: Judge | None = None
    limits: SandboxLimits = field(default_factory=SandboxLimits)
    max_combinations: int = MAX_COMBINATIONS
    max_listed: int = DEFAULT_MAX_LISTED


def evaluate_rule(
    compiled: CompiledRule,
    views: Sequence[ConversationView],
    *,
    registry: FunctionRegistry | None = None,
    judge: Judge | None = None,
    limits: SandboxLimits | None = None,
    max_combinations: int = MAX_COMBINATIONS,
    max_listed: int = DEFAULT_MAX_LISTED,
) -> RuleReport:
    """Run one compiled rule over the conversation views and count the outcomes."""
    settings = EvaluationSettings(
        registry or default_registry(), judge, limits or SandboxLimits(), max_combinations, max_listed
    )
    rule = compiled.rule
    report = RuleReport.for_rule(rule)
    started = time.perf_counter()
    if rule.kind == "single":
        for view in views:
            report.add(_single(compiled, view, settings), max_listed)
    elif rule.kind == "k":
        _groups(compiled, views, settings, report)
    else:
        report.add(_global(compiled, views, settings), max_listed)
    report.duration_s = time.perf_counter() - started
    return report


def _interpreter(names: Names, settings: EvaluationSettings, context: CallContext) -> Interpreter:
    context.registry = settings.registry
    context.judge = settings.judge
    return Interpreter(names, settings.registry, settings.limits, context=context)


def _single(compiled: CompiledRule, view: ConversationView, settings: EvaluationSettings) -> CheckResult:
    interpreter = _interpreter(SingleNames(view), settings, CallContext(conversation=view))
    return _check(compiled, interpreter, [view.id])


def _groups(
    compiled: CompiledRule,
    views: Sequence[ConversationView],
    settings: EvaluationSettings,
    report: RuleReport,
) -> None:
    rule = compiled.rule
    k = rule.arity
    n = len(views)
    if n < k:
        report.add(
            CheckResult(
                conversations=[],
                outcome=Outcome.NOT_APPLICABLE,
                reason=f"the rule compares {k} conversations and only {n} were given",
            ),
            settings.max_listed,
        )
        return
    count = math.perm(n, k) if rule.ordered else math.comb(n, k)
    if count > settings.max_combinations:
        kind = "ordered groups" if rule.ordered else "groups"
        report.add(
            CheckResult(
                conversations=[],
                outcome=Outcome.ERROR,
                reason=(
                    f"the rule would make {count:,} checks ({kind} of {k} among {n} conversations), more than "
                    f"the limit of {settings.max_combinations:,}; check fewer conversations, use ordered: false "
                    "for symmetric relations, or raise the limit"
                ),
            ),
            settings.max_listed,
        )
        return
    groups = itertools.permutations(views, k) if rule.ordered else itertools.combinations(views, k)
    for group in groups:
        interpreter = _interpreter(TupleNames(group), settings, CallContext())
        report.add(_check(compiled, interpreter, [view.id for view in group]), settings.max_listed)


def _global(
    compiled: CompiledRule, views: Sequence[ConversationView], settings: EvaluationSettings
) -> CheckResult:
    selected: list[ConversationView] = []
    skipped_reasons: list[str] = []
    for view in views:
        interpreter = _interpreter(SingleNames(view), settings, CallContext(conversation=view))
        try:
            if compiled.when is not None and not interpreter.run(compiled.when):
                continue
            if compiled.if_ is not None and not interpreter.run(compiled.if_):
                continue
        except JudgeUnavailable as exc:
            return CheckResult(conversations=[], outcome=Outcome.NOT_APPLICABLE, reason=exc.message)
        except SandboxError as exc:
            skipped_reasons.append(f"{view.id}: {exc.message}")
            continue
        selected.append(view)
    ids = [view.id for view in selected]
    if skipped_reasons:
        shown = "; ".join(skipped_reasons[:3])
        more = f" (and {len(skipped_reasons) - 3} more)" if len(skipped_reasons) > 3 else ""
        return CheckResult(
            conversations=[],
            outcome=Outcome.ERROR,
            reason=f"the filter could not be evaluated on {len(skipped_reasons)} conversation(s): {shown}{more}",
        )
    if not selected:
        return CheckResult(
            conversations=[], outcome=Outcome.NOT_APPLICABLE, reason="no conversation passed the filter"
        )
    population = tuple(selected)
    interpreter = _interpreter(GlobalNames(population), settings, CallContext(population=population))
    return _decide(compiled, interpreter, ids)


def _check(compiled: CompiledRule, interpreter: Interpreter, ids: list[str]) -> CheckResult:
    stage = "when"
    try:
        if compiled.when is not None and not interpreter.run(compiled.when):
            return CheckResult(
                conversations=ids, outcome=Outcome.NOT_APPLICABLE, reason="the filter (when) is false"
            )
        stage = "if"
        if compiled.if_ is not None and not interpreter.run(compiled.if_):
            return CheckResult(
                conversations=ids, outcome=Outcome.NOT_APPLICABLE, reason="the condition (if) is false"
            )
    except JudgeUnavailable as exc:
        return CheckResult(conversations=ids, outcome=Outcome.NOT_APPLICABLE, reason=exc.message)
    except SandboxError as exc:
        return CheckResult(
            conversations=ids, outcome=Outcome.ERROR, reason=_clip(f"{stage}: {_located(exc)}")
        )
    return _decide(compiled, interpreter, ids)


def _decide(compiled: CompiledRule, interpreter: Interpreter, ids: list[str]) -> CheckResult:
    try:
        value, explanation = explained_run(interpreter, compiled.then)
    except JudgeUnavailable as exc:
        return CheckResult(conversations=ids, outcome=Outcome.NOT_APPLICABLE, reason=exc.message)
    except SandboxError as exc:
        return CheckResult(
            conversations=ids,
            outcome=Outcome.ERROR,
            reason=_clip(f"then: {_located(exc)}"),
            message=_message(compiled, interpreter),
        )
    if value is True or (isinstance(value, Verdict) and value.ok):
        return CheckResult(conversations=ids, outcome=Outcome.PASS)
    if isinstance(value, Verdict):
        reason = value.reason or explanation or "the condition is false"
    elif value is False:
        reason = explanation or "the condition is false"
    elif isinstance(value, str):
        reason = value or "the condition returned an empty text"
    else:
        reason = f"the condition returned {_show(interpreter, value)} instead of True"
    return CheckResult(
        conversations=ids, outcome=Outcome.FAIL, reason=_clip(reason), message=_message(compiled, interpreter)
    )


def _message(compiled: CompiledRule, interpreter: Interpreter) -> str | None:
    rule = compiled.rule
    if rule.on_error is None:
        return None
    if rule.on_error_is_text or compiled.on_error is None:
        return rule.on_error.strip()
    try:
        value = interpreter.run(compiled.on_error)
    except SandboxError as exc:
        return f"(the on-error message could not be evaluated: {exc.message})"
    try:
        return _clip(interpreter.to_text(value))
    except SandboxError as exc:
        return f"(the on-error message could not be shown: {exc.message})"


def _located(exc: SandboxError) -> str:
    if exc.line is not None and exc.column is not None:
        return f"{exc.message} (expression line {exc.line}, column {exc.column})"
    return exc.message


def _clip(text: str) -> str:
    return text if len(text) <= MAX_REASON_CHARS else text[: MAX_REASON_CHARS - 1] + "…"


def _show(interpreter: Interpreter, value: Any) -> str:
    try:
        text = interpreter.to_text(value, repr_=True)
    except SandboxError:
        text = f"a large {type(value).__name__}"
    return text if len(text) <= 300 else text[:299] + "…"


# -- explaining a false result ---------------------------------------------------------------------------------


def explained_run(interpreter: Interpreter, program: Program) -> tuple[Any, str | None]:
    """Run `program`; when its last expression is false, also say why (the operands of a comparison…)."""
    result: tuple[Any, str | None] = interpreter.run(
        program, last=lambda node, scope: _explain(interpreter, program, node, scope)
    )
    return result


def _source(program: Program, node: ast.AST) -> str:
    return ast.get_source_segment(program.source, node) or "…"


def _explain(
    interpreter: Interpreter, program: Program, node: ast.expr, scope: Scope
) -> tuple[Any, str | None]:
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        left = interpreter.visit(node.left, scope)
        right = interpreter.visit(node.comparators[0], scope)
        try:
            holds = COMPARE[type(node.ops[0])](left, right)
        except SandboxError:
            raise
        except (TypeError, ValueError) as exc:
            raise EvaluationError(
                f"cannot compare {_source(program, node.left)} = {_show(interpreter, left)} with "
                f"{_source(program, node.comparators[0])} = {_show(interpreter, right)}: {exc}"
            ) from None
        if holds:
            return True, None
        parts = [f"{_source(program, node.left)} is {_show(interpreter, left)}"]
        if not isinstance(node.comparators[0], ast.Constant):
            parts.append(f"{_source(program, node.comparators[0])} is {_show(interpreter, right)}")
        return False, f"{_source(program, node)} is false: " + ", ".join(parts)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        operand = interpreter.visit(node.operand, scope)
        if not operand:
            return True, None
        detail = (
            operand.reason if isinstance(operand, Verdict) and operand.reason else _show(interpreter, operand)
        )
        return False, f"{_source(program, node.operand)} is {detail}"
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
        value: Any = True
        for operand_node in node.values:
            value, why = _explain(interpreter, program, operand_node, scope)
            if not value:
                if why is None and not isinstance(value, Verdict):
                    why = f"{_source(program, operand_node)} is {_show(interpreter, value)}"
                return value, why
        return value, None
    return interpreter.visit(node, scope), None

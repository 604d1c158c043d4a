"""The errors of SENSEI-check, each with a sentence the rule author can act on.

`RuleError` points at a rule file (line and column, 1-based) and carries a fix hint; `SandboxError` and its
subclasses are everything the expression interpreter refuses or cannot compute. The evaluator turns a
`SandboxError` raised while checking a conversation into an "error" outcome: it never stops the checker.
"""

from __future__ import annotations

from engine.errors import ParleyError


class CheckError(ParleyError):
    """Something about a check run: its rules, its conversations or its limits."""

    code = "check_error"


class RuleError(CheckError):
    """A rule file that cannot be used as written."""

    code = "rule_invalid"

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        column: int | None = None,
        hint: str | None = None,
    ) -> None:
        self.file = file
        self.line = line
        self.column = column
        self.hint = hint
        self.message = message
        where = file or "<rule>"
        if line is not None:
            where += f":{line}"
            if column is not None:
                where += f":{column}"
        text = f"{where}: {message}"
        if hint:
            text += f" (hint: {hint})"
        super().__init__(text)


class ConversationLoadError(CheckError):
    """Conversations that cannot be read (missing folder, nothing to check)."""

    code = "conversations_invalid"


class SandboxError(CheckError):
    """The rule expression was refused or failed; `line`/`column` are relative to the expression text."""

    code = "rule_expression_error"

    def __init__(self, message: str, *, line: int | None = None, column: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


class SandboxSyntaxError(SandboxError):
    """Not valid rule syntax, or a construct the rule language does not allow (imports, lambda, `__x`…)."""

    code = "rule_expression_refused"


class SandboxLimitError(SandboxError):
    """A limit was hit: evaluation steps, nesting depth, size of a string, list or number, CPU time."""

    code = "rule_limit_exceeded"


class EvaluationError(SandboxError):
    """The expression was allowed but failed on this conversation (unknown name, type mismatch, 1/0…)."""

    code = "rule_evaluation_error"


class AmbiguousNameError(EvaluationError):
    """A short name that means more than one thing in this conversation."""

    code = "rule_ambiguous_name"


class JudgeUnavailable(EvaluationError):
    """An LLM-backed function was called but no judge model was configured for the check."""

    code = "no_judge_model"

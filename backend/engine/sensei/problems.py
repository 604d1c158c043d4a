"""A problem found in a profile: severity, stable code, message, where (path, line, column) and how to fix it.

The CLI prints problems as `file:line:column: severity: message (hint)`; the platform's editor shows them inline,
so every problem carries the path of keys it concerns even when no line is known.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

Severity = Literal["error", "warning"]


class Problem(BaseModel):
    model_config = ConfigDict(frozen=True)

    severity: Severity
    code: str
    message: str
    path: str = ""  # dotted: "user.goals.2.size.function"
    line: int | None = None
    column: int | None = None
    hint: str | None = None
    file: str | None = None

    @classmethod
    def error(cls, code: str, message: str, **where: object) -> Problem:
        return cls.model_validate({"severity": "error", "code": code, "message": message, **where})

    @classmethod
    def warning(cls, code: str, message: str, **where: object) -> Problem:
        return cls.model_validate({"severity": "warning", "code": code, "message": message, **where})

    @classmethod
    def at(
        cls,
        severity: str,
        code: str,
        message: str,
        path: Sequence[str | int],
        position: tuple[int, int] | None,
        *,
        hint: str | None = None,
        file: str | None = None,
    ) -> Problem:
        """A problem at `path` (its keys joined with dots), on the line and column of `position` when known."""
        return cls.model_validate(
            {
                "severity": severity,
                "code": code,
                "message": message,
                "path": ".".join(str(p) for p in path),
                "line": position[0] if position else None,
                "column": position[1] if position else None,
                "hint": hint,
                "file": file,
            }
        )

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    def render(self) -> str:
        where = self.file or "profile"
        if self.line is not None:
            where += f":{self.line}:{self.column or 1}"
        text = f"{where}: {self.severity}: {self.message}"
        if self.path:
            text += f" [{self.path}]"
        if self.hint:
            text += f"\n    hint: {self.hint}"
        return text


def has_errors(problems: list[Problem]) -> bool:
    return any(p.is_error for p in problems)

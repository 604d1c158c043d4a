"""Rule files: the model, the loader (with file:line:column errors) and the JSON Schema for the web editor.

One YAML mapping per file::

    name: min_small_price                      # required, unique in the rule set
    description: small pizzas cost at least 10 USD   # required
    active: true                               # default true; inactive rules are skipped
    conversations: 1                           # 1 (default), k ≥ 2 (a relation over k conversations) or all
    ordered: false                             # k ≥ 2 only: permutations instead of combinations
    when: size == 'small'                      # filter (default True)
    if: ...                                    # antecedent: false means "not applicable" (default True)
    then: extract_float(price) >= 10           # or `oracle:`; may be several lines: assignments, then the value
    on-error: f"got {price}"                   # or `yields:`; an expression, or plain text if it is not one

Every expression is compiled by the sandbox when the file is loaded, so a syntax error or a refused construct
(`__import__`, `lambda`, `.__class__`…) is reported with the file, line and column where it is, before any
conversation is checked. `load_rules` reports every broken file at once.
"""

from __future__ import annotations

import ast
import difflib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.scalarstring import (
    DoubleQuotedScalarString,
    FoldedScalarString,
    LiteralScalarString,
    SingleQuotedScalarString,
)

from engine.check.errors import CheckError, RuleError, SandboxSyntaxError
from engine.check.sandbox import Program, SandboxLimits, compile_rule_code
from engine.yamlguard import YAMLRefused, guard_yaml

EXPRESSION_FIELDS = ("when", "if", "then", "on_error")
_KEYS = (
    "name",
    "description",
    "active",
    "conversations",
    "ordered",
    "when",
    "if",
    "then",
    "oracle",
    "on-error",
    "yields",
)
MAX_K = 10
MAX_RULE_FILE_BYTES = 256 * 1024


class Location(BaseModel):
    """Where an expression starts in its file, to turn a position inside it into a file position."""

    model_config = ConfigDict(frozen=True)

    line: int  # 1-based line of the value
    column: int  # 1-based column of the value
    block: bool = False  # `|` or `>` block scalar: the text starts on the next line
    indent: int = 0  # indentation of a block scalar's lines
    quoted: bool = False

    def at(self, line: int | None, column: int | None) -> tuple[int, int | None]:
        line = line or 1
        if self.block:
            return self.line + line, None if column is None else self.indent + column
        if line == 1:
            return self.line, None if column is None else self.column + column - 1 + int(self.quoted)
        return self.line + line - 1, column


class Rule(BaseModel):
    """One correctness rule, as loaded and validated."""

    model_config = ConfigDict(populate_by_name=True, frozen=True)

    name: str
    description: str
    active: bool = True
    conversations: int | Literal["all"] = 1
    ordered: bool = False
    when: str | None = None
    if_: str | None = Field(default=None, alias="if")
    then: str
    on_error: str | None = Field(default=None, alias="on-error")
    on_error_is_text: bool = False  # on-error is plain text, not an expression
    file: str | None = None
    locations: dict[str, Location] = Field(default_factory=dict)
    warnings: list[str] = Field(default_factory=list)

    @property
    def kind(self) -> Literal["single", "k", "global"]:
        if self.conversations == "all":
            return "global"
        return "single" if self.conversations == 1 else "k"

    @property
    def arity(self) -> int:
        return self.conversations if isinstance(self.conversations, int) else 0

    def expression(self, field: str) -> str | None:
        return {"when": self.when, "if": self.if_, "then": self.then, "on_error": self.on_error}[field]

    def compile(self, limits: SandboxLimits | None = None) -> CompiledRule:
        """The rule's programs; raises RuleError pointing into the file when an expression is refused."""
        programs: dict[str, Program | None] = {}
        for field in EXPRESSION_FIELDS:
            source = self.expression(field)
            if source is None or (field == "on_error" and self.on_error_is_text):
                programs[field] = None
                continue
            try:
                programs[field] = compile_rule_code(source, limits)
            except SandboxSyntaxError as exc:
                raise self._error_at(field, exc) from None
        then = programs["then"]
        assert then is not None
        return CompiledRule(self, programs["when"], programs["if"], then, programs["on_error"])

    def _error_at(self, field: str, exc: SandboxSyntaxError) -> RuleError:
        key = {"if": "if", "on_error": "on-error"}.get(field, field)
        location = self.locations.get(field)
        line, column = location.at(exc.line, exc.column) if location else (None, None)
        return RuleError(
            f"rule {self.name!r}, {key}: {exc.message}",
            file=self.file,
            line=line,
            column=column,
            hint=_HINTS.get(_hint_key(exc.message)),
        )


class CompiledRule:
    """A rule with its expressions compiled; what the evaluator runs."""

    def __init__(
        self, rule: Rule, when: Program | None, if_: Program | None, then: Program, on_error: Program | None
    ) -> None:
        self.rule = rule
        self.when = when
        self.if_ = if_
        self.then = then
        self.on_error = on_error


_HINTS = {
    "import": "rules can only call the functions of the rule library; see `parley check --list-functions`",
    "underscore": "names and attributes starting with '_' are reserved; use the rule's own names",
    "syntax": "expressions use Python syntax; quote text with '…' and check the brackets",
    "lambda": "write the condition directly, or use a comprehension like all(x > 0 for x in xs)",
}


def _hint_key(message: str) -> str:
    if "import" in message:
        return "import"
    if "'_'" in message or "'__'" in message:
        return "underscore"
    if message.startswith("not valid syntax"):
        return "syntax"
    if "lambda" in message:
        return "lambda"
    return ""


class RuleSetError(CheckError):
    """One or more rule files are invalid; `errors` has each one with its position."""

    code = "rule_invalid"

    def __init__(self, errors: list[RuleError]) -> None:
        self.errors = errors
        text = "\n".join(error.user_message for error in errors)
        count = len(errors)
        super().__init__(
            f"{count} problem{'s' if count != 1 else ''} in the rules:\n{text}" if count > 1 else text
        )


# -- loading ---------------------------------------------------------------------------------------------------


def _position(mapping: Any, key: str, *, value: bool) -> tuple[int | None, int | None]:
    try:
        line, column = mapping.lc.value(key) if value else mapping.lc.key(key)
    except (AttributeError, KeyError, TypeError):
        return None, None
    return line + 1, column + 1


def parse_rule(text: str, *, file: str | None = None, limits: SandboxLimits | None = None) -> Rule:
    """Validate one rule file's text; raises RuleError with the line and column of the first problem."""
    try:
        guard_yaml(text)
    except YAMLRefused as exc:
        raise RuleError(exc.user_message, file=file, line=exc.line, column=exc.column) from None
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    try:
        data = yaml.load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise RuleError(
            f"not valid YAML: {exc.problem or exc.context}",
            file=file,
            line=mark.line + 1 if mark else None,
            column=mark.column + 1 if mark else None,
            hint="check the indentation, and quote expressions that contain ': ' or start with a quote",
        ) from None
    except YAMLError as exc:
        raise RuleError(f"not valid YAML: {exc}", file=file) from None
    if not isinstance(data, dict):
        raise RuleError(
            "a rule file must be a mapping with name, description and then (or oracle)",
            file=file,
            line=1,
            column=1,
            hint="one rule per file; start with `name: my_rule`",
        )
    lines = text.splitlines()

    def fail(
        message: str, key: str | None = None, *, value: bool = True, hint: str | None = None
    ) -> RuleError:
        line, column = _position(data, key, value=value) if key else (1, 1)
        return RuleError(message, file=file, line=line, column=column, hint=hint)

    for key in data:
        if not isinstance(key, str) or key not in _KEYS:
            close = difflib.get_close_matches(str(key), _KEYS, n=1)
            raise fail(
                f"unknown key {key!r}",
                str(key) if isinstance(key, str) else None,
                value=False,
                hint=f"did you mean {close[0]!r}?" if close else f"allowed keys: {', '.join(_KEYS)}",
            )

    def text_value(key: str, *, required: bool = False) -> str | None:
        if key not in data or data[key] is None:
            if required:
                raise fail(f"missing required key {key!r}", hint=f"add `{key}: …`")
            return None
        value = data[key]
        if isinstance(value, bool):
            return "True" if value else "False"
        if isinstance(value, int | float) and key not in ("name", "description"):
            return str(value)
        if not isinstance(value, str):
            raise fail(f"{key!r} must be text, got {type(value).__name__}", key)
        return str(value)

    name = text_value("name", required=True)
    assert name is not None
    if not name.strip() or "\n" in name or len(name) > 200:
        raise fail("'name' must be one line of at most 200 characters", "name")
    description = text_value("description", required=True)
    assert description is not None

    active = data.get("active", True)
    if not isinstance(active, bool):
        raise fail("'active' must be true or false", "active")

    conversations: int | Literal["all"] = 1
    if "conversations" in data:
        raw = data["conversations"]
        if isinstance(raw, str) and raw.strip().lower() == "all":
            conversations = "all"
        elif isinstance(raw, int) and not isinstance(raw, bool) and 1 <= raw <= MAX_K:
            conversations = raw
        else:
            raise fail(
                f"'conversations' must be a number from 1 to {MAX_K} or 'all', got {raw!r}",
                "conversations",
                hint="1 checks each conversation, 2 compares pairs, all checks the whole set once",
            )
    ordered = data.get("ordered", False)
    if not isinstance(ordered, bool):
        raise fail("'ordered' must be true or false", "ordered")
    if ordered and not (isinstance(conversations, int) and conversations >= 2):
        raise fail("'ordered' only applies to rules over 2 or more conversations", "ordered")

    if "then" in data and "oracle" in data:
        raise fail("use either 'then' or 'oracle' (they mean the same), not both", "oracle", value=False)
    then_key = "then" if "then" in data else "oracle"
    then = text_value(then_key)
    if then is None:
        raise fail(
            "missing 'then' (or 'oracle'): the condition the conversations must satisfy",
            hint="add e.g. `then: data_collected()`",
        )
    if "on-error" in data and "yields" in data:
        raise fail("use either 'on-error' or 'yields' (they mean the same), not both", "yields", value=False)
    message_key = "on-error" if "on-error" in data else "yields"
    on_error = text_value(message_key)
    on_error_is_text = on_error is not None and not _parses(on_error)

    locations: dict[str, Location] = {}
    for field, key in (("when", "when"), ("if", "if"), ("then", then_key), ("on_error", message_key)):
        if key in data:
            locations[field] = _location(data, key, lines)

    warnings: list[str] = []
    if isinstance(conversations, int) and conversations >= 2 and not ordered and "if" in data:
        warnings.append(
            "this relation is checked once per unordered group of conversations; if it depends on their order "
            "(an `if` comparing conv[0] with conv[1] usually does), add `ordered: true`"
        )
    rule = Rule.model_validate(
        {
            "name": name.strip(),
            "description": description,
            "active": active,
            "conversations": conversations,
            "ordered": ordered,
            "when": text_value("when"),
            "if": text_value("if"),
            "then": then,
            "on-error": on_error,
            "on_error_is_text": on_error_is_text,
            "file": file,
            "locations": locations,
            "warnings": warnings,
        }
    )
    rule.compile(limits)  # reports refused or broken expressions now, with their position in the file
    return rule


def _parses(text: str) -> bool:
    try:
        ast.parse(text.strip())
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _location(data: Any, key: str, lines: list[str]) -> Location:
    line, column = _position(data, key, value=True)
    value = data[key]
    block = isinstance(value, LiteralScalarString | FoldedScalarString)
    indent = 0
    if block and line is not None:
        for raw in lines[line:]:
            if raw.strip():
                indent = len(raw) - len(raw.lstrip(" "))
                break
    quoted = isinstance(value, DoubleQuotedScalarString | SingleQuotedScalarString)
    return Location(line=line or 1, column=column or 1, block=block, indent=indent, quoted=quoted)


def load_rule_file(path: str | Path, *, limits: SandboxLimits | None = None) -> Rule:
    path = Path(path)
    try:
        if path.stat().st_size > MAX_RULE_FILE_BYTES:
            raise RuleError(f"the rule file is larger than {MAX_RULE_FILE_BYTES // 1024} KiB", file=str(path))
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise RuleError("the rule file is not UTF-8 text", file=str(path)) from None
    except OSError as exc:
        raise RuleError(f"cannot read the rule file: {exc.strerror}", file=str(path)) from None
    return parse_rule(text, file=str(path), limits=limits)


def rule_files(path: str | Path) -> list[Path]:
    """`*.yml`/`*.yaml` under a folder (recursively, skipping `__report__`-like folders), or the file itself."""
    root = Path(path)
    if root.is_file():
        return [root]
    if not root.is_dir():
        raise RuleError("no such file or folder", file=str(root))
    found = [
        item
        for item in sorted(root.rglob("*"))
        if item.suffix in (".yml", ".yaml")
        and item.is_file()
        and not any(part.startswith("__") and part.endswith("__") for part in item.relative_to(root).parts)
    ]
    return found


def load_rules(
    path: str | Path, *, include_inactive: bool = False, limits: SandboxLimits | None = None
) -> list[Rule]:
    """Every rule under `path`; raises RuleSetError listing every invalid file (and duplicate names)."""
    rules: list[Rule] = []
    errors: list[RuleError] = []
    files = rule_files(path)
    if not files:
        raise RuleSetError([RuleError("no rule files (*.yml, *.yaml) found", file=str(path))])
    seen: dict[str, str] = {}
    for file in files:
        try:
            rule = load_rule_file(file, limits=limits)
        except RuleError as exc:
            errors.append(exc)
            continue
        if rule.name in seen:
            errors.append(
                RuleError(
                    f"rule name {rule.name!r} is already used by {seen[rule.name]}",
                    file=str(file),
                    line=rule.locations.get("name", Location(line=1, column=1)).line,
                    hint="rule names identify rules in reports; make them unique",
                )
            )
            continue
        seen[rule.name] = str(file)
        if rule.active or include_inactive:
            rules.append(rule)
    if errors:
        raise RuleSetError(errors)
    return rules


def rule_json_schema() -> dict[str, Any]:
    """JSON Schema (draft 2020-12) of a rule file, for the web editor's validation and completion."""
    expression = {"type": ["string", "boolean"], "minLength": 1}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://parley.invalid/schemas/check-rule.json",
        "title": "Parley correctness rule",
        "type": "object",
        "additionalProperties": False,
        "required": ["name", "description"],
        "properties": {
            "name": {
                "type": "string",
                "minLength": 1,
                "maxLength": 200,
                "description": "rule id used in reports",
            },
            "description": {"type": "string", "description": "what the rule checks, for people"},
            "active": {"type": "boolean", "default": True, "description": "inactive rules are skipped"},
            "conversations": {
                "description": "1: each conversation; k: every group of k conversations; all: the whole set once",
                "default": 1,
                "oneOf": [
                    {"type": "integer", "minimum": 1, "maximum": MAX_K},
                    {"type": "string", "enum": ["all"]},
                ],
            },
            "ordered": {
                "type": "boolean",
                "default": False,
                "description": "rules over k ≥ 2 conversations: every order (permutations) instead of combinations",
            },
            "when": {**expression, "description": "filter: the rule only applies where this is true"},
            "if": {**expression, "description": "antecedent: when false the check is not applicable"},
            "then": {**expression, "description": "the condition that must hold (may be several lines)"},
            "oracle": {**expression, "description": "same as then"},
            "on-error": {
                "type": "string",
                "description": "message shown on failure (expression or plain text)",
            },
            "yields": {"type": "string", "description": "same as on-error"},
        },
        "oneOf": [{"required": ["then"]}, {"required": ["oracle"]}],
        "not": {"required": ["on-error", "yields"]},
    }

"""YAML with positions: parse a profile with ruamel.yaml's round-trip loader, keep where every key and item is.

`parse_yaml(text)` returns plain JSON-like data plus a `Locator` that maps a path of keys and indexes back to a
1-based (line, column); a syntax error becomes a `Problem` at the spot the parser stopped. Duplicate keys are a
syntax error here (a profile that says `number:` twice is ambiguous), not a silent last-one-wins.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ruamel.yaml.error import MarkedYAMLError, YAMLError

from engine.sensei.problems import Problem
from engine.yamldata import Locator, Position, locator, plain
from engine.yamlguard import YAMLRefused, load_yaml

Path = tuple[str | int, ...]


def no_position(path: Sequence[str | int]) -> Position | None:
    """The locator of data that did not come from a file (the platform's JSON, tests)."""
    return None


def parse_yaml(text: str, *, source: str = "profile") -> tuple[Any, Locator, list[Problem]]:
    """(plain data, locator, problems); on a syntax error the data is None and the problem says where."""
    try:
        document = load_yaml(text)
    except YAMLRefused as exc:
        problem = Problem.error(
            "yaml_refused", exc.user_message, line=exc.line, column=exc.column, file=source
        )
        return None, no_position, [problem]
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = Problem.error(
            "yaml_syntax",
            f"not valid YAML: {exc.problem or exc.context or exc}",
            line=mark.line + 1 if mark else None,
            column=mark.column + 1 if mark else None,
            hint="Check the indentation and quoting around this spot; duplicate keys are not allowed.",
            file=source,
        )
        return None, no_position, [problem]
    except YAMLError as exc:
        return None, no_position, [Problem.error("yaml_syntax", f"not valid YAML: {exc}", file=source)]
    return plain(document), locator(document), []

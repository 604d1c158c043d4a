"""Limits on YAML from users, checked before any parser builds objects from it.

A shared server must not let one upload exhaust memory: anchors and aliases (the "billion laughs" shape) are
refused outright, and documents are capped in bytes and in nodes. Syntax errors are left to the real parser,
which reports them with positions.
"""

from __future__ import annotations

from dataclasses import dataclass

import yaml

from engine.errors import ParleyError

MAX_BYTES = 1024 * 1024
MAX_NODES = 10_000


class YAMLRefused(ParleyError):
    code = "yaml_refused"

    def __init__(self, message: str, *, line: int | None = None, column: int | None = None) -> None:
        super().__init__(message)
        self.line = line
        self.column = column


@dataclass(frozen=True)
class YAMLLimits:
    max_bytes: int = MAX_BYTES
    max_nodes: int = MAX_NODES


def guard_yaml(text: str, limits: YAMLLimits | None = None) -> None:
    """Raise YAMLRefused when `text` is too large, has too many nodes, or uses anchors or aliases."""
    limits = limits or YAMLLimits()
    size = len(text.encode("utf-8"))
    if size > limits.max_bytes:
        raise YAMLRefused(f"The YAML is {size:,} bytes; at most {limits.max_bytes:,} are accepted.")
    nodes = 0
    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            line, column = _position(event)
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
                raise YAMLRefused(
                    "YAML anchors and aliases (&name / *name) are not accepted; write the values out.",
                    line=line,
                    column=column,
                )
            if isinstance(event, yaml.ScalarEvent | yaml.MappingStartEvent | yaml.SequenceStartEvent):
                nodes += 1
                if nodes > limits.max_nodes:
                    raise YAMLRefused(
                        f"The YAML has more than {limits.max_nodes:,} values; split it into smaller documents.",
                        line=line,
                        column=column,
                    )
    except yaml.YAMLError:
        return  # a syntax error: the document's own parser reports it with its position


def _position(event: yaml.Event) -> tuple[int | None, int | None]:
    mark = event.start_mark
    return (mark.line + 1, mark.column + 1) if mark is not None else (None, None)

"""The one way Parley reads YAML from users and chatbots: limits checked before any parser builds objects.

A shared server must not let one upload exhaust memory or CPU. Before ruamel.yaml composes a document, a streaming
pass over PyYAML's parse events checks its size in bytes, its nesting depth, and its number of values counting
what aliases expand to, so anchors for shared blocks work while the "billion laughs" shape is refused with the
line where it crosses the limit. Syntax errors are left to the real parser, which reports them with positions.
`load_yaml` is guard + parse; every YAML read in the engine goes through it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml
from ruamel.yaml import YAML

from engine.errors import ParleyError

MAX_BYTES = 1024 * 1024
MAX_NODES = 10_000
MAX_DEPTH = 64
MAX_ALIASES = 200


class YAMLRefused(ParleyError):
    code = "yaml_refused"

    def __init__(self, message: str, *, line: int | None = None, column: int | None = None) -> None:
        super().__init__(message)
        self.line = line
        self.column = column


@dataclass(frozen=True)
class YAMLLimits:
    max_bytes: int = MAX_BYTES
    max_nodes: int = MAX_NODES  # values after expanding aliases
    max_depth: int = MAX_DEPTH
    max_aliases: int = MAX_ALIASES


_NODE = (yaml.ScalarEvent, yaml.MappingStartEvent, yaml.SequenceStartEvent)
_COLLECTION_START = (yaml.MappingStartEvent, yaml.SequenceStartEvent)
_COLLECTION_END = (yaml.MappingEndEvent, yaml.SequenceEndEvent)


def guard_yaml(text: str, limits: YAMLLimits | None = None) -> None:
    """Raise YAMLRefused when `text` is too large, too deep, or expands (aliases included) to too many values."""
    limits = limits or YAMLLimits()
    size = len(text.encode("utf-8", errors="surrogatepass"))
    if size > limits.max_bytes:
        raise YAMLRefused(f"The YAML is {size:,} bytes; at most {limits.max_bytes:,} are accepted.")
    nodes = 0
    aliases = 0
    anchored: dict[str, int] = {}  # anchor -> values it stands for
    open_anchors: list[tuple[str | None, int]] = []  # per open collection: its anchor, the count at its start
    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            line, column = _position(event)
            if isinstance(event, yaml.AliasEvent):
                aliases += 1
                if aliases > limits.max_aliases:
                    raise YAMLRefused(
                        f"The YAML uses more than {limits.max_aliases} aliases (*name); write some values out.",
                        line=line,
                        column=column,
                    )
                nodes += anchored.get(event.anchor or "", 1)
            elif isinstance(event, _NODE):
                nodes += 1
                anchor = getattr(event, "anchor", None)
                if isinstance(event, _COLLECTION_START):
                    open_anchors.append((anchor, nodes - 1))
                    if len(open_anchors) > limits.max_depth:
                        raise YAMLRefused(
                            f"The YAML nests values more than {limits.max_depth} levels deep.",
                            line=line,
                            column=column,
                        )
                elif anchor:
                    anchored[anchor] = 1
            elif isinstance(event, _COLLECTION_END) and open_anchors:
                anchor, start = open_anchors.pop()
                if anchor:
                    anchored[anchor] = nodes - start
            if nodes > limits.max_nodes:
                raise YAMLRefused(
                    f"The YAML has more than {limits.max_nodes:,} values (aliases counted as what they repeat); "
                    "split it into smaller documents.",
                    line=line,
                    column=column,
                )
    except yaml.YAMLError:
        return  # a syntax error: the document's own parser reports it with its position


def load_yaml(text: str, *, round_trip: bool = True, limits: YAMLLimits | None = None) -> Any:
    """Guard, then parse one document: ruamel's round-trip form (keeps line and column positions) or plain
    safe data. Raises YAMLRefused, or ruamel's own YAMLError for a syntax error."""
    guard_yaml(text, limits)
    return YAML(typ="rt" if round_trip else "safe", pure=True).load(text)


def load_all_yaml(text: str, *, limits: YAMLLimits | None = None) -> list[Any]:
    """Every document of a multi-document text, as plain safe data (same guard, over the whole text)."""
    guard_yaml(text, limits)
    return list(YAML(typ="safe", pure=True).load_all(text))


def _position(event: yaml.Event) -> tuple[int | None, int | None]:
    mark = event.start_mark
    return (mark.line + 1, mark.column + 1) if mark is not None else (None, None)

"""Turning ruamel.yaml's round-trip values (kept for their line and column positions) into plain data, and
finding those positions again (`locator`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq

Position = tuple[int, int]
Locator = Callable[[Sequence[str | int]], Position | None]


def plain(node: Any) -> Any:
    """ruamel's containers and scalar subclasses as plain dicts, lists, str, int, float, bool and None."""
    if isinstance(node, dict):
        return {str(key): plain(value) for key, value in node.items()}
    if isinstance(node, list):
        return [plain(item) for item in node]
    if isinstance(node, bool) or node is None:
        return node
    if isinstance(node, int):
        return int(node)
    if isinstance(node, float):
        return float(node)
    return str(node)


def locator(root: Any) -> Locator:
    """Where a path of keys and indexes stands in the round-trip document `root`: the 1-based (line, column) of
    its deepest part found (the document's start when none is; None when `root` is no container)."""

    def locate(path: Sequence[str | int]) -> Position | None:
        node = root
        found: Position | None = None
        if isinstance(root, CommentedMap | CommentedSeq):
            found = (root.lc.line + 1, root.lc.col + 1)
        for part in path:
            if isinstance(node, CommentedMap) and part in node:
                line, column = node.lc.key(part)
                found, node = (line + 1, column + 1), node[part]
            elif isinstance(node, CommentedSeq) and isinstance(part, int) and 0 <= part < len(node):
                line, column = node.lc.item(part)
                found, node = (line + 1, column + 1), node[part]
            else:
                break
        return found

    return locate

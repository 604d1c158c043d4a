"""Turning ruamel.yaml's round-trip values (kept for their line and column positions) into plain data."""

from __future__ import annotations

from typing import Any


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

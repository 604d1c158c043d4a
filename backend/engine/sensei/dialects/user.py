"""The `user` section: language, role, context sentences and the one personality (by name or, CLI only, file).

Goals and variables are read by `variables`. A personality written as a sentence (`"personality: X"`, TRACER's
output) is read as a reference with a warning.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from typing import Any

from engine.sensei.dialects.reader import Path, Reader
from engine.sensei.dialects.variables import read_goals
from engine.sensei.personalities import personality_key
from engine.sensei.profile import UserSettings


def read_user(reader: Reader, value: Any, path: Path) -> UserSettings | None:
    if value is None:
        reader.error("missing", "the user section is required (role and goals)", path)
        return None
    data = reader.mapping(value, path, "user")
    if data is None:
        return None
    reader.unknown_keys(data, ["language", "role", "context", "goals", "ask_about", "personality"], path)
    language = reader.text(data.get("language"), (*path, "language"), "user.language") or "English"
    role = reader.text(data.get("role"), (*path, "role"), "user.role", required=True)
    personality, personality_context, context = _context(reader, data, path)
    goals_key = "goals"
    if "goals" not in data and "ask_about" in data:
        goals_key = "ask_about"
        reader.deprecated("ask_about", "goals", (*path, "ask_about"))
    goals, variables = read_goals(reader, data.get(goals_key), (*path, goals_key))
    if role is None:
        return None
    return UserSettings(
        language=language,
        role=role,
        personality=personality,
        personality_context=personality_context,
        context=context,
        goals=goals,
        variables=variables,
    )


def _context(reader: Reader, data: Mapping[str, Any], path: Path) -> tuple[str | None, list[str], list[str]]:
    raw = data.get("context")
    items: list[tuple[Any, Path]]
    if raw is None:
        items = []
    elif isinstance(raw, list):
        items = [(item, (*path, "context", i)) for i, item in enumerate(raw)]
    else:
        items = [(raw, (*path, "context"))]
    if "personality" in data:
        items.insert(0, ({"personality": data["personality"]}, (*path, "personality")))
    references: list[tuple[str, Path]] = []
    sentences: list[str] = []
    for item, where in items:
        if isinstance(item, dict):
            if set(item) != {"personality"}:
                reader.error("wrong_type", "a context mapping holds only `personality: <name>`", where)
                continue
            reference = reader.text(item["personality"], (*where, "personality"), "personality")
            if reference:
                references.append((reference, (*where, "personality")))
        elif isinstance(item, str):
            match = re.match(r"^\s*personality\s*:\s*(\S.*)$", item)
            if match:
                reader.warn(
                    "deprecated",
                    "a personality written as a sentence is read as a reference",
                    where,
                    f"Write `- personality: {personality_key(match.group(1))}`.",
                )
                references.append((match.group(1).strip(), where))
            elif item.strip():
                sentences.append(item.strip())
        elif item is not None:
            sentences.append(str(item))
    if len(references) > 1:
        reader.error("too_many_personalities", "a profile may use at most one personality", references[1][1])
    if not references:
        return None, [], sentences
    reference, where = references[0]
    found = reader.options.personalities.resolve(reference)
    if found is not None:
        return found.name, list(found.context), sentences
    if "/" in reference or "\\" in reference or reference.endswith((".yml", ".yaml")):
        if reader.local_file(f"the personality file {reference!r}", where):
            loaded = _personality_file(reader, reference, where)
            if loaded is not None:
                return personality_key(reference), loaded, sentences
            return None, [], sentences
        return None, [], sentences
    close = difflib.get_close_matches(personality_key(reference), reader.options.personalities.names(), n=1)
    reader.error(
        "unknown_personality",
        f"personality {reference!r} does not exist",
        where,
        f"Did you mean `{close[0]}`?"
        if close
        else f"Known personalities: {', '.join(reader.options.personalities.names())}.",
    )
    return None, [], sentences


def _personality_file(reader: Reader, reference: str, where: Path) -> list[str] | None:
    from engine.sensei.localfiles import read_personality_file

    try:
        return read_personality_file(reference, reader.options.base_dir)
    except (OSError, ValueError, TypeError) as exc:
        reader.error("unknown_personality", f"personality file {reference!r}: {exc}", where)
        return None

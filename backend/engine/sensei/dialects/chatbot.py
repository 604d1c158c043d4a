"""The `chatbot` section: who speaks first, fallback phrases, and the outputs to extract with their types."""

from __future__ import annotations

import re
from typing import Any

from engine.sensei.dialects.reader import Path, Reader
from engine.sensei.dialects.syntax import IDENTIFIER, call_parts
from engine.sensei.profile import SCALAR_OUTPUT_KINDS, ChatbotSettings, Output, OutputType

OUTPUT_ALIASES = {"str": "string", "text": "string", "currency": "money", "integer": "int", "boolean": "bool"}


def read_chatbot(reader: Reader, value: Any, path: Path, *, scripted: bool = False) -> ChatbotSettings | None:
    if value is None:
        reader.error("missing", "the chatbot section is required (fallback and output)", path)
        return None
    data = reader.mapping(value, path, "chatbot")
    if data is None:
        return None
    reader.unknown_keys(
        data,
        ["is_starter", "isStarter", "fallback", "fallbacks", "output", "outputs", "conversations"],
        path,
    )
    starter = True
    for key in ("is_starter", "isStarter"):
        if key in data:
            if key == "isStarter":
                reader.deprecated("isStarter", "is_starter", (*path, key))
            if not isinstance(data[key], bool):
                reader.error("wrong_type", f"{key} must be true or false", (*path, key))
            else:
                starter = data[key]
    fallbacks: list[str] = []
    for key in ("fallback", "fallbacks"):
        raw = data.get(key)
        items = raw if isinstance(raw, list) else ([] if raw is None else [raw])
        fallbacks += [str(item).strip() for item in items if str(item).strip()]
    if not fallbacks and not scripted:  # a script's checks need no fallback phrase
        reader.warn(
            "missing",
            "no fallback phrase: misunderstandings and loops cannot be detected",
            (*path, "fallback"),
            "Add `fallback:` with what the chatbot says when it does not understand.",
        )
    output_key = "output"
    if "output" not in data and "outputs" in data:
        output_key = "outputs"
        reader.deprecated("outputs", "output", (*path, "outputs"))
    outputs = _outputs(reader, data.get(output_key), (*path, output_key))
    return ChatbotSettings(is_starter=starter, fallback=fallbacks, outputs=outputs)


def _outputs(reader: Reader, value: Any, path: Path) -> list[Output]:
    entries: list[tuple[str, Any, Path]] = []
    if value is None:
        return []
    if isinstance(value, dict):
        entries = [(str(k), v, (*path, k)) for k, v in value.items()]
    elif isinstance(value, list):
        for i, item in enumerate(value):
            if isinstance(item, dict) and len(item) == 1:
                name, spec = next(iter(item.items()))
                entries.append((str(name), spec, (*path, i, name)))
            elif isinstance(item, dict) and item and next(iter(item.values())) is None:
                name = next(iter(item))
                entries.append((str(name), {k: v for k, v in item.items() if k != name}, (*path, i, name)))
            else:
                reader.error("wrong_type", "an output is `- <name>: {type, description}`", (*path, i))
    else:
        reader.error("wrong_type", "chatbot.output must be a list", path)
    outputs: list[Output] = []
    seen: set[str] = set()
    for name, spec, where in entries:
        if not IDENTIFIER.match(name):
            reader.error("bad_name", f"output name {name!r} is not an identifier", where)
            continue
        if name in seen:
            reader.error("duplicate_output", f"output `{name}` is defined twice", where)
            continue
        seen.add(name)
        data = reader.mapping(spec, where, f"output {name}")
        if data is None:
            continue
        reader.unknown_keys(data, ["type", "description"], where)
        out_type = read_output_type(reader, str(data.get("type") or "string"), (*where, "type"))
        description = reader.text(data.get("description"), (*where, "description"), f"description of {name}")
        if description is None:
            reader.error(
                "missing", f"output `{name}` needs a description (it is the extraction prompt)", where
            )
            continue
        if out_type is not None:
            outputs.append(Output(name=name, type=out_type, description=description))
    return outputs


def read_output_type(reader: Reader, raw: str, path: Path) -> OutputType | None:
    text = raw.strip()
    lowered = text.lower()
    list_match = re.match(r"^list\s*\[(.+)\]$", text, re.IGNORECASE)
    if list_match:
        item = read_output_type(reader, list_match.group(1), path)
        if item is None:
            return None
        if item.kind == "list":
            reader.error("unknown_type", "lists of lists are not supported", path)
            return None
        return OutputType(kind="list", item=item)
    enum_match = re.match(r"^enum\s*[\[(](.+)[\])]$", text, re.IGNORECASE)
    if enum_match:
        values = [v.strip().strip("\"'") for v in enum_match.group(1).split(",") if v.strip()]
        if not values:
            reader.error("unknown_type", "an enum needs at least one value", path)
            return None
        return OutputType(kind="enum", values=values)
    parts = call_parts(text)
    if parts is not None and parts[0] in ("time", "date", "datetime"):
        return OutputType(kind=parts[0], format=", ".join(parts[1]) or None)  # type: ignore[arg-type]
    if lowered in OUTPUT_ALIASES:
        canonical = OUTPUT_ALIASES[lowered]
        if lowered == "str":
            reader.deprecated("str", "string", path)
        elif lowered == "currency" and reader.options.types.get("currency") is not None:
            reader.use_type("currency")
            return OutputType(kind="custom", name="currency")
        return OutputType(kind=canonical)  # type: ignore[arg-type]
    if lowered in SCALAR_OUTPUT_KINDS:
        return OutputType(kind=lowered)  # type: ignore[arg-type]
    if reader.use_type(text) is not None:
        return OutputType(kind="custom", name=text)
    known = [*SCALAR_OUTPUT_KINDS, "list[T]", "enum[a, b]"]
    reader.error(
        "unknown_type",
        f"output type {raw!r} does not exist",
        path,
        f"Use one of {', '.join(known)} or a custom type.",
    )
    return None

"""The `llm` section: the model playing the user, its temperature, and text or speech format (`audio` is old)."""

from __future__ import annotations

from typing import Any, Literal

from engine.llm.capabilities import temperature_note
from engine.sensei.dialects.reader import Path, Reader
from engine.sensei.profile import LLMSettings


def read_llm(reader: Reader, value: Any, path: Path) -> LLMSettings | None:
    data = reader.mapping(value, path, "llm")
    if data is None:
        return None
    reader.unknown_keys(data, ["model", "model_prov", "provider", "temperature", "format"], path)
    model = reader.text(data.get("model"), (*path, "model"), "llm.model")
    provider = reader.text(data.get("provider"), (*path, "provider"), "llm.provider")
    if "model_prov" in data:
        provider = reader.text(data.get("model_prov"), (*path, "model_prov"), "llm.model_prov")
    temperature = 0.8
    if data.get("temperature") is not None:
        heat = reader.number(data["temperature"], (*path, "temperature"), "llm.temperature")
        if heat is not None and heat > 1.0:
            reader.warn(
                "out_of_range",
                "temperature above 1.0 makes the simulated user erratic",
                (*path, "temperature"),
                "Use a value between 0.0 and 1.0.",
            )
        temperature = min(heat, 2.0) if heat is not None else 0.8
        # Reasoning models (gpt-5, o1/o3/o4) refuse any temperature but their default: say what will be sent.
        if heat is not None and (note := temperature_note(provider or "openai", model or "", heat)):
            reader.warn(
                "temperature_refused",
                note,
                (*path, "temperature"),
                "Remove llm.temperature, or choose a model that accepts one (gpt-4.1-mini, gpt-4o-mini).",
            )
    kind: Literal["text", "speech"] = "text"
    config = None
    fmt = data.get("format")
    if isinstance(fmt, str):
        fmt = {"type": fmt}
    fmt_data = reader.mapping(fmt, (*path, "format"), "llm.format") or {}
    reader.unknown_keys(fmt_data, ["type", "config"], (*path, "format"))
    raw_kind = str(fmt_data.get("type") or "text").strip().lower()
    if raw_kind == "audio":
        reader.deprecated("audio", "speech", (*path, "format", "type"))
        raw_kind = "speech"
    if raw_kind == "speech":
        kind = "speech"
    if raw_kind not in ("text", "speech"):
        reader.error(
            "unknown_value", f"format type {raw_kind!r} is not text or speech", (*path, "format", "type")
        )
    elif raw_kind == "speech" and reader.local_file(
        "speech mode (microphone and speakers)", (*path, "format", "type")
    ):
        reader.warn(
            "unsupported",
            "speech mode is not supported yet; the conversation runs as text",
            (*path, "format", "type"),
        )
    if fmt_data.get("config") is not None and reader.local_file(
        "llm.format.config (a local file)", (*path, "format", "config")
    ):
        config = str(fmt_data["config"])
        if raw_kind == "text":
            reader.warn("ignored", "format.config only matters for speech mode", (*path, "format", "config"))
    return LLMSettings(
        model=model, provider=provider, temperature=temperature, format=kind, format_config=config
    )

"""Structured output: asking for a pydantic model in the best way the server supports, and reading the answer
tolerantly but validating it strictly.

Four ways to ask, best first (`capabilities.Family.structured`; a refused one is learned per run):
- `json_schema`: a JSON-schema response format;
- `tool_calling`: one forced tool call whose parameters are the schema;
- `json_object`: JSON mode, with the schema in the instructions (and, for local servers, also beside the type:
  llama.cpp's servers constrain the answer to `{"type": "json_object", "schema": …}`; others ignore the key);
- `instructions`: the schema in the instructions only (servers and models with no JSON mode at all).
The schema is named after the caller tag. Whatever the way, the answer is read tolerantly — a Markdown code fence,
prose around the JSON, trailing commas, raw line breaks inside strings, keys in another casing ("Answered",
"isFallback") — and then validated by
pydantic against the same schema; a violation gets one repair attempt (the client's job).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from engine.llm.capabilities import StructuredMethod
from engine.llm.messages import Message, assistant, user

Method = StructuredMethod
ModelT = TypeVar("ModelT", bound=BaseModel)
_MAX_PROBLEMS = 20
_FENCE = re.compile(r"```[ \t]*[A-Za-z0-9_-]*[ \t]*\n(.*?)```", re.DOTALL)
_MAX_CANDIDATES = 8

SCHEMA_INSTRUCTION = (
    "Answer with one JSON value that satisfies the following JSON schema, and nothing else: no prose, no "
    "Markdown.\nJSON schema:\n{schema}"
)


def schema_name(tag: str) -> str:
    """OpenAI accepts `^[a-zA-Z0-9_-]{1,64}$` as a schema or function name: "tracer.extract" → "tracer_extract"."""
    name = re.sub(r"[^A-Za-z0-9_-]", "_", tag)[:64]
    return name or "response"


def _description(schema: type[BaseModel], tag: str) -> str:
    return (schema.__doc__ or "").strip() or f"The answer for {tag}."


def request_kwargs(
    schema: type[BaseModel], tag: str, method: Method, *, schema_in_json_object: bool = False
) -> dict[str, Any]:
    """The extra chat-completions fields that ask for `schema` (none for the instructions-only way)."""
    name = schema_name(tag)
    parameters = schema.model_json_schema()
    if method == "json_schema":
        # strict=False: strict mode rejects optional fields and defaults, which ordinary pydantic models
        # have; the answer is validated anyway and a violation gets the repair attempt.
        spec = {"name": name, "description": _description(schema, tag), "schema": parameters, "strict": False}
        return {"response_format": {"type": "json_schema", "json_schema": spec}}
    if method == "tool_calling":
        function = {"name": name, "description": _description(schema, tag), "parameters": parameters}
        return {
            "tools": [{"type": "function", "function": function}],
            "tool_choice": {"type": "function", "function": {"name": name}},
        }
    if method == "json_object":
        if schema_in_json_object:
            return {"response_format": {"type": "json_object", "schema": parameters}}
        return {"response_format": {"type": "json_object"}}
    return {}


def with_schema_instruction(
    messages: Sequence[Message], schema: type[BaseModel], method: Method
) -> list[Message]:
    """For the ways that do not carry the schema in the request, put it into the last user message."""
    convo = list(messages)
    if method not in ("json_object", "instructions"):
        return convo
    text = SCHEMA_INSTRUCTION.format(schema=json.dumps(schema.model_json_schema(), ensure_ascii=False))
    if convo and convo[-1].role == "user":
        convo[-1] = user(f"{convo[-1].content}\n\n{text}")
    else:
        convo.append(user(text))
    return convo


# -- reading the answer ----------------------------------------------------------------------------------------


def parse(schema: type[ModelT], raw: str) -> ModelT:
    """The answer as a validated `schema`; raises pydantic's `ValidationError` (invalid JSON included).

    Read tolerantly: the whole text or the JSON inside it (code fence, prose around it, trailing commas), with
    its keys matched to the schema's field names regardless of casing and separators — always, because a key in
    another spelling would otherwise be dropped silently as an unknown field. Values are never changed."""
    json_schema = schema.model_json_schema()
    best: ValidationError | None = None
    for candidate in [raw.strip(), *_candidates(raw)]:
        data = _loads(candidate)
        if data is _NOT_JSON:
            continue
        data = _unwrap(_match_keys(data, json_schema, json_schema), json_schema)
        try:
            # Validated from JSON text, so JSON-mode rules apply exactly as for a strict answer.
            return schema.model_validate_json(json.dumps(data, ensure_ascii=False))
        except ValidationError as error:
            if best is None or error.error_count() < best.error_count():
                best = error
    if best is not None:
        raise best
    return schema.model_validate_json(raw.strip())  # no JSON anywhere: pydantic says so


_NOT_JSON = object()


def _loads(text: str) -> Any:
    for attempt in (text, _without_trailing_commas(text)):
        try:
            # strict=False: a raw line break inside a string (small local models write them, even under a
            # grammar) is read as the line break it means.
            return json.loads(attempt, strict=False)
        except ValueError:
            continue
    return _NOT_JSON


def _candidates(raw: str) -> Iterator[str]:
    """Pieces of `raw` that may be the JSON answer, most likely first."""
    seen: set[str] = set()
    found = [match.group(1).strip() for match in _FENCE.finditer(raw)]
    found += list(_balanced(raw))
    for text in found[:_MAX_CANDIDATES]:
        if text and text not in seen:
            seen.add(text)
            yield text


def _balanced(text: str) -> Iterator[str]:
    """Every top-level `{…}` or `[…]` span of `text`, respecting strings, in order."""
    index = 0
    while index < len(text):
        start = next((i for i in range(index, len(text)) if text[i] in "{["), None)
        if start is None:
            return
        end = _closing(text, start)
        if end is None:
            index = start + 1
            continue
        yield text[start : end + 1]
        index = end + 1


def _closing(text: str, start: int) -> int | None:
    depth, in_string, escaped = 0, False, False
    for i in range(start, len(text)):
        char = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                return i
    return None


def _without_trailing_commas(text: str) -> str:
    out: list[str] = []
    in_string, escaped = False, False
    for i, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
            out.append(char)
            continue
        if char == '"':
            in_string = True
        elif char == ",":
            rest = text[i + 1 :].lstrip()
            if rest[:1] in ("}", "]"):
                continue
        out.append(char)
    return "".join(out)


def _key(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _resolve(root: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    for _ in range(16):
        ref = node.get("$ref")
        if not isinstance(ref, str) or not ref.startswith("#/"):
            return node
        target: Any = root
        for part in ref.removeprefix("#/").split("/"):
            target = target.get(part, {}) if isinstance(target, dict) else {}
        node = target if isinstance(target, dict) else {}
    return node


def _branches(root: dict[str, Any], node: dict[str, Any]) -> list[dict[str, Any]]:
    node = _resolve(root, node)
    options = node.get("anyOf") or node.get("oneOf") or node.get("allOf")
    if isinstance(options, list):
        return [b for option in options if isinstance(option, dict) for b in _branches(root, option)]
    return [node]


def _match_keys(data: Any, node: dict[str, Any], root: dict[str, Any]) -> Any:
    """`data` with object keys renamed to the schema's spelling where they differ only in case or separators."""
    branches = _branches(root, node)
    if isinstance(data, dict):
        properties: dict[str, Any] = {}
        for branch in branches:
            if isinstance(branch.get("properties"), dict):
                properties.update(branch["properties"])
        if not properties:
            return data
        by_key = {_key(name): name for name in properties}
        renamed: dict[str, Any] = {}
        for name, value in data.items():
            target = str(name) if name in properties else by_key.get(_key(str(name)), str(name))
            if target in renamed and target != name:
                continue  # the exact spelling wins over a look-alike
            sub = properties.get(target)
            renamed[target] = _match_keys(value, sub, root) if isinstance(sub, dict) else value
        return renamed
    if isinstance(data, list):
        items = next((b["items"] for b in branches if isinstance(b.get("items"), dict)), None)
        return [_match_keys(item, items, root) for item in data] if items else data
    return data


def _unwrap(data: Any, root: dict[str, Any]) -> Any:
    """`{"Verdict": {...}}` or `{"properties": {...}}` around the real object: some local models add one."""
    properties = root.get("properties")
    if not isinstance(data, dict) or len(data) != 1 or not isinstance(properties, dict):
        return data
    ((name, inner),) = data.items()
    if name in properties or not isinstance(inner, dict):
        return data
    if any(_key(k) in {_key(p) for p in properties} for k in inner):
        return _match_keys(inner, root, root)
    return data


def message_text(text: str | None) -> str:
    return text or ""


def describe_problems(error: ValidationError) -> str:
    lines = []
    for problem in error.errors(include_url=False)[:_MAX_PROBLEMS]:
        where = ".".join(str(part) for part in problem["loc"]) or "(the whole answer)"
        lines.append(f"- {where}: {problem['msg']}")
    if error.error_count() > _MAX_PROBLEMS:
        lines.append(f"- … and {error.error_count() - _MAX_PROBLEMS} more")
    return "\n".join(lines)


REPAIR_INSTRUCTION = (
    "That answer cannot be used: it is not valid against the required JSON schema.\n"
    "What is wrong:\n{problems}\n"
    "Answer again with one JSON value that satisfies the schema, and nothing else."
)


def repair_messages(messages: Sequence[Message], raw: str, problems: str) -> list[Message]:
    """The original conversation, the faulty answer, and what was wrong with it."""
    return [*messages, assistant(raw or "(empty answer)"), user(REPAIR_INSTRUCTION.format(problems=problems))]

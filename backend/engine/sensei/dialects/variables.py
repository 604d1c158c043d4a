"""`user.goals`: goal sentences and variable definitions (name, `function` selector, type), in every dialect.

Accepts one mixed list, the paper's `{templates, inputs}` and the old `ask_about`. A variable's `data` is read
by `data`.
"""

from __future__ import annotations

from typing import Any

from engine.sensei.dialects.data import VARIABLE_TYPES, read_data
from engine.sensei.dialects.reader import Path, Reader
from engine.sensei.dialects.syntax import IDENTIFIER, call_parts
from engine.sensei.profile import Selector, Variable


def read_goals(reader: Reader, value: Any, path: Path) -> tuple[list[str], list[Variable]]:
    entries: list[tuple[Any, Path]] = []
    if isinstance(value, dict):
        # The paper: goals: {templates: [...], inputs: [...]}
        reader.warn(
            "deprecated",
            "`goals` with `templates` and `inputs` is the paper's spelling",
            path,
            "Write one `goals:` list mixing goal strings and variable definitions.",
        )
        reader.unknown_keys(value, ["templates", "inputs"], path)
        for key in ("templates", "inputs"):
            part = value.get(key) or []
            if not isinstance(part, list):
                reader.error("wrong_type", f"goals.{key} must be a list", (*path, key))
                continue
            entries += [(item, (*path, key, i)) for i, item in enumerate(part)]
    elif isinstance(value, list):
        entries = [(item, (*path, i)) for i, item in enumerate(value)]
    elif value is None:
        reader.error("missing", "user.goals is required: at least one goal", path)
    else:
        reader.error("wrong_type", "user.goals must be a list of goals and variables", path)
    goals: list[str] = []
    variables: list[Variable] = []
    seen: set[str] = set()
    for item, where in entries:
        if isinstance(item, str | int | float) and not isinstance(item, bool):
            if str(item).strip():
                goals.append(str(item).strip())
        elif isinstance(item, dict):
            if not item:
                reader.error(
                    "wrong_type",
                    "an empty mapping is neither a goal nor a variable",
                    where,
                    "Write a goal sentence, or a variable such as "
                    "`- size: {function: forward(), type: string, data: [small, large]}`.",
                )
                continue
            if len(item) != 1:
                # `- size:` followed by keys at the same level parses as one mapping with extra keys.
                name = next(iter(item))
                rest = {k: v for k, v in item.items() if k != name}
                if item[name] is None and set(rest) <= {"function", "selector", "type", "data"}:
                    item = {name: rest}
                else:
                    reader.error(
                        "wrong_type", "a variable is a mapping with exactly one key, its name", where
                    )
                    continue
            name, spec = next(iter(item.items()))
            variable = _variable(reader, str(name), spec, (*where, name))
            if variable is None:
                continue
            if variable.name in seen:
                reader.error(
                    "duplicate_variable", f"variable `{variable.name}` is defined twice", (*where, name)
                )
                continue
            seen.add(variable.name)
            variables.append(variable)
        else:
            reader.error("wrong_type", "a goal is a sentence or a variable definition", where)
    if not goals and value is not None:
        reader.error(
            "missing",
            "user.goals has no goal sentence",
            path,
            "Add at least one sentence saying what the user wants.",
        )
    return goals, variables


def _variable(reader: Reader, name: str, value: Any, path: Path) -> Variable | None:
    if not IDENTIFIER.match(name):
        reader.error(
            "bad_name",
            f"variable name {name!r} is not an identifier",
            path,
            "Use letters, digits and underscores, starting with a letter.",
        )
        return None
    data = reader.mapping(value, path, f"variable {name}")
    if data is None:
        return None
    reader.unknown_keys(data, ["function", "selector", "type", "data"], path)
    function_key = "function"
    if "function" not in data and "selector" in data:
        function_key = "selector"
        reader.deprecated("selector", "function", (*path, "selector"))
    selector = _selector(reader, data.get(function_key), (*path, function_key), name)
    raw_type = str(data.get("type") or "").strip()
    if not raw_type:
        reader.error(
            "missing", f"variable `{name}` needs a type", path, "Add `type: string` (or int, float)."
        )
        raw_type = "string"
    if raw_type == "str":
        reader.deprecated("str", "string", (*path, "type"))
        raw_type = "string"
    if raw_type not in VARIABLE_TYPES:
        custom = reader.options.types.get(raw_type)
        if custom is None:
            reader.error(
                "unknown_type",
                f"variable type {raw_type!r} does not exist",
                (*path, "type"),
                f"Use one of {', '.join(VARIABLE_TYPES)} or a custom type "
                f"({', '.join(reader.options.types.names()) or 'none defined'}).",
            )
            return None
        reader.use_type(raw_type)
    generator = read_data(reader, data.get("data"), (*path, "data"), raw_type, name)
    if selector is None or generator is None:
        return None
    return Variable(name=name, selector=selector, type=raw_type, data=generator)


def _selector(reader: Reader, value: Any, path: Path, variable: str) -> Selector | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        reader.warn(
            "missing",
            f"variable `{variable}` has no function; using default() (the whole list)",
            path,
            "Write `function: forward()` to try one value per conversation.",
        )
        return Selector(kind="default")
    parts = call_parts(str(value))
    if parts is None:
        parts = (str(value).strip().lower(), [])
    kind, args = parts
    hint = (
        "Use default(), random(), random(n), random(rand), another(), another(n), forward(), "
        "forward(n), forward(<variable>) or pairwise()."
    )
    if kind not in ("default", "random", "another", "forward", "pairwise") or len(args) > 1:
        reader.error("unknown_function", f"{value!r} is not a known function", path, hint)
        return None
    arg = args[0] if args else ""
    if not arg:
        return Selector(kind=kind)  # type: ignore[arg-type]
    if kind in ("default", "pairwise"):
        reader.error("unknown_function", f"{kind}() takes no argument", path, hint)
        return None
    if arg.isdigit():
        if int(arg) < 1:
            reader.error("out_of_range", f"{kind}({arg}) must pick at least one value", path)
            return None
        return Selector(kind=kind, count=int(arg))  # type: ignore[arg-type]
    if kind == "random" and arg == "rand":
        return Selector(kind="random", count="rand")
    if kind == "forward" and IDENTIFIER.match(arg):
        return Selector(kind="forward", depends_on=arg)
    reader.error("unknown_function", f"{value!r}: unexpected argument {arg!r}", path, hint)
    return None

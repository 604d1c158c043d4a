"""The features that touch the local machine: personality files given by path and custom-function generators.

Only reachable when a profile was loaded with `allow_local_files=True` (the CLI's `--allow-local-files`); the
platform never sets it, so a profile stored in a workspace can neither read the server's files nor run code
on it. Custom functions are imported from the named Python file and called with the profile's arguments —
that is running the user's own code, on the user's own machine, which is why it stays behind the flag.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from engine.sensei.profile import FunctionData, Scalar
from engine.yamlguard import load_yaml

MAX_VALUES = 100_000


def _resolve(reference: str, base_dir: Path | None) -> Path:
    path = Path(reference).expanduser()
    if not path.is_absolute() and base_dir is not None and (base_dir / path).exists():
        path = base_dir / path
    for candidate in (path, path.with_suffix(".yml"), path.with_suffix(".yaml")):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"{reference} not found")


def read_personality_file(reference: str, base_dir: Path | None) -> list[str]:
    """The `context` sentences of a personality YAML file (`name`, `context: [...]`)."""
    path = _resolve(reference, base_dir)
    data = load_yaml(path.read_text(encoding="utf-8"), round_trip=False)
    context = data.get("context") if isinstance(data, dict) else None
    if not isinstance(context, list) or not all(isinstance(item, str) for item in context):
        raise TypeError("a personality file needs `context:` with a list of sentences")
    return [item.strip() for item in context if item.strip()]


def call_function_generator(spec: FunctionData, base_dir: Path | None) -> list[Scalar]:
    """Import `spec.file` and return `spec.function_name(*args, **kwargs)` as a list of values."""
    path = _resolve(spec.file, base_dir)
    module_spec = importlib.util.spec_from_file_location(f"parley_user_generator_{path.stem}", path)
    if module_spec is None or module_spec.loader is None:
        raise ValueError(f"{spec.file} is not a Python file")
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    function = getattr(module, spec.function_name, None)
    if not callable(function):
        raise TypeError(f"{spec.file} has no function {spec.function_name!r}")
    args: list[Any] = [a for a in spec.args if not isinstance(a, dict)]
    kwargs: dict[str, Any] = {}
    for item in spec.args:
        if isinstance(item, dict):
            kwargs.update(item)
    values = function(*args, **kwargs)
    if not isinstance(values, list | tuple):
        raise TypeError(f"{spec.function_name} returned {type(values).__name__}, not a list")
    if len(values) > MAX_VALUES:
        raise ValueError(f"{spec.function_name} returned more than {MAX_VALUES} values")
    return [v if isinstance(v, str | int | float | bool) else str(v) for v in values]

"""A variable's `data`: value lists (with `any(...)` requests), numeric ranges, date generators, functions.

Each value is checked against the variable's type; custom types are matched with a timeout. Custom-function
generators need `allow_local_files`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from engine.sensei.dialects.reader import Path, Reader
from engine.sensei.dialects.syntax import any_request
from engine.sensei.profile import (
    AnyRequest,
    DateData,
    DateRange,
    FunctionData,
    Generator,
    ListData,
    RangeData,
)
from engine.sensei.types import PatternError, PatternTimeout

VARIABLE_TYPES = ("string", "int", "float", "date")


def read_data(reader: Reader, value: Any, path: Path, var_type: str, name: str) -> Generator | None:
    if value is None:
        reader.error("missing", f"variable `{name}` needs data", path, "Give a list of values or {min, max}.")
        return None
    if isinstance(value, list):
        return _list_data(reader, value, path, var_type, name)
    if not isinstance(value, dict):
        return _list_data(reader, [value], path, var_type, name)
    if "date" in value:
        return _date_data(reader, value, path)
    if {"file", "function_name"} & set(value):
        reader.unknown_keys(value, ["file", "function_name", "args"], path)
        if not reader.local_file("a custom-function generator", path):
            return None
        args = value.get("args")
        arg_list = args if isinstance(args, list) else ([] if args is None else [args])
        if not value.get("file") or not value.get("function_name"):
            reader.error("missing", "a custom-function generator needs `file` and `function_name`", path)
            return None
        return FunctionData(file=str(value["file"]), function_name=str(value["function_name"]), args=arg_list)
    if "min" in value or "max" in value:
        return _range_data(reader, value, path, var_type, name)
    reader.error("wrong_type", f"data of `{name}` is neither a list, a range, dates nor a function", path)
    return None


def _list_data(reader: Reader, items: list[Any], path: Path, var_type: str, name: str) -> ListData | None:
    if not items:
        reader.error("empty_data", f"variable `{name}` has an empty list", path)
        return None
    values: list[Any] = []
    requests: list[AnyRequest] = []
    custom = reader.options.types.get(var_type) if var_type not in VARIABLE_TYPES else None
    for i, item in enumerate(items):
        where = (*path, i)
        if isinstance(item, str) and (request := any_request(item)) is not None:
            if var_type in ("int", "float"):
                reader.error(
                    "wrong_data",
                    f"any() cannot generate {var_type} values",
                    where,
                    "Use a numeric range {min, max, step} instead.",
                )
            requests.append(request)
            continue
        if isinstance(item, dict | list) or item is None:
            reader.error("wrong_data", f"list items of `{name}` must be single values", where)
            continue
        if var_type == "int" and (isinstance(item, bool) or not isinstance(item, int)):
            reader.error("wrong_data", f"{item!r} is not a whole number but `{name}` is int", where)
            continue
        if var_type == "float" and (isinstance(item, bool) or not isinstance(item, int | float)):
            reader.error("wrong_data", f"{item!r} is not a number but `{name}` is float", where)
            continue
        if var_type in ("string", "date") or custom is not None:
            item = str(item)
        if var_type == "date" and not re.match(r"^\d{4}-\d{2}-\d{2}$", item):
            reader.warn("wrong_data", f"{item!r} is not an ISO date (YYYY-MM-DD)", where)
        if custom is not None:
            try:
                ok = custom.matches(item)
            except PatternTimeout:
                reader.error(
                    "regex_timeout",
                    f"checking {item!r} against type {custom.name} timed out",
                    where,
                    "Simplify the type's regular expression.",
                )
                continue
            except PatternError as exc:
                reader.error("bad_regex", f"type {custom.name}: {exc}", where)
                continue
            if not ok:
                reader.error(
                    "wrong_data",
                    f"{item!r} does not match type {custom.name} ({custom.format})",
                    where,
                    custom.description or None,
                )
                continue
        values.append(float(item) if var_type == "float" else item)
    return ListData(items=values, any=requests)


def _range_data(
    reader: Reader, data: Mapping[str, Any], path: Path, var_type: str, name: str
) -> RangeData | None:
    reader.unknown_keys(data, ["min", "max", "step", "linspace"], path)
    if var_type not in ("int", "float"):
        reader.error(
            "wrong_data",
            f"a numeric range needs type int or float, not {var_type}",
            (*path,),
            f"Set `type: int` on `{name}`.",
        )
        return None
    low = reader.number(data.get("min"), (*path, "min"), "min", minimum=-math.inf)
    high = reader.number(data.get("max"), (*path, "max"), "max", minimum=-math.inf)
    if low is None or high is None:
        if data.get("min") is None or data.get("max") is None:
            reader.error("missing", "a range needs both min and max", path)
        return None
    if high < low:
        reader.error("out_of_range", f"max ({high:g}) is below min ({low:g})", (*path, "max"))
        return None
    step = None
    linspace = None
    if data.get("step") is not None:
        step = reader.number(data["step"], (*path, "step"), "step", minimum=0.0)
        if step == 0:
            reader.error("out_of_range", "step must be greater than 0", (*path, "step"))
            return None
        if step is None:
            return None
    if data.get("linspace") is not None:
        if var_type != "float":
            reader.error("wrong_data", "linspace only applies to float ranges", (*path, "linspace"))
            return None
        linspace = reader.integer(data["linspace"], (*path, "linspace"), "linspace", minimum=2)
        if linspace is None:
            return None
    if var_type == "int":
        for key, number in (("min", low), ("max", high), ("step", step)):
            if number is not None and not float(number).is_integer():
                reader.error("wrong_data", f"{key} must be a whole number for an int range", (*path, key))
                return None
        step = step or 1.0
    elif step is None and linspace is None:
        reader.error(
            "missing",
            "a float range needs `step` or `linspace`",
            path,
            "Add `step: 0.5` or `linspace: 5`.",
        )
        return None
    if step is not None and (high - low) / step > 100_000:
        reader.error("out_of_range", "this range has more than 100000 values", path, "Use a larger step.")
        return None
    return RangeData(min=low, max=high, step=step, linspace=linspace)


def _date_data(reader: Reader, value: Mapping[str, Any], path: Path) -> DateData | None:
    reader.unknown_keys(value, ["date"], path)
    data = reader.mapping(value.get("date"), (*path, "date"), "date")
    if data is None:
        return None
    where = (*path, "date")
    reader.unknown_keys(data, ["custom", "random", "set", "range", "fake"], where)
    custom_raw = data.get("custom")
    custom = (
        [str(c) for c in custom_raw]
        if isinstance(custom_raw, list)
        else ([str(custom_raw)] if custom_raw is not None else [])
    )
    custom = [_iso_date(c) or c for c in custom]
    relative_raw = data.get("set")
    relative = (
        [str(r) for r in relative_raw]
        if isinstance(relative_raw, list)
        else ([str(relative_raw)] if relative_raw is not None else [])
    )
    for item in relative:
        if not re.match(r"^[<>]\s*today\(\d+\)$", item.replace(" ", "")):
            reader.error("wrong_data", f"set {item!r} is not >today(n) or <today(n)", (*where, "set"))
            return None
    date_range = None
    if data.get("range") is not None:
        spec = reader.mapping(data["range"], (*where, "range"), "range") or {}
        reader.unknown_keys(spec, ["min", "max", "step", "random"], (*where, "range"))
        low, high = _iso_date(str(spec.get("min", ""))), _iso_date(str(spec.get("max", "")))
        if low is None or high is None:
            reader.error(
                "wrong_data",
                "a date range needs min and max dates (YYYY-MM-DD or DD/MM/YYYY)",
                (*where, "range"),
            )
            return None
        step = str(spec["step"]) if spec.get("step") is not None else None
        if step is not None and not re.match(r"^(day|month|year|linspace)\(\d+\)$", step.replace(" ", "")):
            reader.error(
                "wrong_data",
                f"date step {step!r} is not day(k), month(k), year(k) or linspace(k)",
                (*where, "range", "step"),
            )
            return None
        count = (
            reader.integer(spec["random"], (*where, "range", "random"), "random")
            if spec.get("random") is not None
            else None
        )
        date_range = DateRange(min=low, max=high, step=step, random=count)
    random_n = (
        reader.integer(data["random"], (*where, "random"), "random")
        if data.get("random") is not None
        else None
    )
    fake = reader.integer(data["fake"], (*where, "fake"), "fake") if data.get("fake") is not None else None
    result = DateData(custom=custom, random=random_n, relative=relative, range=date_range, fake=fake)
    if not (result.custom or result.random or result.relative or result.range or result.fake):
        reader.error("empty_data", "the date generator produces no dates", where)
        return None
    return result


def _iso_date(text: str) -> str | None:
    text = text.strip()
    if re.match(r"^\d{4}-\d{2}-\d{2}$", text):
        return text
    match = re.match(r"^(\d{1,2})/(\d{1,2})/(\d{4})$", text)
    if match:
        return f"{match.group(3)}-{int(match.group(2)):02d}-{int(match.group(1)):02d}"
    return None

"""Every spelling of the profile language, read into the one canonical `Profile`.

Accepted dialects (SENSEI.md §1): v1 (Jan 2025 code: `all_combinations`, `sample(f)`, `str`, `money`),
v2 (`combinations(f[, forward|pairwise])`, `pairwise()`, `another(n)`, `model_prov`, `list[T]`, custom types),
TRACER's output (`random_steps`, `single questions`, `"personality: X"` context strings, `audio`, bare
`default` goal style) and the paper's listing (`LLM`, `goals: {templates, inputs}`, `selector`, `outputs`,
`conversations: {number, stop_condition}`, `isStarter`). Old spellings are read with a deprecation warning,
never refused; unknown keys are warnings (errors in strict mode).

Features that read local files or run code (custom-function generators, personality files given by path,
`llm.format.config`, speech mode) need `allow_local_files=True`; the platform never sets it, and gets an error
that says so.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path as FsPath
from typing import Any, Literal

from pydantic import ValidationError

from engine.sensei.personalities import PersonalityCatalog, personality_key
from engine.sensei.problems import Problem
from engine.sensei.profile import (
    STYLE_NAMES,
    AnyRequest,
    ChatbotSettings,
    ConversationSettings,
    DateData,
    DateRange,
    FunctionData,
    Generator,
    GoalStyle,
    ListData,
    LLMSettings,
    NumberSpec,
    Output,
    OutputType,
    Profile,
    RangeData,
    Selector,
    Style,
    TypeComponent,
    TypeDef,
    UserSettings,
    Variable,
)
from engine.sensei.types import PatternError, PatternTimeout, TypeCatalog
from engine.sensei.yamlpos import Locator, no_position

Path = tuple[str | int, ...]
IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
CALL = re.compile(r"^\s*([A-Za-z_][A-Za-z_ ]*?)\s*\((.*)\)\s*$", re.DOTALL)
LOCAL_FILES_HINT = (
    "Only the command line can use local files and code: run `parley sensei ... --allow-local-files`, or "
    "replace it with data written in the profile."
)
VARIABLE_TYPES = ("string", "int", "float", "date")
STYLE_ALIASES = {
    "single questions": "single question",
    "use short phrases": "short phrases",
    "short phrase": "short phrases",
    "long phrase": "long phrases",
    "use long phrases": "long phrases",
    "change languages": "change language",
    "make spelling mistake": "make spelling mistakes",
    "spelling mistakes": "make spelling mistakes",
}
OUTPUT_ALIASES = {"str": "string", "text": "string", "currency": "money", "integer": "int", "boolean": "bool"}


def call_parts(text: str) -> tuple[str, list[str]] | None:
    """ "combinations(0.5, forward)" -> ("combinations", ["0.5", "forward"]); None if not a call."""
    match = CALL.match(text)
    if not match:
        return None
    inner = match.group(2).strip()
    args = [a.strip().strip("\"'") for a in inner.split(",")] if inner else []
    return match.group(1).strip().lower(), args


def any_request(item: str) -> AnyRequest | None:
    parts = call_parts(item)
    if parts is None or parts[0] != "any":
        return None
    prompt = item[item.index("(") + 1 : item.rindex(")")].strip()
    count = re.match(r"^(\d+)\s", prompt)
    return AnyRequest(prompt=prompt, count=int(count.group(1)) if count else None)


@dataclass
class LoadOptions:
    allow_local_files: bool = False
    strict: bool = False
    source: str = "profile"
    base_dir: FsPath | None = None
    personalities: PersonalityCatalog = field(default_factory=PersonalityCatalog)
    types: TypeCatalog = field(default_factory=TypeCatalog)


class _Reader:
    """One pass over the plain data: builds the canonical parts and collects problems with positions."""

    def __init__(self, locate: Locator, options: LoadOptions) -> None:
        self.locate = locate
        self.options = options
        self.problems: list[Problem] = []
        self.used_types: dict[str, TypeDef] = {}

    # -- problems ----------------------------------------------------------------------------------------

    def _add(self, severity: str, code: str, message: str, path: Path, hint: str | None) -> None:
        position = self.locate(path)
        self.problems.append(
            Problem.model_validate(
                {
                    "severity": severity,
                    "code": code,
                    "message": message,
                    "path": ".".join(str(p) for p in path),
                    "line": position[0] if position else None,
                    "column": position[1] if position else None,
                    "hint": hint,
                    "file": self.options.source,
                }
            )
        )

    def error(self, code: str, message: str, path: Path, hint: str | None = None) -> None:
        self._add("error", code, message, path, hint)

    def warn(self, code: str, message: str, path: Path, hint: str | None = None) -> None:
        self._add("warning", code, message, path, hint)

    def deprecated(self, old: str, new: str, path: Path) -> None:
        self.warn("deprecated", f"`{old}` is an old spelling of `{new}`", path, f"Write `{new}` instead.")

    def unknown_keys(self, data: Mapping[str, Any], known: Sequence[str], path: Path) -> None:
        for key in data:
            if key in known:
                continue
            close = difflib.get_close_matches(key, known, n=1)
            hint = f"Did you mean `{close[0]}`?" if close else f"Known keys here: {', '.join(known)}."
            self._add(
                "error" if self.options.strict else "warning",
                "unknown_key",
                f"unknown key `{key}`",
                (*path, key),
                hint,
            )

    def local_file(self, what: str, path: Path) -> bool:
        if self.options.allow_local_files:
            return True
        self.error(
            "local_files_not_allowed", f"{what} reads local files or runs code", path, LOCAL_FILES_HINT
        )
        return False

    # -- helpers -----------------------------------------------------------------------------------------

    def mapping(self, value: Any, path: Path, what: str) -> dict[str, Any] | None:
        if value is None:
            return {}
        if isinstance(value, dict):
            return value
        self.error("wrong_type", f"{what} must be a mapping of keys to values", path)
        return None

    def text(self, value: Any, path: Path, what: str, *, required: bool = False) -> str | None:
        if value is None or (isinstance(value, str) and not value.strip()):
            if required:
                self.error("missing", f"{what} is required", path)
            return None
        if isinstance(value, bool | dict | list):
            self.error("wrong_type", f"{what} must be text", path)
            return None
        return str(value).strip()

    def number(self, value: Any, path: Path, what: str, *, minimum: float = 0.0) -> float | None:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float):
            try:
                value = float(str(value))
            except ValueError:
                self.error("wrong_type", f"{what} must be a number", path)
                return None
        if not math.isfinite(float(value)) or float(value) < minimum:
            self.error("out_of_range", f"{what} must be at least {minimum}", path)
            return None
        return float(value)

    def integer(self, value: Any, path: Path, what: str, *, minimum: int = 1) -> int | None:
        if isinstance(value, str) and value.strip().isdigit():
            value = int(value.strip())
        if isinstance(value, bool) or not isinstance(value, int):
            self.error("wrong_type", f"{what} must be a whole number", path)
            return None
        if value < minimum:
            self.error("out_of_range", f"{what} must be at least {minimum}", path)
            return None
        return value

    # -- top level ---------------------------------------------------------------------------------------

    def profile(self, data: Any) -> Profile | None:
        if not isinstance(data, dict):
            self.error(
                "wrong_type", "a profile is a mapping with test_name, user, chatbot and conversation", ()
            )
            return None
        known = ["test_name", "llm", "LLM", "user", "chatbot", "conversation", "conversations", "name"]
        self.unknown_keys(data, known, ())
        name = self.text(data.get("test_name"), ("test_name",), "test_name")
        if name is None and data.get("name") is not None:
            name = self.text(data.get("name"), ("name",), "name")
            self.deprecated("name", "test_name", ("name",))
        if name is None:
            stem = FsPath(self.options.source).stem if self.options.source not in ("", "profile") else ""
            if stem:
                name = stem
                self.warn(
                    "missing",
                    f"test_name is missing; using the file name {stem!r}",
                    (),
                    "Add `test_name: <unique name>` at the top.",
                )
            else:
                self.error(
                    "missing", "test_name is required", (), "Add `test_name: <unique name>` at the top."
                )
        llm_key = "llm" if "llm" in data or "LLM" not in data else "LLM"
        if llm_key == "LLM":
            self.deprecated("LLM", "llm", ("LLM",))
        llm = self.llm(data.get(llm_key), (llm_key,))
        user = self.user(data.get("user"), ("user",))
        chatbot_data = data.get("chatbot")
        conversation_key = "conversation"
        conversation_data = data.get("conversation")
        if conversation_data is None and "conversations" in data:
            conversation_key = "conversations"
            conversation_data = data["conversations"]
            self.deprecated("conversations", "conversation", ("conversations",))
        if conversation_data is None and isinstance(chatbot_data, dict) and "conversations" in chatbot_data:
            # The paper's listing indents `conversations` under `chatbot`.
            conversation_data = chatbot_data["conversations"]
            conversation_key = "chatbot.conversations"
            self.warn(
                "deprecated",
                "`conversations` belongs at the top level, as `conversation`",
                ("chatbot", "conversations"),
                "Move it to the top level and call it `conversation`.",
            )
        chatbot = self.chatbot(chatbot_data, ("chatbot",))
        conv_path: Path = (
            ("chatbot", "conversations")
            if conversation_key == "chatbot.conversations"
            else (conversation_key,)
        )
        conversation = self.conversation(conversation_data, conv_path)
        if None in (name, llm, user, chatbot, conversation):
            return None
        try:
            return Profile(
                name=name or "",
                llm=llm,  # type: ignore[arg-type]
                user=user,  # type: ignore[arg-type]
                chatbot=chatbot,  # type: ignore[arg-type]
                conversation=conversation,  # type: ignore[arg-type]
                custom_types=sorted(self.used_types.values(), key=lambda t: t.name),
            )
        except ValidationError as exc:  # a gap in the checks above; say where rather than crash
            for item in exc.errors():
                self.error("invalid", item["msg"], tuple(str(p) for p in item["loc"]))
            return None

    # -- llm -----------------------------------------------------------------------------------------------

    def llm(self, value: Any, path: Path) -> LLMSettings | None:
        data = self.mapping(value, path, "llm")
        if data is None:
            return None
        self.unknown_keys(data, ["model", "model_prov", "provider", "temperature", "format"], path)
        model = self.text(data.get("model"), (*path, "model"), "llm.model")
        provider = self.text(data.get("provider"), (*path, "provider"), "llm.provider")
        if "model_prov" in data:
            provider = self.text(data.get("model_prov"), (*path, "model_prov"), "llm.model_prov")
        temperature = 0.8
        if data.get("temperature") is not None:
            heat = self.number(data["temperature"], (*path, "temperature"), "llm.temperature")
            if heat is not None and heat > 1.0:
                self.warn(
                    "out_of_range",
                    "temperature above 1.0 makes the simulated user erratic",
                    (*path, "temperature"),
                    "Use a value between 0.0 and 1.0.",
                )
            temperature = min(heat, 2.0) if heat is not None else 0.8
        kind: Literal["text", "speech"] = "text"
        config = None
        fmt = data.get("format")
        if isinstance(fmt, str):
            fmt = {"type": fmt}
        fmt_data = self.mapping(fmt, (*path, "format"), "llm.format") or {}
        self.unknown_keys(fmt_data, ["type", "config"], (*path, "format"))
        raw_kind = str(fmt_data.get("type") or "text").strip().lower()
        if raw_kind == "audio":
            self.deprecated("audio", "speech", (*path, "format", "type"))
            raw_kind = "speech"
        if raw_kind == "speech":
            kind = "speech"
        if raw_kind not in ("text", "speech"):
            self.error(
                "unknown_value", f"format type {raw_kind!r} is not text or speech", (*path, "format", "type")
            )
        elif raw_kind == "speech" and self.local_file(
            "speech mode (microphone and speakers)", (*path, "format", "type")
        ):
            self.warn(
                "unsupported",
                "speech mode is not supported yet; the conversation runs as text",
                (*path, "format", "type"),
            )
        if fmt_data.get("config") is not None and self.local_file(
            "llm.format.config (a local file)", (*path, "format", "config")
        ):
            config = str(fmt_data["config"])
            if raw_kind == "text":
                self.warn(
                    "ignored", "format.config only matters for speech mode", (*path, "format", "config")
                )
        return LLMSettings(
            model=model, provider=provider, temperature=temperature, format=kind, format_config=config
        )

    # -- user ----------------------------------------------------------------------------------------------

    def user(self, value: Any, path: Path) -> UserSettings | None:
        if value is None:
            self.error("missing", "the user section is required (role and goals)", path)
            return None
        data = self.mapping(value, path, "user")
        if data is None:
            return None
        self.unknown_keys(data, ["language", "role", "context", "goals", "ask_about", "personality"], path)
        language = self.text(data.get("language"), (*path, "language"), "user.language") or "English"
        role = self.text(data.get("role"), (*path, "role"), "user.role", required=True)
        personality, personality_context, context = self.context(data, path)
        goals_key = "goals"
        if "goals" not in data and "ask_about" in data:
            goals_key = "ask_about"
            self.deprecated("ask_about", "goals", (*path, "ask_about"))
        goals, variables = self.goals(data.get(goals_key), (*path, goals_key))
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

    def context(self, data: Mapping[str, Any], path: Path) -> tuple[str | None, list[str], list[str]]:
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
                    self.error("wrong_type", "a context mapping holds only `personality: <name>`", where)
                    continue
                reference = self.text(item["personality"], (*where, "personality"), "personality")
                if reference:
                    references.append((reference, (*where, "personality")))
            elif isinstance(item, str):
                match = re.match(r"^\s*personality\s*:\s*(\S.*)$", item)
                if match:
                    self.warn(
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
            self.error(
                "too_many_personalities", "a profile may use at most one personality", references[1][1]
            )
        if not references:
            return None, [], sentences
        reference, where = references[0]
        found = self.options.personalities.resolve(reference)
        if found is not None:
            return found.name, list(found.context), sentences
        if "/" in reference or "\\" in reference or reference.endswith((".yml", ".yaml")):
            if self.local_file(f"the personality file {reference!r}", where):
                loaded = self._personality_file(reference, where)
                if loaded is not None:
                    return personality_key(reference), loaded, sentences
                return None, [], sentences
            return None, [], sentences
        close = difflib.get_close_matches(personality_key(reference), self.options.personalities.names(), n=1)
        self.error(
            "unknown_personality",
            f"personality {reference!r} does not exist",
            where,
            f"Did you mean `{close[0]}`?"
            if close
            else f"Known personalities: {', '.join(self.options.personalities.names())}.",
        )
        return None, [], sentences

    def _personality_file(self, reference: str, where: Path) -> list[str] | None:
        from engine.sensei.localfiles import read_personality_file

        try:
            return read_personality_file(reference, self.options.base_dir)
        except (OSError, ValueError, TypeError) as exc:
            self.error("unknown_personality", f"personality file {reference!r}: {exc}", where)
            return None

    # -- goals and variables -------------------------------------------------------------------------------

    def goals(self, value: Any, path: Path) -> tuple[list[str], list[Variable]]:
        entries: list[tuple[Any, Path]] = []
        if isinstance(value, dict):
            # The paper: goals: {templates: [...], inputs: [...]}
            self.warn(
                "deprecated",
                "`goals` with `templates` and `inputs` is the paper's spelling",
                path,
                "Write one `goals:` list mixing goal strings and variable definitions.",
            )
            self.unknown_keys(value, ["templates", "inputs"], path)
            for key in ("templates", "inputs"):
                part = value.get(key) or []
                if not isinstance(part, list):
                    self.error("wrong_type", f"goals.{key} must be a list", (*path, key))
                    continue
                entries += [(item, (*path, key, i)) for i, item in enumerate(part)]
        elif isinstance(value, list):
            entries = [(item, (*path, i)) for i, item in enumerate(value)]
        elif value is None:
            self.error("missing", "user.goals is required: at least one goal", path)
        else:
            self.error("wrong_type", "user.goals must be a list of goals and variables", path)
        goals: list[str] = []
        variables: list[Variable] = []
        seen: set[str] = set()
        for item, where in entries:
            if isinstance(item, str | int | float) and not isinstance(item, bool):
                if str(item).strip():
                    goals.append(str(item).strip())
            elif isinstance(item, dict):
                if len(item) != 1:
                    # `- size:` followed by keys at the same level parses as one mapping with extra keys.
                    name = next(iter(item))
                    rest = {k: v for k, v in item.items() if k != name}
                    if item[name] is None and set(rest) <= {"function", "selector", "type", "data"}:
                        item = {name: rest}
                    else:
                        self.error(
                            "wrong_type", "a variable is a mapping with exactly one key, its name", where
                        )
                        continue
                name, spec = next(iter(item.items()))
                variable = self.variable(str(name), spec, (*where, name))
                if variable is None:
                    continue
                if variable.name in seen:
                    self.error(
                        "duplicate_variable", f"variable `{variable.name}` is defined twice", (*where, name)
                    )
                    continue
                seen.add(variable.name)
                variables.append(variable)
            else:
                self.error("wrong_type", "a goal is a sentence or a variable definition", where)
        if not goals and value is not None:
            self.error(
                "missing",
                "user.goals has no goal sentence",
                path,
                "Add at least one sentence saying what the user wants.",
            )
        return goals, variables

    def variable(self, name: str, value: Any, path: Path) -> Variable | None:
        if not IDENTIFIER.match(name):
            self.error(
                "bad_name",
                f"variable name {name!r} is not an identifier",
                path,
                "Use letters, digits and underscores, starting with a letter.",
            )
            return None
        data = self.mapping(value, path, f"variable {name}")
        if data is None:
            return None
        self.unknown_keys(data, ["function", "selector", "type", "data"], path)
        function_key = "function"
        if "function" not in data and "selector" in data:
            function_key = "selector"
            self.deprecated("selector", "function", (*path, "selector"))
        selector = self.selector(data.get(function_key), (*path, function_key), name)
        raw_type = str(data.get("type") or "").strip()
        if not raw_type:
            self.error(
                "missing", f"variable `{name}` needs a type", path, "Add `type: string` (or int, float)."
            )
            raw_type = "string"
        if raw_type == "str":
            self.deprecated("str", "string", (*path, "type"))
            raw_type = "string"
        if raw_type not in VARIABLE_TYPES:
            custom = self.options.types.get(raw_type)
            if custom is None:
                self.error(
                    "unknown_type",
                    f"variable type {raw_type!r} does not exist",
                    (*path, "type"),
                    f"Use one of {', '.join(VARIABLE_TYPES)} or a custom type "
                    f"({', '.join(self.options.types.names()) or 'none defined'}).",
                )
                return None
            self._use_type(raw_type)
        generator = self.generator(data.get("data"), (*path, "data"), raw_type, name)
        if selector is None or generator is None:
            return None
        return Variable(name=name, selector=selector, type=raw_type, data=generator)

    def _use_type(self, name: str) -> TypeDef | None:
        custom = self.options.types.get(name)
        if custom is None:
            return None
        definition = TypeDef(
            name=custom.name,
            description=custom.description,
            format=custom.format,
            extraction=custom.extraction,
            components=[
                TypeComponent(name=c.name, type=c.type, description=c.description) for c in custom.components
            ],
        )
        self.used_types[name] = definition
        return definition

    def selector(self, value: Any, path: Path, variable: str) -> Selector | None:
        if value is None or (isinstance(value, str) and not value.strip()):
            self.warn(
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
            self.error("unknown_function", f"{value!r} is not a known function", path, hint)
            return None
        arg = args[0] if args else ""
        if not arg:
            return Selector(kind=kind)  # type: ignore[arg-type]
        if kind in ("default", "pairwise"):
            self.error("unknown_function", f"{kind}() takes no argument", path, hint)
            return None
        if arg.isdigit():
            if int(arg) < 1:
                self.error("out_of_range", f"{kind}({arg}) must pick at least one value", path)
                return None
            return Selector(kind=kind, count=int(arg))  # type: ignore[arg-type]
        if kind == "random" and arg == "rand":
            return Selector(kind="random", count="rand")
        if kind == "forward" and IDENTIFIER.match(arg):
            return Selector(kind="forward", depends_on=arg)
        self.error("unknown_function", f"{value!r}: unexpected argument {arg!r}", path, hint)
        return None

    def generator(self, value: Any, path: Path, var_type: str, name: str) -> Generator | None:
        if value is None:
            self.error(
                "missing", f"variable `{name}` needs data", path, "Give a list of values or {min, max}."
            )
            return None
        if isinstance(value, list):
            return self._list(value, path, var_type, name)
        if not isinstance(value, dict):
            return self._list([value], path, var_type, name)
        if "date" in value:
            return self._dates(value, path)
        if {"file", "function_name"} & set(value):
            self.unknown_keys(value, ["file", "function_name", "args"], path)
            if not self.local_file("a custom-function generator", path):
                return None
            args = value.get("args")
            arg_list = args if isinstance(args, list) else ([] if args is None else [args])
            if not value.get("file") or not value.get("function_name"):
                self.error("missing", "a custom-function generator needs `file` and `function_name`", path)
                return None
            return FunctionData(
                file=str(value["file"]), function_name=str(value["function_name"]), args=arg_list
            )
        if "min" in value or "max" in value:
            return self._range(value, path, var_type, name)
        self.error("wrong_type", f"data of `{name}` is neither a list, a range, dates nor a function", path)
        return None

    def _list(self, items: list[Any], path: Path, var_type: str, name: str) -> ListData | None:
        if not items:
            self.error("empty_data", f"variable `{name}` has an empty list", path)
            return None
        values: list[Any] = []
        requests: list[AnyRequest] = []
        custom = self.options.types.get(var_type) if var_type not in VARIABLE_TYPES else None
        for i, item in enumerate(items):
            where = (*path, i)
            if isinstance(item, str) and (request := any_request(item)) is not None:
                if var_type in ("int", "float"):
                    self.error(
                        "wrong_data",
                        f"any() cannot generate {var_type} values",
                        where,
                        "Use a numeric range {min, max, step} instead.",
                    )
                requests.append(request)
                continue
            if isinstance(item, dict | list) or item is None:
                self.error("wrong_data", f"list items of `{name}` must be single values", where)
                continue
            if var_type == "int" and (isinstance(item, bool) or not isinstance(item, int)):
                self.error("wrong_data", f"{item!r} is not a whole number but `{name}` is int", where)
                continue
            if var_type == "float" and (isinstance(item, bool) or not isinstance(item, int | float)):
                self.error("wrong_data", f"{item!r} is not a number but `{name}` is float", where)
                continue
            if var_type in ("string", "date") or custom is not None:
                item = str(item)
            if var_type == "date" and not re.match(r"^\d{4}-\d{2}-\d{2}$", item):
                self.warn("wrong_data", f"{item!r} is not an ISO date (YYYY-MM-DD)", where)
            if custom is not None:
                try:
                    ok = custom.matches(item)
                except PatternTimeout:
                    self.error(
                        "regex_timeout",
                        f"checking {item!r} against type {custom.name} timed out",
                        where,
                        "Simplify the type's regular expression.",
                    )
                    continue
                except PatternError as exc:
                    self.error("bad_regex", f"type {custom.name}: {exc}", where)
                    continue
                if not ok:
                    self.error(
                        "wrong_data",
                        f"{item!r} does not match type {custom.name} ({custom.format})",
                        where,
                        custom.description or None,
                    )
                    continue
            values.append(float(item) if var_type == "float" else item)
        return ListData(items=values, any=requests)

    def _range(self, data: Mapping[str, Any], path: Path, var_type: str, name: str) -> RangeData | None:
        self.unknown_keys(data, ["min", "max", "step", "linspace"], path)
        if var_type not in ("int", "float"):
            self.error(
                "wrong_data",
                f"a numeric range needs type int or float, not {var_type}",
                (*path,),
                f"Set `type: int` on `{name}`.",
            )
            return None
        low = self.number(data.get("min"), (*path, "min"), "min", minimum=-math.inf)
        high = self.number(data.get("max"), (*path, "max"), "max", minimum=-math.inf)
        if low is None or high is None:
            if data.get("min") is None or data.get("max") is None:
                self.error("missing", "a range needs both min and max", path)
            return None
        if high < low:
            self.error("out_of_range", f"max ({high:g}) is below min ({low:g})", (*path, "max"))
            return None
        step = None
        linspace = None
        if data.get("step") is not None:
            step = self.number(data["step"], (*path, "step"), "step", minimum=0.0)
            if step == 0:
                self.error("out_of_range", "step must be greater than 0", (*path, "step"))
                return None
            if step is None:
                return None
        if data.get("linspace") is not None:
            if var_type != "float":
                self.error("wrong_data", "linspace only applies to float ranges", (*path, "linspace"))
                return None
            linspace = self.integer(data["linspace"], (*path, "linspace"), "linspace", minimum=2)
            if linspace is None:
                return None
        if var_type == "int":
            for key, number in (("min", low), ("max", high), ("step", step)):
                if number is not None and not float(number).is_integer():
                    self.error("wrong_data", f"{key} must be a whole number for an int range", (*path, key))
                    return None
            step = step or 1.0
        elif step is None and linspace is None:
            self.error(
                "missing",
                "a float range needs `step` or `linspace`",
                path,
                "Add `step: 0.5` or `linspace: 5`.",
            )
            return None
        if step is not None and (high - low) / step > 100_000:
            self.error("out_of_range", "this range has more than 100000 values", path, "Use a larger step.")
            return None
        return RangeData(min=low, max=high, step=step, linspace=linspace)

    def _dates(self, value: Mapping[str, Any], path: Path) -> DateData | None:
        self.unknown_keys(value, ["date"], path)
        data = self.mapping(value.get("date"), (*path, "date"), "date")
        if data is None:
            return None
        where = (*path, "date")
        self.unknown_keys(data, ["custom", "random", "set", "range", "fake"], where)
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
                self.error("wrong_data", f"set {item!r} is not >today(n) or <today(n)", (*where, "set"))
                return None
        date_range = None
        if data.get("range") is not None:
            spec = self.mapping(data["range"], (*where, "range"), "range") or {}
            self.unknown_keys(spec, ["min", "max", "step", "random"], (*where, "range"))
            low, high = _iso_date(str(spec.get("min", ""))), _iso_date(str(spec.get("max", "")))
            if low is None or high is None:
                self.error(
                    "wrong_data",
                    "a date range needs min and max dates (YYYY-MM-DD or DD/MM/YYYY)",
                    (*where, "range"),
                )
                return None
            step = str(spec["step"]) if spec.get("step") is not None else None
            if step is not None and not re.match(
                r"^(day|month|year|linspace)\(\d+\)$", step.replace(" ", "")
            ):
                self.error(
                    "wrong_data",
                    f"date step {step!r} is not day(k), month(k), year(k) or linspace(k)",
                    (*where, "range", "step"),
                )
                return None
            count = (
                self.integer(spec["random"], (*where, "range", "random"), "random")
                if spec.get("random") is not None
                else None
            )
            date_range = DateRange(min=low, max=high, step=step, random=count)
        random_n = (
            self.integer(data["random"], (*where, "random"), "random")
            if data.get("random") is not None
            else None
        )
        fake = self.integer(data["fake"], (*where, "fake"), "fake") if data.get("fake") is not None else None
        result = DateData(custom=custom, random=random_n, relative=relative, range=date_range, fake=fake)
        if not (result.custom or result.random or result.relative or result.range or result.fake):
            self.error("empty_data", "the date generator produces no dates", where)
            return None
        return result

    # -- chatbot -------------------------------------------------------------------------------------------

    def chatbot(self, value: Any, path: Path) -> ChatbotSettings | None:
        if value is None:
            self.error("missing", "the chatbot section is required (fallback and output)", path)
            return None
        data = self.mapping(value, path, "chatbot")
        if data is None:
            return None
        self.unknown_keys(
            data,
            ["is_starter", "isStarter", "fallback", "fallbacks", "output", "outputs", "conversations"],
            path,
        )
        starter = True
        for key in ("is_starter", "isStarter"):
            if key in data:
                if key == "isStarter":
                    self.deprecated("isStarter", "is_starter", (*path, key))
                if not isinstance(data[key], bool):
                    self.error("wrong_type", f"{key} must be true or false", (*path, key))
                else:
                    starter = data[key]
        fallbacks: list[str] = []
        for key in ("fallback", "fallbacks"):
            raw = data.get(key)
            items = raw if isinstance(raw, list) else ([] if raw is None else [raw])
            fallbacks += [str(item).strip() for item in items if str(item).strip()]
        if not fallbacks:
            self.warn(
                "missing",
                "no fallback phrase: misunderstandings and loops cannot be detected",
                (*path, "fallback"),
                "Add `fallback:` with what the chatbot says when it does not understand.",
            )
        output_key = "output"
        if "output" not in data and "outputs" in data:
            output_key = "outputs"
            self.deprecated("outputs", "output", (*path, "outputs"))
        outputs = self.outputs(data.get(output_key), (*path, output_key))
        return ChatbotSettings(is_starter=starter, fallback=fallbacks, outputs=outputs)

    def outputs(self, value: Any, path: Path) -> list[Output]:
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
                    entries.append(
                        (str(name), {k: v for k, v in item.items() if k != name}, (*path, i, name))
                    )
                else:
                    self.error("wrong_type", "an output is `- <name>: {type, description}`", (*path, i))
        else:
            self.error("wrong_type", "chatbot.output must be a list", path)
        outputs: list[Output] = []
        seen: set[str] = set()
        for name, spec, where in entries:
            if not IDENTIFIER.match(name):
                self.error("bad_name", f"output name {name!r} is not an identifier", where)
                continue
            if name in seen:
                self.error("duplicate_output", f"output `{name}` is defined twice", where)
                continue
            seen.add(name)
            data = self.mapping(spec, where, f"output {name}")
            if data is None:
                continue
            self.unknown_keys(data, ["type", "description"], where)
            out_type = self.output_type(str(data.get("type") or "string"), (*where, "type"))
            description = self.text(
                data.get("description"), (*where, "description"), f"description of {name}"
            )
            if description is None:
                self.error(
                    "missing", f"output `{name}` needs a description (it is the extraction prompt)", where
                )
                continue
            if out_type is not None:
                outputs.append(Output(name=name, type=out_type, description=description))
        return outputs

    def output_type(self, raw: str, path: Path) -> OutputType | None:
        text = raw.strip()
        lowered = text.lower()
        list_match = re.match(r"^list\s*\[(.+)\]$", text, re.IGNORECASE)
        if list_match:
            item = self.output_type(list_match.group(1), path)
            if item is None:
                return None
            if item.kind == "list":
                self.error("unknown_type", "lists of lists are not supported", path)
                return None
            return OutputType(kind="list", item=item)
        enum_match = re.match(r"^enum\s*[\[(](.+)[\])]$", text, re.IGNORECASE)
        if enum_match:
            values = [v.strip().strip("\"'") for v in enum_match.group(1).split(",") if v.strip()]
            if not values:
                self.error("unknown_type", "an enum needs at least one value", path)
                return None
            return OutputType(kind="enum", values=values)
        parts = call_parts(text)
        if parts is not None and parts[0] in ("time", "date", "datetime"):
            return OutputType(kind=parts[0], format=", ".join(parts[1]) or None)  # type: ignore[arg-type]
        if lowered in OUTPUT_ALIASES:
            canonical = OUTPUT_ALIASES[lowered]
            if lowered == "str":
                self.deprecated("str", "string", path)
            elif lowered == "currency" and self.options.types.get("currency") is not None:
                self._use_type("currency")
                return OutputType(kind="custom", name="currency")
            return OutputType(kind=canonical)  # type: ignore[arg-type]
        if lowered in ("string", "int", "float", "bool", "money", "date", "time", "datetime"):
            return OutputType(kind=lowered)  # type: ignore[arg-type]
        if self._use_type(text) is not None:
            return OutputType(kind="custom", name=text)
        known = [
            "string",
            "int",
            "float",
            "bool",
            "money",
            "date",
            "time",
            "datetime",
            "list[T]",
            "enum[a, b]",
        ]
        self.error(
            "unknown_type",
            f"output type {raw!r} does not exist",
            path,
            f"Use one of {', '.join(known)} or a custom type.",
        )
        return None

    # -- conversation ----------------------------------------------------------------------------------------

    def conversation(self, value: Any, path: Path) -> ConversationSettings | None:
        if value is None:
            self.error("missing", "the conversation section is required (number, goal_style)", path)
            return None
        data = self.mapping(value, path, "conversation")
        if data is None:
            return None
        self.unknown_keys(
            data, ["number", "max_cost", "goal_style", "stop_condition", "interaction_style"], path
        )
        number = self.number_spec(data.get("number"), (*path, "number"))
        max_cost = self.number(data.get("max_cost"), (*path, "max_cost"), "max_cost")
        style_key = "goal_style"
        if "goal_style" not in data and "stop_condition" in data:
            style_key = "stop_condition"
            self.deprecated("stop_condition", "goal_style", (*path, "stop_condition"))
        goal_style = self.goal_style(data.get(style_key), (*path, style_key))
        styles, random_styles = self.styles(data.get("interaction_style"), (*path, "interaction_style"))
        if number is None or goal_style is None:
            return None
        return ConversationSettings(
            number=number,
            max_cost=max_cost,
            goal_style=goal_style,
            styles=styles,
            random_styles=random_styles,
        )

    def number_spec(self, value: Any, path: Path) -> NumberSpec | None:
        hint = "Use a number, combinations, combinations(0.5) or combinations(0.5, forward|pairwise)."
        if value is None:
            self.error("missing", "conversation.number is required", path, hint)
            return None
        if isinstance(value, int) and not isinstance(value, bool):
            if value < 1:
                self.error("out_of_range", "conversation.number must be at least 1", path)
                return None
            return NumberSpec(kind="fixed", count=value)
        text = str(value).strip()
        if text.isdigit():
            return self.number_spec(int(text), path)
        if text in ("all_combinations", "combinations"):
            if text == "all_combinations":
                self.deprecated("all_combinations", "combinations", path)
            return NumberSpec(kind="combinations")
        parts = call_parts(text)
        if parts is None or parts[0] not in ("sample", "combinations") or not 1 <= len(parts[1]) <= 2:
            self.error("unknown_value", f"{text!r} is not a valid number of conversations", path, hint)
            return None
        kind, args = parts
        if kind == "sample":
            self.deprecated(text, f"combinations({', '.join(args)})", path)
            if len(args) != 1:
                self.error("unknown_value", "sample() takes one fraction", path, hint)
                return None
        try:
            fraction = float(args[0])
        except ValueError:
            self.error("unknown_value", f"{args[0]!r} is not a fraction", path, hint)
            return None
        if not 0 < fraction <= 1:
            self.error("out_of_range", "the fraction must be above 0 and at most 1", path, hint)
            return None
        basis = args[1].lower() if len(args) == 2 else "all"
        if basis not in ("forward", "pairwise", "all"):
            self.error("unknown_value", f"{basis!r} is not forward or pairwise", path, hint)
            return None
        return NumberSpec(kind="combinations", fraction=fraction, basis=basis)  # type: ignore[arg-type]

    def goal_style(self, value: Any, path: Path) -> GoalStyle | None:
        hint = "Use {steps: n}, {random steps: n} or {all_answered: {limit: n}}."
        if value is None:
            self.error("missing", "conversation.goal_style is required", path, hint)
            return None
        if isinstance(value, str):
            key = value.strip()
            if key == "default":
                self.warn(
                    "deprecated",
                    "goal_style `default` means all_answered with limit 30",
                    path,
                    "Write `goal_style: {all_answered: {limit: 30}}`.",
                )
                return GoalStyle(kind="all_answered")
            if key == "all_answered":
                return GoalStyle(kind="all_answered")
            self.error("unknown_value", f"goal_style {key!r} is not known", path, hint)
            return None
        data = self.mapping(value, path, "goal_style")
        if data is None:
            return None
        self.unknown_keys(
            data, ["steps", "random steps", "random_steps", "all_answered", "default", "max_cost"], path
        )
        max_cost = self.number(data.get("max_cost"), (*path, "max_cost"), "goal_style.max_cost")
        modes = [k for k in ("steps", "random steps", "random_steps", "all_answered", "default") if k in data]
        if not modes:
            self.error("missing", "goal_style needs steps, random steps or all_answered", path, hint)
            return None
        if "all_answered" in modes or "default" in modes:
            key = "all_answered" if "all_answered" in modes else "default"
            spec = data.get(key)
            limit, export = 30, False
            if isinstance(spec, dict):
                self.unknown_keys(spec, ["limit", "export"], (*path, key))
                if spec.get("limit") is not None:
                    limit = self.integer(spec["limit"], (*path, key, "limit"), "limit") or 30
                export = bool(spec.get("export", False))
            elif isinstance(spec, int) and not isinstance(spec, bool):
                limit = spec
            if "steps" in data:
                # The paper: maxSteps and allGoals together = stop at whichever comes first.
                steps = self.integer(data["steps"], (*path, "steps"), "steps")
                limit = min(limit, steps) if steps else limit
            return GoalStyle(kind="all_answered", limit=limit, export=export, max_cost=max_cost)
        if len(modes) > 1:
            self.error("conflict", "goal_style has both steps and random steps", path, hint)
            return None
        key = modes[0]
        if key == "random_steps":
            self.deprecated("random_steps", "random steps", (*path, key))
        steps = self.integer(data[key], (*path, key), key)
        if steps is None:
            return None
        if steps > 30:
            self.warn(
                "long_conversation",
                f"{steps} steps is a long conversation (cost grows with it)",
                (*path, key),
            )
        return GoalStyle(kind="steps" if key == "steps" else "random_steps", steps=steps, max_cost=max_cost)

    def styles(self, value: Any, path: Path) -> tuple[list[Style], list[Style]]:
        if value is None or value == []:
            self.warn(
                "missing", "no interaction_style; using default", path, "Add `interaction_style: [default]`."
            )
            return [Style(name="default")], []
        if isinstance(value, dict | str):
            self.warn(
                "deprecated", "interaction_style should be a list", path, "Write it as a list (`- ...`)."
            )
            value = [{k: v} for k, v in value.items()] if isinstance(value, dict) else [value]
        if not isinstance(value, list):
            self.error("wrong_type", "interaction_style must be a list", path)
            return [Style(name="default")], []
        styles: list[Style] = []
        random_styles: list[Style] = []
        for i, item in enumerate(value):
            where = (*path, i)
            if (
                isinstance(item, dict)
                and len(item) == 1
                and str(next(iter(item))).strip().lower() == "random"
            ):
                inner = next(iter(item.values()))
                if not isinstance(inner, list) or not inner:
                    self.error("wrong_type", "random needs a non-empty list of styles", (*where, "random"))
                    continue
                if i != 0:
                    self.warn("order", "random is usually the first style; it is applied anyway", where)
                for j, sub in enumerate(inner):
                    style = self.style(sub, (*where, "random", j))
                    if style is not None:
                        random_styles.append(style)
                continue
            style = self.style(item, where)
            if style is not None:
                styles.append(style)
        if not styles and not random_styles:
            styles = [Style(name="default")]
        return styles, random_styles

    def style(self, item: Any, path: Path) -> Style | None:
        languages: list[str] = []
        if isinstance(item, dict) and len(item) == 1:
            raw_name, langs = next(iter(item.items()))
            name = _style_key(str(raw_name))
            if name != "change language":
                self.error("unknown_style", f"style {raw_name!r} takes no list", path)
                return None
            langs = langs if isinstance(langs, list) else [langs]
            languages = [str(lang).strip() for lang in langs if lang is not None and str(lang).strip()]
            if not languages:
                self.error("missing", "change language needs at least one language", path)
                return None
        elif isinstance(item, str):
            raw_name = item
            name = _style_key(item)
        else:
            self.error("wrong_type", "a style is a name or {change language: [...]}", path)
            return None
        if name in STYLE_ALIASES:
            self.deprecated(str(raw_name), STYLE_ALIASES[name], path)
            name = STYLE_ALIASES[name]
        if name not in STYLE_NAMES:
            close = difflib.get_close_matches(name, STYLE_NAMES, n=1)
            self.error(
                "unknown_style",
                f"interaction style {raw_name!r} does not exist",
                path,
                f"Did you mean `{close[0]}`?" if close else f"Known styles: {', '.join(STYLE_NAMES)}.",
            )
            return None
        if name == "change language" and not languages:
            self.error(
                "missing",
                "change language needs a list of languages",
                path,
                "Write `- change language: [Spanish, French]`.",
            )
            return None
        return Style(name=name, languages=languages)  # type: ignore[arg-type]


def _style_key(text: str) -> str:
    return re.sub(r"[\s_\-]+", " ", text.strip().lower())


def _iso_date(text: str) -> str | None:
    text = text.strip()
    if re.match(r"^\d{4}-\d{2}-\d{2}$", text):
        return text
    match = re.match(r"^(\d{1,2})/(\d{1,2})/(\d{4})$", text)
    if match:
        return f"{match.group(3)}-{int(match.group(2)):02d}-{int(match.group(1)):02d}"
    return None


def read_profile_data(
    data: Any, *, locate: Locator = no_position, options: LoadOptions | None = None
) -> tuple[Profile | None, list[Problem]]:
    """The canonical profile from already-parsed data (any dialect), and the problems found reading it."""
    reader = _Reader(locate, options or LoadOptions())
    profile = reader.profile(data)
    return profile, reader.problems


ProfileReader = Callable[[Any], tuple[Profile | None, list[Problem]]]

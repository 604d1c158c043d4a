"""Reading campaign files: YAML through the guarded loader, every problem with its line and column, the
reference format (SENSEI's `security.yml`) read and converted, custom cases from CSV or YAML files, and the JSON
Schema the web editor completes with.
"""

from __future__ import annotations

import csv
import difflib
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ValidationError
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from engine.security.campaign import (
    ATTACK_NAMES,
    ORACLE_NAMES,
    ORACLE_SETTINGS,
    AttackSpec,
    Campaign,
    Case,
    Delivery,
    OracleSpec,
    Policy,
    TaskSpec,
)
from engine.yamldata import plain
from engine.yamlguard import YAMLRefused, load_all_yaml, load_yaml

Severity = Literal["error", "warning"]
PathParts = tuple[str | int, ...]


@dataclass(frozen=True)
class Problem:
    """One finding about a campaign file; the same shape as the platform's other documents' problems."""

    severity: Severity
    message: str
    line: int | None = None
    column: int | None = None
    path: str = ""
    hint: str | None = None

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    def to_json(self) -> dict[str, Any]:
        return {
            "severity": self.severity,
            "message": self.message,
            "line": self.line,
            "column": self.column,
            "path": self.path,
            "hint": self.hint,
        }

    def render(self, source: str) -> str:
        where = f"{source}:{self.line}:{self.column}" if self.line else source
        text = f"{where}: {self.severity}: {self.message}"
        return text + (f"\n  hint: {self.hint}" if self.hint else "")


@dataclass
class CampaignLoad:
    campaign: Campaign | None
    problems: list[Problem] = field(default_factory=list)
    converted: bool = False  # read from the reference format

    @property
    def ok(self) -> bool:
        return self.campaign is not None and not any(p.is_error for p in self.problems)


def _path_text(path: PathParts) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


class _Locator:
    """Line and column (1-based) of a path of keys and indexes in ruamel's round-trip document."""

    def __init__(self, root: Any) -> None:
        self.root = root

    def __call__(self, path: PathParts) -> tuple[int | None, int | None]:
        node, found = self.root, (None, None)
        if isinstance(node, CommentedMap | CommentedSeq):
            found = (node.lc.line + 1, node.lc.col + 1)
        for part in path:
            if isinstance(node, CommentedMap) and part in node:
                line, column = node.lc.key(part)
            elif isinstance(node, CommentedSeq) and isinstance(part, int) and 0 <= part < len(node):
                line, column = node.lc.item(part)
            else:
                break
            found, node = (line + 1, column + 1), node[part]
        return found


_MODELS: dict[str | None, type[BaseModel]] = {
    None: Campaign,
    "attacks": AttackSpec,
    "delivery": Delivery,
    "oracles": OracleSpec,
    "cases": Case,
    "tasks": TaskSpec,
    "policies": Policy,
}


def _keys_at(path: PathParts) -> list[str]:
    parent = next((p for p in reversed(path) if isinstance(p, str)), None)
    model = _MODELS.get(parent, Campaign)
    return list(model.model_fields)


def _problem_of(error: Any, locate: _Locator) -> Problem:
    loc: PathParts = tuple(p for p in error["loc"] if not (isinstance(p, str) and p.startswith("function-")))
    line, column = locate(loc)
    path = _path_text(loc)
    kind, message = error["type"], str(error["msg"]).removeprefix("Value error, ")
    hint = None
    if kind == "extra_forbidden":
        key = str(loc[-1])
        close = difflib.get_close_matches(key, _keys_at(loc[:-1]), n=1)
        message = f"Unknown key `{key}`."
        hint = f"did you mean `{close[0]}`?" if close else f"known keys: {', '.join(_keys_at(loc[:-1]))}"
    elif kind == "missing":
        message = f"`{loc[-1]}` is required."
    elif kind == "literal_error" and loc and loc[-1] in ("name", "kind"):
        known = ATTACK_NAMES if loc[-1] == "name" else ORACLE_NAMES
        given = str(error.get("input"))
        what = "attack" if loc[-1] == "name" else "oracle"
        message = f"Unknown {what} {given!r}."
        close = difflib.get_close_matches(given, known, n=1)
        hint = f"did you mean {close[0]!r}?" if close else f"the {what}s: {', '.join(known)}"
    return Problem("error", f"{path}: {message}" if path else message, line, column, path, hint)


# -- the reference format -------------------------------------------------------------------------------------
_REFERENCE_KEYS = {"execution", "generation", "simulation"}
_REFERENCE_ORACLES = {
    "keyword": "keywords",
    "pii_leakage": "pii",
    "system_prompt_leakage": "leakage",
    "domain_violation": "domain",
    "policy_violation": "policy",
    "llm_judge": "judge",
    "json_schema_match": "json_schema",
}


def is_reference_format(data: Any) -> bool:
    return isinstance(data, dict) and bool(_REFERENCE_KEYS & set(data))


def convert_reference(data: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Parley's campaign from the reference layout (`execution`, `generation`, `simulation`, attacks with
    `params`, `oracle`, `execution`, `rephrase`), with notes on what was dropped."""
    notes: list[str] = []
    execution = data.get("execution") or {}
    generation = data.get("generation") or {}
    out: dict[str, Any] = {"name": data.get("name") or "campaign"}
    for key in ("description", "canaries", "instructions", "seed"):
        if key in data:
            out[key] = data[key]
    if generation.get("target_context"):
        out["target_context"] = generation["target_context"]
    for key in ("attempts", "stop_on_breach", "max_cost"):
        if key in execution:
            out[key] = execution[key]
    if {"model", "provider", "temperature"} & set(generation) or data.get("simulation"):
        notes.append(
            "the models of `generation` and `simulation` are the run's own here (the project's or --model)"
        )
    attacks = []
    for entry in data.get("attacks") or []:
        if not isinstance(entry, dict):
            attacks.append(entry)
            continue
        attack: dict[str, Any] = {k: entry[k] for k in ("name", "id", "enabled", "delivery") if k in entry}
        params = dict(entry.get("params") or {})
        for key in ("prompts", "tasks", "cases", "cases_file", "task_kind"):
            if key in params:
                attack[key] = params.pop(key)
        if params:
            notes.append(f"{entry.get('name')}: parameters {', '.join(map(str, params))} are not used")
        attack_execution = entry.get("execution") or {}
        for key in ("attempts", "stop_on_breach"):
            if key in attack_execution:
                attack[key] = attack_execution[key]
        rephrase = entry.get("rephrase")
        if isinstance(rephrase, dict):
            rephrase = rephrase.get("intensity", rephrase.get("level"))
        if rephrase is not None:
            attack["rephrase"] = rephrase
        if "oracle" in entry or "oracles" in entry:
            given = entry.get("oracles", entry.get("oracle"))
            attack["oracles"] = _reference_oracles(given if isinstance(given, list) else [given], notes)
        attacks.append(attack)
    out["attacks"] = attacks
    return out, notes


def _reference_oracles(items: list[Any], notes: list[str]) -> list[Any]:
    converted = []
    for item in items:
        name = (
            item
            if isinstance(item, str)
            else (item.get("type") or item.get("name"))
            if isinstance(item, dict)
            else None
        )
        if not isinstance(name, str):
            converted.append(item)
            continue
        kind = _REFERENCE_ORACLES.get(name, name)
        if kind not in ORACLE_NAMES:
            notes.append(f"the oracle {name!r} has no counterpart here and was left out")
            continue
        settings = (
            {k: v for k, v in item.items() if k in ORACLE_SETTINGS[kind]} if isinstance(item, dict) else {}
        )
        converted.append({kind: settings} if settings else kind)
    return converted


def dump_campaign(campaign: Campaign) -> str:
    """The campaign in Parley's format (defaults left out)."""
    data = campaign.model_dump(mode="json", exclude_defaults=True, by_alias=True)
    stream = io.StringIO()
    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    yaml.dump(data, stream)
    return stream.getvalue()


# -- cases files ----------------------------------------------------------------------------------------------
def read_cases_file(path: Path) -> list[dict[str, Any]]:
    """Cases from CSV (columns prompt, name, forbidden, required, answers — lists separated by `|` — and
    rubric) or from YAML (a list of case mappings, or `{cases: [...]}`)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix.lower() == ".csv":
        rows = []
        for row in csv.DictReader(io.StringIO(text)):
            case: dict[str, Any] = {"prompt": (row.get("prompt") or "").strip()}
            for key in ("name", "rubric"):
                if (row.get(key) or "").strip():
                    case[key] = row[key].strip()
            for key in ("forbidden", "required", "answers"):
                values = [v.strip() for v in (row.get(key) or "").split("|") if v.strip()]
                if values:
                    case[key] = values
            rows.append(case)
        return rows
    documents = load_all_yaml(text)
    data = documents[0] if documents else []
    cases = data.get("cases") if isinstance(data, dict) else data
    if not isinstance(cases, list):
        raise TypeError("a YAML cases file is a list of cases (or a mapping with `cases`)")
    return cases


def load_campaign(text: str, *, base_dir: Path | None = None) -> CampaignLoad:
    """Parse and validate a campaign. `base_dir` is where `cases_file` paths are read from (the CLI); without
    it (the platform) a cases file is an error: the cases are written inline."""
    try:
        document = load_yaml(text)
    except YAMLRefused as exc:
        return CampaignLoad(None, [Problem("error", exc.user_message, exc.line, exc.column)])
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark else (None, None)
        return CampaignLoad(None, [Problem("error", f"Not valid YAML: {exc.problem or exc}", line, column)])
    except YAMLError as exc:
        return CampaignLoad(None, [Problem("error", f"Not valid YAML: {exc}")])
    locate = _Locator(document)
    data = plain(document)
    if not isinstance(data, dict):
        return CampaignLoad(
            None, [Problem("error", "A campaign is a mapping with `name` and `attacks`.", 1, 1)]
        )
    problems: list[Problem] = []
    converted = is_reference_format(data)
    if converted:
        data, notes = convert_reference(data)
        problems.append(
            Problem("warning", "Read as the reference format (security.yml) and converted.", 1, 1)
        )
        problems += [Problem("warning", note, 1, 1) for note in notes]
    for index, attack in enumerate(data.get("attacks") or []):
        if isinstance(attack, dict) and attack.get("cases_file"):
            where = ("attacks", index, "cases_file")
            problems += _read_cases(attack, base_dir, where, locate)
    try:
        campaign = Campaign.model_validate(data)
    except ValidationError as exc:
        problems += [_problem_of(error, locate) for error in exc.errors()]
        return CampaignLoad(None, problems, converted)
    problems += _warnings(campaign, locate)
    return CampaignLoad(campaign, problems, converted)


def _read_cases(
    attack: dict[str, Any], base_dir: Path | None, where: PathParts, locate: _Locator
) -> list[Problem]:
    line, column = locate(where)
    path_text = str(attack.pop("cases_file"))
    if base_dir is None:
        message = "`cases_file` is read on the command line only; write the cases inline under `cases`."
        return [Problem("error", message, line, column, _path_text(where))]
    try:
        attack["cases"] = [*(attack.get("cases") or []), *read_cases_file(base_dir / path_text)]
    except (OSError, UnicodeDecodeError, TypeError, ValueError, YAMLError, YAMLRefused, csv.Error) as exc:
        return [
            Problem(
                "error", f"cannot read the cases file {path_text}: {exc}", line, column, _path_text(where)
            )
        ]
    return []


def _warnings(campaign: Campaign, locate: _Locator) -> list[Problem]:
    problems = []
    for index, attack in enumerate(campaign.attacks):
        line, column = locate(("attacks", index))
        oracles = {o.kind for o in attack.oracles} if attack.oracles is not None else set()
        judges_leaks = attack.name == "system_prompt_stealer" or "leakage" in oracles
        if judges_leaks and not (campaign.canaries or campaign.instructions):
            problems.append(
                Problem(
                    "warning",
                    f"{attack.label}: without `canaries` or `instructions`, only an LLM judge can decide a leak "
                    "(and it must quote the reply); without a model such attempts are inconclusive.",
                    line,
                    column,
                    f"attacks[{index}]",
                    "plant a canary string in the chatbot's instructions and list it under `canaries`",
                )
            )
        if not attack.delivery.reset_session:
            problems.append(
                Problem("warning", f"{attack.label}: every attempt opens a fresh conversation.", line, column)
            )
    if not campaign.target_context.strip():
        problems.append(
            Problem(
                "warning",
                "No `target_context`: out-of-scope requests are judged only by the built-in tasks' answers.",
                1,
                1,
                hint="target_context: Takes pizza orders for pickup and answers questions about the shop.",
            )
        )
    return problems

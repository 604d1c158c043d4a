"""Conventions shared by every `parley` command that calls an LLM or reports results.

- LLM settings: `--provider`, `--model`, `--base-url`, `--api-key`; without `--api-key` the key comes from
  `PARLEY_API_KEY`, then the provider's own variable (`OPENAI_API_KEY` for openai, `GEMINI_API_KEY` for
  gemini). An openai-compatible server only ever gets `PARLEY_API_KEY` or `--api-key`: sending the user's
  OpenAI key to an arbitrary base URL would hand it to whoever runs that server.
- Egress: `PARLEY_EGRESS_ALLOW` (hosts, addresses, CIDRs) lets the CLI reach local or private servers.
- Output: `--json` prints JSON to stdout, `--json FILE` writes it; `--junit FILE` writes a JUnit XML report.
- Exit codes: 0 success, 1 findings or failures, 2 usage or configuration error.
- Progress: `cli_context()` is the one builder of an engine's run context for every command: stages, progress
  and warnings on stderr (every message too with `--verbose`), artefacts written as JSON files into the output
  folder.

This is the one place of the CLI that reads the environment; the engines get plain values.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.context import Reporter, RunContext
from engine.egress import EgressDenied, EgressGuard, EgressPolicy
from engine.errors import ParleyError
from engine.llm import PROVIDERS, LLMAuthError, LLMConfigError, ProviderConfig, ProviderState

EXIT_OK = 0
EXIT_FAILURES = 1
EXIT_USAGE = 2

PROVIDER_KEY_VARIABLES = {"openai": "OPENAI_API_KEY", "gemini": "GEMINI_API_KEY"}
STDOUT = "-"

# Errors the user fixes in settings or arguments (exit 2); any other ParleyError is a failure (exit 1).
CONFIGURATION_ERRORS: tuple[type[ParleyError], ...] = (LLMConfigError, LLMAuthError, EgressDenied)


def add_llm_arguments(parser: argparse.ArgumentParser, *, model: bool = True) -> None:
    group = parser.add_argument_group("LLM provider")
    group.add_argument(
        "--provider", choices=PROVIDERS, default="openai", help="LLM provider (default: openai)"
    )
    if model:
        group.add_argument("--model", help="model name (default: the provider's default model)")
    group.add_argument(
        "--base-url", help="base URL of an openai-compatible server, e.g. http://localhost:11434/v1"
    )
    group.add_argument(
        "--api-key",
        help="API key (default: $PARLEY_API_KEY, then $OPENAI_API_KEY or $GEMINI_API_KEY for those providers)",
    )


def resolve_api_key(provider: str, given: str | None, environ: Mapping[str, str] | None = None) -> str:
    """The key to use: the argument, then PARLEY_API_KEY, then the provider's own variable; "" if none."""
    env = os.environ if environ is None else environ
    if given:
        return given
    if env.get("PARLEY_API_KEY"):
        return env["PARLEY_API_KEY"]
    variable = PROVIDER_KEY_VARIABLES.get(provider)
    return env.get(variable, "") if variable else ""


def provider_config_from_args(
    args: argparse.Namespace, environ: Mapping[str, str] | None = None
) -> ProviderConfig:
    """A `ProviderConfig` from the arguments of `add_llm_arguments`; raises LLMConfigError when incomplete."""
    key = resolve_api_key(args.provider, args.api_key, environ)
    return ProviderConfig(
        args.provider, api_key=key, model=getattr(args, "model", None), base_url=args.base_url
    )


def provider_state() -> ProviderState:
    """What the run's LLM clients share (learned refusals, circuit breaker, rate-limit pause); every adaptation
    Parley makes to a model ("gpt-5-mini accepts only its default temperature…") is printed once on stderr."""
    return ProviderState(on_warning=lambda text: sys.stderr.write(f"parley: warning: {text}\n"))


def egress_guard_from_env(environ: Mapping[str, str] | None = None) -> EgressGuard:
    env = os.environ if environ is None else environ
    try:
        policy = EgressPolicy.parse(env.get("PARLEY_EGRESS_ALLOW"))
    except ValueError as exc:
        raise LLMConfigError(str(exc)) from None
    return EgressGuard(policy)


def int_at_least(minimum: int) -> Callable[[str], int]:
    """An argparse `type` for whole numbers of at least `minimum`, with a readable refusal."""

    def parse(text: str) -> int:
        value = int(text)
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}")
        return value

    parse.__name__ = "whole number"  # argparse names the type in "invalid whole number value: 'x'"
    return parse


def add_json_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--json",
        nargs="?",
        const=STDOUT,
        metavar="FILE",
        help="print the result as JSON, or write it to FILE",
    )


def add_junit_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--junit", metavar="FILE", help="write a JUnit XML report to FILE")


def write_json(target: str, data: Any) -> None:
    """Print `data` as JSON when `target` is "-" (bare `--json`), else write it to the file `target`."""
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    if target == STDOUT:
        sys.stdout.write(text)
    else:
        Path(target).write_text(text, encoding="utf-8")


class ConsoleReporter(Reporter):
    """What a command shows while its engine runs, on stderr: stages, progress and warnings, every message of a
    conversation too when `verbose`; `artefacts`, when given, is the folder an artefact is written to
    (`NAME.json`: SENSEI's plan.json)."""

    def __init__(
        self, *, verbose: bool = False, progress: bool = True, artefacts: Path | None = None
    ) -> None:
        self.verbose = verbose
        self.show_progress = progress
        self.artefacts = artefacts

    def _say(self, text: str) -> None:
        sys.stderr.write(text + "\n")

    def stage(self, stage: str, *, label: str | None = None) -> None:
        self._say(f"== {label or stage}")

    def progress(
        self, done: int, total: int, *, counts: Mapping[str, int] | None = None, **detail: Any
    ) -> None:
        if self.show_progress and (done or detail):
            said = ", ".join(f"{key} {_shown(value)}" for key, value in detail.items() if _shown(value))
            self._say(f"   [{done}/{total}]" + (f" {said}" if said else ""))

    def message(self, role: str, text: str, **where: Any) -> None:
        if self.verbose:
            label = " ".join(str(value) for value in where.values())
            self._say(f"   [{label}] {role}: {text}")

    def event(self, kind: str, data: Mapping[str, Any], *, done: int | None = None) -> None:
        if kind == "functionality":
            merged = f" ({data.get('detail')})" if data.get("event") == "merged" else ""
            self._say(f"   {data.get('event')}: {data.get('name')}{merged}")

    def artefact(self, name: str, content: Any) -> None:
        if self.artefacts is not None:
            write_json(str(self.artefacts / f"{name}.json"), content)

    def warning(self, text: str) -> None:
        self._say(f"   warning: {text}")


def _shown(value: Any) -> str:
    if isinstance(value, list | tuple):
        return " ".join(str(item) for item in value)
    return "" if value is None or value is False else str(value)


def cli_context(*, verbose: bool = False, progress: bool = True, artefacts: Path | None = None) -> RunContext:
    """The run context of a command's engine, for every command alike: a `ConsoleReporter` and a token that is
    never cancelled (Ctrl-C stops the command)."""
    return RunContext(reporter=ConsoleReporter(verbose=verbose, progress=progress, artefacts=artefacts))


@dataclass(frozen=True)
class JUnitCase:
    """One test case of a JUnit report; `failure` is the message of a failed case, `skipped` the reason."""

    name: str
    classname: str
    time_s: float = 0.0
    failure: str | None = None
    error: str | None = None
    skipped: str | None = None
    output: str | None = None
    properties: dict[str, str] | None = None  # <properties> of the case (CI tools show them beside it)


def junit_xml(suite_name: str, cases: Sequence[JUnitCase]) -> str:
    suite = ET.Element(
        "testsuite",
        name=suite_name,
        tests=str(len(cases)),
        failures=str(sum(1 for c in cases if c.failure is not None)),
        errors=str(sum(1 for c in cases if c.error is not None)),
        skipped=str(sum(1 for c in cases if c.skipped is not None)),
        time=f"{sum(c.time_s for c in cases):.3f}",
    )
    for case in cases:
        element = ET.SubElement(
            suite, "testcase", name=case.name, classname=case.classname, time=f"{case.time_s:.3f}"
        )
        if case.properties:
            properties = ET.SubElement(element, "properties")
            for name, value in case.properties.items():
                ET.SubElement(properties, "property", name=name, value=value)
        for tag, text in (("failure", case.failure), ("error", case.error), ("skipped", case.skipped)):
            if text is not None:
                ET.SubElement(element, tag, message=text.splitlines()[0] if text else "").text = text
        if case.output:
            ET.SubElement(element, "system-out").text = case.output
    suites = ET.Element("testsuites")
    suites.append(suite)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"


def write_junit(path: str, suite_name: str, cases: Sequence[JUnitCase]) -> None:
    Path(path).write_text(junit_xml(suite_name, cases), encoding="utf-8")


def report_errors(handler: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """Wrap a command handler: a ParleyError becomes its message on stderr and exit code 2 or 1."""

    def wrapped(args: argparse.Namespace) -> int:
        try:
            return handler(args)
        except ParleyError as exc:
            sys.stderr.write(f"parley: {exc.user_message}\n")
            return EXIT_USAGE if isinstance(exc, CONFIGURATION_ERRORS) else EXIT_FAILURES

    return wrapped

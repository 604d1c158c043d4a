"""Running a rule set: the public `check()` and the child process that evaluates rules under OS limits.

`check(rules, conversations, judge=None, limits=Limits())` compiles the rules, then (by default) starts a
fresh Python interpreter (`python -I`, an empty environment, working directory `/`) that receives the rules and
conversations on stdin, sets its own limits — address space (RLIMIT_AS), CPU time (RLIMIT_CPU, a soft limit
per rule, whose SIGXCPU ends the child even inside a long C call, and a hard one for the process), no file writes (RLIMIT_FSIZE 0), no core files — and streams one
report per rule back on stdout. The parent enforces the wall clock, answers the child's judge questions
(so the only network access stays in the parent, through the LLM gateway) and, if the child dies in a rule
(CPU or memory exhausted), records that rule as an error and restarts a child for the remaining rules.

A subprocess rather than `multiprocessing` because Celery's prefork workers are daemonic processes, which
`multiprocessing` does not let start children. `Limits(isolate=False)` evaluates in-process (tests, custom
function registries); the sandbox's own step, depth and size limits apply either way.

With a run context (`engine.context`), the run reports the stage "checking" and each rule as it is done
(`progress`, with the rule's name; in a child process, as its reports come back).
"""

from __future__ import annotations

import contextlib
import json
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any

from engine.check.errors import CheckError, RuleError
from engine.check.evaluate import MAX_COMBINATIONS, evaluate_rule
from engine.check.functions import FunctionRegistry, default_registry
from engine.check.judge import SCHEMAS, CachingJudge, Judge, JudgeStats
from engine.check.namespace import ConversationView
from engine.check.report import (
    DEFAULT_MAX_LISTED,
    CheckReport,
    CheckResult,
    ErrorCodeCount,
    Outcome,
    RuleReport,
)
from engine.check.rules import CompiledRule, Rule
from engine.check.sandbox import SandboxLimits
from engine.context import Reporter, RunContext
from engine.conversation import ConversationRecord


@dataclass(frozen=True)
class Limits:
    """Every limit of a check run. The sandbox limits apply to each evaluation; the others to the run."""

    sandbox: SandboxLimits = field(default_factory=SandboxLimits)
    max_combinations: int = MAX_COMBINATIONS  # checks one k-conversation rule may make
    max_listed: int = DEFAULT_MAX_LISTED  # failures listed per rule in the report
    rule_cpu_seconds: float = 60.0  # CPU time one rule may use in the child
    cpu_seconds: float = 900.0  # CPU time one child process may use in total
    memory_bytes: int = 2 * 1024**3  # address space of the child
    wall_seconds: float = 1800.0  # wall clock of the whole run, judge time excluded
    isolate: bool = True  # evaluate in a child process


def check(
    rules: Sequence[Rule],
    conversations: Sequence[ConversationRecord],
    judge: Judge | None = None,
    limits: Limits | None = None,
    *,
    registry: FunctionRegistry | None = None,
    context: RunContext | None = None,
) -> CheckReport:
    """Check `rules` on `conversations`; raises RuleError for a rule that does not compile, else reports."""
    limits = limits or Limits()
    reporter = (context or RunContext()).reporter
    started = time.perf_counter()
    active = [rule for rule in rules if rule.active]
    compiled = [rule.compile(limits.sandbox) for rule in active]
    caching = CachingJudge(judge) if judge is not None else None
    if limits.isolate:
        if registry is not None:
            raise CheckError("custom function registries only work with Limits(isolate=False)")
        reporter.stage("checking")
        reports = _run_isolated(active, conversations, caching, limits, reporter)
    else:
        reporter.stage("checking")
        reports = _run_here(
            compiled, conversations, caching, limits, registry or default_registry(), reporter
        )
    return CheckReport(
        rules=reports,
        conversations=len(conversations),
        conversation_errors=error_code_counts(conversations),
        judge=(caching.stats if caching else JudgeStats()).to_json(),
        duration_s=time.perf_counter() - started,
    )


def error_code_counts(conversations: Sequence[ConversationRecord]) -> list[ErrorCodeCount]:
    """How many conversations ended with each error code (the reference's generic pseudo-rules)."""
    found: dict[int, list[str]] = {}
    names: dict[int, str] = {}
    for record in conversations:
        for error in record.errors:
            ids = found.setdefault(error.code, [])
            if record.id not in ids:
                ids.append(record.id)
            names[error.code] = error.name
    return [
        ErrorCodeCount(code=code, name=names[code], count=len(ids), conversations=ids)
        for code, ids in sorted(found.items())
    ]


def _run_here(
    compiled: list[CompiledRule],
    conversations: Sequence[ConversationRecord],
    judge: Judge | None,
    limits: Limits,
    registry: FunctionRegistry,
    reporter: Reporter,
) -> list[RuleReport]:
    views = [ConversationView(record) for record in conversations]
    reports = []
    for done, rule in enumerate(compiled, 1):
        reports.append(
            evaluate_rule(
                rule,
                views,
                registry=registry,
                judge=judge,
                limits=limits.sandbox,
                max_combinations=limits.max_combinations,
                max_listed=limits.max_listed,
            )
        )
        reporter.progress(done, len(compiled), rule=rule.rule.name)
    return reports


def _stopped(rule: Rule, reason: str) -> RuleReport:
    report = RuleReport.for_rule(rule)
    report.add(CheckResult(conversations=[], outcome=Outcome.ERROR, reason=reason))
    return report


# -- the parent side -------------------------------------------------------------------------------------------

_BACKEND_ROOT = str(Path(__file__).resolve().parents[2])
_CHILD_CODE = (
    "import sys; sys.path.insert(0, sys.argv[1]); from engine.check.runner import child_main; child_main()"
)
_CHILD_ENV = {
    "PATH": "/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "PYTHONIOENCODING": "utf-8",
    "PYTHONDONTWRITEBYTECODE": "1",
}


def _run_isolated(
    rules: list[Rule],
    conversations: Sequence[ConversationRecord],
    judge: Judge | None,
    limits: Limits,
    reporter: Reporter,
) -> list[RuleReport]:
    reports: dict[int, RuleReport] = {}
    pending = list(range(len(rules)))
    deadline = time.monotonic() + limits.wall_seconds
    records = [record.model_dump(mode="json") for record in conversations]
    settings = {
        "sandbox": asdict(limits.sandbox),
        "max_combinations": limits.max_combinations,
        "max_listed": limits.max_listed,
        "rule_cpu_seconds": limits.rule_cpu_seconds,
        "cpu_seconds": limits.cpu_seconds,
        "memory_bytes": limits.memory_bytes,
    }
    while pending:
        payload = {
            "rules": [
                {"index": i, "rule": rules[i].model_dump(mode="json", by_alias=False)} for i in pending
            ],
            "conversations": records,
            "limits": settings,
            "judge": judge is not None,
        }
        outcome = _one_child(payload, judge, deadline)
        deadline = outcome.deadline
        for index, report in outcome.reports.items():
            reports[index] = report
            pending.remove(index)
            reporter.progress(len(reports), len(rules), rule=rules[index].name)
        if outcome.timed_out:
            for index in pending:
                reports[index] = _stopped(
                    rules[index], f"the check run took longer than {limits.wall_seconds:g} s and was stopped"
                )
            break
        if outcome.failed_rule is not None:
            index = outcome.failed_rule
            reports[index] = _stopped(rules[index], outcome.failure)
            pending.remove(index)
        elif pending:
            raise CheckError(f"the rule checker process stopped unexpectedly: {outcome.failure}")
    return [reports[i] for i in range(len(rules))]


@dataclass
class _ChildOutcome:
    reports: dict[int, RuleReport] = field(default_factory=dict)
    failed_rule: int | None = None
    failure: str = ""
    timed_out: bool = False
    deadline: float = 0.0


def _one_child(payload: dict[str, Any], judge: Judge | None, deadline: float) -> _ChildOutcome:
    outcome = _ChildOutcome(deadline=deadline)
    with tempfile.TemporaryFile() as stderr:
        process = subprocess.Popen(  # noqa: S603 - our own interpreter with a fixed program
            [sys.executable, "-I", "-c", _CHILD_CODE, _BACKEND_ROOT],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            env=_CHILD_ENV,
            cwd="/",
            close_fds=True,
        )
        assert process.stdin is not None and process.stdout is not None
        lines: queue.Queue[bytes | None] = queue.Queue()
        reader = threading.Thread(target=_pump, args=(process.stdout, lines), daemon=True)
        reader.start()
        current: int | None = None
        ready = False
        try:
            try:
                process.stdin.write(json.dumps(payload).encode() + b"\n")
                process.stdin.flush()
            except BrokenPipeError:
                pass
            while True:
                remaining = outcome.deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError
                try:
                    line = lines.get(timeout=remaining)
                except queue.Empty:
                    raise TimeoutError from None
                if line is None:
                    break
                message = json.loads(line)
                kind = message.get("type")
                if kind == "ready":
                    ready = True
                elif kind == "start":
                    current = int(message["rule"])
                elif kind == "rule":
                    outcome.reports[int(message["rule"])] = RuleReport.model_validate(message["report"])
                    current = None
                elif kind == "judge":
                    began = time.monotonic()
                    answer = _answer(judge, message)
                    outcome.deadline += time.monotonic() - began  # judge time does not count
                    process.stdin.write(json.dumps(answer).encode() + b"\n")
                    process.stdin.flush()
                elif kind == "done":
                    break
        except TimeoutError:
            outcome.timed_out = True
        except (BrokenPipeError, json.JSONDecodeError, ValueError, KeyError):
            pass
        finally:
            if process.poll() is None:
                process.kill()
            process.wait()
            reader.join(timeout=5)
        if outcome.timed_out:
            return outcome
        code = process.returncode
        if code != 0 or current is not None:
            stderr.seek(0)
            tail = stderr.read()[-2000:].decode("utf-8", "replace").strip()
            if not ready:
                raise CheckError(f"could not start the rule checker process (exit {code}): {tail[-500:]}")
            outcome.failed_rule = current
            outcome.failure = _death_reason(code, tail)
    return outcome


def _pump(stream: IO[bytes], lines: queue.Queue[bytes | None]) -> None:
    for line in stream:
        lines.put(line)
    lines.put(None)


def _death_reason(code: int, tail: str) -> str:
    if code == -signal.SIGXCPU:
        return "the rule was stopped: it used more CPU time than a rule may (the rule CPU-time limit)"
    if code == -signal.SIGKILL:
        return "the rule was stopped: it exceeded the CPU-time or memory limit of the rule checker"
    if "MemoryError" in tail:
        return "the rule was stopped: it exceeded the memory limit of the rule checker"
    last = tail.splitlines()[-1] if tail else ""
    return f"the rule checker process stopped (exit code {code}){': ' + last if last else ''}"


def _answer(judge: Judge | None, message: dict[str, Any]) -> dict[str, Any]:
    reply: dict[str, Any] = {"type": "answer", "id": message.get("id")}
    schema = SCHEMAS.get(str(message.get("schema")))
    if judge is None or schema is None:
        reply["error"] = "no judge model configured" if judge is None else "unknown answer schema"
        return reply
    try:
        answer = judge.ask(
            str(message["instructions"]), str(message["material"]), schema, tag=str(message["tag"])
        )
        reply["answer"] = answer.model_dump(mode="json")
    except CheckError as exc:
        reply["error"] = exc.user_message
    except Exception as exc:  # noqa: BLE001 - reported to the child as this check's error
        reply["error"] = getattr(exc, "user_message", None) or f"{type(exc).__name__}: {exc}"
    return reply


# -- the child side ----------------------------------------------------------------------------------------


class _PipeJudge:
    """The child's judge: asks the parent over the protocol pipe and waits for the answer."""

    def __init__(self, out: IO[str], inp: IO[str]) -> None:
        self.out = out
        self.inp = inp
        self.asked = 0

    def ask(self, instructions: str, material: str, schema: type[Any], *, tag: str) -> Any:
        self.asked += 1
        request = {
            "type": "judge",
            "id": self.asked,
            "tag": tag,
            "schema": schema.__name__,
            "instructions": instructions,
            "material": material,
        }
        _send(self.out, request)
        line = self.inp.readline()
        if not line:
            raise CheckError("the parent process stopped answering")
        reply = json.loads(line)
        if "error" in reply:
            raise CheckError(str(reply["error"]))
        return schema.model_validate(reply["answer"])


def _send(out: IO[str], message: dict[str, Any]) -> None:
    out.write(json.dumps(message, ensure_ascii=False) + "\n")
    out.flush()


def _apply_os_limits(settings: dict[str, Any]) -> None:
    import resource

    def set_limit(kind: int, soft: int, hard: int) -> None:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(kind, (soft, hard))

    memory = int(settings["memory_bytes"])
    set_limit(resource.RLIMIT_AS, memory, memory)
    cpu = int(settings["cpu_seconds"]) + 1
    set_limit(resource.RLIMIT_CPU, cpu, cpu)
    set_limit(resource.RLIMIT_FSIZE, 0, 0)
    set_limit(resource.RLIMIT_CORE, 0, 0)


def _rule_cpu_limit(seconds: float) -> None:
    import resource

    used = resource.getrusage(resource.RUSAGE_SELF)
    now = used.ru_utime + used.ru_stime
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    soft = int(now + seconds) + 1
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def child_main() -> None:
    """Entry point of the child process: read the job, evaluate rule by rule, report each one."""
    out = sys.stdout
    sys.stdout = sys.stderr  # nothing but the protocol may reach the parent's pipe
    inp = sys.stdin
    job = json.loads(inp.readline())
    settings = job["limits"]
    _apply_os_limits(settings)
    sandbox = SandboxLimits(**settings["sandbox"])
    views = [ConversationView(ConversationRecord.model_validate(item)) for item in job["conversations"]]
    judge = _PipeJudge(out, inp) if job["judge"] else None
    registry = default_registry()
    _send(out, {"type": "ready"})
    for item in job["rules"]:
        index = int(item["index"])
        rule = Rule.model_validate(item["rule"])
        _send(out, {"type": "start", "rule": index})
        _rule_cpu_limit(float(settings["rule_cpu_seconds"]))
        try:
            report = evaluate_rule(
                rule.compile(sandbox),
                views,
                registry=registry,
                judge=judge,
                limits=sandbox,
                max_combinations=int(settings["max_combinations"]),
                max_listed=int(settings["max_listed"]),
            )
        except RuleError as exc:
            report = _stopped(rule, exc.user_message)
        _send(out, {"type": "rule", "rule": index, "report": report.model_dump(mode="json")})
    _send(out, {"type": "done"})


__all__ = ["Limits", "check", "child_main", "error_code_counts"]

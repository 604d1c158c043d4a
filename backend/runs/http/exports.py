"""Aggregates for the dashboards and exports of a run (JSON, CSV, JUnit XML).

Everything is computed from the stored rows of one run, so an export is the same whichever worker ran it.
SENSEI conversations are counted by verdict (`engine.sensei.verdicts`): only `failed` is a chatbot failure
(a JUnit `<failure>`); `inconclusive` ones are shown apart with their reasons (JUnit `<skipped>`). Records
stored before verdicts existed get theirs decided when read.
"""

from __future__ import annotations

import io
import json
import statistics as stats
from collections import Counter, defaultdict
from typing import Any
from xml.etree import ElementTree as ET

from engine.conversation import ErrorCode
from engine.sensei.verdicts import current, tally, verdict_of
from engine.spreadsheet import csv_writer
from runs.http import security_exports
from runs.models import Artefact, Conversation, RuleResult, Run


def _error_name(code: int) -> str:
    try:
        return ErrorCode(code).slug
    except ValueError:
        return f"http_{code}" if 100 <= code < 600 else "unknown"


def _response_times(records: list[dict[str, Any]]) -> list[float]:
    return [
        float(turn["latency_s"])
        for record in records
        for turn in record.get("turns", [])
        if turn.get("role") == "bot" and turn.get("latency_s") is not None
    ]


def _distribution(values: list[float]) -> dict[str, Any]:
    if not values:
        return {"count": 0}
    ordered = sorted(values)
    return {
        "count": len(ordered),
        "min": ordered[0],
        "max": ordered[-1],
        "mean": round(stats.fmean(ordered), 4),
        "median": round(stats.median(ordered), 4),
        "p90": ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))],
        # Ten equal-width buckets for the histogram.
        "histogram": _histogram(ordered),
    }


def _histogram(ordered: list[float], buckets: int = 10) -> list[dict[str, float]]:
    low, high = ordered[0], ordered[-1]
    width = (high - low) / buckets or 1.0
    counts = [0] * buckets
    for value in ordered:
        counts[min(buckets - 1, int((value - low) / width))] += 1
    return [
        {"from": round(low + i * width, 4), "to": round(low + (i + 1) * width, 4), "count": c}
        for i, c in enumerate(counts)
    ]


def _verdict(row: dict[str, Any]) -> tuple[str, str]:
    return verdict_of(row["record"])


def statistics(run: Run) -> dict[str, Any]:
    """Errors by code, cost and response times per profile, rule pass rates: what the charts draw."""
    body: dict[str, Any] = {"kind": run.kind, "usage": run.usage, "cost_usd": run.cost_usd}
    if run.kind == Run.Kind.SENSEI:
        rows = list(
            Conversation.objects.filter(run=run).values("profile", "record", "has_errors", "cost_usd")
        )
        errors: Counter[int] = Counter(e["code"] for row in rows for e in row["record"].get("errors", []))
        per_profile: dict[str, dict[str, Any]] = defaultdict(
            lambda: {"conversations": 0, "with_errors": 0, "cost_usd": 0.0}
        )
        for row in rows:
            entry = per_profile[row["profile"]]
            entry["conversations"] += 1
            entry["with_errors"] += int(row["has_errors"])
            entry["cost_usd"] = round(entry["cost_usd"] + (row["cost_usd"] or 0.0), 6)
        verdicts = [_verdict(row) for row in rows]
        for row, (verdict, _) in zip(rows, verdicts, strict=True):
            per_profile[row["profile"]][verdict] = per_profile[row["profile"]].get(verdict, 0) + 1
        slips = [row["record"].get("settings", {}).get("simulator_slips") or [] for row in rows]
        body.update(
            conversations=len(rows),
            with_errors=sum(int(row["has_errors"]) for row in rows),
            **tally(verdicts),
            simulator_slips=sum(len(s) for s in slips if isinstance(s, list)),
            errors_by_code=[
                {"code": c, "name": _error_name(c), "count": n} for c, n in sorted(errors.items())
            ],
            profiles=[{"profile": name, **entry} for name, entry in sorted(per_profile.items())],
            response_times=_distribution(_response_times([row["record"] for row in rows])),
        )
    elif run.kind == Run.Kind.SECURITY:
        body.update(security_exports.statistics(run))
    elif run.kind == Run.Kind.CHECK:
        results = list(RuleResult.objects.filter(run=run))
        body["rules"] = [
            {
                "name": r.name,
                "status": r.status,
                "checks": r.checks,
                "passed": r.passed,
                "failed": r.failed,
                "not_applicable": r.not_applicable,
                "errors": r.errors,
                "pass_rate": round(r.passed / (r.passed + r.failed + r.errors), 4)
                if (r.passed + r.failed + r.errors)
                else None,
            }
            for r in results
        ]
    return body


def _run_json(run: Run) -> dict[str, Any]:
    from runs.http.serializers import RunSerializer

    # The input in full (with the profile and rule snapshots): what it takes to repeat the run.
    document: dict[str, Any] = {
        "run": RunSerializer(run).data,
        "input": run.input,
        "statistics": statistics(run),
    }
    if run.kind == Run.Kind.SENSEI:
        document["conversations"] = [row.record for row in Conversation.objects.filter(run=run)]
    if run.kind == Run.Kind.CHECK:
        document["rules"] = [result.report for result in RuleResult.objects.filter(run=run)]
    if run.kind == Run.Kind.BENCH:
        document["bench"] = _bench_data(run)
    if run.kind == Run.Kind.SECURITY:
        document["attempts"] = security_exports.records(run)
    return document


def _bench_data(run: Run) -> dict[str, Any]:
    artefact = Artefact.objects.filter(run=run, name=Artefact.Name.BENCH).first()
    return artefact.content if artefact else {}


def _bench_mutants(run: Run) -> list[dict[str, Any]]:
    """Every mutant the bench ran, with its bot: the rows of the bench's CSV and JUnit exports."""
    bots = _bench_data(run).get("bots", {})
    return [{"bot": bot, **mutant} for bot, data in bots.items() for mutant in data["mutation"]["mutants"]]


def _csv(run: Run) -> str:
    if run.kind == Run.Kind.SECURITY:
        return security_exports.csv_text(run)
    out = io.StringIO()
    writer = csv_writer(out)
    if run.kind == Run.Kind.BENCH:
        # status/killed: differential, with oracles; killing signatures: seen on the mutant, never on the original.
        writer.writerow(
            [
                "bot",
                "mutant",
                "operator",
                "status",
                "killed_automatic",
                "reasons",
                "killing_signatures",
                "description",
            ]
        )
        for m in _bench_mutants(run):
            killing = [
                "/".join(str(part) for part in k["signature"]) for k in m.get("kills", []) if k.get("kills")
            ]
            writer.writerow(
                [
                    m["bot"],
                    m["id"],
                    m["operator"],
                    m["status"],
                    "yes" if m.get("killed_automatic") else "no",
                    " ".join(m["reasons"]),
                    " ".join(killing),
                    m["description"],
                ]
            )
        return out.getvalue()
    if run.kind == Run.Kind.CHECK:
        writer.writerow(["rule", "status", "checks", "passed", "failed", "not_applicable", "errors"])
        for r in RuleResult.objects.filter(run=run):
            writer.writerow([r.name, r.status, r.checks, r.passed, r.failed, r.not_applicable, r.errors])
        return out.getvalue()
    writer.writerow(
        [
            "conversation",
            "profile",
            "index",
            "verdict",
            "verdict_reason",
            "turns",
            "errors",
            "duration_s",
            "cost_usd",
            "inputs",
            "outputs",
            "evidence",
            "fault",
            "evidence_turn",
        ]
    )
    for row in Conversation.objects.filter(run=run):
        record = row.record
        decided = current(record)
        verdict, reason = decided.pair
        writer.writerow(
            [
                record.get("id"),
                row.profile,
                row.index,
                verdict,
                reason,
                row.turns,
                " ".join(map(str, row.error_codes)),
                row.duration_s,
                row.cost_usd,
                json.dumps(record.get("inputs", {})),
                json.dumps(record.get("outputs", {})),
                json.dumps(record.get("evidence", {})),
                decided.fault or "",
                "" if decided.evidence_turn is None else decided.evidence_turn,
            ]
        )
    return out.getvalue()


def _junit(run: Run) -> str:
    if run.kind == Run.Kind.SECURITY:
        return security_exports.junit(run)
    suite = ET.Element("testsuite", name=f"parley-{run.kind}-{run.pk}")
    cases = 0
    failures = 0
    skipped = 0
    if run.kind == Run.Kind.CHECK:
        for r in RuleResult.objects.filter(run=run):
            case = ET.SubElement(suite, "testcase", classname="rules", name=r.name)
            cases += 1
            if r.status in ("failed", "error"):
                failures += 1
                reasons = [item.get("reason") or "" for item in r.report.get("results", [])][:20]
                ET.SubElement(
                    case, "failure", message=f"{r.failed} failed, {r.errors} errors"
                ).text = "\n".join(reasons)
    elif run.kind == Run.Kind.BENCH:
        # A live mutant is a fault the tests did not find: the failure a CI pipeline should show.
        for m in _bench_mutants(run):
            if m["status"] == "stillborn":
                continue
            case = ET.SubElement(suite, "testcase", classname=f"mutants.{m['bot']}", name=m["id"])
            cases += 1
            if m["status"] != "killed":
                failures += 1
                ET.SubElement(case, "failure", message=f"{m['status']}: {m['operator']}").text = m[
                    "description"
                ]
            else:
                killing = [k for k in m.get("kills", []) if k.get("kills")]
                ET.SubElement(case, "system-out").text = "\n".join(
                    f"{k['reason']} {'/'.join(str(p) for p in k['signature'])}: mutant {k['mutant_count']}, "
                    "original 0"
                    for k in killing
                )
    else:
        for row in Conversation.objects.filter(run=run):
            case = ET.SubElement(suite, "testcase", classname=row.profile, name=f"conversation {row.index}")
            cases += 1
            verdict, reason = verdict_of(row.record)
            messages = [f"{e['code']}: {e['message']}" for e in row.record.get("errors", [])]
            if verdict == "failed":  # only a chatbot fault fails the test case
                failures += 1
                ET.SubElement(case, "failure", message=reason).text = "\n".join(messages)
            elif verdict == "inconclusive":
                skipped += 1
                ET.SubElement(case, "skipped", message=f"inconclusive: {reason}").text = "\n".join(messages)
    suite.set("tests", str(cases))
    suite.set("failures", str(failures))
    suite.set("skipped", str(skipped))
    return ET.tostring(suite, encoding="unicode", xml_declaration=True)


def render(run: Run, fmt: str) -> tuple[str, str, str]:
    """(body, content type, file extension)."""
    if fmt == "json":
        return json.dumps(_run_json(run), indent=2, default=str), "application/json", "json"
    if fmt == "csv":
        return _csv(run), "text/csv; charset=utf-8", "csv"
    return _junit(run), "application/xml", "xml"

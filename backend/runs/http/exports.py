"""Aggregates for the dashboards and exports of a run (JSON, CSV, JUnit XML).

Everything is computed from the stored rows of one run, so an export is the same whichever worker ran it.
SENSEI conversations are counted by verdict (`engine.sensei.verdicts`): only `failed` is a chatbot failure
(a JUnit `<failure>`); `inconclusive` ones are shown apart with their reasons (JUnit `<skipped>`). Records
stored before verdicts existed get theirs decided when read.
"""

from __future__ import annotations

import io
import json
from typing import Any
from xml.etree import ElementTree as ET

from engine.sensei.verdicts import current, verdict_of
from engine.spreadsheet import csv_writer
from runs.http import security_exports
from runs.http.statistics import statistics
from runs.models import Artefact, Conversation, RuleResult, Run


def _run_json(run: Run) -> dict[str, Any]:
    from runs.http.serializers import RunSerializer

    # The input in full (with the profile and rule snapshots): what it takes to repeat the run.
    document: dict[str, Any] = {
        "run": RunSerializer(run).data,
        "input": run.input,
        "statistics": statistics(run).model_dump(mode="json", by_alias=True),
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

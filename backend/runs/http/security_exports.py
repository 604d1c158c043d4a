"""What the dashboards and exports read of a security campaign run: its attempts, their statistics (breach
rates with Wilson intervals per attack, delivery mode and state), and the CSV and JUnit exports."""

from __future__ import annotations

import io
from collections import Counter
from typing import Any
from xml.etree import ElementTree as ET

from engine.security import AttemptRecord, summarise
from engine.spreadsheet import csv_writer
from runs.models import Run, SecurityAttempt


def records(run: Run) -> list[dict[str, Any]]:
    return list(SecurityAttempt.objects.filter(run=run).values_list("record", flat=True))


def statistics(run: Run) -> dict[str, Any]:
    """Verdict counts and breach rates (Wilson intervals) per attack and delivery mode; from TRACER's states, per
    state too, with the TRACER run whose graph they are states of."""
    body = summarise([AttemptRecord.model_validate(record) for record in records(run)])
    tracer = run.input.get("tracer") if isinstance(run.input, dict) else None
    if tracer:
        body["tracer_run"] = tracer.get("run")
    return body


def _reply(record: dict[str, Any]) -> str:
    bot = [
        t["text"] for t in record.get("transcript", []) if t["role"] == "bot" and t.get("phase") == "attack"
    ]
    return bot[-1] if bot else ""


def csv_text(run: Run) -> str:
    out = io.StringIO()
    writer = csv_writer(out)
    writer.writerow(
        ["attack", "strategy", "attempt", "delivery", "verdict", "because", "evidence", "prompt", "reply"]
    )
    for record in records(run):
        writer.writerow(
            [
                record["attack_id"],
                record["attack"],
                record["index"] + 1,
                record["delivery"],
                record["verdict"],
                record["because"],
                " | ".join(e["quote"] for e in record.get("evidence", [])),
                record.get("prompt", ""),
                _reply(record),
            ]
        )
    return out.getvalue()


def junit(run: Run) -> str:
    """A breach is a failure, an error an error, an inconclusive attempt skipped with its reason."""
    suite = ET.Element("testsuite", name=f"parley-security-{run.pk}")
    counts = Counter[str]()
    for record in records(run):
        case = ET.SubElement(
            suite,
            "testcase",
            classname=f"security.{record['attack_id']}",
            name=f"attempt {record['index'] + 1} ({record['delivery']})",
        )
        detail = record["because"] + "".join(f"\n> {e['quote']}" for e in record.get("evidence", []))
        tag = {"breached": "failure", "error": "error", "inconclusive": "skipped"}.get(record["verdict"])
        if tag:
            counts[tag] += 1
            ET.SubElement(case, tag, message=record["because"][:200]).text = detail
        counts["tests"] += 1
    suite.set("tests", str(counts["tests"]))
    suite.set("failures", str(counts["failure"]))
    suite.set("errors", str(counts["error"]))
    suite.set("skipped", str(counts["skipped"]))
    return ET.tostring(suite, encoding="unicode", xml_declaration=True)

"""The fidelity report: simulated conversations against real ones on the behaviour measures, before and after
calibration (issue 38, item 5). JSON for the platform's chart, Markdown for a person.
"""

from __future__ import annotations

from typing import Any

from engine.transcripts.measures import MEASURES, Measures, distance

LABELS = {
    "words_per_message": "words per user message",
    "user_turns": "user turns per conversation",
    "ignored_question": "questions ignored (share)",
    "correction": "self-corrections (share of messages)",
    "change_of_mind": "changes of mind (share of messages)",
    "leave_after": "fallbacks in a row before leaving",
}


def fidelity_report(real: Measures, before: Measures, after: Measures, *, note: str = "") -> dict[str, Any]:
    gap_before, gap_after = distance(before, real), distance(after, real)
    return {
        "note": note,
        "conversations": {
            "real": real.conversations,
            "uncalibrated": before.conversations,
            "calibrated": after.conversations,
        },
        "measures": {
            name: {
                "real": real.summary()[name],
                "uncalibrated": before.summary()[name],
                "calibrated": after.summary()[name],
                "gap_uncalibrated": gap_before[name],
                "gap_calibrated": gap_after[name],
            }
            for name in MEASURES
        },
        "overall_gap": {"uncalibrated": gap_before["overall"], "calibrated": gap_after["overall"]},
        "closer": gap_after["overall"] < gap_before["overall"],
    }


def fidelity_markdown(report: dict[str, Any], title: str = "Simulated user fidelity") -> str:
    counts = report["conversations"]
    lines = [f"# {title}", ""]
    if report.get("note"):
        lines += [f"_{report['note']}_", ""]
    lines += [
        (
            f"Real conversations: {counts['real']}; simulated: {counts['uncalibrated']} uncalibrated, "
            f"{counts['calibrated']} calibrated. Gap = |simulated - real| / real (0 is a perfect match)."
        ),
        "",
        "| measure | real | uncalibrated | calibrated | gap before | gap after |",
        "|---|---|---|---|---|---|",
    ]
    for name, row in report["measures"].items():
        lines.append(
            f"| {LABELS.get(name, name)} | {row['real']} | {row['uncalibrated']} | {row['calibrated']} | "
            f"{row['gap_uncalibrated']} | {row['gap_calibrated']} |"
        )
    gap = report["overall_gap"]
    verdict = "closer to" if report["closer"] else "NOT closer to"
    lines += ["", (f"Mean gap {gap['uncalibrated']} before, {gap['calibrated']} after: the calibrated user is "
              f"{verdict} the real users.")]  # fmt: skip
    return "\n".join(lines) + "\n"

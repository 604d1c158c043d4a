"""A comparison as text for a console or a CI log: the verdict first, then why, then the evidence."""

from __future__ import annotations

from engine.regression.compare import ComparedGroup, ComparedMatch, ComparedSide, Comparison


def _rate(side: ComparedSide) -> str:
    if side.rate is None:
        return "—"
    return f"{100 * side.rate:.0f} % ({side.passed}/{side.decided}, CI {100 * side.low:.0f}-{100 * side.high:.0f} %)"


def _group_line(group: ComparedGroup) -> str:
    return f"  {group.status:<12} {group.name}: {_rate(group.baseline)} → {_rate(group.run)}"


def _match_line(match: ComparedMatch) -> str:
    run = next((b for b in match.run if b.verdict == "failed"), match.run[0] if match.run else None)
    why = f" — {run.reason}" if run is not None and run.reason else ""
    inputs = ", ".join(f"{k}={v}" for k, v in match.inputs.items()) or "no inputs"
    return f"  {match.profile} #{match.planned_index} ({inputs}){why}"


def to_text(comparison: Comparison, *, verbose: bool = False) -> str:
    head = f"{comparison.verdict.upper()}: {comparison.run_label} against the baseline {comparison.baseline_label}"
    lines = [f"{head} (threshold {100 * comparison.threshold:.0f} points)"]
    lines += [f"- {reason}" for reason in comparison.reasons]
    lines.append("pass rates (baseline → run):")
    lines.append(_group_line(comparison.overall))
    shown = [g for g in (*comparison.profiles, *comparison.rules) if verbose or g.status != "unchanged"]
    lines += [_group_line(g) for g in shown]
    hidden = len(comparison.profiles) + len(comparison.rules) - len(shown)
    if hidden:
        lines.append(f"  ({hidden} profile(s) and rule(s) unchanged; --verbose lists them)")
    for title, matches in (
        ("newly failing", comparison.newly_failing),
        ("newly passing", comparison.newly_passing),
        ("flaky (verdict differs across repeats; not a regression by itself)", comparison.flaky),
    ):
        if matches:
            lines.append(f"{title}: {len(matches)}")
            lines += [_match_line(m) for m in matches[: None if verbose else 10]]
    if comparison.new_error_codes:
        codes = ", ".join(f"{e.code} {e.name} x{e.count}" for e in comparison.new_error_codes)
        lines.append(f"new error codes: {codes}")
    for side in ("baseline", "run"):
        reasons = getattr(comparison.inconclusive_reasons, side)
        if reasons:
            listed = ", ".join(f"{reason} x{count}" for reason, count in reasons.items())
            lines.append(f"inconclusive in the {side} (left out of the pass rates): {listed}")
    cost = comparison.cost
    if cost.baseline_usd is not None and cost.run_usd is not None and cost.delta_usd is not None:
        lines.append(f"cost: ${cost.baseline_usd:.4f} → ${cost.run_usd:.4f} ({cost.delta_usd:+.4f})")
    before, after = comparison.response_time.baseline, comparison.response_time.run
    if before.mean_s is not None and after.mean_s is not None:
        lines.append(
            f"response time: mean {before.mean_s} s → {after.mean_s} s, p95 {before.p95_s} s → {after.p95_s} s"
        )
    lines.append(
        f"matched conversations: {comparison.matched} (baseline only {comparison.baseline_only}, "
        f"run only {comparison.run_only})"
    )
    lines += [f"note: {note}" for note in comparison.notes]
    return "\n".join(lines) + "\n"

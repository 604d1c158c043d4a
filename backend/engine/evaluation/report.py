"""bench.json and bench.md: the figures per bot and overall, each table followed by what it was measured with
(provider, model, temperature, seed, repeats, Parley's version), the thesis's published figures beside ours,
every kill with its counts, every false-alarm signature and every functionality match, so that each figure
can be audited."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from engine.evaluation import thesis
from engine.evaluation.matching import LEXICAL_NOTE

DIMENSIONS = ("module", "input", "value", "question")
NOT_COMPARABLE = "not comparable: different chatbots"


def write_report(directory: Path, data: dict[str, Any], markdown: str) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "bench.json").write_text(
        json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    (directory / "bench.md").write_text(markdown, encoding="utf-8")


def _pct(value: Any) -> str:
    return "-" if value is None else f"{float(value):.2f}"


def _ci(value: Any) -> str:
    return "-" if not value else f"{value[0]:.1f}-{value[1]:.1f}"


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


# -- the thesis beside ours ---------------------------------------------------------------------------------------


def _score(block: dict[str, Any] | None) -> float | None:
    return None if not block else block.get("score")


def comparison(data: dict[str, Any]) -> dict[str, Any]:
    """The thesis's tables 6.2-6.4 beside ours (what bench.md prints in the thesis's shape)."""
    bots = data["bots"]
    scores = data["scores"]
    model = data["provenance"]
    ours_model = f"{model.get('provider') or '?'} {model.get('model') or '?'}" + (
        f" ({model['llm_note']})" if model.get("llm_note") else ""
    )
    rq1 = [
        {
            "bot": bot,
            "thesis_bot": thesis.THESIS_BOTS.get(bot),
            "thesis": thesis.VALUE_COVERAGE.get(bot),
            "ours": {
                "tracer": b["tracer"]["coverage"].get("value"),
                "sensei": b["sensei"]["coverage"]["aggregate"].get("value"),
            },
        }
        for bot, b in bots.items()
    ]
    rq2 = [
        {
            "bot": bot,
            "thesis_bot": thesis.THESIS_BOTS.get(bot),
            "thesis": thesis.MUTATION.get(bot),
            "ours": {
                "mutants": b["scores"]["with_oracles"]["scored"],
                "automatic": _score(b["scores"]["automatic"]),
                "with_oracles": _score(b["scores"]["with_oracles"]),
                "thesis_rule": _score(b["scores"]["thesis_rule"]["with_oracles"]),
            },
        }
        for bot, b in bots.items()
    ]
    operators = [
        {
            "operator": op,
            "mutants": row["scored"],
            "automatic": _score(scores["automatic"]["per_operator"].get(op)),
            "with_oracles": row["score"],
            "thesis_rule": _score(scores["thesis_rule"]["with_oracles"]["per_operator"].get(op)),
            "thesis": None,
        }
        for op, row in scores["with_oracles"]["per_operator"].items()
    ]
    return {
        "models": {
            "thesis": {
                "tracer": thesis.TRACER_MODEL,
                "sensei": thesis.SENSEI_MODEL,
                "bots": thesis.BOT_MODEL,
            },
            "ours": ours_model,
        },
        "rq1_value_coverage": rq1,
        "rq2_mutation_per_bot": rq2,
        "rq2_mutation_total": {
            "thesis": thesis.MUTATION_TOTAL,
            "ours": {
                "mutants": scores["with_oracles"]["scored"],
                "automatic": _score(scores["automatic"]),
                "with_oracles": _score(scores["with_oracles"]),
                "thesis_rule": _score(scores["thesis_rule"]["with_oracles"]),
            },
        },
        "rq2_mutation_per_operator": operators,
        "rq3_precision": {
            "note": NOT_COMPARABLE,
            "thesis": {
                "chatbots": thesis.PRECISION,
                "total": thesis.PRECISION_TOTAL,
                "method": thesis.PRECISION_METHOD,
            },
            "ours": [
                {
                    "bot": bot,
                    "functionalities": b["tracer"]["functionalities"],
                    "true_positives": b["tracer"]["true_positives"],
                    "false_positives": b["tracer"]["false_positives"],
                    "precision": b["tracer"]["precision"],
                    "matcher": b["tracer"]["matcher"],
                }
                for bot, b in bots.items()
            ],
        },
    }


# -- Markdown -----------------------------------------------------------------------------------------------------


def provenance_line(data: dict[str, Any]) -> str:
    p = data["provenance"]
    temperature = "provider default" if p.get("temperature") is None else str(p["temperature"])
    note = f" ({p['llm_note']})" if p.get("llm_note") else ""
    return (
        f"_Measured with {p.get('provider') or '?'} · model {p.get('model') or '?'}{note} · temperature "
        f"{temperature} · seed {p.get('seed')} · {p.get('repeats')} repeats · Parley {p.get('parley_version')}._"
    )


def _matcher_label(matcher: str | None) -> str:
    return " (approximation: lexical matcher)" if matcher in ("lexical", "mixed") else " (judge model)"


def _score_row(label: str, block: dict[str, Any]) -> str:
    repeats = ", ".join(_pct(v) for v in block.get("per_repeat", [])) or "-"
    controls = block.get("controls")
    beside = "-"
    if controls:
        beside = f"{controls['killed']} / {controls['scored']} ({_pct(controls['rate'])} %, CI {_ci(controls['ci95'])})"
        if block.get("overlaps_controls"):
            beside += " — intervals overlap"
    return (
        f"| {label} | {block['killed']} / {block['scored']} | {_pct(block['score'])} | {_ci(block['ci95'])} | "
        f"{repeats} | {block['inconclusive']} | {block['stillborn']} | {beside} |"
    )


def _controls_line(controls: dict[str, Any] | None) -> str:
    if not controls or not controls.get("runs"):
        return (
            "No control run (the unmodified bot run as a mutant): the rate of spurious kills is not measured."
        )
    a, o = controls["automatic"], controls["with_oracles"]
    return (
        f'Controls — the unmodified bot run again as a mutant, {controls["runs"]} runs: "killed" by noise '
        f"{a['killed']} of {a['scored']} automatic ({_pct(a['rate'])} %, CI {_ci(a['ci95'])}), {o['killed']} of "
        f"{o['scored']} with oracles ({_pct(o['rate'])} %, CI {_ci(o['ci95'])}). A score is only as good as "
        "this rate is low."
    )


def _overlap_notes(scores: dict[str, Any]) -> list[str]:
    return [
        f"_Note ({name.replace('_', ' ')}): {scores[name]['note']}._"
        for name in ("automatic", "with_oracles")
        if scores[name].get("note")
    ]


def _scores_table(data: dict[str, Any], scores: dict[str, Any]) -> list[str]:
    return [
        (
            "| Counting | Killed / scored | Mutation score (%) | 95 % CI (Wilson) | Per repeat (%) | Inconclusive | "
            "Stillborn | Controls killed (same counting) |"
        ),
        "|---|---|---|---|---|---|---|---|",
        _score_row("**automatic** (differential)", scores["automatic"]),
        _score_row("**with oracles** (differential)", scores["with_oracles"]),
        _score_row("thesis rule, automatic (any finding kills)", scores["thesis_rule"]["automatic"]),
        _score_row("thesis rule, with oracles (any finding kills)", scores["thesis_rule"]["with_oracles"]),
        "",
        " ".join([_controls_line(data["overall"].get("controls")), *_overlap_notes(scores)]),
        "",
        provenance_line(data),
        "",
    ]


def _thesis_section(data: dict[str, Any]) -> list[str]:
    c = data["thesis"]
    caption = provenance_line(data)
    thesis_models = (
        f"_Thesis: TRACER {thesis.TRACER_MODEL}; SENSEI {thesis.SENSEI_MODEL}; bots {thesis.BOT_MODEL}. "
        f"Ours: {c['models']['ours']} plays every role._"
    )
    lines = [
        "## Compared with the thesis",
        "",
        (
            "Our reference bots re-implement the thesis's four Taskyto chatbots from their descriptions (same domains, "
            "similar sizes, not the same definitions). The thesis killed a mutant on any finding of one SENSEI run "
            f"({thesis.KILL_RULE}) and found {thesis.AUTOMATIC_SHARE:.0f} % of its kills automatically, the rest by "
            "reading conversations; our headline counts only differential kills, all found automatically."
        ),
        "",
        "### RQ1 — value coverage (%)",
        "",
        "| Our bot (thesis chatbot) | Thesis TRACER | Thesis SENSEI | Our TRACER | Our SENSEI (all runs) |",
        "|---|---|---|---|---|",
    ]
    for row in c["rq1_value_coverage"]:
        t = row["thesis"] or {}
        lines.append(
            f"| {row['bot']} ({row['thesis_bot'] or 'no counterpart'}) | {_pct(t.get('tracer'))} | "
            f"{_pct(t.get('sensei'))} | {_pct(row['ours']['tracer'])} | {_pct(row['ours']['sensei'])} |"
        )
    lines += ["", caption, thesis_models, "", "### RQ2 — mutation score per chatbot (%)", ""]
    lines += [
        (
            "| Our bot (thesis chatbot) | Thesis mutants | Thesis score | Our scored mutants | Ours, automatic | "
            "Ours, with oracles | Ours, thesis rule |"
        ),
        "|---|---|---|---|---|---|---|",
    ]
    for row in c["rq2_mutation_per_bot"]:
        t = row["thesis"] or {}
        o = row["ours"]
        lines.append(
            f"| {row['bot']} ({row['thesis_bot'] or 'no counterpart'}) | {t.get('mutants', '-')} | "
            f"{_pct(t.get('score'))} | {o['mutants']} | {_pct(o['automatic'])} | {_pct(o['with_oracles'])} | "
            f"{_pct(o['thesis_rule'])} |"
        )
    total = c["rq2_mutation_total"]
    lines.append(
        f"| **total** | {total['thesis']['mutants']} | {_pct(total['thesis']['score'])} | {total['ours']['mutants']} | "
        f"{_pct(total['ours']['automatic'])} | {_pct(total['ours']['with_oracles'])} | "
        f"{_pct(total['ours']['thesis_rule'])} |"
    )
    lines += ["", caption, thesis_models, "", "### RQ2 — mutation score per operator (%)", ""]
    lines += [
        "| Operator | Scored mutants | Automatic | With oracles | Thesis rule | Thesis |",
        "|---|---|---|---|---|---|",
    ]
    for row in c["rq2_mutation_per_operator"]:
        lines.append(
            f"| {row['operator']} | {row['mutants']} | {_pct(row['automatic'])} | {_pct(row['with_oracles'])} | "
            f"{_pct(row['thesis_rule'])} | not published |"
        )
    lines += ["", "The thesis published scores per chatbot only.", "", caption, ""]
    rq3 = c["rq3_precision"]
    lines += [
        f"### RQ3 — precision of the functionalities (%) — {NOT_COMPARABLE}",
        "",
        "The thesis: five public deployed chatbots.",
        "",
        "| Thesis chatbot | Functionalities | TP | FP | Precision |",
        "|---|---|---|---|---|",
    ]
    for name, row in rq3["thesis"]["chatbots"].items():
        lines.append(
            f"| {name} | {row['functionalities']} | {row['tp']} | {row['fp']} | {_pct(row['precision'])} |"
        )
    t = rq3["thesis"]["total"]
    lines += [
        f"| **total (thesis)** | {t['functionalities']} | {t['tp']} | {t['fp']} | {_pct(t['precision'])} |",
        "",
        f"_Thesis: {thesis.PRECISION_METHOD}, {thesis.TRACER_MODEL}; Parley not involved._",
        "",
        "Ours: the reference bots, matched against their ground truth.",
        "",
        "| Our bot | Functionalities | TP | FP | Precision | Matched by |",
        "|---|---|---|---|---|---|",
    ]
    for row in rq3["ours"]:
        lines.append(
            f"| {row['bot']} | {row['functionalities']} | {row['true_positives']} | {row['false_positives']} | "
            f"{_pct(row['precision'])} | {row['matcher']}{_matcher_label(row['matcher'])} |"
        )
    lines += [
        "",
        f"The two tables measure different chatbots ({NOT_COMPARABLE}); no combined figure is given.",
        "",
        caption,
        "",
    ]
    return lines


def _false_alarm_section(data: dict[str, Any]) -> list[str]:
    lines = [
        "## False alarms on the originals",
        "",
        "Conversations on the unmutated bots with a finding (every repeat counted).",
        "",
        (
            "| Bot | Conversations | Automatic: flagged (%) | 95 % CI | With oracles: flagged (%) | 95 % CI | "
            "Inconclusive |"
        ),
        "|---|---|---|---|---|---|---|",
    ]
    for bot, b in data["bots"].items():
        fa = b["sensei"]["false_alarms"]
        lines.append(
            f"| {bot} | {fa['conversations']} | {fa['automatic']['flagged']} ({_pct(fa['automatic']['rate'])}) | "
            f"{_ci(fa['automatic']['ci95'])} | {fa['with_oracles']['flagged']} ({_pct(fa['with_oracles']['rate'])}) "
            f"| {_ci(fa['with_oracles']['ci95'])} | {fa['inconclusive']} |"
        )
    lines += ["", provenance_line(data), ""]
    for bot, b in data["bots"].items():
        signatures = b["sensei"]["false_alarms"]["signatures"]
        if not signatures:
            continue
        lines += [
            (
                f"Signatures behind the false alarms on {bot} (reason · profile · conversation · rule or output; "
                f"repeats showing it of {b['sensei']['repeats']}):"
            ),
            "",
        ]
        lines += [
            f"- `{_sig(s['signature'])}` ({s['kind']}) x {s['count']}: {_cell(s['evidence']) or '-'}"
            for s in signatures
        ]
        lines.append("")
    return lines


def _sig(signature: list[Any]) -> str:
    reason, profile, index, detail = signature
    return f"{reason} · {profile} · #{index}" + (f" · {detail}" if detail else "")


def render_markdown(data: dict[str, Any]) -> str:
    overall = data["overall"]
    usage = overall["usage"]
    caption = provenance_line(data)
    matcher = _matcher_label(overall.get("matcher"))
    lines = [
        "# Parley bench",
        "",
        caption,
        "",
        (
            "A mutant is **killed** only by a finding signature — (kill reason, profile, conversation index, rule or "
            "output) — that it showed and the unmutated bot never showed over the same repeats with the same seeds. "
            "*Automatic* counts what Parley tells a user without ground truth (errors, loops, unmet goals, missing "
            "outputs, out-of-range inputs not refused, rules Parley wrote from TRACER's model); *with oracles* adds the "
            "ground-truth rules (prices, offered options, FAQ answers). The thesis rule (any finding on the mutant "
            "kills) is shown for comparison only."
        ),
        "",
        "## Mutation scores",
        "",
        *_scores_table(data, data["scores"]),
        "| Bot | Automatic (%) | With oracles (%) | Thesis rule, automatic (%) | Thesis rule, with oracles (%) |",
        "|---|---|---|---|---|",
    ]
    for bot, block in data["scores"]["with_oracles"]["per_bot"].items():
        s = data["scores"]
        lines.append(
            f"| {bot} | {_pct(s['automatic']['per_bot'][bot]['score'])} | {_pct(block['score'])} | "
            f"{_pct(s['thesis_rule']['automatic']['per_bot'][bot]['score'])} | "
            f"{_pct(s['thesis_rule']['with_oracles']['per_bot'][bot]['score'])} |"
        )
    lines += ["", caption, ""]
    lines += _thesis_section(data)
    lines += _false_alarm_section(data)
    lines += [
        "## Other figures",
        "",
        "| Figure | Value |",
        "|---|---|",
        f"| Bots | {', '.join(overall['bots'])} |",
        f"| TRACER precision (%){matcher} | {_pct(overall['precision'])} |",
        f"| TRACER recall, modules + inputs (%){matcher} | {_pct(overall['recall'])} |",
        f"| LLM calls | {usage['calls']} |",
        f"| Tokens (prompt + completion) | {usage['prompt_tokens']} + {usage['completion_tokens']} |",
        f"| Cost (USD) | {usage['cost_usd']:.4f}"
        + (f" ({usage['unpriced_calls']} calls unpriced)" if usage["unpriced_calls"] else "")
        + " |",
        f"| Wall time (s) | {data['wall_s']:.1f} |",
        "",
        caption,
        "",
        "| Coverage (mean over bots, %) | Module | Input | Value | Question |",
        "|---|---|---|---|---|",
        _coverage_row("TRACER", overall["tracer_coverage_mean"]),
        _coverage_row("SENSEI (all runs)", overall["sensei_coverage_mean"]),
        "",
        caption,
        "",
    ]
    for bot, b in data["bots"].items():
        lines += _bot_section(data, bot, b)
    return "\n".join(lines) + "\n"


def _coverage_row(label: str, coverage: dict[str, Any] | None) -> str:
    cells = [_pct(coverage.get(d)) if coverage else "-" for d in DIMENSIONS]
    return f"| {label} | " + " | ".join(cells) + " |"


def _bot_section(data: dict[str, Any], bot: str, b: dict[str, Any]) -> list[str]:
    tracer = b["tracer"]
    sensei = b["sensei"]
    usage = b["usage"]
    sizes = b["sizes"]
    caption = provenance_line(data)
    automatic = [r["name"] for r in b["rules"] if r.get("source") == "automatic"]
    oracles = [r["name"] for r in b["rules"] if r.get("source") != "automatic"]
    lines = [
        f"## {b['name']} (`{bot}`)",
        "",
        (
            f"Ground truth: {sizes['modules']} modules, {sizes['inputs']} inputs, {sizes['values']} values, "
            f"{sizes['questions']} questions. Rules Parley wrote from TRACER's model: "
            f"{', '.join(automatic) or 'none'}. Ground-truth rules: {', '.join(oracles) or 'none'}."
        ),
        "",
        "| Coverage (%) | Module | Input | Value | Question |",
        "|---|---|---|---|---|",
        _coverage_row("TRACER", tracer["coverage"]),
        _coverage_row("SENSEI median run", sensei["coverage"]["median"]),
        _coverage_row("SENSEI all runs", sensei["coverage"]["aggregate"]),
        "",
        caption,
        "",
        (
            f"- TRACER: {tracer['functionalities']} functionalities, precision {_pct(tracer['precision'])} % "
            f"({tracer['true_positives']} real, {tracer.get('duplicates', 0)} duplicates, "
            f"{tracer.get('not_real', 0)} not real), recall {_pct(tracer['recall'])} % (modules "
            f"{tracer['recall_modules'][0]}/{tracer['recall_modules'][1]}, inputs "
            f"{tracer['recall_inputs'][0]}/{tracer['recall_inputs'][1]}){_matcher_label(tracer.get('matcher'))}; "
            f"{tracer['valid_profiles']} valid profiles of {tracer['profiles']}."
        ),
        "- Profiles: "
        + (
            ", ".join(
                f"{p['name']} (temperature {p['temperature']}"
                + (
                    "; out of range: " + ", ".join(f"{k}={'/'.join(v)}" for k, v in p["out_of_range"].items())
                    if p.get("out_of_range")
                    else ""
                )
                + ")"
                for p in b["profiles"]
            )
            or "none"
        )
        + ".",
        (
            f"- LLM: {usage['calls']} calls, {usage['prompt_tokens']} + {usage['completion_tokens']} tokens, "
            f"{usage['cost_usd']:.4f} USD, {usage['wall_s']:.1f} s."
        ),
        "",
        f"- {_controls_line(b.get('controls'))}",
        "",
        (
            "| Mutant | With oracles | Automatic | Thesis rule (automatic / with oracles) | Killing signatures | "
            "Description |"
        ),
        "|---|---|---|---|---|---|",
    ]
    for m in b["mutation"]["mutants"]:
        statuses = m.get("statuses", {})
        killing = [k for k in m.get("kills", []) if k.get("kills")]
        shown = "; ".join(f"{_sig(k['signature'])} ({k['mutant_count']}/{m['repeats']})" for k in killing[:4])
        if len(killing) > 4:
            shown += f"; … {len(killing) - 4} more"
        lines.append(
            f"| `{m['id']}` | {m['status']} | {statuses.get('automatic', m['status'])} | "
            f"{statuses.get('thesis_automatic', '-')} / {statuses.get('thesis_with_oracles', '-')} | "
            f"{_cell(shown) or '-'} | {_cell(m['description'])} |"
        )
    lines += ["", caption, ""]
    lines += _kills_detail(b)
    lines += _matches(data, tracer)
    return lines


def _kills_detail(b: dict[str, Any]) -> list[str]:
    lines = [
        (
            "<details><summary>Every signature seen on each mutant (mutant / original counts over the repeats)"
            "</summary>"
        ),
        "",
    ]
    for m in b["mutation"]["mutants"]:
        kills = m.get("kills", [])
        if not kills:
            continue
        lines.append(f"- `{m['id']}`:")
        for k in kills:
            if k.get("kills"):
                lines.append(
                    f"  - `{_sig(k['signature'])}` ({k['kind']}) mutant {k['mutant_count']}, original 0 — kills; "
                    f"{_cell(k.get('evidence') or '')}"
                )
        unmatched = [k for k in kills if k["original_count"] == 0 and not k.get("kills")]
        if unmatched:
            lines.append(
                f"  - and {len(unmatched)} signatures in conversations the original never ran conclusively "
                "(nothing to compare with, no kill): "
                + ", ".join(f"`{_sig(k['signature'])}`" for k in unmatched)
            )
        also = [k for k in kills if k["original_count"] > 0]
        if also:
            lines.append(
                f"  - and {len(also)} signatures the original showed too (no kill): "
                + ", ".join(
                    f"`{_sig(k['signature'])}` ({k['mutant_count']}/{k['original_count']})" for k in also
                )
            )
    lines += ["", "</details>", ""]
    return lines


def _matches(data: dict[str, Any], tracer: dict[str, Any]) -> list[str]:
    note = tracer.get("matcher_note") or LEXICAL_NOTE
    lines = [
        f"Every functionality TRACER found and the ground-truth item it was matched to ({note}):",
        "",
        "| Functionality | Ground-truth item | Verdict | Inputs | Evidence |",
        "|---|---|---|---|---|",
    ]
    for match in tracer.get("matches", []):
        item = f"`{match['match']}` ({match['kind']})" if match.get("match") else "-"
        lines.append(
            f"| `{_cell(match['functionality'])}` | {item} | {match['verdict']} | "
            f"{', '.join(match.get('inputs') or []) or '-'} | {_cell(match.get('evidence') or '')} |"
        )
    lines += ["", provenance_line(data), ""]
    return lines

"""bench.json and bench.md: the figures per bot and overall, with the model and temperature they were measured
with (mutation scores are not comparable across models)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DIMENSIONS = ("module", "input", "value", "question")


def write_report(directory: Path, data: dict[str, Any], markdown: str) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "bench.json").write_text(
        json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    (directory / "bench.md").write_text(markdown, encoding="utf-8")


def _pct(value: Any) -> str:
    return "-" if value is None else f"{float(value):.2f}"


def _coverage_row(label: str, coverage: dict[str, Any] | None) -> str:
    cells = [_pct(coverage.get(d)) if coverage else "-" for d in DIMENSIONS]
    return f"| {label} | " + " | ".join(cells) + " |"


def _model_line(config: dict[str, Any]) -> str:
    temperature = config.get("temperature")
    shown = "provider default" if temperature is None else str(temperature)
    return (
        f"Provider **{config.get('provider') or '?'}**, model **{config.get('model') or '?'}**, "
        f"temperature **{shown}** (SENSEI profiles carry their own temperatures, listed per bot); "
        f"TRACER {config['sessions']} sessions x {config['turns']} turns; {config['repeats']} SENSEI runs on "
        f"each original; up to {config['mutants_per_operator']} mutants per operator; seed {config['seed']}; "
        f"bots' date {config['today']}."
    )


def render_markdown(data: dict[str, Any]) -> str:
    config = data["config"]
    overall = data["overall"]
    mutation = overall["mutation"]
    usage = overall["usage"]
    lines = [
        "# Parley bench",
        "",
        _model_line(config),
        "",
        "## Overall",
        "",
        "| Figure | Value |",
        "|---|---|",
        f"| Bots | {', '.join(overall['bots'])} |",
        f"| TRACER precision (%) | {_pct(overall['precision'])} |",
        f"| TRACER recall, modules + inputs (%) | {_pct(overall['recall'])} |",
        f"| Mutation score (%) | {_pct(mutation['mutation_score'])} |",
        (
            f"| Mutants killed / live / inconclusive / stillborn | {mutation['killed']} / {mutation['live']} / "
            f"{mutation['inconclusive']} / {mutation['stillborn']} |"
        ),
        (
            f"| False alarms on the originals | {overall['false_alarms']['false_alarms']} of "
            f"{overall['false_alarms']['conversations']} conversations ({_pct(overall['false_alarms']['rate'])} %) |"
        ),
        f"| LLM calls | {usage['calls']} |",
        f"| Tokens (prompt + completion) | {usage['prompt_tokens']} + {usage['completion_tokens']} |",
        f"| Cost (USD) | {usage['cost_usd']:.4f}"
        + (f" ({usage['unpriced_calls']} calls unpriced)" if usage["unpriced_calls"] else "")
        + " |",
        f"| Wall time (s) | {data['wall_s']:.1f} |",
        "",
        "### Coverage (mean over bots, %)",
        "",
        "| Tool | Module | Input | Value | Question |",
        "|---|---|---|---|---|",
        _coverage_row("TRACER", overall["tracer_coverage_mean"]),
        _coverage_row("SENSEI (aggregate)", overall["sensei_coverage_mean"]),
        "",
        "### Kills per reason",
        "",
        "| Reason | Mutants |",
        "|---|---|",
        *[f"| {reason} | {count} |" for reason, count in mutation["kills_per_reason"].items()],
        "",
        "### Kills per operator",
        "",
        "| Operator | Selected | Killed | Live | Inconclusive | Stillborn |",
        "|---|---|---|---|---|---|",
        *[
            f"| {op} | {row['selected']} | {row['killed']} | {row['live']} | {row['inconclusive']} | "
            f"{row['stillborn']} |"
            for op, row in mutation["kills_per_operator"].items()
        ],
        "",
        "### Live mutants",
        "",
        *([f"- {m['bot']} `{m['id']}`: {m['description']}" for m in mutation["live_mutants"]] or ["None."]),
        "",
        "### Stillborn mutants (not counted)",
        "",
        *([f"- {m['bot']} `{m['id']}`: {m['reason']}" for m in mutation["stillborn_mutants"]] or ["None."]),
        "",
    ]
    for bot, b in data["bots"].items():
        lines += _bot_section(bot, b)
    return "\n".join(lines) + "\n"


def _bot_section(bot: str, b: dict[str, Any]) -> list[str]:
    tracer = b["tracer"]
    sensei = b["sensei"]
    mutation = b["mutation"]
    usage = b["usage"]
    alarms = sensei["false_alarms"]
    sizes = b["sizes"]
    lines = [
        f"## {b['name']} (`{bot}`)",
        "",
        (
            f"Ground truth: {sizes['modules']} modules, {sizes['inputs']} inputs, {sizes['values']} values, "
            f"{sizes['questions']} questions. Rules generated: {', '.join(r['name'] for r in b['rules'])}."
        ),
        "",
        "| Tool | Module | Input | Value | Question |",
        "|---|---|---|---|---|",
        _coverage_row("TRACER", tracer["coverage"]),
        _coverage_row("SENSEI median", sensei["coverage"]["median"]),
        _coverage_row("SENSEI aggregate", sensei["coverage"]["aggregate"]),
        "",
        (
            f"- TRACER: {tracer['functionalities']} functionalities, precision {_pct(tracer['precision'])} % "
            f"({tracer['true_positives']} real, {tracer['false_positives']} not real or duplicate), recall "
            f"{_pct(tracer['recall'])} % (modules {tracer['recall_modules'][0]}/{tracer['recall_modules'][1]}, "
            f"inputs {tracer['recall_inputs'][0]}/{tracer['recall_inputs'][1]}); "
            f"{tracer['valid_profiles']} valid profiles of {tracer['profiles']}."
        ),
        "- Profiles: "
        + (", ".join(f"{p['name']} (temperature {p['temperature']})" for p in b["profiles"]) or "none")
        + ".",
        f"- SENSEI on the original: {sensei['repeats']} runs x {sensei['conversations_per_run']} "
        f"conversations; false alarms {alarms['false_alarms']} ({_pct(alarms['rate'])} %)"
        + (f", by reason {alarms['reasons']}" if alarms["reasons"] else "")
        + ".",
        (
            f"- Mutation score {_pct(mutation['mutation_score'])} %: {mutation['killed']} killed, "
            f"{mutation['live']} live, {mutation['inconclusive']} inconclusive, {mutation['stillborn']} stillborn."
        ),
        (
            f"- LLM: {usage['calls']} calls, {usage['prompt_tokens']} + {usage['completion_tokens']} tokens, "
            f"{usage['cost_usd']:.4f} USD, {usage['wall_s']:.1f} s."
        ),
        "",
        "| Mutant | Status | Reasons | Rules failed | Description |",
        "|---|---|---|---|---|",
    ]
    for m in mutation["mutants"]:
        reasons = ", ".join(f"{k} x{v}" for k, v in m["reasons"].items()) or "-"
        rules = ", ".join(m["rules"]) or "-"
        lines.append(f"| `{m['id']}` | {m['status']} | {reasons} | {rules} | {m['description']} |")
    return [*lines, ""]

"""The files a TRACER run leaves behind, built from the final state (so a resumed run writes the same files).

The JSON files are the dumps of `engine.tracer.documents`' models, which the platform serves typed.

- `model.json`: languages, fallback, chatbot type, functionalities with parents, children, category,
  parameters, outputs and `found_at` (the session and turn whose reply showed each; each node once; joins are
  nodes with several parents);
- `graph.json`: nodes and edges for the interactive graph, with a start node and every join edge;
- `graph.dot`, and `graph.svg` when Graphviz's `dot` is installed (else skipped, with a note in the report);
- `profiles/*.yaml` (valid profiles only) and `invalid_profiles/*.yaml` with `*.errors.txt`;
- `transcripts.json`, `usage.json` and `report.md` (thesis §5.1.3).
"""

from __future__ import annotations

import html
import json
import shutil
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

from engine.llm import UsageTotals
from engine.tracer.documents import (
    GraphEdge,
    GraphNode,
    ModelDocument,
    ModelFunctionality,
    TracerUsage,
    WorkflowGraph,
)
from engine.tracer.model import FunctionalModel
from engine.tracer.state import ExplorationTranscript, ProfileRecord
from engine.tracer.workflow import UNCATEGORISED

START = "__start__"
EXPLORATION_STEPS = ("probe", "explore", "rewrite", "fallback", "extract")
REFINEMENT_STEPS = ("consolidate", "classify", "workflow")
PROFILE_STEPS = ("group", "profiles", "repair")


def model_json(model: FunctionalModel) -> dict[str, Any]:
    """model.json (`ModelDocument`)."""
    return ModelDocument(
        languages=model.languages,
        fallback=model.fallback,
        chatbot_type=model.chatbot_type,
        greets_first=model.greets_first,
        categories=model.categories(),
        functionalities=[
            ModelFunctionality(
                name=node.name,
                description=node.description,
                category=node.category or UNCATEGORISED,
                parents=node.parents,
                children=model.children_of(node.name),
                parameters=node.parameters,
                outputs=node.outputs,
                discovered_in_sessions=node.discovered_in,
                found_at=node.found_at,
                merged_from=node.merged_from,
            )
            for node in model.functionalities
        ],
    ).model_dump(mode="json")


def _depths(model: FunctionalModel) -> dict[str, int]:
    depth: dict[str, int] = {}

    def of(name: str, seen: frozenset[str]) -> int:
        if name in depth:
            return depth[name]
        node = model.get(name)
        parents = [p for p in (node.parents if node else []) if p not in seen]
        value = 0 if not parents else 1 + max(of(p, seen | {name}) for p in parents)
        depth[name] = value
        return value

    for name in model.names():
        of(name, frozenset())
    return depth


def graph_json(model: FunctionalModel) -> dict[str, Any]:
    """graph.json (`WorkflowGraph`)."""
    depth = _depths(model)
    nodes = [GraphNode(id=START, label="Start", kind="start")]
    nodes += [
        GraphNode(
            id=node.name,
            label=node.name.replace("_", " ").capitalize(),
            category=node.category or UNCATEGORISED,
            description=node.description,
            parameters=node.parameters,
            outputs=node.outputs,
            depth=depth.get(node.name, 0),
            is_root=not node.parents,
            is_join=len(node.parents) > 1,
            found_at=node.found_at,
        )
        for node in model.functionalities
    ]
    edges = [GraphEdge(source=START, target=name, kind="entry") for name in model.roots()]
    edges += [GraphEdge(source=parent, target=child) for parent, child in model.edges()]
    graph = WorkflowGraph(nodes=nodes, edges=edges, categories=model.categories(), joins=model.joins())
    return graph.model_dump(mode="json")


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def graph_dot(model: FunctionalModel) -> str:
    """Graphviz source: roots clustered by category, every edge drawn (a join gets one edge per parent)."""
    lines = [
        "digraph tracer {",
        '  rankdir=LR; bgcolor=white; node [fontname="Helvetica", fontsize=11]; edge [color="#555555"];',
        f'  {_quote(START)} [shape=circle, style=filled, fillcolor=black, label="", width=0.25];',
    ]
    by_category: dict[str, list[str]] = {}
    for node in model.functionalities:
        by_category.setdefault(node.category or UNCATEGORISED, []).append(node.name)
    for number, (category, names) in enumerate(sorted(by_category.items())):
        lines.append(f"  subgraph cluster_{number} {{")
        lines.append(
            f'    label={_quote(category)}; style="rounded,filled"; fillcolor="#f3f4f6"; color="#d1d5db";'
        )
        for name in names:
            found = model.get(name)
            description = html.escape((found.description if found else "")[:70])
            title = html.escape(name.replace("_", " ").capitalize())
            label = f'<<B>{title}</B><BR/><FONT POINT-SIZE="9">{description}</FONT>>'
            lines.append(
                f'    {_quote(name)} [shape=box, style="rounded,filled", fillcolor="#dbeafe", label={label}];'
            )
        lines.append("  }")
    for root in model.roots():
        lines.append(f"  {_quote(START)} -> {_quote(root)};")
    for parent, child in model.edges():
        lines.append(f"  {_quote(parent)} -> {_quote(child)};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def render_svg(dot_source: str, target: Path) -> str | None:
    """Render with Graphviz; returns a note when it could not (no `dot`, or `dot` failed)."""
    dot = shutil.which("dot")
    if dot is None:
        return "graph.svg was not written: Graphviz `dot` is not installed (graph.dot and graph.json were)."
    try:
        result = subprocess.run(  # noqa: S603 - fixed executable from PATH, our own input on stdin
            [dot, "-Tsvg"], input=dot_source.encode(), capture_output=True, timeout=60, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"graph.svg was not written: Graphviz failed ({exc})."
    if result.returncode != 0:
        return f"graph.svg was not written: Graphviz failed ({result.stderr.decode(errors='replace')[:200]})."
    target.write_bytes(result.stdout)
    return None


def usage_json(records: list[dict[str, Any]]) -> dict[str, Any]:
    """usage.json (`TracerUsage`)."""
    by_tag: Counter[str] = Counter(record["tag"] for record in records)
    steps: dict[str, UsageTotals] = {}
    for record in records:
        entry = steps.setdefault(record["tag"].split(".", 1)[-1], UsageTotals())
        entry.calls += 1
        entry.prompt_tokens += record.get("prompt_tokens") or 0
        entry.completion_tokens += record.get("completion_tokens") or 0
        entry.cost_usd += record.get("cost_usd") or 0.0
    for entry in steps.values():
        entry.cost_usd = round(entry.cost_usd, 8)
    return TracerUsage(
        calls=len(records),
        calls_by_tag=dict(sorted(by_tag.items())),
        prompt_tokens=sum(r.get("prompt_tokens") or 0 for r in records),
        completion_tokens=sum(r.get("completion_tokens") or 0 for r in records),
        cost_usd=round(sum(r.get("cost_usd") or 0.0 for r in records), 8),
        failed_calls=sum(1 for r in records if not r.get("ok", True)),
        by_step=dict(sorted(steps.items())),
    ).model_dump(mode="json")


def _phase_rows(usage: dict[str, Any]) -> list[str]:
    rows = []
    for title, steps in (
        ("Exploration", EXPLORATION_STEPS),
        ("Refinement", REFINEMENT_STEPS),
        ("Profiles", PROFILE_STEPS),
    ):
        parts = [usage["by_step"][s] for s in steps if s in usage["by_step"]]
        calls = sum(p["calls"] for p in parts)
        prompt = sum(p["prompt_tokens"] for p in parts)
        completion = sum(p["completion_tokens"] for p in parts)
        cost = sum(p["cost_usd"] for p in parts)
        rows.append(f"| {title} | {calls} | {prompt} | {completion} | {cost:.4f} |")
    return rows


def _duration(seconds: float) -> str:
    whole = max(0, int(seconds))
    return f"{whole // 3600:02d}:{whole % 3600 // 60:02d}:{whole % 60:02d}"


def report_md(
    model: FunctionalModel,
    profiles: list[ProfileRecord],
    transcripts: list[ExplorationTranscript],
    usage: dict[str, Any],
    *,
    duration_s: float,
    notes: list[str],
) -> str:
    lines = ["# TRACER report", ""]
    categories = model.categories() or [UNCATEGORISED]
    lines.append(
        f"{len(model.functionalities)} functionalities in {len(categories)} categories, found in "
        f"{len(transcripts)} exploration sessions. Chatbot type: {model.chatbot_type}."
    )
    lines += ["", "## Functionalities by category", ""]
    for category in categories:
        members = [f for f in model.functionalities if (f.category or UNCATEGORISED) == category]
        lines.append(f"### {category} ({len(members)})")
        lines.append("")
        for node in members:
            lines.append(f"#### {node.name}")
            lines.append("")
            lines.append(node.description or "(no description)")
            lines.append("")
            if node.parameters:
                lines.append("Parameters:")
                for p in node.parameters:
                    options = f" — options: {', '.join(p.options)}" if p.options else ""
                    lines.append(f"- `{p.name}`: {p.description}{options}")
                lines.append("")  # a list ends at a blank line; the next text would join its last item
            if node.outputs:
                lines.append("Outputs:")
                lines += [f"- `{o.name}`: {o.description}" for o in node.outputs]
                lines.append("")
            lines += [f"After: {', '.join(node.parents) or '(entry point)'}", ""]
            children = model.children_of(node.name)
            lines.append(f"Leads to: {', '.join(children) or '(nothing)'}")
            lines.append("")
    lines += ["## Languages", ""] + [f"- {language}" for language in model.languages or ["(unknown)"]]
    lines += ["", "## Fallback", ""]
    lines += ["```", model.fallback, "```"] if model.fallback else ["No fallback message was detected."]
    lines += ["", "## Profiles", ""]
    for record in profiles:
        state = "valid" if record["valid"] else f"INVALID ({len(record['errors'])} errors)"
        where = "profiles" if record["valid"] else "invalid_profiles"
        lines.append(f"- {record['name']}: `{where}/{record['filename']}`, {state}")
    if not profiles:
        lines.append("No profile was written.")
    lines += [
        "",
        "## LLM usage",
        "",
        (
            f"{usage['calls']} calls, {usage['prompt_tokens']} prompt and {usage['completion_tokens']} completion "
            f"tokens, estimated cost {usage['cost_usd']:.4f} USD. Duration {_duration(duration_s)}."
        ),
        "",
        "| Phase | Calls | Prompt tokens | Completion tokens | Cost (USD) |",
        "|---|---|---|---|---|",
        *_phase_rows(usage),
        "",
        "Calls per step: " + ", ".join(f"{step} {v['calls']}" for step, v in usage["by_step"].items()),
    ]
    if notes:
        lines += ["", "## Notes", ""] + [f"- {note}" for note in notes]
    return "\n".join(lines) + "\n"


def write_artefacts(
    out: Path,
    model: FunctionalModel,
    profiles: list[ProfileRecord],
    transcripts: list[ExplorationTranscript],
    usage_records: list[dict[str, Any]],
    *,
    duration_s: float,
    warnings: list[str],
) -> list[str]:
    """Write every artefact into `out`; returns the notes (e.g. graph.svg skipped)."""
    out.mkdir(parents=True, exist_ok=True)
    notes = list(warnings)

    def dump(name: str, data: Any) -> None:
        (out / name).write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")

    dump("model.json", model_json(model))
    dump("graph.json", graph_json(model))
    dot_source = graph_dot(model)
    (out / "graph.dot").write_text(dot_source, encoding="utf-8")
    note = render_svg(dot_source, out / "graph.svg")
    if note:
        notes.append(note)
    for folder in ("profiles", "invalid_profiles"):
        directory = out / folder
        directory.mkdir(exist_ok=True)
        for stale in [*directory.glob("*.yaml"), *directory.glob("*.errors.txt")]:
            stale.unlink()
    for record in profiles:
        if record["valid"]:
            (out / "profiles" / record["filename"]).write_text(record["yaml"], encoding="utf-8")
        else:
            (out / "invalid_profiles" / record["filename"]).write_text(record["yaml"], encoding="utf-8")
            errors = out / "invalid_profiles" / (record["filename"].removesuffix(".yaml") + ".errors.txt")
            errors.write_text("\n".join(record["errors"]) + "\n", encoding="utf-8")
    dump("transcripts.json", transcripts)
    usage = usage_json(usage_records)
    dump("usage.json", usage)
    (out / "report.md").write_text(
        report_md(model, profiles, transcripts, usage, duration_s=duration_s, notes=notes), encoding="utf-8"
    )
    return notes

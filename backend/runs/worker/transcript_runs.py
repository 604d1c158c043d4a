"""A platform TRACER run with `source: transcripts`: the model built from the project's imported conversations.

The same engine path as `parley tracer --from-transcripts` (`engine.tracer.transcript_build`), fed with the rows
the chunked upload stored (already masked, D35); nothing talks to the chatbot. Files the model, its graph, usage
and report as the run's artefacts, TRACER's profiles and the profiles that follow real traffic as the project's
generated profiles, and returns the engine's typed `TranscriptBuildResult`.
"""

from __future__ import annotations

import time
from typing import Any

from django.db import transaction

from engine.errors import ParleyError
from engine.llm import UsageTotals
from engine.sensei import new_seed
from engine.tracer import TracerConfig
from engine.tracer.artefacts import graph_json, model_json, report_md
from engine.tracer.from_transcripts import DEFAULT_SAMPLE, SamplingPlan
from engine.tracer.result import TracerSummary
from engine.tracer.transcript_build import build_from_transcripts
from runs.models import Artefact, Run
from runs.selectors import imported_conversations
from runs.worker import deps
from runs.worker.reporting import recorder_of, run_context
from workspace.models import Profile
from workspace.validation import validate_profile


class NoTranscripts(ParleyError):
    code = "no_transcripts"


def execute_tracer_from_transcripts(run: Run) -> dict[str, Any]:
    project = run.project
    context = run_context(run.pk)
    recorder = recorder_of(context)
    conversations = imported_conversations(project.pk)
    if not conversations:
        raise NoTranscripts("This project has no imported conversations: upload transcripts first.")
    seed = run.input.get("seed")
    if seed is None:
        seed = new_seed()
        Run.objects.filter(pk=run.pk).update(input={**run.input, "seed": seed})
    config = TracerConfig(profile_model=project.profile_model or None, seed=int(seed))

    def show_plan(plan: SamplingPlan) -> None:
        recorder.log("Source: transcripts. " + plan.text())
        recorder.touch(progress_total=len(plan.sampled))

    started = time.monotonic()
    with deps.llm_client(project, project.exploration_model, recorder=recorder) as llm:
        build = build_from_transcripts(
            conversations,
            llm,
            config=config,
            sample=int(run.input.get("sample") or DEFAULT_SAMPLE),
            seed=int(seed),
            context=context,
            on_plan=show_plan,
        )
    built = build.built
    report = report_md(
        built.model,
        built.profiles,
        [],
        built.usage,
        duration_s=time.monotonic() - started,
        notes=built.warnings,
    )
    report += "\n## Source: transcripts\n\n" + built.plan.text() + "\n"
    with transaction.atomic():
        for name, content in (
            (Artefact.Name.MODEL, model_json(built.model)),
            (Artefact.Name.GRAPH, graph_json(built.model)),
            (Artefact.Name.USAGE, built.usage),
            (Artefact.Name.REPORT, report),
        ):
            Artefact.objects.update_or_create(
                run=run, name=name, defaults={"content": recorder.scrub.scrub(content)}
            )
        Profile.objects.filter(source_run=run).delete()  # a repeated execution files them once
        generated = [(p["name"], p["yaml"]) for p in built.profiles]
        generated += [(p.name, p.yaml) for p in build.traffic]
        for name, text in generated:
            checked = validate_profile(text)
            Profile.objects.create(
                project=project,
                name=name,
                text=text,
                valid=checked.valid,
                problems=checked.problems,
                warnings=checked.warnings,
                origin=Profile.Origin.TRACER,
                source_run=run,
            )
    recorder.touch(stage="done")
    built_result = build.result()
    summary = TracerSummary(
        source="transcripts",
        ok=built_result.ok,
        functionalities=built_result.functionalities,
        profiles=built_result.profiles,
        valid_profiles=built_result.valid_profiles,
        warnings=built_result.warnings,
        transcripts=built_result,
        usage=UsageTotals(calls=built_result.llm_calls, cost_usd=built_result.cost_usd),
    )
    return summary.model_dump(mode="json")

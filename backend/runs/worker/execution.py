"""TRACER, SENSEI, check and bench runs, from a run row to stored results: build the engine's job in the worker,
call the engine's one entry point with the run's context (`runs.worker.reporting.run_context`), and file what it produced.

Each function takes the claimed `Run` and returns the run's `result`; runs.worker.bookkeeping owns the status. They are
safe to call again for the same run after a crash: TRACER resumes from its checkpoint, SENSEI skips the
conversations already stored, and a check run and a bench replace what they stored.
"""

from __future__ import annotations

import contextlib
import time
from datetime import date
from typing import Any

from django.db import IntegrityError, connections, transaction

from engine.check import GatewayJudge, check
from engine.check.rules import parse_rule
from engine.connectors import create_connector, validate_config
from engine.connectors.pacing import pacing_of
from engine.context import Cancelled
from engine.conversation import ConversationRecord
from engine.errors import ParleyError
from engine.evaluation import BenchConfig, BenchJob, run_bench
from engine.evaluation.report import render_markdown
from engine.evaluation.result import bench_summary
from engine.llm import LLMClient
from engine.regression import Repeats, reliability, run_data
from engine.sensei import SenseiJob, SimulatorSettings, load_profile, new_seed, run_profiles
from engine.sensei.calibration import calibrations_of
from engine.sensei.personalities import Personality as EnginePersonality
from engine.sensei.personalities import personality_key
from engine.sensei.result import ReplaySavings, SenseiResult
from engine.tracer import TracerConfig, TracerDeps, TracerJob, run_tracer
from engine.tracer.artefacts import graph_json, model_json, report_md
from runs.models import Artefact, Conversation, RuleResult, Run, RunEvent
from runs.verdict_counts import sensei_verdicts
from runs.worker import deps
from runs.worker.checkpoints import checkpointer
from runs.worker.replay import replay_for, save_replay
from runs.worker.reporting import RunRecorder, recorder_of, run_context
from runs.worker.transcript_runs import execute_tracer_from_transcripts
from workspace.models import Profile, Rule
from workspace.validation import validate_personality, validate_profile


def _finish_cancelled(recorder: RunRecorder, result: dict[str, Any]) -> dict[str, Any]:
    recorder.touch(result=result)
    raise Cancelled("The run was cancelled; what it finished is kept.")


# -- TRACER ---------------------------------------------------------------------------------------------------
def execute_tracer(run: Run) -> dict[str, Any]:
    if run.input.get("source") == "transcripts":  # the model from the project's imported conversations
        return execute_tracer_from_transcripts(run)
    project = run.project
    context = run_context(run.pk)
    recorder = recorder_of(context)
    config = TracerConfig(
        sessions=run.input["sessions"],
        turns=run.input["turns"],
        profile_model=project.profile_model or None,
        # Chosen when the run was created (random unless given) and stored: a resumed run explores alike.
        seed=_run_seed(run),
    )
    started = time.monotonic()
    with (
        deps.llm_client(project, project.exploration_model, recorder=recorder) as llm,
        create_connector(deps.connector_config(project.connector), deps.egress_guard()) as connector,
        checkpointer() as saver,
    ):
        try:
            job = TracerJob(config, TracerDeps(llm=llm, connector=connector), f"run-{run.pk}", saver)
            result = run_tracer(job, context)
        except Cancelled:
            return _finish_cancelled(recorder, {})
    with transaction.atomic():
        artefacts = {
            Artefact.Name.MODEL: model_json(result.model),
            Artefact.Name.GRAPH: graph_json(result.model),
            Artefact.Name.TRANSCRIPTS: result.transcripts,
            Artefact.Name.USAGE: result.usage,
            Artefact.Name.REPORT: report_md(
                result.model,
                result.profiles,
                result.transcripts,
                result.usage,
                duration_s=time.monotonic() - started,
                notes=result.warnings,
            ),
        }
        for name, content in artefacts.items():
            Artefact.objects.update_or_create(
                run=run, name=name, defaults={"content": recorder.scrub.scrub(content)}
            )
        Profile.objects.filter(source_run=run).delete()  # a repeated execution files them once
        for generated in result.profiles:
            checked = validate_profile(generated["yaml"])
            Profile.objects.create(
                project=project,
                name=generated["name"],
                text=generated["yaml"],
                valid=checked.valid,
                problems=checked.problems,
                warnings=checked.warnings,
                origin=Profile.Origin.TRACER,
                source_run=run,
            )
    return result.summary().model_dump(mode="json")


# -- SENSEI ---------------------------------------------------------------------------------------------------
def execute_sensei(run: Run) -> dict[str, Any]:
    """SENSEI's one entry point (`run_profiles`) with what the CLI gives it: the profiles loaded with the
    project's personalities, the run's seed (drawn when the run was created), any() items resolved by the LLM.
    A repeated attempt re-plans from the stored plan (same seed, date and any() values) and skips what is
    stored."""
    project = run.project
    context = run_context(run.pk)
    recorder = recorder_of(context)
    seed = _run_seed(run)
    personalities = _personalities(run)
    profiles = []
    for snapshot in run.input["profiles"]:
        profile, problems = load_profile(
            snapshot["text"], allow_local_files=False, source=snapshot["name"], personalities=personalities
        )
        if profile is None:
            first = next(p for p in problems if p.is_error)
            raise ParleyError(f"The profile {snapshot['name']!r} is not valid any more: {first.message}")
        profiles.append(profile)
    stored = set(Conversation.objects.filter(run=run).values_list("profile", "index"))
    previous = Artefact.objects.filter(run=run, name=Artefact.Name.PLAN).values_list("content", flat=True)
    replaying = replay_for(run)  # a re-run plans what its source planned, and answers from its LLM calls
    memory = previous.first() or replaying.plan_memory
    any_values = dict(
        memory.get("any_values") or {}
    )  # filled by this attempt's any() values, filed in its plan
    planned_on = date.fromisoformat(memory["planned_on"]) if memory.get("planned_on") else date.today()
    repeats = Repeats(run.input.get("repeats") or 1)  # each planned conversation k times (flakiness)

    def sink(record: ConversationRecord) -> None:
        repeats.tag(record)
        # Profile keys are unique in a run, so a conflict is only ever a second delivery of the same one.
        with contextlib.suppress(IntegrityError):
            Conversation.objects.create(
                run=run,
                profile=record.profile,
                index=record.index,
                record=recorder.scrub.scrub(record.model_dump(mode="json")),
                has_errors=bool(record.errors),
                error_codes=record.error_codes,
                turns=len(record.turns),
                duration_s=record.duration_s,
                cost_usd=record.usage.cost_usd,
            )

    # The simulated user plays each profile's llm.model, else the project's simulation model (README D6).
    with deps.llm_client(project, project.simulation_model(), recorder=recorder) as plain:
        llm = replaying.replay.wrap(plain)  # every run records its LLM calls (D24)
        connector_config, guard = deps.connector_config(project.connector), deps.egress_guard()
        concurrency = run.input.get("concurrency", 4)
        sessions = pacing_of(validate_config(connector_config)).max_sessions
        if concurrency > sessions:
            recorder.warning(
                f"The connector allows {sessions} conversation(s) with the chatbot at once (its max_sessions), "
                f"so at most {sessions} of the {concurrency} conversations asked for run at the same time."
            )
        job = SenseiJob(
            profiles,
            lambda: create_connector(connector_config, guard),
            llm,
            sink=sink,
            judge=llm.for_model(deps.judge_model(project)),  # goal checks and extraction
            concurrency=concurrency,
            seed=seed,
            technology=project.connector.technology,
            planned_on=planned_on,
            any_memory=any_values,
            done=stored,
            user_model=run.input.get("model"),
            replan=repeats.plan,
            thread_cleanup=connections.close_all,  # each worker thread closes its own database connection
            settings=_calibrated(run, personalities),
        )
        # The engine files the plan (artefact "plan") before the first conversation: a resumed attempt plans alike.
        summary = run_profiles(job, context)
    result = _sensei_result(run)
    result.models = llm.ledger.to_json()["models_by_tag"]  # per role (tag), the models actually called
    result.replay = ReplaySavings.model_validate(save_replay(run, replaying, recorder.scrub))
    if summary.cancelled:
        return _finish_cancelled(recorder, result.model_dump(mode="json"))
    recorder.touch(stage="done")
    return result.model_dump(mode="json")


def _run_seed(run: Run) -> int:
    """The seed chosen when the run was created; a run created without one gets it now, stored for resumes."""
    seed = run.input.get("seed")
    if seed is None:
        seed = new_seed()
        run.input = {**run.input, "seed": seed}
        Run.objects.filter(pk=run.pk).update(input=run.input)
    return int(seed)


def _personalities(run: Run) -> list[EnginePersonality]:
    """The project's personalities as the run's snapshot has them (the project's current ones for runs made
    before snapshots held them)."""
    snapshots = run.input.get("personalities")
    if snapshots is None:
        snapshots = [{"text": p.text} for p in run.project.personalities.filter(valid=True)]
    parsed = [validate_personality(item["text"]).parsed for item in snapshots]
    return [p for p in parsed if isinstance(p, EnginePersonality)]


def _calibrated(run: Run, personalities: list[EnginePersonality]) -> SimulatorSettings:
    """The calibrated users the simulator enforces, as the CLI's: the one named for the whole run
    (`calibrated_user`, like `--calibrated-user`), else each profile's calibrated personality."""
    by_name = calibrations_of(personalities)
    whole = run.input.get("calibrated_user")
    if whole and personality_key(whole) not in by_name:
        raise ParleyError(f"The personality {whole!r} is not a calibrated user any more.")
    return SimulatorSettings(
        calibration=by_name.get(personality_key(whole)) if whole else None, calibrations=by_name
    )


def _sensei_result(run: Run) -> SenseiResult:
    """Counts from the stored rows (a resumed run counts what earlier attempts stored): conversations, those with
    errors, and verdicts — `ok` when none failed; inconclusive ones are no chatbot failure — each profile's
    pass^k and pass@1 (`engine.regression.reliability`, D33), and the warnings."""
    conversations = Conversation.objects.filter(run=run)
    with_errors = conversations.filter(has_errors=True).count()
    verdicts = sensei_verdicts(run)
    stored = run_data(f"run {run.pk}", list(conversations.values_list("record", flat=True)))
    return SenseiResult.model_validate(
        {
            "conversations": conversations.count(),
            "with_errors": with_errors,
            **verdicts,
            "ok": verdicts["failed"] == 0,
            "reliability": [profile.to_json() for profile in reliability(stored.conversations)],
            "warnings": _warnings(run),
        }
    )


def _warnings(run: Run) -> list[str]:
    """The run's warnings (a parameter the model refused, fewer sessions than asked…), each once, oldest first,
    from every attempt; they were scrubbed when recorded."""
    texts = (
        RunEvent.objects.filter(run=run, type=RunEvent.Type.WARNING).order_by("pk").values_list("data__text")
    )
    return list(dict.fromkeys(text for (text,) in texts if isinstance(text, str) and text))


# -- check ----------------------------------------------------------------------------------------------------
def execute_check(run: Run) -> dict[str, Any]:
    project = run.project
    parsed = [
        (parse_rule(snapshot["text"], file=snapshot["name"]), snapshot.get("id"))
        for snapshot in run.input["rules"]
    ]
    rules = [rule for rule, _ in parsed]
    records = [
        ConversationRecord.model_validate(row.record)
        for row in Conversation.objects.filter(run_id__in=run.input["sensei_runs"], run__project=project)
    ]
    context = run_context(run.pk)
    recorder = recorder_of(context)
    recorder.touch(progress_total=len(rules), progress_done=0)
    judge = None
    if project.llm_key_id and project.judge_model:
        with deps.llm_client(project, project.judge_model, recorder=recorder) as llm:
            context.meter(llm.ledger)
            judge = GatewayJudge(llm)
            report = check(rules, records, judge, context=context)
    else:
        report = check(rules, records, context=context)
    existing = set(
        Rule.objects.filter(pk__in=[rule_id for _, rule_id in parsed]).values_list("pk", flat=True)
    )
    rule_ids = {rule.name: rule_id for rule, rule_id in parsed if rule_id in existing}
    with transaction.atomic():
        RuleResult.objects.filter(run=run).delete()
        for rule in report.rules:
            RuleResult.objects.create(
                run=run,
                rule_id=rule_ids.get(rule.name),
                name=rule.name,
                status=rule.status,
                checks=rule.checks,
                passed=rule.passed,
                failed=rule.failed,
                not_applicable=rule.not_applicable,
                errors=rule.errors,
                report=rule.model_dump(mode="json"),
            )
    recorder.touch(stage="done", progress_done=len(rules))
    return report.summary(len(records)).model_dump(mode="json")


# -- bench ----------------------------------------------------------------------------------------------------
def execute_bench(run: Run) -> dict[str, Any]:
    """The evaluation bench on the project's built-in bot: TRACER, SENSEI on the original and on each mutant with
    the same seeds (differential kills), the rules from TRACER's model and from the ground truth, the project's
    model as the judge of TRACER's functionalities. Every LLM client of the run draws from one budget; nothing
    is resumed after a crash."""
    project = run.project
    context = run_context(run.pk)
    recorder = recorder_of(context)
    budget = deps.project_budget(project)
    key = project.llm_key
    config = BenchConfig(
        bots=(run.input["bot"],),
        sessions=run.input["sessions"],
        turns=run.input["turns"],
        mutants_per_operator=run.input["mutants_per_operator"],
        operators=tuple(run.input["operators"]) if run.input.get("operators") else None,
        repeats=run.input["repeats"],
        concurrency=run.input["concurrency"],
        seed=run.input["seed"],
        matcher="llm",
        provider=key.provider if key else None,
        model=project.exploration_model,
    )

    state = deps.provider_state(project, recorder)  # one for every phase: a refusal is paid once per run

    def llm_factory(role: str) -> LLMClient:
        return deps.new_llm_client(project, project.exploration_model, budget=budget, state=state)

    try:
        result = run_bench(BenchJob(config, llm_factory), context)  # the bench meters every client it builds
    except Cancelled:
        return _finish_cancelled(recorder, {})
    finally:
        deps.remember_capabilities(project, state)
    with transaction.atomic():
        for name, content in (
            (Artefact.Name.BENCH, result.data),
            (Artefact.Name.REPORT, render_markdown(result.data)),
        ):
            Artefact.objects.update_or_create(
                run=run, name=name, defaults={"content": recorder.scrub.scrub(content)}
            )
    recorder.touch(stage="done")
    return bench_summary(result, run.input["bot"]).model_dump(mode="json")

"""A run's result is served through its kind's model (D31, `runs.result_schema`): the schema gives the web client a
union discriminated on `kind`, and a result stored before its model — or before a field was added — still loads,
the missing fields at their defaults, the retired ones gone."""

from __future__ import annotations

from typing import Any

import pytest
from drf_spectacular.generators import SchemaGenerator

from runs.models import Run
from runs.result_schema import RESULT_MODELS
from tests.factories import RunFactory

TYPED = {
    "ping": "PingResult",
    "key_test": "KeyCheck",
    "key_models": "ModelList",
    "connector_test": "ConnectionTest",
    "tracer": "TracerSummary",
    "sensei": "SenseiResult",
    "check": "CheckRunSummary",
    "bench": "BenchSummary",
    "qualify": "QualifyResult",
    "security": "CampaignSummary",
    "profile_draft": "DraftsSummary",
    "shrink": "PinnedShrink",
}

# Results as the worker stored them before the models, trimmed to what each kind wrote then.
OLD_TRACER = {
    "ok": True,
    "functionalities": 4,
    "profiles": 2,
    "valid_profiles": 1,
    "warnings": ["The chatbot did not answer one message in time."],
    # TRACER's whole usage export, per tag and per step (the result keeps the totals; the detail is an artefact)
    "usage": {
        "calls": 9,
        "calls_by_tag": {"tracer.extract": 9},
        "prompt_tokens": 900,
        "cost_usd": 0.01,
        "by_step": {"extract": {"calls": 9}},
    },
}
OLD_BENCH = {  # before the thesis rule, the automatic kills and the controls were in it
    "ok": True,
    "bot": "pizza",
    "mutation_score": 50.0,
    "mutation_score_automatic": 25.0,
    "mutants": 4,
    "killed": 1,
    "live": 1,
    "stillborn": 1,
    "precision": 75.0,
    "recall": None,
    "false_alarm_rate": 12.5,
    "usage": {
        "calls": 20,
        "prompt_tokens": 100,
        "completion_tokens": 10,
        "cost_usd": 0.0,
        "wall_s": 3.5,
        "phases": {"tracer": {"calls": 5, "wall_s": 1.0}},
    },
}
OLD_SECURITY = {  # before attacks from TRACER's states
    "ok": False,
    "breaches": 1,
    "campaign": "baseline",
    "seed": 7,
    "planned": 2,
    "run": 2,
    "stopped": None,
    "usage": {},
    "totals": {
        "attempts": 2,
        "breached": 1,
        "resisted": 1,
        "inconclusive": 0,
        "error": 0,
        "breach_rate": 0.5,
        "interval": [0.09, 0.91],
    },
    "by_attack": [
        {
            "attack_id": "leak",
            "attack": "prompt_leak",
            "attempts": 2,
            "breached": 1,
            "resisted": 1,
            "inconclusive": 0,
            "error": 0,
            "breach_rate": 0.5,
            "interval": [0.09, 0.91],
        }
    ],
    "by_delivery": [],
    "by_attack_and_delivery": [],
}
OLD_SENSEI = {  # before verdicts: conversations and errors only
    "ok": True,
    "conversations": 6,
    "with_errors": 1,
    "warnings": ["The model refused temperature=0.2; it ran with its default."],
}
SENSEI_WITH_REPEATS = {  # before the replay was kept, with pass^k
    "ok": False,
    "conversations": 4,
    "with_errors": 0,
    "passed": 3,
    "failed": 1,
    "inconclusive": 0,
    "failed_reasons": {"goal_not_met": 1},
    "inconclusive_reasons": {},
    "faults": {"chatbot": 1},
    "verdict_rules": 2,
    "simulator_slips": 2,
    "reliability": [
        {
            "profile": "order",
            "k": 2,
            "planned": 2,
            "counted": 2,
            "pass_k": {"passed": 1, "failed": 1, "decided": 2, "rate": 0.5, "low": 0.09, "high": 0.91},
            "pass_at_1": {"passed": 3, "failed": 1, "decided": 4, "rate": 0.75, "low": 0.3, "high": 0.95},
            "repeats": 4,
            "decided_repeats": 4,
            "flaky": 1,
            "min_pass_rate": 0.5,
            "conversations": [
                {
                    "planned_index": 0,
                    "inputs": {"size": "large", "toppings": ["ham", "olives"]},
                    "repeats": 2,
                    "decided": 2,
                    "passed": 1,
                    "pass_k": False,
                    "pass_at_1": {
                        "passed": 1,
                        "failed": 1,
                        "decided": 2,
                        "rate": 0.5,
                        "low": 0.09,
                        "high": 0.91,
                    },
                    "verdict": "flaky",
                }
            ],
        }
    ],
}
OLD_CHECK = {
    "ok": False,
    "conversations": 3,
    "rules": 2,
    "passed": 1,
    "failed": 1,
    "error": 0,
    "not_applicable": 0,
}
OLD_DRAFTS = {
    "profiles": [{"id": 3, "name": "draft_order", "valid": True}],
    "missing": ["refunds"],
    "warnings": [],
}
OLD_SHRINK = {  # written before results carried their kind
    "name": "shrunk_order_0_check_failed",
    "record_id": "r1",
    "profile": "order",
    "conversation_index": 0,
    "failure": {
        "kind": "reply",
        "check": {"kind": "contains", "value": "total"},
        "reason": "check_failed",
        "explanation": "The reply has no total.",
        "failing_turn": 5,
        "failing_step": 2,
    },
    "reproduced": True,
    "original": {"failed": 3, "replays": 3, "needed": 2},
    "reproduction": {"failed": 3, "replays": 3, "needed": 2},
    "script": ["pizza", "large"],
    "original_script": ["hi", "pizza", "large"],
    "original_turns": 9,
    "shrunk_turns": 2,
    "chatbot_calls": 12,
    "llm_calls": 0,
    "candidates": 4,
    "capped": False,
    "sensei_run": 1,
    "conversation": 2,
    "pinned": {"id": 5, "name": "shrunk_order_0_check_failed", "valid": True},
}


def _served(auth_api: Any, kind: str, result: dict[str, Any], status: str = Run.Status.SUCCEEDED) -> Any:
    run = RunFactory(owner=auth_api.user, kind=kind, status=status, result=result)
    response = auth_api.get(f"/api/runs/{run.pk}/")
    assert response.status_code == 200
    return response.json()["result"]


def test_the_schema_serves_each_typed_kind_through_its_own_model():
    schema = SchemaGenerator().get_schema(request=None, public=True)
    components = schema["components"]["schemas"]
    field = components["Run"]["properties"]["result"]
    assert field["nullable"] and field["oneOf"][0] == {"$ref": "#/components/schemas/RunResult"}
    union = components["RunResult"]
    assert union["discriminator"]["propertyName"] == "kind"
    for kind, name in TYPED.items():
        assert union["discriminator"]["mapping"][kind] == f"#/components/schemas/{name}"
        model = components[name]
        kind_enum = model["properties"]["kind"]["allOf"][0]["$ref"].rsplit("/", 1)[1]
        assert components[kind_enum]["enum"] == [kind]
        # Every field is always served, so every field is required; no free-form map stands in for a result.
        assert set(model["required"]) == set(model["properties"])
        assert model.get("additionalProperties", False) is False  # closed, never a free-form map
    assert components["TracerSummary"]["properties"]["usage"] == {"$ref": "#/components/schemas/UsageTotals"}
    assert set(RESULT_MODELS) == set(TYPED)


@pytest.mark.django_db
def test_an_old_tracer_result_loads_with_its_usage_totals_only(auth_api):
    result = _served(auth_api, "tracer", OLD_TRACER)
    assert result["kind"] == "tracer" and result["functionalities"] == 4 and result["valid_profiles"] == 1
    assert result["resumed"] is False  # not said then: it did not resume
    assert result["usage"] == {
        "calls": 9,
        "prompt_tokens": 900,
        "completion_tokens": 0,
        "cost_usd": 0.01,
        "failed_calls": 0,
        "unpriced_calls": 0,
    }


@pytest.mark.django_db
def test_an_old_bench_result_loads_with_the_figures_it_did_not_have_yet_as_unknown_or_zero(auth_api):
    result = _served(auth_api, "bench", OLD_BENCH)
    assert result["kind"] == "bench" and result["mutation_score"] == 50.0 and result["recall"] is None
    assert result["mutation_score_thesis_rule"] is None and result["killed_automatic"] == 0
    assert result["controls"] == 0 and result["matcher"] == ""
    assert result["usage"]["wall_s"] == 3.5 and result["usage"]["phases"]["tracer"]["calls"] == 5


@pytest.mark.django_db
def test_an_old_security_result_loads_without_states(auth_api):
    result = _served(auth_api, "security", OLD_SECURITY)
    assert result["kind"] == "security" and result["breaches"] == 1 and result["ok"] is False
    assert result["by_attack"][0]["breach_rate"] == 0.5 and result["by_attack"][0]["interval"] == [0.09, 0.91]
    assert result["by_state"] == [] and result["states"] is None and result["usage"]["calls"] == 0


@pytest.mark.django_db
def test_old_drafts_and_shrink_results_load(auth_api):
    drafts = _served(auth_api, "profile_draft", OLD_DRAFTS)
    assert drafts["kind"] == "profile_draft" and drafts["profiles"] == OLD_DRAFTS["profiles"]
    assert drafts["missing"] == ["refunds"] and drafts["usage"]["calls"] == 0
    shrink = _served(auth_api, "shrink", OLD_SHRINK)
    assert shrink["kind"] == "shrink" and shrink["pinned"]["id"] == 5 and shrink["shrunk_turns"] == 2
    assert (
        shrink["diff"] == [] and shrink["settings"] == {} and shrink["failure"]["check"]["kind"] == "contains"
    )


@pytest.mark.django_db
def test_a_run_without_a_result_serves_null_and_an_unreadable_one_never_a_500(auth_api):
    assert _served(auth_api, "tracer", {}, status=Run.Status.RUNNING) is None
    assert _served(auth_api, "bench", {"killed": "many"}) is None
    # Every kind has its model: a short run's result is served typed too.
    assert _served(auth_api, "ping", {"pong": True}) == {
        "kind": "ping",
        "pong": True,
        "worker": "",
        "message": "",
    }


@pytest.mark.django_db
def test_a_sensei_result_from_before_verdicts_keeps_its_counts_unknown(auth_api):
    result = _served(auth_api, "sensei", OLD_SENSEI)
    assert result["kind"] == "sensei" and result["conversations"] == 6 and result["with_errors"] == 1
    # Not "0 failed": the run was never decided that way, and the page reads its pass rate from errors instead.
    assert result["passed"] is None and result["failed"] is None and result["verdict_rules"] is None
    assert (
        result["reliability"] == []
        and result["replay"] is None
        and result["warnings"] == OLD_SENSEI["warnings"]
    )


@pytest.mark.django_db
def test_a_sensei_result_with_repeats_and_a_check_result_load_typed(auth_api):
    result = _served(auth_api, "sensei", SENSEI_WITH_REPEATS)
    profile = result["reliability"][0]
    assert profile["pass_k"]["rate"] == 0.5 and profile["flaky"] == 1
    planned = profile["conversations"][0]
    assert planned["verdict"] == "flaky" and planned["inputs"]["toppings"] == ["ham", "olives"]
    assert result["faults"] == {"chatbot": 1} and result["models"] == {}
    check = _served(auth_api, "check", OLD_CHECK)
    assert check == {"kind": "check", **OLD_CHECK}


@pytest.mark.django_db
def test_a_rule_report_that_does_not_load_is_served_with_defaults_never_a_500(auth_api):
    from runs.models import RuleResult

    run = RunFactory(owner=auth_api.user, kind="check", status=Run.Status.SUCCEEDED, result=OLD_CHECK)
    hostile = {"checks": "many", "results": "not a list", "warnings": ["kept"], "omitted": 2}
    RuleResult.objects.create(run=run, name="r", status="failed", checks=1, failed=1, report=hostile)
    response = auth_api.get(f"/api/runs/{run.pk}/results/")
    assert response.status_code == 200
    report = response.json()[0]["report"]
    # What loads is kept; what does not takes its default.
    assert (report["checks"], report["results"], report["warnings"], report["omitted"]) == (
        0,
        [],
        ["kept"],
        2,
    )


# A record as SENSEI stored it before `outcome`: how the conversation ended sat inside `settings`.
OLD_RECORD = {
    "id": "ab12-order-0",
    "profile": "order",
    "inputs": {"size": "small", "when": {"date": "2026-12-01"}},
    "outputs": {"price": {"amount": 9.5, "currency": "EUR"}},
    "settings": {
        "seed": 7,
        "max_user_turns": 4,
        "stopped_because": "max_turns",
        "simulator_slips": [{"turn": 0, "attempt": 1, "kind": "spoke_for_chatbot", "text": "Bot: hi"}],
        "notes": [{"turn": 1, "note": "the chatbot answered the user's closing with a message"}],
        "checks": [{"step": 0, "turn": 1, "check": "contains 'pizza'", "held": False, "detail": "absent"}],
        "number": 3,  # a key Parley never wrote: kept, as the reference tool's
    },
    "turns": [{"role": "user", "text": "A small pizza"}, {"role": "bot", "text": "9.50 EUR"}],
}


@pytest.mark.django_db
def test_a_record_stored_before_outcome_is_served_typed_with_its_ending_moved_to_outcome(auth_api):
    from runs.models import Conversation

    run = RunFactory(owner=auth_api.user, kind="sensei", status=Run.Status.SUCCEEDED, result={})
    row = Conversation.objects.create(run=run, profile="order", index=0, record=OLD_RECORD)
    response = auth_api.get(f"/api/runs/{run.pk}/conversations/{row.pk}/")
    assert response.status_code == 200
    record = response.json()["record"]
    assert record["outcome"]["stopped_because"] == "max_turns"
    assert record["outcome"]["simulator_slips"][0]["kind"] == "spoke_for_chatbot"
    assert record["outcome"]["checks"][0]["held"] is False
    assert record["settings"]["seed"] == 7 and record["settings"]["max_user_turns"] == 4
    assert record["settings"]["reference"] == {"number": 3}
    assert "stopped_because" not in record["settings"]
    assert record["inputs"]["when"] == {"date": "2026-12-01"}


@pytest.mark.django_db
def test_a_record_missing_its_names_or_with_bad_fields_is_served_never_a_500(auth_api):
    from runs.models import Conversation

    run = RunFactory(owner=auth_api.user, kind="sensei", status=Run.Status.SUCCEEDED, result={})
    hostile = {"turns": "not a list", "settings": {"seed": "seven"}, "outputs": {"price": 3}}
    row = Conversation.objects.create(run=run, profile="order", index=2, record=hostile)
    response = auth_api.get(f"/api/runs/{run.pk}/conversations/{row.pk}/")
    assert response.status_code == 200
    record = response.json()["record"]
    assert (record["id"], record["profile"], record["index"]) == ("order-2", "order", 2)
    assert record["turns"] == [] and record["settings"]["seed"] is None and record["outputs"] == {"price": 3}


@pytest.mark.django_db
def test_the_migration_moves_an_old_records_ending_to_outcome_where_the_slip_count_reads_it():
    import importlib

    from django.apps import apps

    from runs.models import Conversation
    from runs.verdict_counts import sensei_verdicts

    run = RunFactory(kind="sensei", status=Run.Status.SUCCEEDED, result={})
    row = Conversation.objects.create(run=run, profile="order", index=0, record=OLD_RECORD)
    assert sensei_verdicts(run)["simulator_slips"] == 0  # the count reads `outcome`, which it lacks
    importlib.import_module("runs.migrations.0015_record_outcome").forwards(apps, None)
    row.refresh_from_db()
    assert row.record["outcome"]["stopped_because"] == "max_turns"
    assert "simulator_slips" not in row.record["settings"]
    assert sensei_verdicts(run)["simulator_slips"] == 1


def test_the_schema_types_a_conversation_record_with_its_settings_and_outcome():
    schema = SchemaGenerator().get_schema(request=None, public=True)
    components = schema["components"]["schemas"]
    record = components["ConversationRecord"]
    assert record["properties"]["settings"] == {"$ref": "#/components/schemas/RecordSettings"}
    assert record["properties"]["outcome"] == {"$ref": "#/components/schemas/RecordOutcome"}
    assert record["properties"]["inputs"]["additionalProperties"] == {
        "$ref": "#/components/schemas/JsonValue"
    }
    for name in ("RecordSettings", "RecordOutcome"):
        assert components[name].get("additionalProperties", False) is False
    detail = components["Conversation"]["properties"]["record"]
    assert "ConversationRecord" in str(detail)

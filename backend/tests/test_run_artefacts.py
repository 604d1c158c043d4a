"""A run's artefacts are served through the engine's models of their documents (`runs.http.artefacts`): the schema
gives the web client a union discriminated on `name`, each content typed (bench.json as `BenchReport`, TRACER's
graph as `WorkflowGraph`...), and a document stored before its model — or hand-edited — still loads, what does not
load at its default, never a 500."""

from __future__ import annotations

from typing import Any

import pytest
from drf_spectacular.generators import SchemaGenerator
from pydantic.json_schema import model_json_schema

from engine.tracer.artefacts import graph_json
from engine.tracer.model import Functionality, FunctionalModel
from runs.http.artefacts import SERVED_ARTEFACTS
from runs.models import Artefact, Run
from runs.result_schema import SERVED_MODELS, _Served, openapi_30
from tests.factories import RunFactory

TYPED = {
    "model": "ModelDocument",
    "graph": "WorkflowGraph",
    "transcripts": "Transcripts",
    "usage": "TracerUsage",
    "bench": "BenchReport",
    "plan": "PlanDocument",
}

# A bench.json from before the controls, the thesis comparison and the automatic counting, trimmed, with a field a
# hand edit broke.
OLD_BENCH = {
    "config": {"bots": ["bike"], "sessions": 3, "turns": 4, "repeats": 2, "seed": 7, "provider": "openai"},
    "bots": {
        "bike": {
            "bot": "bike",
            "name": "Spoke & Chain Cycles",
            "tracer": {"functionalities": 4, "precision": 75.0, "recall_modules": [3, 3]},
            "mutation": {
                "selected": 1,
                "killed": 1,
                "mutation_score": 100.0,
                "mutants": [{"id": "crash-on-value-1", "status": "killed", "reasons": {"crash": 2}}],
            },
            "usage": {"calls": 20, "cost_usd": 0.002, "phases": {"tracer": {"calls": 20}}},
        }
    },
    "overall": {"precision": "seventy-five", "mutation": {"killed": 1, "mutation_score": 100.0}},
    "wall_s": 63.4,
}


def _artefact(auth_api: Any, name: str, content: Any, kind: str = "tracer") -> Any:
    run = RunFactory(owner=auth_api.user, kind=kind, status=Run.Status.SUCCEEDED)
    Artefact.objects.create(run=run, name=name, content=content)
    response = auth_api.get(f"/api/runs/{run.pk}/artefacts/{name}/")
    assert response.status_code == 200
    served = response.json()
    assert served["name"] == name
    return served["content"]


def test_the_schema_types_each_artefact_by_its_name():
    schema = SchemaGenerator().get_schema(request=None, public=True)
    components = schema["components"]["schemas"]
    response = schema["paths"]["/api/runs/{id}/artefacts/{name}/"]["get"]["responses"]["200"]
    assert response["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Artefact"}
    union = components["Artefact"]
    assert union["discriminator"]["propertyName"] == "name"
    assert set(union["discriminator"]["mapping"]) == set(SERVED_ARTEFACTS)
    for name, model in TYPED.items():
        envelope = components[union["discriminator"]["mapping"][name].rsplit("/", 1)[1]]
        assert envelope["properties"]["content"] == {"$ref": f"#/components/schemas/{model}"}
    assert components["ReportArtefact"]["properties"]["content"]["type"] == "string"
    # The whole document is typed: no free-form map stands in for a bench's figures or a graph.
    for model in ("BenchReport", "BotReport", "MutantResult", "WorkflowGraph", "GraphNode"):
        assert components[model].get("additionalProperties", False) is False
        assert set(components[model]["required"]) == set(components[model]["properties"])


def test_no_two_served_models_share_a_component_name():
    """A model's parts become components named after their classes, and the first one registered under a name
    wins: two classes of one name (a TRACER turn and a conversation turn, say) would serve one's shape for the
    other."""
    components = SchemaGenerator().get_schema(request=None, public=True)["components"]["schemas"]
    for model in SERVED_MODELS:
        schema = model_json_schema(model, mode="serialization", schema_generator=_Served)
        for name, part in schema.get("$defs", {}).items():
            served = components[name]
            assert set(served.get("properties", {})) == set(openapi_30(part).get("properties", {})), name


@pytest.mark.django_db
def test_an_old_hand_edited_bench_artefact_loads_with_what_it_did_not_have_at_its_defaults(auth_api):
    bench = _artefact(auth_api, "bench", OLD_BENCH, kind="bench")
    bot = bench["bots"]["bike"]
    assert bench["config"]["sessions"] == 3 and bench["config"]["controls"] == 3  # the default now
    assert bot["tracer"]["precision"] == 75.0 and bot["tracer"]["matches"] == []
    mutant = bot["mutation"]["mutants"][0]
    assert mutant["status"] == "killed" and mutant["reasons"] == {"crash": 2} and mutant["kills"] == []
    assert bot["usage"]["phases"]["tracer"]["calls"] == 20 and bot["controls"]["runs"] == 0
    assert bench["scores"]["with_oracles"]["score"] is None and bench["thesis"] is None
    # The hand-broken block is served at its default; the rest of the document stays.
    assert bench["overall"]["precision"] is None and bench["overall"]["mutation"]["killed"] == 0
    assert bench["wall_s"] == 63.4


@pytest.mark.django_db
def test_an_artefact_that_is_not_even_its_kind_of_json_is_served_empty_never_a_500(auth_api):
    assert _artefact(auth_api, "bench", ["not", "a", "report"], kind="bench")["bots"] == {}
    assert _artefact(auth_api, "transcripts", {"sessions": "many"}) == []
    assert _artefact(auth_api, "report", {"text": "# TRACER report"}) == "# TRACER report"
    assert _artefact(auth_api, "report", 7) == ""


@pytest.mark.django_db
def test_a_graph_is_served_as_the_engine_writes_it_and_an_older_one_gets_its_categories_and_joins(auth_api):
    model = FunctionalModel(
        functionalities=[
            Functionality(name="greet", category="Meta"),
            Functionality(name="order", parents=["greet"], category="Ordering"),
            Functionality(name="pay", parents=["greet", "order"], category="Ordering"),
        ]
    )
    assert _artefact(auth_api, "graph", graph_json(model)) == graph_json(model)
    older = {
        "nodes": [
            {"id": "__start__", "label": "Start", "kind": "start"},
            {"id": "greet", "kind": "functionality", "category": "Meta"},
            {"id": "pay", "label": "Pay", "category": "Ordering", "is_join": True},
            {"label": "nameless"},
        ],
        "edges": [
            {"source": "__start__", "target": "greet", "kind": "entry"},
            {"source": "greet", "target": "pay"},
            {"source": "greet", "target": "gone"},
        ],
    }
    graph = _artefact(auth_api, "graph", older)
    assert [node["label"] for node in graph["nodes"]] == ["Start", "greet", "Pay"]
    assert [(edge["target"], edge["kind"]) for edge in graph["edges"]] == [
        ("greet", "entry"),
        ("pay", "flow"),
    ]
    assert graph["categories"] == ["Meta", "Ordering"] and graph["joins"] == ["pay"]

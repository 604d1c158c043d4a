"""A run's `result` as the API serves it (D31): one pydantic model per run kind, defined in the engine (the
platform's own fields — the profiles a run filed — beside the module that files them), and the schema hook that
gives the generated web client a union of them discriminated on `kind`.

`RESULT_MODELS` is the one registry: a kind listed here is served through its model — each model gives every
field a default, so a result stored before a field was added still loads (D31's adapter for these kinds) — and
appears in the OpenAPI schema. A run with no result yet (queued, running, failed) serves null.
"""

from __future__ import annotations

import logging
from typing import Any

from drf_spectacular.contrib.pydantic import PydanticExtension
from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.plumbing import ResolvedComponent
from drf_spectacular.utils import PolymorphicProxySerializer
from pydantic import BaseModel, ValidationError
from pydantic.json_schema import GenerateJsonSchema, model_json_schema
from rest_framework import serializers

from engine.check.report import CheckRunSummary, RuleReport
from engine.conversation import ConversationRecord
from engine.evaluation.qualify_result import QualifyResult
from engine.evaluation.result import BenchSummary
from engine.llm import UsageTotals
from engine.security.records import AttemptRecord
from engine.security.result import CampaignSummary
from engine.sensei.result import SenseiResult
from engine.tracer.result import TracerSummary
from runs.http.artefacts import CONTENT_MODELS, SERVED_ARTEFACTS
from runs.http.statistics import RunStatistics
from runs.models import Run
from runs.verdict_counts import refreshed_result
from runs.worker.drafting import DraftsSummary
from runs.worker.short_results import ConnectionTest, KeyCheck, ModelList, PingResult
from runs.worker.shrinking import PinnedShrink

logger = logging.getLogger(__name__)

RESULT_MODELS: dict[str, type[BaseModel]] = {
    Run.Kind.PING: PingResult,
    Run.Kind.KEY_TEST: KeyCheck,
    Run.Kind.KEY_MODELS: ModelList,
    Run.Kind.CONNECTOR_TEST: ConnectionTest,
    Run.Kind.TRACER: TracerSummary,
    Run.Kind.SENSEI: SenseiResult,
    Run.Kind.CHECK: CheckRunSummary,
    Run.Kind.BENCH: BenchSummary,
    Run.Kind.SECURITY: CampaignSummary,
    Run.Kind.PROFILE_DRAFT: DraftsSummary,
    Run.Kind.SHRINK: PinnedShrink,
    Run.Kind.QUALIFY: QualifyResult,
}

# Every model the API serves through this hook: the results, what a run stores row by row, its aggregates, its
# artefacts.
SERVED_MODELS: set[type[BaseModel]] = {
    *RESULT_MODELS.values(),
    *SERVED_ARTEFACTS.values(),
    *CONTENT_MODELS.values(),
    AttemptRecord,
    ConversationRecord,
    RuleReport,
    RunStatistics,
    UsageTotals,
}


def served_result(kind: str, stored: dict[str, Any] | None) -> dict[str, Any] | None:
    """The stored result brought to its kind's current model (null when there is none yet); a kind without a
    model is served as stored."""
    model = RESULT_MODELS.get(kind)
    if not stored:
        return None
    if model is None:
        return stored
    try:
        return model.model_validate({**stored, "kind": kind}).model_dump(mode="json")
    except ValidationError:
        logger.exception("A stored %s result does not load; served as none", kind)
        return None


class ResultField(serializers.JSONField):
    """A run's result in the run serializer: `served_result` of it (a SENSEI run's counts refreshed first)."""

    def __init__(self) -> None:
        super().__init__(source="*", read_only=True, allow_null=True)

    def to_representation(self, run: Run) -> Any:
        return served_result(run.kind, refreshed_result(run))


# -- the schema -----------------------------------------------------------------------------------------------

RunResult = PolymorphicProxySerializer(
    component_name="RunResult",
    serializers=RESULT_MODELS,  # type: ignore[arg-type]  # pydantic classes, resolved by `ResultSchema`
    resource_type_field_name="kind",
    many=False,
)


class _Served(GenerateJsonSchema):
    """A model as served: `model_dump` writes every field, so every field is required, defaults included — but
    a TypedDict's `NotRequired` key, which a document leaves out when it has none."""

    def field_is_required(self, field: Any, total: bool) -> bool:
        if field["type"] == "typed-dict-field":
            return bool(super().field_is_required(field, total))
        return True


def openapi_30(schema: Any) -> Any:
    """Pydantic's JSON Schema as OpenAPI 3.0 reads it: `X | None` (anyOf with a null type) becomes
    `nullable`, a one-value `Literal` (`const`) a one-value enum, and the titles pydantic adds to every field
    go."""
    if isinstance(schema, list):
        return [openapi_30(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    schema = {key: openapi_30(value) for key, value in schema.items() if key != "title"}
    if "const" in schema:
        schema["enum"] = [schema.pop("const")]
    options = schema.get("anyOf")
    if isinstance(options, list) and {"type": "null"} in options:
        rest = [option for option in options if option != {"type": "null"}]
        del schema["anyOf"]
        if len(rest) == 1 and "$ref" not in rest[0]:
            return {**rest[0], **schema, "nullable": True}
        return {**schema, **({"allOf": rest} if len(rest) == 1 else {"anyOf": rest}), "nullable": True}
    return schema


class ResultSchema(PydanticExtension):
    """The result models' schemas for the generated web client, in OpenAPI 3.0 terms, every field required."""

    target_class = "pydantic.BaseModel"
    match_subclasses = True
    priority = 2  # before drf-spectacular's own pydantic support, for the result models only

    @classmethod
    def _matches(cls, target: Any) -> bool:
        return isinstance(target, type) and target in SERVED_MODELS

    def map_serializer(self, auto_schema: Any, direction: Any) -> Any:
        schema = model_json_schema(
            self.target,
            ref_template="#/components/schemas/{model}",
            mode="serialization",
            schema_generator=_Served,
        )
        for name, sub_schema in schema.pop("$defs", {}).items():
            component = ResolvedComponent(
                name=name, type=ResolvedComponent.SCHEMA, object=name, schema=openapi_30(sub_schema)
            )
            auto_schema.registry.register_on_missing(component)
        return openapi_30(schema)


class ResultFieldSchema(OpenApiSerializerFieldExtension):
    """`ResultField` in the schema: the `RunResult` union, or null (a `oneOf`, which the generated client reads
    as a union; an `allOf` around a discriminated schema would lose the discriminator). Every kind has its model
    (tests/test_result_models.py holds that)."""

    target_class = "runs.result_schema.ResultField"

    def map_serializer_field(self, auto_schema: Any, direction: Any) -> Any:
        component = auto_schema.resolve_serializer(RunResult, direction)
        return {"oneOf": [component.ref], "nullable": True, "readOnly": True}

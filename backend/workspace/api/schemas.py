"""/api/schemas/{profile|rule|connector|campaign}/: JSON Schemas for the web editor's completion, hover and checks.

They describe languages, not anyone's data, so anyone may read them (public project pages use the editor
read-only too).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from engine.check.rules import rule_json_schema
from engine.connectors import technologies
from engine.security import campaign_json_schema
from engine.sensei.validator import profile_json_schema


def connector_json_schema() -> dict[str, Any]:
    """A connector file: `technology` picks which technology's parameters apply at the top level."""
    variants = []
    for technology in technologies():
        schema = technology.json_schema()
        properties = {"technology": {"const": technology.name}, **schema.get("properties", {})}
        variants.append(
            {**schema, "properties": properties, "required": ["technology", *schema.get("required", [])]}
        )
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Parley connector file",
        "type": "object",
        "required": ["technology"],
        "oneOf": variants,
    }


SCHEMAS = {
    "profile": profile_json_schema,
    "rule": rule_json_schema,
    "connector": connector_json_schema,
    "campaign": campaign_json_schema,
}


class SchemaView(APIView):
    permission_classes = (AllowAny,)

    @extend_schema(responses={200: OpenApiTypes.OBJECT}, summary="The JSON Schema of a YAML language")
    def get(self, request: Request, kind: str) -> Response:
        if kind not in SCHEMAS:
            raise exceptions.NotFound(
                f"No schema named {kind!r}; choose profile, rule, connector or campaign."
            )
        return Response(SCHEMAS[kind]())

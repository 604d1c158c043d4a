"""What a technology is: a settings model (its parameters), a description, and a factory for connectors.

The settings model is the single source of truth. Parameters for forms and for `parley connectors params`,
the JSON Schema and validation all derive from it, so they cannot drift apart. Secret parameters are
`SecretStr` fields (JSON Schema `writeOnly`), which the platform stores encrypted and never echoes back.
Every settings model forbids unknown keys, so a typo is reported instead of silently ignored.

Every technology also takes the pacing parameters (`pacing.Pacing`: `min_interval_s`, `max_sessions`): they
are appended to its settings model (`Technology.model`), so they appear last in forms and schemas, are stored
with the connector, and `create` wraps the connector in the chatbot's shared pacer.
"""

from __future__ import annotations

import difflib
import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, Generic, TypeVar
from urllib.parse import urlsplit

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, JsonValue, ValidationError, create_model

from engine.connectors.base import Connector, ConnectorContext
from engine.connectors.errors import ConnectorConfigError
from engine.connectors.pacing import PACING_FIELDS, Pacing, paced, pacer_key
from engine.egress import InvalidAddress, canonical_url

Location = tuple[int, int]
Locator = Callable[[tuple[str | int, ...]], Location | None]


class TechnologySettings(BaseModel):
    """Base of every technology's settings: unknown keys are errors, values are not coerced silently."""

    model_config = ConfigDict(extra="forbid", frozen=True)


S = TypeVar("S", bound=TechnologySettings)


class Parameter(BaseModel):
    """One parameter of a technology, as a form or the CLI shows it."""

    name: str
    type: str
    required: bool
    default: JsonValue = None
    secret: bool = False
    description: str = ""


def _schema_type(prop: Mapping[str, Any]) -> tuple[str, bool]:
    """(JSON type, secret) of a property, looking through Optional's anyOf."""
    options = [prop, *[o for o in prop.get("anyOf", []) if o.get("type") != "null"]]
    secret = any(o.get("writeOnly") is True for o in options)
    for option in options:
        if "type" in option:
            return str(option["type"]), secret
        if "$ref" in option:
            return "object", secret
        if "enum" in option or "const" in option:
            return "string", secret
    return "any", secret


@functools.cache
def _with_pacing(settings: type[TechnologySettings]) -> type[TechnologySettings]:
    """`settings` with the pacing parameters appended (a subclass, so factories accept it unchanged)."""
    if all(name in settings.model_fields for name in PACING_FIELDS):
        return settings
    fields: dict[str, Any] = {name: (info.annotation, info) for name, info in Pacing.model_fields.items()}
    model: type[TechnologySettings] = create_model(
        settings.__name__,
        __base__=settings,
        __module__=settings.__module__,
        __doc__=settings.__doc__,
        **fields,
    )
    return model


def _field_name(loc: tuple[str | int, ...]) -> str:
    return ".".join(str(part) for part in loc) or "(top level)"


@dataclass(frozen=True)
class Technology(Generic[S]):
    name: str
    description: str
    settings: type[S]
    factory: Callable[[S, ConnectorContext], Connector]
    example: dict[str, JsonValue] = field(default_factory=dict)

    @property
    def model(self) -> type[S]:
        """The settings model with the pacing parameters: what is validated and what forms show."""
        return _with_pacing(self.settings)  # type: ignore[return-value]

    def parameters(self) -> list[Parameter]:
        schema = self.model.model_json_schema()
        required = set(schema.get("required", []))
        result = []
        for name, prop in schema.get("properties", {}).items():
            kind, secret = _schema_type(prop)
            result.append(
                Parameter(
                    name=name,
                    type=kind,
                    required=name in required,
                    default=None if secret else prop.get("default"),
                    secret=secret,
                    description=prop.get("description", ""),
                )
            )
        return result

    def json_schema(self) -> dict[str, Any]:
        schema = self.model.model_json_schema()
        schema["title"] = self.name
        schema["description"] = self.description
        return schema

    def validate(self, params: Mapping[str, Any], *, locate: Locator | None = None, source: str = "") -> S:
        """The validated settings, or one `ConnectorConfigError` naming every bad field (and its position in the
        connector file when `locate` can find it)."""
        try:
            return self.model.model_validate(dict(params))
        except ValidationError as exc:
            raise self._config_error(exc, locate, source) from None

    def create(self, params: Mapping[str, Any], context: ConnectorContext) -> Connector:
        """A live connector behind the pacer of the chatbot it talks to."""
        settings = self.validate(params)
        return paced(self.factory(settings, context), settings, pacer_key(self.name, params))

    def _config_error(
        self, exc: ValidationError, locate: Locator | None, source: str
    ) -> ConnectorConfigError:
        known = list(self.model.model_fields)
        lines: list[str] = []
        first: tuple[str, Location | None] | None = None
        for error in exc.errors():
            loc = tuple(error["loc"])
            name = _field_name(loc)
            if error["type"] == "missing":
                text = f"{name}: required by technology {self.name!r} but missing"
            elif error["type"] == "extra_forbidden":
                close = difflib.get_close_matches(str(loc[-1]), known, n=1) if len(loc) == 1 else []
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                text = f"{name}: not a parameter of technology {self.name!r}{hint}"
            else:
                text = f"{name}: {error['msg'].removeprefix('Value error, ')}"
            position = locate(loc) if locate else None
            if position:
                text = f"line {position[0]}, column {position[1]}: {text}"
            lines.append(text)
            if first is None:
                first = (name, position)
        prefix = f"{source}: " if source else ""
        message = prefix + "; ".join(lines[:6]) + (f" (and {len(lines) - 6} more)" if len(lines) > 6 else "")
        name, position = first or ("", None)
        return ConnectorConfigError(
            message,
            field=name,
            line=position[0] if position else None,
            column=position[1] if position else None,
        )


class Destination:
    """Marks a setting Parley sends requests to: the API checks it against the egress policy on save."""


DESTINATION = Destination()


def _check_base_url(value: str) -> str:
    """The URL with its host in the one form the egress guard decides on and httpx can read (`0177.0.0.3` is
    127.0.0.3, `bücher.de` its punycode): a host in no valid form is a configuration error, never a crash."""
    value = value.strip()
    try:
        url = urlsplit(value)
        url.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError as exc:
        raise ValueError(f"{value!r} is not a valid URL ({exc})") from None
    if url.scheme not in ("http", "https") or not url.hostname:
        raise ValueError(f"{value!r} must be an http:// or https:// URL with a host name")
    if url.query or url.fragment:
        raise ValueError(f"{value!r} must not contain a query string or fragment")
    try:
        return canonical_url(value)
    except InvalidAddress as exc:
        raise ValueError(exc.user_message.rstrip(".")) from None


BaseUrl = Annotated[str, AfterValidator(_check_base_url), DESTINATION]


def destinations(settings: BaseModel) -> dict[str, str]:
    """The settings Parley sends requests to (fields typed `BaseUrl`), by field name, as validated."""
    found = {}
    for name, info in type(settings).model_fields.items():
        value = getattr(settings, name, None)
        if any(isinstance(mark, Destination) for mark in info.metadata) and isinstance(value, str):
            found[name] = value
    return found


def _check_page_url(value: str) -> str:
    """A web page's address (sent as Origin/Referer): like a base URL, but a query or fragment is allowed."""
    value = value.strip()
    url = urlsplit(value)
    if url.scheme not in ("http", "https") or not url.hostname:
        raise ValueError(f"{value!r} must be an http:// or https:// URL with a host name")
    return value


PageUrl = Annotated[str, AfterValidator(_check_page_url)]
Seconds = Annotated[float, Field(gt=0, le=3600)]

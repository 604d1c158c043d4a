"""`http`: any JSON-over-HTTP chatbot described in YAML — the reference "custom YAML" connector, extended.

Compatible with the reference keys (`name`, `base_url`, `timeout`, `headers`, `fallback_message`,
`send_message{path, method, headers, timeout, payload_template}`, `response_path`) and adds:
`{session_id}`/`{uuid}`/`{turn}` placeholders, a `new_conversation` request whose reply gives the session id
(otherwise every conversation gets a fresh UUID as its id), `query` parameters, `messages_path` for
multi-message replies, `buttons_path`, `ended_path` (the chatbot's own "conversation over" flag), and an
optional greeting read from the `new_conversation` reply.
Templates are filled in after parsing (see `templating.py`), never by text substitution.
"""

from __future__ import annotations

import time
import uuid
from typing import Annotated, Literal, Self

from pydantic import (
    AfterValidator,
    BeforeValidator,
    Field,
    JsonValue,
    SecretStr,
    field_validator,
    model_validator,
)

from engine.connectors.base import BotReply, Connector, ConnectorContext
from engine.connectors.errors import ChatbotProtocolError
from engine.connectors.paths import extract, parse_path
from engine.connectors.technologies._replies import as_buttons, as_messages
from engine.connectors.technology import BaseUrl, Seconds, Technology, TechnologySettings
from engine.connectors.templating import (
    Values,
    check_header_templates,
    render_body,
    render_headers,
    render_path,
    render_query,
)
from engine.connectors.transport import (
    HttpChannel,
    Phase,
    Response,
    check_status,
    decode_json,
    display_url,
    join_url,
)

Method = Annotated[
    Literal["GET", "POST", "PUT"], BeforeValidator(lambda v: v.upper() if isinstance(v, str) else v)
]


def _check_path_syntax(value: str) -> str:
    parse_path(value)
    return value


ReplyPath = Annotated[str, AfterValidator(_check_path_syntax)]


def _mentions(value: JsonValue, placeholder: str) -> bool:
    if isinstance(value, str):
        return placeholder in value
    if isinstance(value, list):
        return any(_mentions(item, placeholder) for item in value)
    if isinstance(value, dict):
        return any(placeholder in key or _mentions(item, placeholder) for key, item in value.items())
    return False


class Endpoint(TechnologySettings):
    path: str = Field("", description="Appended to base_url; placeholders are URL-encoded as one segment.")
    method: Method = Field(
        "POST", description="GET, POST or PUT. GET sends payload_template as query parameters."
    )
    headers: dict[str, str] = Field(default_factory=dict, description="Headers for this request only.")
    query: dict[str, JsonValue] = Field(default_factory=dict, description="Query parameters (flat values).")
    payload_template: JsonValue = Field(
        None, description="JSON body; placeholders in strings are substituted."
    )
    timeout: Seconds | None = Field(None, description="Seconds to wait for this request; default: timeout.")

    @field_validator("headers")
    @classmethod
    def _headers_are_clean(cls, value: dict[str, str]) -> dict[str, str]:
        check_header_templates(value)
        return value

    @model_validator(mode="after")
    def _get_has_flat_payload(self) -> Self:
        payload = self.payload_template
        if self.method == "GET" and payload is not None:
            flat = isinstance(payload, dict) and not any(isinstance(v, dict | list) for v in payload.values())
            if not flat:
                raise ValueError(
                    "with method GET, payload_template must be a flat mapping (it becomes the query)"
                )
        return self


class NewConversation(Endpoint):
    session_id_path: ReplyPath = Field("id", description="Where the new session id is in the reply.")
    greeting_path: ReplyPath | None = Field(
        None, description="Where the bot's greeting is in the reply, if any."
    )


class HttpSettings(TechnologySettings):
    name: str = Field("HTTP chatbot", description="A display name.")
    base_url: BaseUrl = Field(description="Root URL of the chatbot API; endpoint paths are appended to it.")
    timeout: Seconds = Field(60.0, description="Default seconds to wait for a reply.")
    headers: dict[str, SecretStr] = Field(
        default_factory=dict,
        description="Headers sent with every request; stored encrypted, so put credentials here.",
        json_schema_extra={"writeOnly": True},
    )
    fallback_message: str | None = Field(None, description="Informational: the bot's known fallback message.")
    new_conversation: NewConversation | None = Field(
        None, description="Request that opens a conversation; without it each conversation gets a fresh UUID."
    )
    send_message: Endpoint = Field(description="Request that sends one user turn; must contain {user_msg}.")
    response_path: ReplyPath | None = Field(
        None, description="Path to the reply text, e.g. data.messages.-1.text."
    )
    messages_path: ReplyPath | None = Field(
        None, description="Path to a list of messages (instead of response_path)."
    )
    buttons_path: ReplyPath | None = Field(
        None, description="Path to a list of buttons; absent means no buttons."
    )
    ended_path: ReplyPath | None = Field(
        None,
        description="Path to a value that is true when the chatbot ended the conversation (a final state, "
        "a session-ended flag); absent or false means it goes on.",
    )

    @field_validator("headers")
    @classmethod
    def _headers_are_clean(cls, value: dict[str, SecretStr]) -> dict[str, SecretStr]:
        check_header_templates({k: v.get_secret_value() for k, v in value.items()})
        return value

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        if (self.response_path is None) == (self.messages_path is None):
            raise ValueError(
                "set exactly one of response_path (one text) or messages_path (a list of messages)"
            )
        sent = self.send_message
        parts: list[JsonValue] = [sent.path, sent.query, dict(sent.headers), sent.payload_template]
        if not any(_mentions(v, "{user_msg}") for v in parts):
            raise ValueError(
                "send_message must contain {user_msg} somewhere, or the bot never sees the user's turn"
            )
        return self


class HttpConnector(Connector):
    technology = "http"

    def __init__(self, settings: HttpSettings, context: ConnectorContext) -> None:
        self.settings = settings
        headers = {k: v.get_secret_value() for k, v in settings.headers.items()}
        self._channel = HttpChannel(context, timeout=settings.timeout, headers=headers)
        self._session_id: str | None = None
        self._turn = 0
        self._greeting: BotReply | None = None

    def _call(self, endpoint: Endpoint, values: Values, *, phase: Phase, field: str) -> Response:
        url = join_url(self.settings.base_url, render_path(endpoint.path, values))
        headers = render_headers(endpoint.headers, values, field=f"{field}.headers")
        if endpoint.method == "GET":
            template = endpoint.payload_template if isinstance(endpoint.payload_template, dict) else {}
            params = render_query({**template, **endpoint.query}, values, field=field)
            body: JsonValue = None
        else:
            params = render_query(endpoint.query, values, field=f"{field}.query")
            body = render_body(endpoint.payload_template, values)
        return self._channel.request(
            endpoint.method,
            url,
            phase=phase,
            json_body=body,
            params=params or None,
            headers=headers or None,
            timeout=endpoint.timeout,
        )

    def new_conversation(self) -> None:
        self._turn = 0
        self._greeting = None
        candidate = str(uuid.uuid4())
        endpoint = self.settings.new_conversation
        if endpoint is None:
            self._session_id = candidate
            return
        values = Values(user_msg="", session_id=candidate, uuid=candidate, turn=0)
        started = time.perf_counter()
        response = self._call(endpoint, values, phase="open", field="new_conversation")
        check_status(response)
        body = decode_json(response)
        where = display_url(response.request.url)
        session_id = extract(
            body, endpoint.session_id_path, setting="new_conversation.session_id_path", where=where
        )
        if not isinstance(session_id, str | int) or isinstance(session_id, bool) or session_id == "":
            raise ChatbotProtocolError(
                f"The reply from {where} has no usable session id at new_conversation.session_id_path "
                f"{endpoint.session_id_path!r} (found {session_id!r})."
            )
        self._session_id = str(session_id)
        if endpoint.greeting_path is not None:
            text = extract(
                body, endpoint.greeting_path, setting="new_conversation.greeting_path", where=where
            )
            latency = time.perf_counter() - started
            self._greeting = BotReply(messages=as_messages(text), raw=body, latency_s=latency)

    def greeting(self) -> BotReply | None:
        if self._session_id is None:
            self.new_conversation()
        return self._greeting

    def send(self, text: str) -> BotReply:
        if self._session_id is None:
            self.new_conversation()
        assert self._session_id is not None
        self._turn += 1
        values = Values(user_msg=text, session_id=self._session_id, uuid=str(uuid.uuid4()), turn=self._turn)
        started = time.perf_counter()
        response = self._call(self.settings.send_message, values, phase="turn", field="send_message")
        latency = time.perf_counter() - started
        check_status(response)
        body = decode_json(response)
        where = display_url(response.request.url)
        settings = self.settings
        if settings.messages_path is not None:
            found = extract(body, settings.messages_path, setting="messages_path", where=where)
        else:
            found = extract(body, settings.response_path or "", setting="response_path", where=where)
            if isinstance(found, dict):
                raise ChatbotProtocolError(
                    f"response_path {settings.response_path!r} points at an object in the reply from {where}; "
                    "point it at the text inside (or use messages_path for a list of messages)."
                )
        buttons = []
        if settings.buttons_path is not None:
            try:
                buttons = as_buttons(extract(body, settings.buttons_path, setting="buttons_path"))
            except ChatbotProtocolError:
                buttons = []  # a reply without buttons simply has none
        ended = False
        if settings.ended_path is not None:
            try:
                flag = extract(body, settings.ended_path, setting="ended_path")
            except ChatbotProtocolError:
                flag = None  # a reply without the flag has not ended anything
            ended = flag is True or (isinstance(flag, str) and flag.strip().lower() in ("true", "yes", "1"))
        return BotReply(
            messages=as_messages(found), buttons=buttons, raw=body, latency_s=latency, ended=ended
        )

    def close(self) -> None:
        self._channel.close()


HTTP = Technology(
    name="http",
    description="Any JSON-over-HTTP chatbot, described in YAML (requests, placeholders, reply paths).",
    settings=HttpSettings,
    factory=HttpConnector,
    example={
        "base_url": "https://bot.example.com/api",
        "send_message": {
            "path": "/chat",
            "payload_template": {"session": "{session_id}", "text": "{user_msg}"},
        },
        "response_path": "reply",
    },
)

__all__ = ["HTTP", "HttpConnector", "HttpSettings"]

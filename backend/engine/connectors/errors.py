"""The connector error hierarchy: every way a conversation with a chatbot can fail, one class each.

Callers branch on the class (or its stable `code`); users read `user_message`, which names the URL or the
field involved. The classes say *whose* problem it is:

- `ConnectorConfigError`: the connector's settings are wrong (bad YAML, unknown technology, missing field).
- `ChatbotUnavailable`: nothing answered (connection refused, DNS failure, connection dropped) — infrastructure.
- `ChatbotTimeout`: the request reached the chatbot but no reply came in time — a finding about the chatbot.
- `ChatbotHTTPError`: the chatbot answered with an HTTP error status; `status` says which (5xx: a finding).
- `ChatbotRateLimited` (a `ChatbotHTTPError`): it kept answering 429 or 503 after Parley waited as asked —
  it refused the load, which says nothing about its behaviour: the conversation is inconclusive.
- `ChatbotProtocolError`: a reply arrived but is not what the technology promises (HTML, bad JSON, no text at
  the configured path) — usually a wrong connector setting, sometimes a broken chatbot.
- `SessionLost`: the chatbot no longer knows the conversation (e.g. it restarted) — infrastructure.

`EgressDenied` (engine.egress) is not part of this family: it is a policy decision, raised unchanged.
"""

from __future__ import annotations

from engine.errors import ParleyError


class ConnectorError(ParleyError):
    """Base of every connector failure."""

    code = "connector_error"


class ConnectorConfigError(ConnectorError):
    """Invalid connector settings. `field` is the dotted parameter name, `line`/`column` (1-based) the position
    in the connector file when the settings came from one."""

    code = "connector_config_error"

    def __init__(
        self,
        user_message: str,
        *,
        field: str | None = None,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        super().__init__(user_message)
        self.field = field
        self.line = line
        self.column = column


class ChatbotUnavailable(ConnectorError):
    code = "chatbot_unavailable"


class ChatbotTimeout(ConnectorError):
    code = "chatbot_timeout"


class ChatbotHTTPError(ConnectorError):
    code = "chatbot_http_error"

    def __init__(self, user_message: str, *, status: int, body_excerpt: str = "") -> None:
        super().__init__(user_message)
        self.status = status
        self.body_excerpt = body_excerpt


class ChatbotRateLimited(ChatbotHTTPError):
    code = "chatbot_rate_limited"

    def __init__(
        self, user_message: str, *, status: int, retry_after_s: float | None = None, body_excerpt: str = ""
    ) -> None:
        super().__init__(user_message, status=status, body_excerpt=body_excerpt)
        self.retry_after_s = retry_after_s


class ChatbotProtocolError(ConnectorError):
    code = "chatbot_protocol_error"

    def __init__(self, user_message: str, *, body_excerpt: str = "") -> None:
        super().__init__(user_message)
        self.body_excerpt = body_excerpt


class SessionLost(ConnectorError):
    code = "session_lost"

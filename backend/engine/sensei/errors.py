"""The one table of conversation error codes, shared by SENSEI, SENSEI-check, the platform and the bench.

The numbers live in `engine.conversation.ErrorCode` (the record's schema); this module adds, per code, a
title, what triggers it and whether it is a finding about the chatbot or a problem of the test set-up, and
translates connector exceptions into codes. Codes keep the reference tools' numbers (500, 504, 1000, 1001,
2000, 2001) and add precise ones; other HTTP statuses from a chatbot are recorded as the status itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from engine.connectors.errors import (
    ChatbotHTTPError,
    ChatbotProtocolError,
    ChatbotRateLimited,
    ChatbotTimeout,
    ChatbotUnavailable,
    ConnectorConfigError,
    SessionLost,
)
from engine.conversation import ConversationError, ErrorCode
from engine.egress import EgressDenied
from engine.errors import ParleyError

Kind = Literal["finding", "setup", "budget", "cancelled"]


@dataclass(frozen=True)
class ErrorInfo:
    code: int
    slug: str
    title: str
    trigger: str
    kind: Kind  # finding: about the chatbot; setup: infrastructure or configuration; budget; cancelled


ERROR_TABLE: dict[int, ErrorInfo] = {
    info.code: info
    for info in (
        ErrorInfo(
            500, "chatbot_crash", "Chatbot crashed", "the chatbot answered with an HTTP 5xx status", "finding"
        ),
        ErrorInfo(
            502,
            "malformed_reply",
            "Malformed reply",
            "a reply arrived but could not be read (HTML page, invalid JSON, no text at the reply path)",
            "finding",
        ),
        ErrorInfo(
            503,
            "chatbot_unreachable",
            "Chatbot unreachable",
            "connection refused, DNS failure, or the address refused by the egress policy",
            "setup",
        ),
        ErrorInfo(504, "timeout", "Timeout", "no reply within the connector's timeout", "finding"),
        ErrorInfo(
            410, "session_lost", "Session lost", "the chatbot no longer knew the conversation", "setup"
        ),
        ErrorInfo(
            429,
            "rate_limited",
            "Rate limited",
            "the chatbot kept answering HTTP 429 or 503 after Parley waited as it asked (Retry-After): it "
            "refused the load, so the conversation is inconclusive",
            "setup",
        ),
        ErrorInfo(
            1000,
            "fallback_loop",
            "Fallback loop",
            "the chatbot answered with its fallback too many times in a row",
            "finding",
        ),
        ErrorInfo(
            1001,
            "goal_not_completed",
            "Outputs missing",
            "outputs the profile expects could not be found in the conversation",
            "finding",
        ),
        ErrorInfo(
            1002,
            "goals_not_verified",
            "Goals not verified",
            "all_answered: the turn limit was reached before every goal was answered",
            "finding",
        ),
        ErrorInfo(
            1003, "repetition_loop", "Repetition loop", "the chatbot kept giving the same answer", "finding"
        ),
        ErrorInfo(
            1004,
            "check_failed",
            "Check failed",
            "a scripted profile's check (contains, not_contains, matches, states) did not hold on the chatbot's "
            "reply",
            "finding",
        ),
        ErrorInfo(
            2000,
            "run_budget_exceeded",
            "Profile budget spent",
            "the profile's max_cost was reached; the conversation stopped",
            "budget",
        ),
        ErrorInfo(
            2001,
            "conversation_budget_exceeded",
            "Conversation budget spent",
            "this conversation's goal_style.max_cost was reached",
            "budget",
        ),
        ErrorInfo(
            2002,
            "budget_refused",
            "LLM call refused by budget",
            "the run's budget refused an LLM call before it was sent",
            "budget",
        ),
        ErrorInfo(
            3000,
            "user_llm_failed",
            "User LLM failed",
            "the LLM playing the user failed after retries or gave an empty message",
            "setup",
        ),
        ErrorInfo(
            3001,
            "extraction_failed",
            "Extraction failed",
            "the LLM extracting the outputs failed after retries and one repair",
            "setup",
        ),
        ErrorInfo(
            3002,
            "user_left_role",
            "Simulated user left its role",
            "the LLM playing the user spoke for the chatbot, recited its instructions or wrote nothing, and the "
            "turn written again was no better",
            "setup",
        ),
        ErrorInfo(
            4000, "cancelled", "Cancelled", "the run was cancelled during this conversation", "cancelled"
        ),
    )
}


def describe(code: int) -> ErrorInfo:
    """The table row of `code`; HTTP statuses not in the table get a generic row."""
    if code in ERROR_TABLE:
        return ERROR_TABLE[code]
    if 400 <= code < 600:
        return ErrorInfo(
            code, f"http_{code}", f"HTTP {code}", f"the chatbot answered with HTTP {code}", "finding"
        )
    return ErrorInfo(code, "unknown", f"Error {code}", "unknown error code", "finding")


def error(code: ErrorCode | int, message: str, turn: int | None = None) -> ConversationError:
    return ConversationError(code=int(code), message=message, turn=turn)


def connector_error_code(exc: BaseException) -> int:
    """The conversation error code of a connector failure (HTTP 5xx → 500, other statuses as themselves)."""
    if isinstance(exc, ChatbotRateLimited):
        return int(ErrorCode.RATE_LIMITED)
    if isinstance(exc, ChatbotHTTPError):
        return int(ErrorCode.CHATBOT_CRASH) if exc.status >= 500 else exc.status
    if isinstance(exc, ChatbotTimeout):
        return int(ErrorCode.TIMEOUT)
    if isinstance(exc, ChatbotUnavailable | EgressDenied | ConnectorConfigError):
        return int(ErrorCode.CHATBOT_UNREACHABLE)
    if isinstance(exc, ChatbotProtocolError):
        return int(ErrorCode.MALFORMED_REPLY)
    if isinstance(exc, SessionLost):
        return int(ErrorCode.SESSION_LOST)
    return int(ErrorCode.CHATBOT_CRASH)


def connector_error(exc: BaseException, turn: int | None) -> ConversationError:
    message = exc.user_message if isinstance(exc, ParleyError) else f"unexpected connector failure: {exc!r}"
    if isinstance(exc, ChatbotRateLimited):
        return error(ErrorCode.RATE_LIMITED, message, turn)
    if isinstance(exc, ChatbotHTTPError) and exc.status >= 500 and str(exc.status) not in message:
        message = f"HTTP {exc.status}: {message}"
    return error(connector_error_code(exc), message, turn)

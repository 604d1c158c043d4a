"""Typed output normalisation, the answer schema, the error table and the record schema / import."""

from __future__ import annotations

from datetime import date

import jsonschema
import pytest

from engine.connectors import (
    ChatbotHTTPError,
    ChatbotProtocolError,
    ChatbotTimeout,
    ChatbotUnavailable,
    SessionLost,
)
from engine.conversation import ConversationRecord, ErrorCode
from engine.egress import EgressDenied
from engine.sensei import (
    connector_error_code,
    conversation_record_schema,
    describe,
    import_reference_conversation,
)
from engine.sensei.extraction import answer_schema, parse_date, parse_time

from .conftest import profile_from

TUESDAY = date(2026, 3, 10)
PROFILE = """
test_name: typed
user: {role: r, goals: [g]}
chatbot:
  output:
    - phone: {type: phone_number, description: the phone}
    - total: {type: money, description: the total}
    - sizes: {type: "list[int]", description: sizes}
conversation: {number: 1, goal_style: {steps: 1}, interaction_style: [default]}
"""


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-03-12", "2026-03-12"),
        ("12/03/2026", "2026-03-12"),
        ("tomorrow", "2026-03-11"),
        ("next friday", "2026-03-13"),
        ("tuesday", "2026-03-17"),
        ("in 3 days", "2026-03-13"),
    ],
)
def test_relative_and_written_dates(text, expected):
    assert parse_date(text, TUESDAY).isoformat() == expected


@pytest.mark.parametrize(
    ("text", "expected"), [("7pm", "19:00:00"), ("07:30", "07:30:00"), ("12 am", "00:00:00")]
)
def test_times(text, expected):
    assert parse_time(text).isoformat() == expected


def test_answer_schema_types_and_custom_types():
    profile = profile_from(PROFILE)
    schema = answer_schema(profile)
    answer = schema.model_validate(
        {"phone": "555-1234567", "total": {"amount": "3.5", "currency": "€"}, "sizes": [1, 2]}
    )
    from engine.sensei.extraction import read_answer

    values, notes = read_answer(profile, answer, TUESDAY)
    assert values == {"phone": "555-1234567", "total": {"amount": 3.5, "currency": "EUR"}, "sizes": [1, 2]}
    bad, notes = read_answer(profile, schema.model_validate({"phone": "12"}), TUESDAY)
    assert bad["phone"] is None and "does not match" in notes[0]
    assert set(schema.model_json_schema()["properties"]) == {"phone", "total", "sizes"}


def test_connector_errors_map_to_codes():
    assert connector_error_code(ChatbotHTTPError("x", status=503)) == 500
    assert connector_error_code(ChatbotHTTPError("x", status=404)) == 404
    assert connector_error_code(ChatbotTimeout("x")) == 504
    assert connector_error_code(ChatbotUnavailable("x")) == 503
    assert connector_error_code(EgressDenied("x")) == 503
    assert connector_error_code(ChatbotProtocolError("x")) == 502
    assert connector_error_code(SessionLost("x")) == 410
    assert {describe(int(code)).code for code in ErrorCode} == {int(code) for code in ErrorCode}
    assert describe(404).slug == "http_404"


def test_record_schema_validates_records():
    schema = conversation_record_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    record = ConversationRecord(id="1", profile="p")
    jsonschema.validate(record.model_dump(mode="json"), schema)


def test_reference_conversation_files_import():
    text = """language: English
context:
  - personality: personalities/conversational-user.yml
ask_about:
  - 'a {{size}} pizza'
  - size: small
data_output:
  - price: $13
  - order_id: b0a36a
errors:
  - 504: timeout
----
conversation time: 23.9
assistant response time:
  - 3.2
  - 2.1
---
interaction:
  - User: A small pizza please
  - Assistant: "Sure. AVAILABLE BUTTONS:\\n- BUTTON TEXT: Yes LINK: <empty>"
  - User: Thanks
  - Assistant: Bye
"""
    record = import_reference_conversation(text, profile="pizza")
    assert record.inputs == {"size": "small"} and record.goals == ["a {{size}} pizza"]
    assert record.outputs == {"price": "$13", "order_id": "b0a36a"}
    assert record.error_codes == [504]
    assert [t.role for t in record.turns] == ["user", "bot", "user", "bot"]
    assert record.turns[1].text == "Sure." and record.response_times == [3.2, 2.1]

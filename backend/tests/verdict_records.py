"""SENSEI conversation records for the verdict tests of the platform, stored as the worker stores them."""

from __future__ import annotations

from engine.conversation import ConversationError, ConversationRecord, OutputEvidence, Turn
from engine.sensei.verdicts import judge
from runs.models import Conversation, Run


def pizza_record(index: int, user_says: str, *codes: int, slips: int = 0) -> ConversationRecord:
    """An order of a small pizza: the user says `user_says`, the bot answers with a price unless `codes` (the
    conversation's errors) are given; `slips` is how often the simulated user left its role."""
    return ConversationRecord(
        id=f"r-{index}",
        profile="order",
        index=index,
        goals=["order a {{size}} pizza"],
        inputs={"size": "small"},
        outputs={"price": 9.0 if not codes else None},
        evidence={"price": OutputEvidence(turn=1, quote="It is 9$.")} if not codes else {},
        turns=[Turn(role="user", text=user_says), Turn(role="bot", text="It is 9$.")],
        errors=[ConversationError(code=code, message=f"error {code}", turn=1) for code in codes],
        settings={"simulator_slips": [{"turn": 0, "attempt": 1, "kind": "spoke_for_chatbot"}] * slips},
    )


def store_judged(run: Run, index: int, record: ConversationRecord, *, drop: tuple[str, ...] = ()) -> None:
    """`record`, judged, as a conversation of `run`; the keys `drop` are left out (a record stored before
    they existed)."""
    data = judge(record).model_dump(mode="json")
    for name in drop:
        data.pop(name)
    Conversation.objects.create(
        run=run,
        profile=record.profile,
        index=index,
        record=data,
        has_errors=bool(record.errors),
        error_codes=record.error_codes,
        turns=len(record.turns),
    )

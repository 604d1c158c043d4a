"""Personal data planted in every input format is nowhere in what the import writes (README D35), placeholders stay
the same within a conversation, and look-alikes (an order id, a price, a date, "I'm looking for…") survive."""

from __future__ import annotations

import contextlib
import json
import re

from engine.transcripts import import_transcripts

from .conftest import KEPT, PLANTED


def _written(out) -> str:
    """Every file of the output folder, as written and with JSON escapes decoded."""
    texts = []
    for path in sorted(out.rglob("*")):
        if path.is_file():
            raw = path.read_text(encoding="utf-8")
            texts.append(raw)
            for line in raw.splitlines():
                with contextlib.suppress(ValueError):
                    texts.append(json.dumps(json.loads(line), ensure_ascii=False))
    return "\n".join(texts)


def test_no_planted_value_is_written_in_any_format(planted_source, tmp_path):
    fmt, source = planted_source
    out = tmp_path / "out"
    summary = import_transcripts(source, out)
    assert summary.format == fmt
    assert summary.conversations == 2
    written = _written(out)
    compact = re.sub(r"[\s().-]", "", written)
    for kind, values in PLANTED.items():
        for value in values:
            assert value not in written, f"{fmt}: {kind} {value!r} was written"
            if kind != "name":
                assert re.sub(r"[\s().-]", "", value) not in compact, (
                    f"{fmt}: {kind} {value!r} written in another spelling"
                )
    for kind in ("email", "phone", "card", "iban", "name"):
        assert summary.masked.get(kind, 0) >= 1, f"{fmt}: nothing masked as {kind}"


def test_placeholders_are_stable_within_a_conversation_and_look_alikes_are_kept(planted_source, tmp_path):
    fmt, source = planted_source
    out = tmp_path / "out"
    import_transcripts(source, out)
    first, second = (json.loads(line) for line in (out / "conversations.jsonl").read_text().splitlines())
    texts = [turn["text"] for turn in first["turns"]]
    assert texts[0] == "Hi, my name is [NAME_1], my mail is [EMAIL_1]"
    # the bot's echo of the name and address, and another spelling of the same address: the same placeholders
    assert texts[1] == "Thanks [NAME_1]! I'll write to [EMAIL_1]."
    assert texts[2] == "Or [EMAIL_1], or [EMAIL_2]. Call [PHONE_1]."
    assert texts[3] == "Pay with [CARD_1] or [CARD_2], refund to [IBAN_1]"
    assert texts[4] == "Done, [NAME_1]. Order 3FA9C1 costs 13.75 and is ready on 2024-03-15 at 10:30."
    # occurrences, the conversation's own id included (a Botium convo's name holds an address, a Rasa sender id
    # is the phone number, which then shares the text's placeholder)
    assert {k: first["masked"][k] for k in ("card", "iban", "name")} == {"card": 2, "iban": 1, "name": 3}
    assert first["masked"]["email"] in {4, 5}
    assert first["masked"]["phone"] in {1, 2}
    if fmt == "rasa":
        assert first["source_id"] == "[PHONE_1]"
    # numbering starts again in each conversation
    spanish = [turn["text"] for turn in second["turns"]]
    assert spanish[0] == "Hola, me llamo [NAME_1] y mi IBAN es [IBAN_1]"
    assert spanish[1] == "Gracias [NAME_1]"
    assert spanish[2] == "I'm [NAME_2], this is [NAME_3]'s phone [PHONE_1]; I'm looking for a pizza"
    everything = json.dumps([first, second])
    for kept in KEPT:
        assert kept in everything


def test_the_summary_counts_masking_by_kind_and_lists_the_rules(planted_source, tmp_path):
    _, source = planted_source
    out = tmp_path / "out"
    summary = import_transcripts(source, out)
    stored = json.loads((out / "summary.json").read_text())
    assert stored["masked"] == summary.masked
    assert sum(summary.masked.values()) >= 14
    assert any(rule.startswith("[EMAIL_n]") for rule in stored["rules"])
    assert any(rule.startswith("[NAME_n]") for rule in stored["rules"])

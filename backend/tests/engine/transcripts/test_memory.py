"""The import streams: importing four times as many conversations does not take more memory.

Measured with tracemalloc (Python allocations: lines, conversations, models). `benchmarks/transcripts_import.py`
measures 50,000 conversations with the process's peak resident memory.
"""

from __future__ import annotations

import json
import tracemalloc

import pytest

from engine.transcripts import import_transcripts

TURNS = [
    ("user", "Hi, my name is Ana López and my e-mail is ana{n}@example.com"),
    ("bot", "Hello Ana! What would you like to order?"),
    ("user", "A large margherita, call me on +34 612 345 {n:03d} when it is ready"),
    ("bot", "Done: one large margherita, 13.75. Anything else?"),
    ("user", "No thanks, I'll pay with 4111 1111 1111 1111"),
    ("bot", "Thank you, Ana. See you soon!"),
    ("bot", "Our menu: " + ", ".join(f"pizza number {i} with extra cheese" for i in range(40))),
]


def write_jsonl(path, count: int) -> None:
    with path.open("w", encoding="utf-8") as out:
        for n in range(count):
            turns = [{"role": r, "text": t.format(n=n % 1000)} for r, t in TURNS]
            out.write(json.dumps({"id": f"conv-{n}", "turns": turns}, ensure_ascii=False) + "\n")


def write_csv(path, count: int) -> None:
    # Two conversations at a time, their rows interleaved, as a log sorted by time writes them.
    with path.open("w", encoding="utf-8") as out:
        out.write("conversation_id,role,text\n")
        for n in range(0, count, 2):
            for r, t in TURNS:
                for m in (n, n + 1):
                    out.write(f'{m},{r},"{t.format(n=m % 1000)}"\n')


def peak_of_import(source, out) -> tuple[int, int]:
    tracemalloc.start()
    try:
        summary = import_transcripts(source, out)
        return tracemalloc.get_traced_memory()[1], summary.conversations
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize(("writer", "suffix"), [(write_jsonl, "jsonl"), (write_csv, "csv")])
def test_memory_does_not_grow_with_the_file(tmp_path, monkeypatch, writer, suffix):
    # Interleaved rows keep conversations open until IDLE_TURNS turns pass them by: a constant window, made
    # small here so that both files are longer than it.
    monkeypatch.setattr("engine.transcripts.records.IDLE_TURNS", 300)
    small, large = tmp_path / f"small.{suffix}", tmp_path / f"large.{suffix}"
    writer(small, 300)
    writer(large, 1200)
    small_peak, small_count = peak_of_import(small, tmp_path / "a")
    large_peak, large_count = peak_of_import(large, tmp_path / "b")
    assert (small_count, large_count) == (300, 1200)
    assert large.stat().st_size > 2 * 1024 * 1024
    # A whole-file reader would need 4x; a streaming one needs the same, give or take the problem list and
    # the set of conversation ids seen (a few bytes per conversation).
    assert large_peak < small_peak * 1.5 + 512 * 1024, (small_peak, large_peak)
    assert large_peak < large.stat().st_size / 2

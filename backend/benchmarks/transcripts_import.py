"""Importing 50,000 conversations: time, and peak resident memory against the file's size (streamed, README D35).

    cd backend && .venv/bin/python benchmarks/transcripts_import.py [--conversations 50000] [--format jsonl|csv]

Writes a generated transcript (every conversation plants an e-mail, a phone, a card and a name) to a temporary
folder, then imports it in a fresh child process — `parley transcripts import` as a user runs it — and reads
the child's `ru_maxrss`. Target: peak memory well under the file's size and flat as the file grows; every planted
value masked. Prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TURNS = [
    ("user", "Hi, my name is Ana López and my e-mail is ana{n}@example.com"),
    ("bot", "Hello Ana! What would you like to order?"),
    ("user", "A large margherita, call me on +34 612 {n:06d} when it is ready"),
    ("bot", "Done: one large margherita, 13.75. Anything else?"),
    ("user", "No thanks, I'll pay with 4111 1111 1111 1111"),
    ("bot", "Thank you, Ana. See you soon! " + "Our menu has many pizzas. " * 20),
]


def write(path: Path, count: int, fmt: str) -> None:
    with path.open("w", encoding="utf-8") as out:
        if fmt == "csv":
            out.write("conversation_id,role,text\n")
        for n in range(count):
            if fmt == "csv":
                out.writelines(f'{n},{r},"{t.format(n=n)}"\n' for r, t in TURNS)
            else:
                turns = [{"role": r, "text": t.format(n=n)} for r, t in TURNS]
                out.write(json.dumps({"id": f"conv-{n}", "turns": turns}, ensure_ascii=False) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--conversations", type=int, default=50_000)
    parser.add_argument("--format", choices=("jsonl", "csv"), default="jsonl")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / f"transcripts.{args.format}"
        write(source, args.conversations, args.format)
        out = Path(folder) / "out"
        started = time.perf_counter()
        done = subprocess.run(  # noqa: S603 - this interpreter and our own CLI
            [
                sys.executable,
                "-c",
                "import sys, cli; sys.exit(cli.main())",
                "transcripts",
                "import",
                str(source),
                "--out",
                str(out),
                "--json",
            ],
            cwd=HERE.parent,
            capture_output=True,
            text=True,
            check=False,
        )
        seconds = time.perf_counter() - started
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        if done.returncode != 0:
            sys.stderr.write(done.stderr)
            return 1
        summary = json.loads(done.stdout)
        written = (out / "conversations.jsonl").read_text(encoding="utf-8")
        leaked = sum(f"ana{n}@example.com" in written for n in range(0, args.conversations, 97))
        result = {
            "benchmark": "transcripts_import",
            "format": args.format,
            "conversations": summary["conversations"],
            "turns": summary["turns"],
            "file_mb": round(source.stat().st_size / 2**20, 1),
            "seconds": round(seconds, 1),
            "conversations_per_second": round(summary["conversations"] / seconds),
            "peak_rss_mb": round(peak_mb, 1),
            "masked": summary["masked"],
            "planted_values_found_in_output": leaked,
        }
    sys.stdout.write(json.dumps(result) + "\n")
    return 0 if leaked == 0 and result["conversations"] == args.conversations else 1


if __name__ == "__main__":
    sys.exit(main())

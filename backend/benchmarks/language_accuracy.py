"""Language identification: accuracy on short chatbot lines, load time and memory of the detector.

    cd backend && .venv/bin/python benchmarks/language_accuracy.py [--module FILE]

The lines are `tests/engine/check/language_lines.tsv` (ISO 639-1 code, tab, text). A line counts as right when
`detect()` returns its code; unknown counts as wrong. "load_s" is the first pass over every line (building the
detector and loading the models the lines need), "ms_per_line" the second pass. `--module` measures another
`detect()`, e.g. the previous detector: `git show 280ae85:backend/engine/check/language.py > /tmp/old.py`.
Prints one JSON line.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import resource
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
LINES = HERE.parent / "tests" / "engine" / "check" / "language_lines.tsv"

sys.path.insert(0, str(HERE.parent))


def read_lines(path: Path = LINES) -> list[tuple[str, str]]:
    """(code, text) pairs of the data file; blank lines and # comments skipped."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            code, text = line.split("\t", 1)
            rows.append((code, text))
    return rows


def _detector(module: Path | None) -> Callable[[str], str]:
    if module is None:
        from engine.check.language import detect

        return detect
    spec = importlib.util.spec_from_file_location("measured_language", module)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {module}")
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    detect: Callable[[str], str] = loaded.detect
    return detect


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kilobytes on Linux


def measure(module: Path | None = None) -> dict[str, Any]:
    rows = read_lines()
    detect = _detector(module)
    rss_before = _rss_mb()
    started = time.perf_counter()
    answers = [detect(text) for _, text in rows]
    load_s = time.perf_counter() - started
    started = time.perf_counter()
    for _, text in rows:
        detect(text)
    per_line_ms = (time.perf_counter() - started) / len(rows) * 1000
    total, right = Counter(code for code, _ in rows), Counter()
    for (code, _), answer in zip(rows, answers, strict=True):
        right[code] += answer == code
    return {
        "benchmark": "language_accuracy",
        "detector": str(module) if module else "engine.check.language",
        "n": len(rows),
        "languages": len(total),
        "correct": sum(right.values()),
        "accuracy": round(sum(right.values()) / len(rows), 3),
        "per_language": {code: round(right[code] / count, 3) for code, count in total.items()},
        "load_s": round(load_s, 2),
        "ms_per_line": round(per_line_ms, 3),
        "rss_before_mb": round(rss_before, 1),
        "peak_rss_mb": round(_rss_mb(), 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--module", type=Path, help="a Python file whose detect(text) to measure instead")
    args = parser.parse_args(argv)
    sys.stdout.write(json.dumps(measure(args.module)) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""`parley transcripts calibrate DIR --out FILE`: a simulated user calibrated to the users of imported conversations.

Measures the imported conversations in DIR (message length, user turns per conversation, ignored questions,
self-corrections, changes of mind, fallbacks in a row before leaving) and writes a project personality,
`personalities/calibrated-user.yaml` by default: `context` (what the user LLM is told) and `parameters` (what the
simulator enforces when a run is given it: `parley sensei run … --calibrated-user FILE`), with the measures.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from commands.common import EXIT_OK, EXIT_USAGE, add_json_argument, write_json


def register(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    calibrate = actions.add_parser(
        "calibrate",
        help="measure how the users behave and write a calibrated simulated-user personality",
        description=(__doc__ or "").split("\n\n")[0],
    )
    calibrate.add_argument("dir", metavar="DIR", help="a folder written by `parley transcripts import`")
    calibrate.add_argument(
        "--out", default="personalities/calibrated-user.yaml", metavar="FILE", help="the personality file"
    )
    add_json_argument(calibrate)
    calibrate.set_defaults(handler=_calibrate)


def _calibrate(args: argparse.Namespace) -> int:
    import yaml

    from engine.sensei.calibration import calibrated_personality
    from engine.transcripts import TranscriptError, read_imported
    from engine.transcripts.measures import measure

    try:
        conversations = [[(t.role, t.text) for t in c.turns] for c in read_imported(Path(args.dir))]
    except TranscriptError as exc:
        sys.stderr.write(f"parley: {exc}\n")
        return EXIT_USAGE
    measured = measure(conversations)
    if not measured.conversations:
        sys.stderr.write(f"parley: {args.dir} holds no conversation with a user message\n")
        return EXIT_USAGE
    personality = calibrated_personality(measured, name=Path(args.out).stem)
    document = {
        "context": list(personality.context),
        "parameters": dict(personality.parameters or {}),
        "measures": measured.summary(),
        "source": f"transcripts: {measured.conversations} conversations",
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    header = "# A simulated user calibrated to real users, generated from transcripts (parley transcripts calibrate)\n"
    out.write_text(header + yaml.safe_dump(document, sort_keys=False, allow_unicode=True), encoding="utf-8")
    if args.json:
        write_json(args.json, {"personality": str(out), "measures": measured.summary()})
    else:
        lines = [f"  {name}: {value}" for name, value in measured.summary().items()]
        sys.stdout.write(
            f"Measured {measured.conversations} conversations:\n" + "\n".join(lines) + f"\nWrote {out} "
            "(use it with `parley sensei run … --calibrated-user FILE`).\n"
        )
    return EXIT_OK

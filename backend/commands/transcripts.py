"""`parley transcripts`: bring a chatbot's production conversations in, with personal data masked.

    parley transcripts import FILE --out DIR [--format auto|jsonl|csv|rasa|botium] [--encoding ENC] [--json]
    parley transcripts rules [--json]

`import` reads FILE (or a folder of Botium `*.convo.txt` files) in bounded memory, masks e-mail addresses, phone
and card numbers, IBANs and the names users give before anything is written, and writes
`DIR/conversations.jsonl` and `DIR/summary.json`; it prints the summary and each problem with its line.
Exit 0 when at least one conversation was imported, 2 when the input is unusable. `rules` prints the masking
rules with examples of what is masked and what is kept.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from commands.common import EXIT_OK, EXIT_USAGE, add_json_argument, write_json
from engine.personal_data import RULES
from engine.transcripts import FORMATS, MAX_CONVERSATIONS, Summary, TranscriptError, import_transcripts

_SHOWN_PROBLEMS = 20


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    transcripts = commands.add_parser(
        "transcripts", help="import production conversations (personal data masked)"
    )
    actions = transcripts.add_subparsers(dest="transcripts_command", metavar="ACTION", required=True)
    imported = actions.add_parser(
        "import",
        help="read JSON lines, CSV, Rasa or Botium transcripts into a folder, masked",
        description=(__doc__ or "").split("\n\n")[0],
    )
    imported.add_argument("file", metavar="FILE", help="the transcript file (or a folder of Botium convos)")
    imported.add_argument("--out", required=True, metavar="DIR", help="the folder to write into")
    imported.add_argument("--format", choices=("auto", *FORMATS), default="auto", help="default: auto")
    imported.add_argument(
        "--encoding", help="the file's encoding when it is not UTF-8 (e.g. cp1252, latin-1)"
    )
    imported.add_argument(
        "--limit",
        type=int,
        default=MAX_CONVERSATIONS,
        help=f"at most this many conversations ({MAX_CONVERSATIONS:,})",
    )
    add_json_argument(imported)
    imported.set_defaults(handler=_import)
    rules = actions.add_parser("rules", help="the masking rules, with what is masked and what is kept")
    add_json_argument(rules)
    rules.set_defaults(handler=_rules)


def _import(args: argparse.Namespace) -> int:
    if not 1 <= args.limit <= MAX_CONVERSATIONS:
        sys.stderr.write(f"parley: --limit must be between 1 and {MAX_CONVERSATIONS:,}\n")
        return EXIT_USAGE
    if args.encoding:
        import codecs

        try:
            codecs.lookup(args.encoding)
        except LookupError:
            sys.stderr.write(f"parley: unknown encoding {args.encoding!r}\n")
            return EXIT_USAGE

    def progress(count: int) -> None:
        sys.stderr.write(f"\r{count:,} conversations…")

    try:
        summary = import_transcripts(
            Path(args.file),
            Path(args.out),
            fmt=args.format,
            encoding=args.encoding,
            limit=args.limit,
            progress=None if args.json else progress,
        )
    except TranscriptError as exc:
        sys.stderr.write(f"parley: {exc.user_message}\n")
        return EXIT_USAGE
    if args.json:
        write_json(args.json, summary.model_dump(mode="json"))
    else:
        sys.stderr.write("\r" if summary.conversations >= 1000 else "")
        sys.stdout.write(_report(summary, args.out))
    if summary.conversations == 0:
        sys.stderr.write("parley: no conversation could be imported (see the problems above)\n")
        return EXIT_USAGE
    return EXIT_OK


def _report(summary: Summary, out: str) -> str:
    masked = ", ".join(f"{kind} {count:,}" for kind, count in summary.masked.items()) or "nothing"
    lines = [
        (
            f"{summary.source} ({summary.format}): {summary.conversations:,} conversations, "
            f"{summary.turns:,} turns ({summary.user_turns:,} user, {summary.bot_turns:,} bot) "
            f"from {summary.lines_read:,} lines"
        ),
        f"masked: {masked}",
        f"problems: {summary.errors:,} errors (records skipped), {summary.warnings:,} warnings (kept)",
    ]
    lines += [f"  {problem}" for problem in summary.problems[:_SHOWN_PROBLEMS]]
    if summary.problems_total > _SHOWN_PROBLEMS:
        lines.append(f"  … {summary.problems_total - _SHOWN_PROBLEMS:,} more in summary.json")
    if summary.truncated:
        lines.append("stopped at the conversation limit: the rest of the input was not imported")
    lines.append(f"written: {Path(out) / 'conversations.jsonl'}, {Path(out) / 'summary.json'}")
    lines.append("masking rules: `parley transcripts rules`")
    return "\n".join(lines) + "\n"


def _rules(args: argparse.Namespace) -> int:
    if args.json:
        write_json(
            args.json,
            [
                {
                    "kind": r.kind,
                    "placeholder": r.placeholder,
                    "what": r.what,
                    "masked": r.masked,
                    "kept": r.kept,
                }
                for r in RULES
            ],
        )
        return EXIT_OK
    out = [
        "Personal data masked on import (placeholders are numbered per conversation: [EMAIL_1], [EMAIL_2] …)"
    ]
    for rule in RULES:
        out.append(f"\n{rule.placeholder}  {rule.what}")
        out += [f"  masked: {example}" for example in rule.masked]
        out += [f"  kept:   {example}" for example in rule.kept]
    sys.stdout.write("\n".join(out) + "\n")
    return EXIT_OK

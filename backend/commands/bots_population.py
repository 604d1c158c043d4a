"""`parley bots population BOT --count N --out FILE`: TEST DATA — conversations of a scripted "real user"
population with a reference bot, in the transcript import format (engine/bots/population.py).

    parley bots population photography --count 300 --out chats.jsonl && parley transcripts import chats.jsonl --out imported/

The users are rule-based (direct, impatient, wanderers, correctors, mind-changers); the file stands for a
production log, it is not a quality figure. Exit 0, 2 for an unknown bot.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from commands.common import EXIT_OK, EXIT_USAGE, int_at_least


def register(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    population = actions.add_parser(
        "population", help="write test conversations of scripted users with a bot (transcript import format)"
    )
    population.add_argument("bot")
    population.add_argument("--count", type=int_at_least(1), default=300, help="conversations (default 300)")
    population.add_argument("--seed", type=int, default=0)
    population.add_argument("--out", required=True, metavar="FILE", help="the JSON lines file to write")
    population.set_defaults(handler=_population)


def _population(args: argparse.Namespace) -> int:
    from engine.bots import bot_ids
    from engine.bots.population import write_population

    if args.bot not in bot_ids():
        sys.stderr.write(f"parley: unknown bot {args.bot!r}; the bots are {', '.join(bot_ids())}\n")
        return EXIT_USAGE
    written = write_population(args.bot, args.count, Path(args.out), seed=args.seed)
    kinds = ", ".join(f"{kind} {count}" for kind, count in sorted(written.kinds.items()))
    sys.stdout.write(
        f"{len(written.conversations)} conversations (test data: scripted users — {kinds}) in {args.out}; "
        f"{len(written.paths)} paths, the most travelled {max(written.paths.values())} times, the least "
        f"{min(written.paths.values())}.\n"
    )
    return EXIT_OK

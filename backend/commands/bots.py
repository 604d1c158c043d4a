"""`parley bots`: the reference chatbots — list them, list a bot's mutants, serve one over HTTP.

    parley bots list [--json]
    parley bots mutants <bot> [--json]
    parley bots population <bot> --count N --out FILE     (test data for issue 38: commands/bots_population.py)
    parley bots serve <bot> [--mutant ID] --port N --protocol taskyto|json
                      [--host H] [--latency S] [--fail-on-turn N] [--forget-sessions [N]]

`serve` also serves the three security bots, `leaky`, `guarded` and `stateful` (engine.bots.adversarial).
Exit codes: 0 success; 2 usage (unknown bot or mutant).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from commands.common import EXIT_OK, EXIT_USAGE, add_json_argument, write_json


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    bots = commands.add_parser("bots", help="reference chatbots with known ground truth, and their mutants")
    actions = bots.add_subparsers(dest="bots_action", metavar="ACTION", required=True)

    listing = actions.add_parser("list", help="list the reference bots with their sizes")
    add_json_argument(listing)
    listing.set_defaults(handler=_list)

    mutants = actions.add_parser("mutants", help="list a bot's mutants and what each changes")
    mutants.add_argument("bot")
    add_json_argument(mutants)
    mutants.set_defaults(handler=_mutants)

    serve = actions.add_parser("serve", help="serve a bot (or a mutant) over HTTP")
    serve.add_argument("bot")
    serve.add_argument("--mutant", metavar="ID", help="serve this mutant instead of the bot")
    serve.add_argument("--port", type=int, required=True, help="port to listen on (0: any free port)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--protocol", choices=("taskyto", "json"), required=True)
    serve.add_argument(
        "--latency", type=float, default=0.0, metavar="S", help="seconds added to every answer"
    )
    serve.add_argument(
        "--fail-on-turn", type=int, metavar="N", help="answer HTTP 500 to every conversation's turn N"
    )
    serve.add_argument(
        "--fail-rate",
        type=float,
        default=0.0,
        metavar="P",
        help="a flaky bot: answer HTTP 500 to each user turn with probability P (0-1), seeded by --fault-seed",
    )
    serve.add_argument(
        "--fault-seed", type=int, default=0, metavar="S", help="seed of --fail-rate's draws (default 0)"
    )
    serve.add_argument(
        "--forget-sessions",
        type=int,
        nargs="?",
        const=1,
        metavar="N",
        help="forget every session after every N turns served (default 1), like a restart",
    )
    serve.set_defaults(handler=_serve)
    from commands import bots_population

    bots_population.register(actions)


def _out(text: str) -> None:
    sys.stdout.write(text + "\n")


def _err(text: str) -> None:
    sys.stderr.write(f"parley: {text}\n")


def _list(args: argparse.Namespace) -> int:
    from engine.bots import bot_ids, load_bot, manifest

    rows = []
    for bot_id in bot_ids():
        bot = load_bot(bot_id)
        rows.append({"id": bot_id, "name": bot.name, "language": bot.language, **manifest(bot_id).sizes()})
    if args.json:
        write_json(args.json, rows)
        return EXIT_OK
    _out(f"{'bot':<14} {'language':<8} {'modules':>7} {'inputs':>6} {'values':>6} {'questions':>9}  name")
    for row in rows:
        _out(
            f"{row['id']:<14} {row['language']:<8} {row['modules']:>7} {row['inputs']:>6} {row['values']:>6} "
            f"{row['questions']:>9}  {row['name']}"
        )
    return EXIT_OK


def _mutants(args: argparse.Namespace) -> int:
    from engine.bots import UnknownBot
    from engine.bots.registry import definition_text, mutants_of

    try:
        definition_text(args.bot)
    except UnknownBot as exc:
        _err(exc.user_message)
        return EXIT_USAGE
    mutants = mutants_of(args.bot)
    if args.json:
        write_json(args.json, {"bot": args.bot, "mutants": [m.to_json() for m in mutants]})
        return EXIT_OK
    alive = [m for m in mutants if not m.stillborn]
    stillborn = [m for m in mutants if m.stillborn]
    width = max((len(m.id) for m in mutants), default=0)
    for mutant in alive:
        _out(f"{mutant.id:<{width}}  {mutant.description}")
    if stillborn:
        _out(f"\nStillborn (do not load; never counted as killed): {len(stillborn)}")
        for mutant in stillborn:
            _out(f"{mutant.id:<{width}}  {mutant.description}\n{'':<{width}}  -> {mutant.stillborn_reason}")
    _out(f"\n{len(mutants)} mutants: {len(alive)} load, {len(stillborn)} stillborn.")
    return EXIT_OK


def _serve(args: argparse.Namespace) -> int:
    from engine.bots import UnknownBot, UnknownMutant
    from engine.bots.adversarial import ADVERSARIAL_BOTS, build_adversarial_server
    from engine.bots.server import Faults, build_server

    if not 0.0 <= args.fail_rate <= 1.0:
        _err("--fail-rate is a probability, from 0 to 1")
        return EXIT_USAGE
    faults = Faults(
        latency_s=args.latency,
        fail_on_turn=args.fail_on_turn,
        forget_every=args.forget_sessions,
        fail_rate=args.fail_rate,
        fault_seed=args.fault_seed,
    )
    try:
        if args.bot in ADVERSARIAL_BOTS:  # the security bots: no definition, mutants or faults
            server = build_adversarial_server(
                args.bot, protocol=args.protocol, host=args.host, port=args.port, latency_s=args.latency
            )
            _out(f"Serving {args.bot} ({args.protocol} protocol) on {server.base_url}")
            return _serve_until_stopped(server)
        server, _ = build_server(
            args.bot,
            mutant=args.mutant,
            protocol=args.protocol,
            host=args.host,
            port=args.port,
            faults=faults,
        )
    except (UnknownBot, UnknownMutant) as exc:
        _err(exc.user_message)
        return EXIT_USAGE
    except OSError as exc:
        _err(f"cannot listen on {args.host}:{args.port} ({exc.strerror or exc})")
        return EXIT_USAGE
    what = f"{args.bot} mutant {args.mutant}" if args.mutant else args.bot
    _out(
        f"Serving {what} ({args.protocol} protocol) on {server.base_url}; coverage at {server.base_url}/__coverage"
    )
    return _serve_until_stopped(server)


def _serve_until_stopped(server: Any) -> int:
    _out("Press Ctrl-C to stop.")
    sys.stdout.flush()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return EXIT_OK

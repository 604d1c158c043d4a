"""`parley bots list|mutants` (serve is exercised through build_server in test_server)."""

from __future__ import annotations

import argparse
import json

from commands import bots


def parse(argv):
    parser = argparse.ArgumentParser()
    bots.register(parser.add_subparsers())
    return parser.parse_args(argv)


def test_list_and_mutants(capsys):
    args = parse(["bots", "list", "--json"])
    assert args.handler(args) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in rows] == ["pizza", "bike", "photography", "veterinary", "cafeteria-es"]
    args = parse(["bots", "mutants", "bike"])
    assert args.handler(args) == 0
    out = capsys.readouterr().out
    assert "crash-on-value-1" in out and "Stillborn (do not load; never counted as killed): 1" in out
    args = parse(["bots", "mutants", "chess"])
    assert args.handler(args) == 2
    args = parse(["bots", "serve", "bike", "--port", "0", "--protocol", "json", "--mutant", "nope"])
    assert args.handler(args) == 2


def test_a_fail_rate_that_is_no_probability_is_refused(capsys):
    args = parse(["bots", "serve", "pizza", "--port", "0", "--protocol", "taskyto", "--fail-rate", "1.5"])
    assert args.handler(args) == 2
    assert "--fail-rate is a probability, from 0 to 1" in capsys.readouterr().err

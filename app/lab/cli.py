"""``duelhall simulate``: the balance lab on the command line.

    duelhall simulate duel --games 2000 --bots strong,random --seed 1 --workers 2 \\
        --options '{"health": 6}' --compare '{"health": 7}' --out report

prints the text report and writes ``report.json`` and ``report.html`` (``--out`` is a path
without extension). See docs/lab.md.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from app.lab import render
from app.lab.spec import LabSpec, SpecError, check, parse_json, parse_list


def add_arguments(p: argparse.ArgumentParser) -> None:
    from games.registry import ids

    p.add_argument("game", help=f"game id: {', '.join(ids())}")
    p.add_argument("--games", type=int, default=1000, help="matches per rule set (default 1000)")
    p.add_argument("--bots", default="strong,random",
                   help="bot level per seat, comma-separated (random, strong); default strong,random")
    p.add_argument("--seed", type=int, default=1, help="run seed (default 1)")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                   help="worker processes (default: one per core); the report does not depend on it")
    p.add_argument("--options", default=None, help="rule options, JSON (e.g. '{\"health\": 6}')")
    p.add_argument("--compare", default=None,
                   help="a second rule set, JSON: both are played on the same seeds and compared")
    p.add_argument("--vary", action="append", default=[], metavar="OPTION=V1,V2",
                   help="cycle an option over values (JSON each), e.g. --vary variant='\"basic\",\"extra\"'")
    p.add_argument("--lineups", default=None,
                   help="what the seats bring, to pair (duel: duellists, parbaj: starter decks), "
                        "comma-separated, or 'all'")
    p.add_argument("--budget", type=int, default=None, help="strong bots' thinking budget")
    p.add_argument("--seats", type=int, default=2, help="seats (up to the game's most)")
    p.add_argument("--no-rotate", action="store_true",
                   help="keep each bot on its seat (default: bots take turns on every seat)")
    p.add_argument("--out", default=None, help="write OUT.json and OUT.html")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")


def _vary(items: list[str]) -> dict:
    out = {}
    for item in items:
        if "=" not in item:
            raise SpecError(f"--vary wants OPTION=V1,V2 (got '{item}').")
        key, values = item.split("=", 1)
        parsed = parse_json(f"[{values}]", f"--vary {key}")
        out[key.strip()] = parsed
    return out


def spec_from_args(args: argparse.Namespace) -> LabSpec:
    from app.lab.spec import all_lineups

    lineups = parse_list(args.lineups)
    if lineups == ["all"]:
        lineups = all_lineups(args.game)
    options = parse_json(args.options, "--options")
    return LabSpec(game=args.game, games=args.games, bots=parse_list(args.bots) or [],
                   seed=args.seed, options=options or {}, vary=_vary(args.vary),
                   lineups=lineups, compare=parse_json(args.compare, "--compare"),
                   budget=args.budget, rotate=not args.no_rotate, seats=args.seats)


def simulate(args: argparse.Namespace) -> int:
    from app.lab.runner import run

    try:
        spec = check(spec_from_args(args))
    except SpecError as e:
        print(f"simulate: {e}", file=sys.stderr)
        return 2
    if args.workers < 1:
        print("simulate: --workers must be at least 1.", file=sys.stderr)
        return 2
    last = [-1]

    def progress(done: int, total: int) -> None:
        pct = 100 * done // total
        if not args.quiet and pct != last[0]:
            last[0] = pct
            print(f"\r{done}/{total} matches", end="" if done < total else "\n", file=sys.stderr,
                  flush=True)

    report = run(spec, args.workers, progress)
    sys.stdout.write(render.text(report))
    if args.out:
        base = Path(args.out)
        base.parent.mkdir(parents=True, exist_ok=True)
        json_path = base.with_name(base.name + ".json")
        html_path = base.with_name(base.name + ".html")
        json_path.write_text(json.dumps(report, indent=1, sort_keys=True) + "\n")
        html_path.write_text(render.html_page(report))
        print(f"wrote {json_path} and {html_path}", file=sys.stderr)
    return 0

"""The balance lab: many matches between bots, in worker processes, and the report.

    spec.py     what a run is (game, games, bots, seed, options, lineups, compare), checked
    play.py     one match and what it says (runs in the workers; pure apart from the bots)
    stats.py    the numbers: win rates, confidence intervals, lengths, move use, flags
    runner.py   N matches over a process pool, deterministic whatever the worker count
    render.py   the report as a text table, and as a self-contained HTML page with SVG charts
    service.py  runs started from the web page (app/api/lab.py): status in Redis, one per user

The command line is ``duelhall simulate`` (app/cli.py); the method and every threshold is
described in docs/lab.md.
"""

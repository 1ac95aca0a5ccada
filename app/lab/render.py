"""The lab report as a text table (stdout) and as one self-contained HTML page with SVG charts
(no script, no external file: it can be mailed or archived as it is)."""
from __future__ import annotations

import html
import json

from games.lab import LabProfile
from games.registry import get_info

INK, RED, GREY, PAPER = "#1b1b1b", "#b3261e", "#6b6b6b", "#f4efe6"


def _lab(game_id: str) -> LabProfile:
    """The game's words for its moves, length and lineups (its lab profile); a report of a
    game no longer registered gets the plain ones."""
    info = get_info(game_id)
    return info.lab if info is not None else LabProfile()


def move_word(game_id: str) -> str:
    return _lab(game_id).moves


def length_word(game_id: str) -> str:
    return _lab(game_id).length_unit


def lineup_word(game_id: str) -> str:
    return _lab(game_id).lineup or "lineup"


def pct(x: float | None, digits: int = 1) -> str:
    return "—" if x is None else f"{100 * x:.{digits}f}"


def ci(p: dict) -> str:
    return f"[{pct(p['lo'])}, {pct(p['hi'])}]"


def dci(d: dict) -> str:
    if d is None or d["diff"] is None:
        return "—"
    return f"{100 * d['diff']:+.1f} [{100 * d['lo']:+.1f}, {100 * d['hi']:+.1f}]"


def num(x: float | None, digits: int = 1) -> str:
    return "—" if x is None else f"{x:.{digits}f}"


def header_lines(report: dict) -> list[str]:
    spec = report["spec"]
    bots = ",".join(spec["bots"])
    rot = " (seats rotate)" if spec["rotate"] else ""
    lines = [f"Lab: {report['game_name']} — {spec['games']} games per rule set, bots {bots}{rot}, "
             f"seed {spec['seed']}, strong budget {spec['budget'] or 'default'}"]
    for rs in report["rule_sets"]:
        lines.append(f"Rule set {rs['label']}: options {json.dumps(rs['options'], sort_keys=True)}"
                     + (f"; varied {json.dumps(spec['vary'], sort_keys=True)}" if spec["vary"] else ""))
    if spec.get("lineups"):
        lines.append(f"Lineups: {', '.join(spec['lineups'])}")
    return lines


# ------------------------------------------------------------------------------------------
# Text
# ------------------------------------------------------------------------------------------
def _outcome_rows(report: dict, r: dict) -> list[tuple[str, dict]]:
    rows = [(f"seat {s}", v) for s, v in r["seats"].items()]
    rows += [(f"bot {b}", v) for b, v in r["bots"].items()]
    word = lineup_word(report["game"])
    rows += [(f"{word} {k}", v) for k, v in r["lineups"].items()]
    return rows


def text(report: dict) -> str:
    out = header_lines(report)
    game = report["game"]
    for rs in report["rule_sets"]:
        r = rs["report"]
        out += ["", f"== Rule set {rs['label']} ({r['games']} games)", ""]
        out.append(f"{'':24}{'games':>7}{'wins':>7}{'draws':>7}{'losses':>7}{'win%':>7}  95% CI")
        for label, v in _outcome_rows(report, r):
            out.append(f"{label:24}{v['games']:>7}{v['wins']:>7}{v['draws']:>7}{v['losses']:>7}"
                       f"{pct(v['win_rate']['rate']):>7}  {ci(v['win_rate'])}")
        out.append("")
        out.append(f"draw rate: {pct(r['draws']['rate'])}% {ci(r['draws'])}")
        fp = r["first_player"]
        if fp:
            out.append(f"first player wins: {pct(fp['win_rate']['rate'])}% {ci(fp['win_rate'])} "
                       f"of {fp['games']} games ({fp['draws']} draws)")
        else:
            out.append("first player: none (the game's decisions are simultaneous)")
        ln, dn = r["length"], r["decisions"]
        out.append(f"length ({length_word(game)}): mean {num(ln['mean'])} [{num(ln['lo'])}, "
                   f"{num(ln['hi'])}], p50 {ln['p50']}, p90 {ln['p90']}; decisions: mean "
                   f"{num(dn['mean'])}, p50 {dn['p50']}, p90 {dn['p90']}")
        out.append("endings: " + ", ".join(f"{k} {v}" for k, v in r["reasons"].items()))
        for key, title in (("moves", move_word(game)), ("actions", "actions")):
            u = r[key]
            if not u["items"]:
                continue
            out += ["", f"-- {title.capitalize()} ({u['total']} uses in {u['seat_games']} seat-games)",
                    f"{'':26}{'uses':>7}{'share%':>8}  {'95% CI':15}{'used in%':>9}  {'95% CI':15}"
                    f"{'win% used':>10}{'not':>7}  {'contribution (pts) [95% CI]':29}flags"]
            for m, v in u["items"].items():
                out.append(f"{m[:26]:26}{v['uses']:>7}{pct(v['share']['rate']):>8}  {ci(v['share']):15}"
                           f"{pct(v['used_in']['rate']):>9}  {ci(v['used_in']):15}"
                           f"{pct(v['win_when_used']['rate']):>10}{pct(v['win_when_not']['rate']):>7}  "
                           f"{dci(v['contribution']):29}{' '.join(v['flags'])}")
        if r["variants"]:
            out += ["", "-- Variants"]
            for label, v in r["variants"].items():
                seats = "  ".join(f"{s} {pct(x['win_rate']['rate'])}% {ci(x['win_rate'])}"
                                  for s, x in v["seats"].items())
                out.append(f"{label}: {v['games']} games, draws {pct(v['draws']['rate'])}%, "
                           f"length {num(v['length']['mean'])}; {seats}")
        if r["lineup_matrix"]:
            names = list(r["lineup_matrix"])
            out += ["", f"-- Win% of the row {lineup_word(game)} against the column "
                        "(both seats)", " " * 12 + "".join(f"{n[:9]:>10}" for n in names)]
            for a in names:
                cells = "".join(
                    f"{pct(r['lineup_matrix'][a][b]['win_rate']['rate'], 0):>10}"
                    if b in r["lineup_matrix"][a] else f"{'—':>10}" for b in names)
                out.append(f"{a[:12]:12}{cells}")
    c = report["compare"]
    if c:
        out += ["", "== Rule set B minus rule set A (percentage points, 95% CI)"]
        for s, d in c["seats"].items():
            out.append(f"win% seat {s}: {dci(d)}")
        for b, d in c["bots"].items():
            out.append(f"win% bot {b}: {dci(d)}")
        for k, d in c["lineups"].items():
            out.append(f"win% {lineup_word(game)} {k}: {dci(d)}")
        out.append(f"draw rate: {dci(c['draws'])}")
        if c["first_player"]:
            out.append(f"first player win%: {dci(c['first_player'])}")
        ld = c["length"]
        if ld["diff"] is not None:
            out.append(f"mean length: {ld['diff']:+.2f} [{ld['lo']:+.2f}, {ld['hi']:+.2f}] "
                       f"{length_word(game)}")
        for m, d in c["moves"].items():
            out.append(f"share of {m}: {dci(d['share'])}")
    if "timing" in report:
        t = report["timing"]
        out += ["", f"{t['seconds']:.1f} s on {t['workers']} worker(s)"]
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------------------------------
# SVG charts
# ------------------------------------------------------------------------------------------
def _e(s) -> str:
    return html.escape(str(s), quote=True)


def svg_rates(title: str, rows: list[tuple[str, dict]], mark: float | None = 0.5) -> str:
    """Horizontal bars 0..100% with the 95% interval as a whisker; ``mark``: a reference
    line (50%: an even contest)."""
    if not rows:
        return ""
    left, width, bar, gap = 170, 420, 16, 8
    h = 34 + len(rows) * (bar + gap) + 24
    x = lambda p: left + width * p  # noqa: E731
    parts = [f'<svg class="chart" role="img" aria-label="{_e(title)}" viewBox="0 0 {left + width + 60} {h}" '
             f'width="{left + width + 60}" height="{h}" xmlns="http://www.w3.org/2000/svg">',
             f'<title>{_e(title)}</title>',
             f'<text x="0" y="16" font-weight="bold" fill="{INK}">{_e(title)}</text>']
    for i, (label, p) in enumerate(rows):
        y = 30 + i * (bar + gap)
        rate = p["rate"] or 0.0
        parts.append(f'<text x="{left - 8}" y="{y + bar - 4}" text-anchor="end" fill="{INK}" '
                     f'font-size="12">{_e(label)}</text>')
        parts.append(f'<rect x="{left}" y="{y}" width="{width * rate:.1f}" height="{bar}" '
                     f'fill="{RED}" fill-opacity="0.8"><title>{_e(label)}: {pct(p["rate"])}% '
                     f'{ci(p)}</title></rect>')
        parts.append(f'<line x1="{x(p["lo"]):.1f}" x2="{x(p["hi"]):.1f}" y1="{y + bar / 2}" '
                     f'y2="{y + bar / 2}" stroke="{INK}" stroke-width="1.5"/>')
        for end in (p["lo"], p["hi"]):
            parts.append(f'<line x1="{x(end):.1f}" x2="{x(end):.1f}" y1="{y + 3}" y2="{y + bar - 3}" '
                         f'stroke="{INK}" stroke-width="1.5"/>')
        parts.append(f'<text x="{left + width + 6}" y="{y + bar - 4}" font-size="12" '
                     f'fill="{INK}">{pct(p["rate"])}%</text>')
    axis_y = 30 + len(rows) * (bar + gap)
    parts.append(f'<line x1="{left}" x2="{left + width}" y1="{axis_y}" y2="{axis_y}" stroke="{INK}"/>')
    for t in (0, 0.25, 0.5, 0.75, 1):
        parts.append(f'<text x="{x(t):.1f}" y="{axis_y + 16}" font-size="11" text-anchor="middle" '
                     f'fill="{GREY}">{int(t * 100)}%</text>')
    if mark is not None:
        parts.append(f'<line x1="{x(mark):.1f}" x2="{x(mark):.1f}" y1="26" y2="{axis_y}" '
                     f'stroke="{GREY}" stroke-dasharray="4 3"/>')
    parts.append("</svg>")
    return "".join(parts)


def svg_histogram(title: str, hist: dict, unit: str) -> str:
    edges, counts = hist["edges"], hist["counts"]
    if not counts:
        return ""
    left, width, height = 50, 520, 160
    top = max(counts) or 1
    bw = width / len(counts)
    parts = [f'<svg class="chart" role="img" aria-label="{_e(title)}" viewBox="0 0 {left + width + 20} {height + 72}" '
             f'width="{left + width + 20}" height="{height + 72}" xmlns="http://www.w3.org/2000/svg">',
             f'<title>{_e(title)}</title>',
             f'<text x="0" y="16" font-weight="bold" fill="{INK}">{_e(title)}</text>']
    base = 30 + height
    for i, c in enumerate(counts):
        bh = height * c / top
        parts.append(f'<rect x="{left + i * bw + 1:.1f}" y="{base - bh:.1f}" width="{bw - 2:.1f}" '
                     f'height="{bh:.1f}" fill="{RED}" fill-opacity="0.8"><title>{edges[i]}–'
                     f'{edges[i + 1] - 1} {_e(unit)}: {c}</title></rect>')
    parts.append(f'<line x1="{left}" x2="{left + width}" y1="{base}" y2="{base}" stroke="{INK}"/>')
    for i in range(0, len(edges), max(1, len(edges) // 8)):
        parts.append(f'<text x="{left + i * bw:.1f}" y="{base + 16}" font-size="11" '
                     f'text-anchor="middle" fill="{GREY}">{edges[i]}</text>')
    parts.append(f'<text x="{left + width}" y="{base + 34}" font-size="11" text-anchor="end" '
                 f'fill="{GREY}">{_e(unit)}</text>')
    parts.append(f'<text x="{left - 6}" y="34" font-size="11" text-anchor="end" fill="{GREY}">{top}</text>')
    parts.append("</svg>")
    return "".join(parts)


def svg_diffs(title: str, rows: list[tuple[str, dict]]) -> str:
    """Differences in percentage points (−50..+50) with their 95% intervals."""
    rows = [(k, d) for k, d in rows if d and d["diff"] is not None]
    if not rows:
        return ""
    left, width, bar, gap = 170, 420, 14, 8
    h = 34 + len(rows) * (bar + gap) + 24
    span = max(0.1, max(max(abs(d["lo"]), abs(d["hi"])) for _, d in rows))
    x = lambda v: left + width / 2 + (width / 2) * v / span  # noqa: E731
    parts = [f'<svg class="chart" role="img" aria-label="{_e(title)}" viewBox="0 0 {left + width + 70} {h}" '
             f'width="{left + width + 70}" height="{h}" xmlns="http://www.w3.org/2000/svg">',
             f'<title>{_e(title)}</title>',
             f'<text x="0" y="16" font-weight="bold" fill="{INK}">{_e(title)}</text>']
    for i, (label, d) in enumerate(rows):
        y = 30 + i * (bar + gap)
        x0, x1 = sorted((x(0), x(d["diff"])))
        parts.append(f'<text x="{left - 8}" y="{y + bar - 3}" text-anchor="end" font-size="12" '
                     f'fill="{INK}">{_e(label)}</text>')
        parts.append(f'<rect x="{x0:.1f}" y="{y}" width="{max(1, x1 - x0):.1f}" height="{bar}" '
                     f'fill="{RED}" fill-opacity="0.8"><title>{_e(label)}: {dci(d)}</title></rect>')
        parts.append(f'<line x1="{x(d["lo"]):.1f}" x2="{x(d["hi"]):.1f}" y1="{y + bar / 2}" '
                     f'y2="{y + bar / 2}" stroke="{INK}" stroke-width="1.5"/>')
        parts.append(f'<text x="{left + width + 6}" y="{y + bar - 3}" font-size="12" '
                     f'fill="{INK}">{100 * d["diff"]:+.1f}</text>')
    axis_y = 30 + len(rows) * (bar + gap)
    parts.append(f'<line x1="{x(0):.1f}" x2="{x(0):.1f}" y1="26" y2="{axis_y}" stroke="{INK}"/>')
    for v in (-span, 0, span):
        parts.append(f'<text x="{x(v):.1f}" y="{axis_y + 16}" font-size="11" text-anchor="middle" '
                     f'fill="{GREY}">{100 * v:+.0f}</text>')
    parts.append("</svg>")
    return "".join(parts)


# ------------------------------------------------------------------------------------------
# HTML
# ------------------------------------------------------------------------------------------
# Kept in step with static/lab.css (the copy the server links: its CSP refuses inline styles).
_CSS = f"""
body.lab-report {{ background: {PAPER}; color: {INK}; font-family: 'Avenir Next', 'Segoe UI',
  'Noto Sans', system-ui, sans-serif; margin: 2rem auto; max-width: 62rem; padding: 0 1rem;
  line-height: 1.45; }}
.lab-report h1, .lab-report h2, .lab-report h3 {{ font-family: 'Shippori Mincho', 'Noto Serif JP',
  Georgia, serif; }}
.lab-report h1 {{ border-bottom: 3px solid {RED}; padding-bottom: .3rem; }}
.lab-report table {{ border-collapse: collapse; margin: .5rem 0 1.5rem; font-size: .9rem; }}
.lab-report th, .lab-report td {{ border-bottom: 1px solid rgba(27,27,27,.18); padding: .2rem .6rem;
  text-align: right; }}
.lab-report th:first-child, .lab-report td:first-child {{ text-align: left; }}
.lab-report .flag {{ color: {RED}; font-weight: bold; }}
.lab-report .chart {{ display: block; margin: 1rem 0; max-width: 100%; height: auto; }}
.lab-report .muted {{ color: {GREY}; }}
"""


def _table(head: list[str], rows: list[list[str]]) -> str:
    th = "".join(f"<th scope=\"col\">{_e(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"


def _rule_set_html(report: dict, rs: dict) -> str:
    r = rs["report"]
    game = report["game"]
    parts = [f"<h2>Rule set {rs['label']} <span class=\"muted\">({r['games']} games)</span></h2>",
             f"<p class=\"muted\">Options: <code>{_e(json.dumps(rs['options'], sort_keys=True))}</code></p>"]
    rows = _outcome_rows(report, r)
    parts.append(_table(["", "games", "wins", "draws", "losses", "win %", "95% CI"],
                        [[_e(k), str(v["games"]), str(v["wins"]), str(v["draws"]), str(v["losses"]),
                          pct(v["win_rate"]["rate"]), ci(v["win_rate"])] for k, v in rows]))
    parts.append(svg_rates(f"Win rate (rule set {rs['label']})", [(k, v["win_rate"]) for k, v in rows]))
    fp = r["first_player"]
    facts = [f"Draw rate: {pct(r['draws']['rate'])}% {ci(r['draws'])}."]
    if fp:
        facts.append(f"First player wins {pct(fp['win_rate']['rate'])}% {ci(fp['win_rate'])} of "
                     f"{fp['games']} games.")
    else:
        facts.append("No first player: the game's decisions are simultaneous.")
    ln = r["length"]
    facts.append(f"Length: mean {num(ln['mean'])} {length_word(game)} [{num(ln['lo'])}, "
                 f"{num(ln['hi'])}], median {ln['p50']}, 90th percentile {ln['p90']}.")
    parts.append("<p>" + " ".join(_e(f) for f in facts) + "</p>")
    parts.append(svg_histogram(f"Game length (rule set {rs['label']})", r["length_histogram"],
                               length_word(game)))
    for key, title in (("moves", move_word(game)), ("actions", "actions")):
        u = r[key]
        if not u["items"]:
            continue
        parts.append(f"<h3>{_e(title.capitalize())}</h3>")
        parts.append(_table(
            ["", "uses", "share %", "95% CI", "used in %", "95% CI", "win % used", "win % not",
             "contribution (pts)", "flags"],
            [[_e(m), str(v["uses"]), pct(v["share"]["rate"]), ci(v["share"]),
              pct(v["used_in"]["rate"]), ci(v["used_in"]), pct(v["win_when_used"]["rate"]),
              pct(v["win_when_not"]["rate"]), dci(v["contribution"]),
              f"<span class=\"flag\">{_e(' '.join(v['flags']))}</span>"] for m, v in u["items"].items()]))
        parts.append(svg_rates(f"Share of {title} (rule set {rs['label']})",
                               [(m, v["share"]) for m, v in u["items"].items()], mark=None))
    if r["variants"]:
        parts.append("<h3>Variants</h3>")
        parts.append(_table(["variant", "games", "draw %"] + [f"win % {s}" for s in report["seats"]],
                            [[_e(k), str(v["games"]), pct(v["draws"]["rate"])]
                             + [f"{pct(x['win_rate']['rate'])} {ci(x['win_rate'])}" for x in v["seats"].values()]
                             for k, v in r["variants"].items()]))
    if r["lineup_matrix"]:
        names = list(r["lineup_matrix"])
        parts.append(f"<h3>Win % of the row {lineup_word(game)} against the column</h3>")
        parts.append(_table([""] + names, [[_e(a)] + [
            pct(r["lineup_matrix"][a][b]["win_rate"]["rate"], 0) if b in r["lineup_matrix"][a] else "—"
            for b in names] for a in names]))
    return "".join(parts)


def html_page(report: dict, stylesheet: str | None = None) -> str:
    """The report page. Its CSS is inline (the file stands alone); ``stylesheet`` also links a
    copy, for pages served under a Content-Security-Policy that refuses inline styles."""
    head = header_lines(report)
    link = f'<link rel="stylesheet" href="{_e(stylesheet)}">' if stylesheet else ""
    parts = ["<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">",
             f"<title>{_e(head[0])}</title><style>{_CSS}</style>{link}</head>"
             "<body class=\"lab-report\">",
             f"<h1>{_e(report['game_name'])}: balance lab report</h1>",
             "".join(f"<p class=\"muted\">{_e(x)}</p>" for x in head),
             "<p class=\"muted\">Intervals are 95% (Wilson for rates, Newcombe for differences). "
             f"Flags: never = not used at all; rare = used in under "
             f"{pct(report['thresholds']['rare_share'], 0)}% of seat-games; dominant = using it adds "
             f"more than {pct(report['thresholds']['dominant_margin'], 0)} points of win rate "
             "with 95% confidence.</p>"]
    for rs in report["rule_sets"]:
        parts.append(_rule_set_html(report, rs))
    c = report["compare"]
    if c:
        rows = [(f"seat {s}", d) for s, d in c["seats"].items()]
        rows += [(f"bot {b}", d) for b, d in c["bots"].items()]
        rows += [(k, d) for k, d in c["lineups"].items()]
        rows += [("draw rate", c["draws"])]
        if c["first_player"]:
            rows.append(("first player", c["first_player"]))
        parts.append("<h2>Rule set B minus rule set A</h2>")
        parts.append(_table(["", "difference (pts) [95% CI]"], [[_e(k), dci(d)] for k, d in rows]))
        parts.append(svg_diffs("Win rate differences, B − A", rows))
        mrows = [(m, d["share"]) for m, d in c["moves"].items()]
        parts.append(svg_diffs("Move share differences, B − A", mrows))
        ld = c["length"]
        if ld["diff"] is not None:
            parts.append(f"<p>Mean length: {ld['diff']:+.2f} [{ld['lo']:+.2f}, {ld['hi']:+.2f}] "
                         f"{length_word(report['game'])}.</p>")
    parts.append("</body></html>")
    return "".join(parts)

"""The Duel board in a real browser (Debian's chromium through Playwright) against the real server
in a subprocess.

(a) Two players sign in, create and join a Duel in the lobby and play it to the end by clicking
    the board's own controls (duellist cards, stance buttons, the plan pickers, footwork and dodge
    buttons). Both see the result; the commitment check marks of the opened plans say verified.
(b) The browser's verifyCommitment (static/games/duel_commit.js) agrees with Python's
    games.duel.commit on honest and tampered openings, and its canonical JSON is byte for byte
    Python's json.dumps(sort_keys=True, separators=(",", ":")).

``window.duelhall.view()`` is only read (to know whose turn it is), never used to act.
Skipped only when /usr/bin/chromium is missing and CI is not "true".
"""
from __future__ import annotations

import json
import random
import re
import time

import pytest

from games.base import filter_events
from games.duel.bots import random_action
from games.duel.commit import canonical_json, commitment, verify_commitment
from games.duel.engine import GAME
from tests.browser_support import BROWSER_MARKS, chromium, run_server, server_env

BOARD = "#board .board-host[data-game=duel] section.duel"

pytestmark = BROWSER_MARKS


# ------------------------------------------------------------------------------ fixtures
@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """Base URL of the real app in a subprocess, with its own DATA_DIR."""
    data_dir = tmp_path_factory.mktemp("duel-browser")
    with run_server(data_dir, server_env(data_dir, "duelbrowser")) as (base, _):
        yield base


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


@pytest.fixture
def new_page(browser, server):
    """new_page(label) -> a page in its own browser context (its own guest). Fails the test if
    the client throws an uncaught exception."""
    contexts, errors = [], []

    def make(label: str):
        ctx = browser.new_context(base_url=server, viewport={"width": 1280, "height": 1000})
        ctx.set_default_timeout(20_000)  # generous: CI machines can be busy
        contexts.append(ctx)
        page = ctx.new_page()
        page.on("pageerror", lambda e, n=label: errors.append(f"{n}: {e}"))
        return page

    yield make
    for ctx in contexts:
        ctx.close()
    assert not errors, "uncaught errors in the browser client:\n" + "\n".join(errors)


# ------------------------------------------------------------------------------ driving the UI
def sign_in(page, name: str) -> None:
    from playwright.sync_api import expect

    page.goto("/")
    page.fill("#name-input", name)
    page.click("#name-submit")
    expect(page.locator("#user-name")).to_contain_text(name)


def create_duel(page, **options) -> str:
    from playwright.sync_api import expect

    page.select_option("#create-game", "duel")
    form = page.locator("#create-form")
    expect(form.locator("[name=max_slots]")).to_be_visible()
    for name, value in options.items():
        form.locator(f"[name={name}]").fill(str(value))
    page.click("#create-submit")
    expect(page.locator("[data-testid=waiting-room]")).to_be_visible()
    return re.search(r"#/match/([^/?]+)$", page.url).group(1)


def join_from_lobby(page, match_id: str) -> None:
    from playwright.sync_api import expect

    row = page.locator(f"[data-testid=open-match][data-match-id='{match_id}']")
    expect(row).to_be_visible()
    row.locator("[data-testid=join]").click()
    page.wait_for_url(f"**/#/match/{match_id}")


def view(page) -> dict | None:
    return page.evaluate("() => window.duelhall ? window.duelhall.view() : null")


def my_turn(doc) -> bool:
    return bool(doc and doc.get("status") == "live" and doc.get("seat")
                and doc["seat"] in (doc.get("pending") or []) and doc.get("legal"))


# Each player's style: a duellist, an opening stance and a plan that lands blows.
STYLES = {
    "Ann": {"duellist": "ronin", "stance": "high",
            "plan": [("high", "downward_cut"), ("low", "horizontal_cut"), ("low", "low_advancing_thrust")],
            "move": "toward2"},
    "Bob": {"duellist": "brute", "stance": "middle",
            "plan": [("middle", "advancing_thrust"), ("middle", "counterattack"), ("high", "retreating_cut")],
            "move": "toward"},
}


def click(page, testid: str) -> None:
    page.locator(f"{BOARD} [data-testid={testid}]").click()


def act(page, style: dict) -> int:
    """Make this page's current decision through the board's controls; returns the version it
    was made at (see wait_after)."""
    doc = view(page)
    phase = doc["state"]["phase"]
    if phase == "duellist":
        click(page, f"duellist-{style['duellist']}")
    elif phase == "stance":
        click(page, f"stance-{style['stance']}")
    elif phase == "plan":
        opening = doc["state"]["players"][doc["seat"]]["stance"]
        plan = list(style["plan"])
        if plan[0][0] != opening:  # slot 1 is fixed to the opening stance
            plan[0] = (opening, "wait")
        for i, (stance, tech) in enumerate(plan, 1):
            if i > 1:
                click(page, f"plan-{i}-stance-{stance}")
            click(page, f"plan-{i}-tech-{tech}")
        click(page, "lock-plan")
    elif phase == "footwork":
        moves = [a["move"] for a in doc["legal"]]
        click(page, f"footwork-{style['move'] if style['move'] in moves else 'toward'}")
    elif phase == "dodge":
        click(page, "dodge-no")
    else:
        raise AssertionError(f"unknown phase {phase}")
    return doc["version"]


def wait_after(page, version: int) -> None:
    """Until the page has the view that follows its action."""
    page.wait_for_function("(v) => window.duelhall.view().version > v", arg=version)


# ------------------------------------------------------------------------------ (a)
def test_full_duel_through_the_ui(new_page):
    from playwright.sync_api import expect

    t0 = time.monotonic()
    ann, bob = new_page("Ann"), new_page("Bob")
    sign_in(ann, "Ann")
    match_id = create_duel(ann, max_slots=6)
    sign_in(bob, "Bob")
    join_from_lobby(bob, match_id)
    pages = {"Ann": ann, "Bob": bob}
    for page in pages.values():
        expect(page.locator(f"{BOARD} [data-testid=track]")).to_be_visible()
        expect(page.locator(f"{BOARD} [data-testid=duellist-brute]")).to_be_visible()

    # The rules panel opens and closes from the keyboard-reachable toggle.
    ann.locator(f"{BOARD} [data-testid=rules-toggle]").click()
    expect(ann.locator(f"{BOARD} [data-testid=counter-table] tbody tr")).to_have_count(9)
    ann.locator(f"{BOARD} [data-testid=rules-toggle]").click()
    expect(ann.locator(f"{BOARD} [data-testid=rules-panel]")).to_be_hidden()

    # Keyboard: from the rules toggle, Tab reaches the duellist cards (real buttons, with a
    # visible focus ring) and Enter picks one.
    ann.locator(f"{BOARD} [data-testid=rules-toggle]").focus()
    for _ in range(8):
        ann.keyboard.press("Tab")
        if ann.evaluate("() => document.activeElement.dataset.testid") == "duellist-ronin":
            break
    assert ann.evaluate("() => document.activeElement.dataset.testid") == "duellist-ronin"
    assert ann.evaluate("() => getComputedStyle(document.activeElement).outlineStyle") != "none"
    version = view(ann)["version"]
    ann.keyboard.press("Enter")
    ann.wait_for_function("(v) => window.duelhall.view().version > v", arg=version)
    expect(ann.locator(f"{BOARD} [data-testid=fighter-A]")).to_contain_text("sealed")

    saw = set()
    decisions = 0
    # About 15 decisions each; ~30 s on a quiet machine, far more allowed for a loaded one.
    while time.monotonic() - t0 < 240:
        sent = []
        for name, page in pages.items():  # both act at once, then both wait
            doc = view(page)
            if my_turn(doc):
                saw.add(doc["state"]["phase"])
                sent.append((page, act(page, STYLES[name])))
                decisions += 1
        for page, version in sent:
            wait_after(page, version)
        if all(p.locator("#result-banner").is_visible() for p in pages.values()):
            break
        if not sent:
            time.sleep(0.05)
    for page in pages.values():
        expect(page.locator("#result-banner")).to_be_visible()
        expect(page.locator(f"{BOARD} [data-testid=final]")).to_be_visible()
    assert {"duellist", "stance", "plan", "footwork"} <= saw, saw

    final = view(ann)["state"]
    assert final["result"] is not None
    hp = {s: final["players"][s]["health"] for s in "AB"}
    assert final["result"]["reason"] in ("knockout", "max_slots"), final["result"]
    for page in pages.values():
        # both boards show the same final health
        for seat in "AB":
            expect(page.locator(f"{BOARD} [data-testid=health-{seat}]")).to_have_text(str(hp[seat]))
        # every opened commitment was re-hashed in the browser: at least one plan verified,
        # nothing that does not match
        verified = page.locator(f"{BOARD} [data-testid=commit-check][data-verified=true]")
        expect(verified.first).to_be_visible()
        expect(verified.first).to_contain_text("verified")
        assert page.locator(f"{BOARD} [data-verified=false]").count() == 0
        expect(page.locator(f"{BOARD} [data-testid=seal-summary]")).not_to_contain_text("do not match")
        # the slot log speaks in words, slot by slot
        expect(page.locator(f"{BOARD} [data-testid=slot-log] li.log-slot").first).to_contain_text("Slot")
    assert decisions >= 8


# ------------------------------------------------------------------------------ (b)
VERIFY_JS = """async (cases) => {
  const m = await import('/static/games/duel_commit.js');
  const out = [];
  for (const c of cases) {
    let json = null;
    try { json = m.canonicalJson(c.choice); } catch (e) { json = 'ERROR ' + e; }
    out.push({ ok: await m.verifyCommitment(c.commitment, c.salt, c.choice), json });
  }
  return out;
}"""

# The built-in SHA-256 (used where crypto.subtle is missing: plain http on a remote host).
FALLBACK_JS = """async (texts) => {
  const m = await import('/static/games/duel_commit.js');
  const hex = (b) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return texts.map((s) => hex(m.sha256Fallback(new TextEncoder().encode(s))));
}"""


def _engine_reveals(seed: int = 11, slots: int = 9) -> list[dict]:
    """Every public opening of a short random Duel match (engine only)."""
    st = GAME.setup(GAME.validate_options({"max_slots": slots}), ["A", "B"], seed)
    rnd = random.Random(seed)
    events = []
    while GAME.result(st) is None:
        seat = sorted(GAME.pending(st))[0]
        st, ev = GAME.apply(st, seat, random_action(GAME.legal(st, seat), rnd))
        events += filter_events(ev, "spectator")
    return [e for e in events if e["type"] == "reveal"]


def test_browser_verify_commitment_matches_python(new_page):
    page = new_page("Verifier")
    page.goto("/")
    salt = "0123456789abcdef0123456789abcdef"
    tricky = [
        {"type": "plan", "slots": [{"stance": "high", "technique": "downward_cut"},
                                   {"stance": "low", "technique": "horizontal_cut"},
                                   {"stance": "low", "technique": "wait"}]},
        {"type": "footwork", "move": "toward2"},
        {"type": "dodge", "dodge": False},
        {"z": 1, "a": [True, None, -3, 1.5, 1e-05, 0.1, 1.5e300, -0.25, 2 ** 40],
         "é": "Ünïcødé — ✓ 😀", "Z": "tab\there\nnew \"quoted\" \\ back\x01\x7f", "\uff01": 1, "\U0001f600": 2},
        {"name": "Párbaj · 決闘", "nested": {"b": {"d": [], "c": {}}, "a": ""}},
        {"floats": [1e16, 1e22, 2.5e-07, 123456.789, 2.0 ** 53, -1.25e-10, 0.0001]},
    ]
    cases, expected = [], []
    for choice in tricky + [r["choice"] for r in _engine_reveals()[:40]]:
        honest = commitment(salt, choice)
        cases.append({"commitment": honest, "salt": salt, "choice": choice})
        expected.append(True)
    # real openings from the engine, with their own salts
    for r in _engine_reveals(seed=5)[:20]:
        cases.append({"commitment": r["commitment"], "salt": r["salt"], "choice": r["choice"]})
        expected.append(True)
    # tampered: another choice, another salt, a different commitment, an uppercase commitment
    plan = tricky[0]
    good = commitment(salt, plan)
    changed = json.loads(json.dumps(plan))
    changed["slots"][1]["technique"] = "retreating_horizontal_cut"
    tampered = [
        ({"commitment": good, "salt": salt, "choice": changed}, False),
        ({"commitment": good, "salt": "f" + salt[1:], "choice": plan}, False),
        ({"commitment": good, "salt": salt.upper(), "choice": plan}, False),
        ({"commitment": "0" * 64, "salt": salt, "choice": plan}, False),
        ({"commitment": good.upper(), "salt": salt, "choice": plan}, True),
        ({"commitment": good, "salt": salt, "choice": {"type": "footwork", "move": "stay"}}, False),
        ({"commitment": good, "salt": None, "choice": plan}, False),
        ({"commitment": None, "salt": salt, "choice": plan}, False),
    ]
    for case, ok in tampered:
        cases.append(case)
        expected.append(ok)

    results = page.evaluate(VERIFY_JS, cases)
    assert len(results) == len(cases)
    for case, want, got in zip(cases, expected, results):
        py = verify_commitment(case["commitment"], case["salt"], case["choice"])
        assert py is want, ("python disagrees with the expectation", case)
        assert got["ok"] is want, ("browser disagrees with python", case, got)
        assert got["json"] == canonical_json(case["choice"]), (got["json"], canonical_json(case["choice"]))


def test_browser_fallback_sha256_matches_hashlib(new_page):
    import hashlib

    page = new_page("Hasher")
    page.goto("/")
    texts = ["a" * n for n in range(140)] + ["0123456789abcdef0123456789abcdef:" + canonical_json(
        {"type": "plan", "slots": [{"stance": "middle", "technique": "block"}] * 3})]
    got = page.evaluate(FALLBACK_JS, texts)
    assert got == [hashlib.sha256(x.encode()).hexdigest() for x in texts]


# ------------------------------------------------------------------------------ (c)
PLAN_CHECK_JS = """async (text) => {
  const matches = JSON.parse(text);
  const R = await import('/static/games/duel_rules.js');
  let predicted = 0, confirmed = 0, unflagged = 0, phrases = 0;
  for (const m of matches) {
    const own = { A: R.digest(m.events.A), B: R.digest(m.events.B) };
    for (const d of Object.values(own)) for (const S of d.slots.values()) phrases += R.slotPhrases(S).length;
    for (const pl of m.plans) {
      const warn = R.checkPlan(pl.slots, pl);
      const played = [...own[pl.seat].slots.values()].filter((S) => S.exchange === pl.exchange)
        .sort((a, b) => a.xs - b.xs);
      // compare slot by slot while the slots went as the checker assumed (performed or waited,
      // or misplayed where it said so); once they part, later predictions no longer apply
      for (const S of played) {
        const te = S.technique[pl.seat];
        const w = warn[S.xs - 1];
        if (!te || ['locked', 'rest', 'dodged'].includes(te.status)) break;
        if (w.some((x) => x.level === 'locked' || x.level === 'rest')) break;
        if (w.some((x) => x.level === 'misplay')) {
          predicted++;
          if (te.status !== 'misplay') break;
          confirmed++;
        } else if (te.status === 'misplay') {
          if (!w.some((x) => x.level === 'risk')) unflagged++;
          break;
        }
      }
    }
  }
  return { predicted, confirmed, unflagged, phrases };
}"""


def test_browser_plan_checker_agrees_with_the_engine(new_page):
    """The plan screen's misplay warnings (duel_rules.checkPlan) against what the engine did with
    the same plans, over random matches: every certain warning came true, and every misplay the
    engine called was flagged (certain, or as a risk that depends on the opponent)."""
    matches = []
    for seed in range(12):
        st = GAME.setup(GAME.validate_options({"max_slots": 30}), ["A", "B"], seed)
        rnd = random.Random(seed)
        events, plans, version = {"A": [], "B": []}, [], 0
        while GAME.result(st) is None:
            seat = sorted(GAME.pending(st))[0]
            action = random_action(GAME.legal(st, seat), rnd)
            if action["type"] == "plan":
                p = GAME.view(st, seat)["players"][seat]
                plans.append({"seat": seat, "exchange": GAME.view(st, seat)["exchange"], "slots": action["slots"],
                              "opening": p["stance"], "duellist": p["duellist"], "stamina": p["stamina"],
                              "lock": p["lock"]})
            st, ev = GAME.apply(st, seat, action)
            version += 1
            for viewer in events:
                events[viewer] += [dict(e, version=version) for e in filter_events(ev, viewer)]
        matches.append({"events": events, "plans": plans})
    page = new_page("Checker")
    page.goto("/")
    got = page.evaluate(PLAN_CHECK_JS, json.dumps(matches))  # a string: far faster to pass
    assert got["predicted"] > 20 and got["phrases"] > 500, got
    assert got["confirmed"] == got["predicted"], got
    assert got["unflagged"] == 0, got

"""Párbaj in a real browser against the real server (a subprocess): a player builds a deck in
the deck builder (static/parbaj_decks.js), then two players play a whole match on the board
(static/games/parbaj.js), one of them with the saved deck.

Players act only through the page (buttons, highlighted targets, the keyboard);
``window.duelhall.view()`` is read to decide what to click and to check secrets, never to act.
Skipped only when /usr/bin/chromium is missing and CI is not "true".
"""
from __future__ import annotations

import json
import re
import time

import pytest

from games.parbaj.cardpool import CARDS, POOL
from tests.browser_support import BROWSER_MARKS, chromium, run_server, server_env

BOARD = "#board .board-host[data-game=parbaj] section.parbaj"

pytestmark = BROWSER_MARKS


# ------------------------------------------------------------------------------ fixtures
@pytest.fixture(scope="module")
def server(tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("parbaj-browser")
    with run_server(data_dir, server_env(data_dir, "pjb")) as (base, _):
        yield base


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


@pytest.fixture
def new_page(browser, server):
    contexts, errors = [], []

    def make(label):
        ctx = browser.new_context(base_url=server, viewport={"width": 1300, "height": 950})
        ctx.set_default_timeout(15_000)
        contexts.append(ctx)
        page = ctx.new_page()
        page.on("pageerror", lambda e, n=label: errors.append(f"{n}: {e}"))
        return page

    yield make
    for ctx in contexts:
        ctx.close()
    assert not errors, "uncaught errors in the browser:\n" + "\n".join(errors)


# ------------------------------------------------------------------------------ helpers
def expect(locator):
    from playwright.sync_api import expect as _expect

    return _expect(locator)


def sign_in(page, name):
    page.goto("/")
    page.fill("#name-input", name)
    page.click("#name-submit")
    expect(page.locator("#user-name")).to_contain_text(name)


def view(page) -> dict:
    return page.evaluate("() => window.duelhall && window.duelhall.view()")


def wait_version(page, n):
    page.wait_for_function(
        "(n) => { const v = window.duelhall && window.duelhall.view(); return !!v && v.version >= n; }", arg=n)
    return view(page)


def board(page, sel=""):
    return page.locator(f"{BOARD} {sel}".strip())


def api(page, method, path, body=None):
    """A fetch from the page with its own token (to check what the UI did)."""
    return page.evaluate(
        """async ([m, p, b]) => {
             const r = await fetch(p, {method: m, headers: {'Content-Type': 'application/json',
               Authorization: 'Bearer ' + localStorage.getItem('duelhall.token')},
               body: b === null ? undefined : JSON.stringify(b)});
             return {status: r.status, body: await r.json()};
           }""", [method, path, body])


def has_free_attack(cid):
    return any(a["kind"] == "attack" and not a["cost"] for a in CARDS[cid]["abilities"])


def decide(page, deck_button, keyboard=False):
    """Take this page's next decision through the board; returns what it did."""
    doc = view(page)
    st, me, legal = doc["state"], doc["seat"], doc["legal"]
    ph, mine = st["phase"], st["players"][me]
    front = st["creatures"].get(mine["front"]) if mine["front"] else None
    if ph == "deck":
        board(page, deck_button).click()
        return "deck"
    if ph == "first":
        button = board(page, f"[data-testid=pj-first][data-seat={me}]")
        if keyboard:
            button.focus()
            page.keyboard.press("Enter")
        else:
            button.click()
        return "first"
    if ph == "place":
        # Straight to the frontline, with a creature that has a free attack when there is one.
        fronts = [a for a in legal if a["slot"] == "frontline"]
        a = next((x for x in fronts if has_free_attack(x["card"])), fronts[0])
        select = board(page, f"[data-testid=pj-hand-select][data-card={a['card']}]")
        if keyboard:
            # Select, change your mind (Escape), select again, then the target from the controls.
            select.focus()
            page.keyboard.press("Enter")
            expect(board(page, "[data-testid=pj-target][data-target='slot:frontline']")).to_be_visible()
            page.keyboard.press("Escape")
            expect(board(page, "[data-testid=pj-target]")).to_have_count(0)
            select.focus()
            page.keyboard.press("Enter")
            target = board(page, "[data-testid=pj-target-button][data-target='slot:frontline']")
            target.focus()
            page.keyboard.press("Enter")
        else:
            select.click()
            board(page, "[data-testid=pj-target][data-target='slot:frontline']").click()
        return "place"
    if ph == "cards":
        field = next((a for a in legal if a["type"] == "place_field"), None)
        if field:
            board(page, f"[data-testid=pj-act][data-type=place_field][data-card={field['card']}]").click()
            return "place_field"
        board(page, "[data-testid=pj-act][data-type=done]").click()
        return "done"
    if ph == "prep":
        take = [a["token"] for a in legal if a["type"] == "take_token"]
        if take:
            typ = CARDS[front["card"]]["type"] if front else None
            board(page, f"[data-testid=pj-take-token][data-token={typ if typ in take else take[0]}]").click()
            return "take_token"
        board(page, "[data-testid=pj-act][data-type=done]").click()
        return "done"
    if ph == "combat":
        other = next(s for s in st["players"] if s != me)
        attacks = [a for a in legal if a["type"] == "declare" and (a["target"] or "").startswith(other)]
        if attacks:
            a = attacks[0]
            board(page, f"[data-testid=pj-ability][data-creature={a['creature']}]"
                        f"[data-ability='{a['ability']}']").click()
            # Targeting by clicking: the enemy creature is highlighted.
            board(page, f"[data-testid=pj-target][data-target={a['target']}]").click()
            if a["token"]:
                board(page, "[data-testid=pj-token-choice]").first.click()
            return "attack"
        board(page, "[data-testid=pj-act][data-type=pass]").first.click()
        return "pass"
    if ph == "promote":
        board(page, f"[data-testid=pj-target][data-target={legal[0]['creature']}]").click()
        return "promote"
    raise AssertionError(f"nothing to do in phase {ph}")


# ------------------------------------------------------------------------------ the test
def test_build_a_deck_then_play_a_match_with_it(new_page):
    started = time.monotonic()
    ann, bob = new_page("Ann"), new_page("Bob")

    # ---- the deck builder: copy a starter, change it, see a problem, fix it, save ----------
    sign_in(ann, "Ann")
    ann.click("#decks-link")
    expect(ann.locator("#decks-title")).to_have_text("Párbaj decks")
    ann.click("[data-testid=pj-copy-starter][data-starter=wildfire]")
    expect(ann.locator("#pj-editor-title")).to_have_text("Editing Wildfire")
    expect(ann.locator("[data-testid=pj-valid]")).to_be_visible()
    expect(ann.locator("[data-testid=pj-counts]")).to_contain_text("Cards: 15 / 15")
    ann.fill("#pj-deck-name", "Fire Ann")

    # Find a card with the filters, add it: one card too many.
    ann.select_option("#pj-f-element", "water")
    ann.select_option("#pj-f-level", "1")
    ann.select_option("#pj-f-kind", "creature")
    results = ann.locator("[data-testid=pj-results] .pj-browser-card")
    expect(results.locator("[data-card=tide_otter]").first).to_be_visible()
    shown = list(results.evaluate_all("els => els.map(e => e.dataset.card)"))
    assert shown and all(CARDS[c]["type"] == "water" and CARDS[c]["level"] == 1 for c in shown)
    tide = ann.locator(".pj-browser-card[data-card=tide_otter]")
    expect(tide).to_contain_text("Endurance 5")
    expect(tide).to_contain_text("Weak to Earth")
    expect(tide).to_contain_text("2 Water damage")
    ann.click("[data-testid=pj-add][data-card=tide_otter]")
    problems = ann.locator("[data-testid=pj-problems]")
    expect(problems).to_contain_text("The deck has 16 cards; at most 15 are allowed")
    expect(ann.locator("[data-testid=pj-counts] .over")).to_contain_text("Cards: 16 / 15")
    # Saving now is refused, with the same explanation.
    ann.click("[data-testid=pj-save]")
    expect(ann.locator("#error-message")).to_contain_text("cannot be saved yet")
    # Fix it and save.
    ann.click("[data-testid=pj-remove][data-card=smoke_bomb]")
    expect(ann.locator("[data-testid=pj-valid]")).to_be_visible()
    expect(problems).to_have_count(0)
    ann.click("[data-testid=pj-save]")
    expect(ann.locator("[data-testid=pj-notice]")).to_contain_text("Saved “Fire Ann”")
    expect(ann.locator("[data-testid=pj-deck-row][data-name='Fire Ann']")).to_contain_text("15 cards")
    ann.click("[data-testid=pj-export]")
    expect(ann.locator("#pj-deck-text")).to_have_value(re.compile(r"1× Tide Otter\n"))
    saved = api(ann, "GET", "/api/decks")["body"]
    (deck,) = [d for d in saved if d["name"] == "Fire Ann"]
    expected = sorted([c for c in POOL.decks["wildfire"]["cards"] if c != "smoke_bomb"] + ["tide_otter"])
    assert sorted(deck["cards"]) == expected and deck["ok"]
    assert "Wildfire" not in [d["name"] for d in saved]  # the copy was renamed, not duplicated

    # ---- a Párbaj match: Ann (saved deck) against Bob (a starter deck) ---------------------
    ann.click("#back-to-lobby")
    ann.select_option("#create-game", "parbaj")
    form = ann.locator("#create-form")
    form.locator("[name=max_rounds]").fill("2")
    ann.click("#create-submit")
    expect(ann.locator("[data-testid=waiting-room]")).to_be_visible()
    match_id = re.search(r"#/match/([^/?]+)$", ann.url).group(1)
    sign_in(bob, "Bob")
    row = bob.locator(f"[data-testid=open-match][data-match-id='{match_id}']")
    row.locator("[data-testid=join]").click()
    for page in (ann, bob):
        expect(board(page, "[data-testid=pj-deck-chooser]")).to_be_visible()
    expect(board(ann, "[data-testid=pj-deck-mine][data-deck-name='Fire Ann']")).to_be_enabled()
    pages = {view(ann)["seat"]: ann, view(bob)["seat"]: bob}
    decks = {ann: "[data-testid=pj-deck-mine][data-deck-name='Fire Ann']",
             bob: "[data-testid=pj-deck-starter][data-deck=tidecaller]"}

    done: list[str] = []
    damage_seen = False
    while view(ann)["status"] != "finished":
        assert len(done) < 80, f"the match did not end: {done}"
        doc = view(ann)
        seat = doc["pending"][0]
        page = pages[seat]
        before = view(page)["version"]
        done.append(decide(page, decks[page], keyboard=page is ann and doc["state"]["phase"] in ("first", "place")))
        for p in pages.values():
            after = wait_version(p, before + 1)
            # The opponent's hand and deck never reach a page while the match is live.
            if after["status"] == "live":
                for s, pl in after["state"]["players"].items():
                    if s != after["seat"]:
                        assert "hand" not in pl and "deck" not in pl, pl
        if not damage_seen and any(e["type"] == "damage" for e in view(ann)["events"]):
            # The end of the round, step by step: "Fire base 1 ×2 weakness = 2 ...".
            steps = board(ann, "[data-testid=pj-res-steps]")
            expect(steps).to_contain_text(re.compile(r"(Fire|Water|Air|Earth|Neutral) base \d+.* = \d+"))
            expect(steps).to_contain_text(re.compile(r"injuries \d+ \+ \d+ − \d+ = \d+ of \d+"))
            damage_seen = True
        if doc["state"]["phase"] == "combat" and view(bob)["state"]["phase"] == "combat":
            # Bob sees Ann's hand as a count only.
            a_seat = view(ann)["seat"]
            side = board(bob, f".pj-side[data-seat={a_seat}] [data-testid=pj-hand-count]")
            expect(side).to_have_text(f"Hand: {view(bob)['state']['players'][a_seat]['hand_size']}")

    assert "attack" in done and "first" in done and damage_seen, done
    result = view(ann)["result"]
    assert view(bob)["result"] == result
    for page in (ann, bob):
        expect(page.locator("#match-status")).to_have_attribute("data-status", "finished")
        text = board(page).inner_text()
        assert "Match over" in text or "wins the match" in text or "draw" in text
        assert "parbaj." not in text, "an untranslated key on the board"
    # Ann played the deck she saved.
    final = view(ann)["state"]["players"][view(ann)["seat"]]
    assert sorted(final["deck"]) == expected and final["deck_name"] == "Custom deck"
    assert time.monotonic() - started < 180, "far too slow"
    print(json.dumps({"actions": len(done), "seconds": round(time.monotonic() - started, 1),
                      "result": result["reason"]}))

"""The fair deal in a real browser (static/fairness.js, static/fair_deal.js; docs/fairness.md).

* The browser's derivation (WebCrypto, and the built-in fallback) gives the worked example's
  numbers, and a tampered fairness block fails the right check.
* Two players create and join a Duell match from the lobby (the client sends its own seed
  each time); one resigns; the end screen shows "Fair deal: verified ✓", its details page
  passes every check (including "the commitment I saw" and "my own seed"), and the downloaded
  record verifies with ``games.fairness.verify_record``.
* A summary whose server seed was changed shows "check failed ✗" on the details page.
"""
from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.request

from playwright.sync_api import expect

from games import fairness as F
from tests.browser.duell_ui import create_duell, join_from_lobby, sign_in, wait_board
from tests.games.test_fairness import COMMITMENT, MATCH_SEED, PLAYER_SEEDS, SERVER_SEED

PROBE = """async ([serverSeed, seeds]) => {
  const f = await import('/static/fairness.js');
  const out = {};
  out.hash = f.toHex(await f.sha256(f.fromHex(serverSeed)));
  out.seed = await f.deriveMatchSeed(serverSeed, seeds);
  const key = f.fromHex(serverSeed), msg = f.seedMessage(seeds);
  out.same_fallback = f.toHex(await f.hmacSha256(key, msg)) === f.toHex(f.hmacSha256Fallback(key, msg));
  out.new_seed = [f.newSeed(), f.newSeed()];
  const block = {server_seed_sha256: out.hash, player_seeds: seeds, server_seed: serverSeed,
                 match_seed: out.seed};
  const status = (v) => Object.fromEntries(v.checks.map((c) => [c.id, c.status]));
  const good = await f.checkFairness(block, {mine: {seed: seeds.A, commitment: out.hash}, seat: 'A'});
  out.good = [good.ok, status(good)];
  const otherServer = await f.checkFairness({...block, server_seed: 'ff' + serverSeed.slice(2)}, {});
  out.other_server = [otherServer.ok, status(otherServer)];
  const otherPlayer = await f.checkFairness(
    {...block, player_seeds: {...seeds, B: '00'.repeat(16)}}, {mine: {seed: seeds.A}, seat: 'A'});
  out.other_player = [otherPlayer.ok, status(otherPlayer)];
  const notMine = await f.checkFairness(block, {mine: {seed: '11'.repeat(16), commitment: '0'.repeat(64)}, seat: 'A'});
  out.not_mine = [notMine.ok, status(notMine)];
  return out;
}"""


def test_the_browser_derives_what_the_server_derives(new_page):
    page = new_page("probe")
    page.goto("/")
    out = page.evaluate(PROBE, [SERVER_SEED, PLAYER_SEEDS])
    assert out["hash"] == COMMITMENT == F.commitment(SERVER_SEED)
    assert out["seed"] == str(MATCH_SEED)
    assert out["same_fallback"] is True
    a, b = out["new_seed"]
    assert a != b and all(F.check_player_seed(s) == s and len(s) == 32 for s in (a, b))
    assert out["good"] == [True, {"revealed": "ok", "commitment": "ok", "seen": "ok",
                                  "own_seed": "ok", "derivation": "ok"}]
    assert out["other_server"][0] is False and out["other_server"][1]["commitment"] == "failed"
    assert out["other_player"][0] is False and out["other_player"][1]["derivation"] == "failed"
    assert out["other_player"][1]["commitment"] == "ok"
    assert out["not_mine"][0] is False
    assert out["not_mine"][1]["seen"] == "failed" and out["not_mine"][1]["own_seed"] == "failed"


def _record(base: str, match_id: str, token: str) -> dict:
    """The record, once history has it (503 while it is still being written)."""
    end = time.monotonic() + 30
    while True:
        req = urllib.request.Request(f"{base}/api/matches/{match_id}/record",
                                     headers={"Authorization": f"Bearer {token}"})
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return json.loads(r.read())
        except urllib.error.HTTPError as e:
            if e.code != 503 or time.monotonic() > end:
                raise
            time.sleep(0.2)


def test_the_end_screen_shows_a_verified_fair_deal(new_page, live_server, tmp_path):
    ann, bob = new_page("ann"), new_page("bob")
    sign_in(ann, "Ann", "/")
    match_id, _ = create_duell(ann, duels_to_win=1)
    sign_in(bob, "Bob", "/")
    join_from_lobby(bob, match_id, host="Ann")
    doc = wait_board(ann)
    wait_board(bob)
    # The client sent its own seed on create and on join: the server lists them, unchanged.
    mine = ann.evaluate("(id) => JSON.parse(localStorage.getItem('duelhall.fairness'))[id]", match_id)
    bobs = bob.evaluate("(id) => JSON.parse(localStorage.getItem('duelhall.fairness'))[id]", match_id)
    seeds = doc["fairness"]["player_seeds"]
    assert seeds == {"A": mine["seed"], "B": bobs["seed"]}
    assert mine["commitment"] == doc["fairness"]["server_seed_sha256"] and doc["fairness"]["server_seed"] is None

    bob.click("#resign-button")
    bob.click("#resign-confirm")
    for page in (ann, bob):
        mark = page.locator("#result-banner [data-testid=fair-mark]")
        expect(mark).to_have_attribute("data-state", "verified")
        expect(mark).to_contain_text("Fair deal: verified ✓")

    ann.click("#fair-details")
    ann.wait_for_url(re.compile(rf".*#/match/{match_id}/fair$"))
    expect(ann.locator("#fair-verdict")).to_have_attribute("data-state", "verified")
    for check in ("revealed", "commitment", "seen", "own_seed", "derivation"):
        expect(ann.locator(f"#fair-checks [data-check={check}]")).to_have_attribute("data-status", "ok")
    expect(ann.locator("#fair-values")).to_contain_text(mine["seed"])

    token = ann.evaluate("() => localStorage.getItem('duelhall.token')")
    _record(live_server, match_id, token)  # history has it: the download will not be a 503
    with ann.expect_download() as got:
        ann.click("#fair-download")
    path = tmp_path / "record.json"
    got.value.save_as(path)
    record = json.loads(path.read_text())
    assert got.value.suggested_filename == f"duelhall-{match_id}.json"
    verdict = F.verify_record(record)
    assert verdict.ok, verdict.text()
    assert record["fairness"]["player_seeds"] == seeds


def test_a_changed_server_seed_fails_the_check(new_page, live_server):
    ann = new_page("ann2")
    sign_in(ann, "Ann", "/")
    token = ann.evaluate("() => localStorage.getItem('duelhall.token')")

    def post(path, body):
        req = urllib.request.Request(live_server + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Authorization": f"Bearer {token}",
                                              "Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read())

    match_id = post("/api/matches", {"game": "duell", "seed": "ab" * 16})["id"]
    post(f"/api/matches/{match_id}/leave", {})  # aborted: the server seed is revealed

    def tamper(route):
        body = route.fetch().json()
        body["fairness"]["server_seed"] = "%064x" % (int(body["fairness"]["server_seed"], 16) ^ 1)
        route.fulfill(json=body)

    ann.route(re.compile(rf".*/api/matches/{match_id}$"), tamper)
    ann.goto(f"/#/match/{match_id}/fair")
    expect(ann.locator("#fair-verdict")).to_have_attribute("data-state", "failed")
    expect(ann.locator("#fair-checks [data-check=commitment]")).to_have_attribute("data-status", "failed")
    expect(ann.locator("#fair-verdict")).to_contain_text("check failed")
    # Untouched, the same match passes.
    ann.unroute(re.compile(rf".*/api/matches/{match_id}$"))
    ann.goto("/#/")
    ann.goto(f"/#/match/{match_id}/fair")
    expect(ann.locator("#fair-verdict")).to_have_attribute("data-state", "verified")
    expect(ann.locator("#fair-checks [data-check=derivation]")).to_have_attribute("data-status", "skipped")

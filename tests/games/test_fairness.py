"""games/fairness.py: the derivation (against the worked example in docs/fairness.md) and the
record check, which names the first thing that differs in a tampered record."""
from __future__ import annotations

import copy
import hashlib
import hmac
import json
import random
import re

import pytest

from games import fairness as F
from games.base import expand_one_of
from games.registry import get_game
from tests.conftest import ROOT

# The worked example of docs/fairness.md.
SERVER_SEED = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
COMMITMENT = "4773d12e2371bb935b9a0f5439b4a1c3ad3f2414b86980f8418d1cfabdfadfef"
PLAYER_SEEDS = {"A": "0123456789abcdef0123456789abcdef", "B": "fedcba9876543210fedcba9876543210"}
HMAC_HEX = "60b4954bdab2997c4c63a19ba88b74ae319d54d8f674f39d609c048c69ed9f9f"
MATCH_SEED = 3484179338236611774


def test_the_worked_example_of_the_docs():
    assert F.commitment(SERVER_SEED) == COMMITMENT
    assert F.seed_message(PLAYER_SEEDS) == (
        b"duelhall-fair-v1\nA:0123456789abcdef0123456789abcdef\nB:fedcba9876543210fedcba9876543210")
    digest = hmac.new(bytes.fromhex(SERVER_SEED), F.seed_message(PLAYER_SEEDS), hashlib.sha256)
    assert digest.hexdigest() == HMAC_HEX
    assert F.match_seed(SERVER_SEED, PLAYER_SEEDS) == MATCH_SEED == int(HMAC_HEX[:16], 16) >> 1
    # The page states the same numbers, so a third party can check a re-implementation on them.
    doc = (ROOT / "docs" / "fairness.md").read_text()
    for value in (SERVER_SEED, COMMITMENT, *PLAYER_SEEDS.values(), HMAC_HEX, str(MATCH_SEED)):
        assert value in doc, value
    # And the deal it gives (the docs show Duell's opening hands for it).
    state = get_game("duell").setup({}, ["A", "B"], MATCH_SEED)
    hands = re.search(r"A's\s+hand\s+`(\[[^]]*\])`,\s+B's\s+hand\s+`(\[[^]]*\])`", doc)
    assert hands and json.loads(hands[1]) == state["hands"]["A"] and json.loads(hands[2]) == state["hands"]["B"]


def test_seat_order_and_case_do_not_depend_on_the_caller():
    shuffled = {"B": PLAYER_SEEDS["B"].upper(), "A": PLAYER_SEEDS["A"]}
    assert F.match_seed(SERVER_SEED, shuffled) == MATCH_SEED
    # Every input counts: another server seed, or any one player's seed, gives another deal.
    other_server = "ff" + SERVER_SEED[2:]
    assert F.match_seed(other_server, PLAYER_SEEDS) != MATCH_SEED
    assert F.match_seed(SERVER_SEED, {**PLAYER_SEEDS, "B": "0" * 32}) != MATCH_SEED
    assert 0 <= MATCH_SEED < 2 ** 63


@pytest.mark.parametrize("bad", ["", "ab" * 15 + "a", "g" * 32, "a" * 129, " " + "a" * 32, 12345,
                                 None, "é" * 32])
def test_player_seeds_are_32_to_128_hex_digits(bad):
    with pytest.raises(ValueError, match="hexadecimal"):
        F.check_player_seed(bad)


def test_a_valid_player_seed_is_kept_lowercase():
    assert F.check_player_seed("AB" * 16) == "ab" * 16
    assert F.check_player_seed("0" * 128) == "0" * 128
    assert F.check_player_seed("1" * 33) == "1" * 33  # any count of digits in the range


# ------------------------------------------------------------------------------ records
def engine_record(game_id: str = "duell", seed_text: str = "x", seats=("A", "B"),
                  options: dict | None = None) -> dict:
    """A finished match's record as the server would write it, made with the engine alone."""
    rnd = random.Random(seed_text)
    server_seed = "%064x" % rnd.getrandbits(256)
    players = {s: "%032x" % rnd.getrandbits(128) for s in seats}
    seed = F.match_seed(server_seed, players)
    game = get_game(game_id)
    state = game.setup(options or {}, list(seats), seed)
    actions = []
    while game.result(state) is None:
        seat = sorted(game.pending(state))[0]
        legal = [a for a in game.legal(state, seat) if a.get("type") != "concede"] or game.legal(state, seat)
        action = expand_one_of(rnd.choice(legal), rnd)
        state, events = game.apply(state, seat, action)
        actions.append({"version": len(actions) + 3, "seat": seat, "kind": "action", "action": action,
                        "user_id": f"u{seat}", "at": None, "events": json.loads(json.dumps(events))})
    return {
        "id": "m1", "game": game_id, "status": "finished", "options": options or {},
        "seats": [{"seat": s, "user": {"id": f"u{s}", "name": s}} for s in seats],
        "result": json.loads(json.dumps(state["result"])), "seed": seed, "actions": actions,
        "fairness": {"server_seed_sha256": F.commitment(server_seed), "player_seeds": players,
                     "server_seed": server_seed, "match_seed": str(seed)},
    }


@pytest.mark.parametrize("game_id,seats", [("duell", "AB"), ("duel", "AB"), ("parbaj", "AB"),
                                           ("combat", "ABC")])
def test_an_honest_record_verifies(game_id, seats):
    record = engine_record(game_id, seats=tuple(seats))
    verdict = F.verify_record(record)
    assert verdict.ok, verdict.text()
    assert verdict.steps == len(record["actions"]) > 0


def test_a_changed_server_seed_fails_on_the_hash():
    record = engine_record()
    record["fairness"]["server_seed"] = "%064x" % 7
    verdict = F.verify_record(record)
    assert not verdict.ok and verdict.what == "hash", verdict.text()
    assert "sha256(server_seed)" in verdict.problem


def test_a_changed_commitment_fails_on_the_hash():
    record = engine_record()
    record["fairness"]["server_seed_sha256"] = "0" * 64
    assert F.verify_record(record).what == "hash"


def test_a_changed_player_seed_fails_on_the_derivation():
    record = engine_record()
    record["fairness"]["player_seeds"]["B"] = "ab" * 16
    verdict = F.verify_record(record)
    assert not verdict.ok and verdict.what == "derivation", verdict.text()
    assert "derived" in verdict.problem and str(record["seed"]) in verdict.problem


def test_a_changed_match_seed_fails_on_the_derivation():
    record = engine_record()
    record["seed"] += 1
    assert F.verify_record(record).what == "derivation"
    record = engine_record()
    record["fairness"]["match_seed"] = "1"
    assert F.verify_record(record).what == "derivation"


def test_a_missing_or_extra_player_seed_fails_on_the_derivation():
    record = engine_record()
    del record["fairness"]["player_seeds"]["B"]
    assert F.verify_record(record).what == "derivation"
    record = engine_record()
    record["fairness"]["player_seeds"]["C"] = "ab" * 16
    assert F.verify_record(record).what == "derivation"


def _other_action(record: dict, n: int) -> dict | None:
    """A legal action at step ``n`` (1-based) other than the recorded one, or None."""
    game = get_game(record["game"])
    state = game.setup(record["options"], [s["seat"] for s in record["seats"]], record["seed"])
    for step in record["actions"][: n - 1]:
        state, _ = game.apply(state, step["seat"], step["action"])
    step = record["actions"][n - 1]
    rnd = random.Random(n)
    for _ in range(50):
        action = expand_one_of(rnd.choice(game.legal(state, step["seat"])), rnd)
        if action != step["action"]:
            return action
    return None


@pytest.mark.parametrize("game_id", ["duell", "duel", "parbaj"])
def test_a_changed_action_fails_at_its_step(game_id):
    record = engine_record(game_id)
    n = next(k for k in range(len(record["actions"]) // 2, len(record["actions"]) + 1)
             if _other_action(record, k) is not None)
    tampered = copy.deepcopy(record)
    tampered["actions"][n - 1]["action"] = _other_action(record, n)
    verdict = F.verify_record(tampered)
    assert not verdict.ok and verdict.what == "step" and verdict.step == n, verdict.text()
    assert f"step {n} " in verdict.problem


def test_an_action_the_engine_refuses_is_named():
    record = engine_record()
    record["actions"][4]["action"] = {"type": "fly"}
    verdict = F.verify_record(record)
    assert (verdict.what, verdict.step) == ("step", 5)
    assert "refuses" in verdict.problem


def test_a_changed_event_fails_at_its_step():
    record = engine_record()
    record["actions"][2]["events"][0]["extra"] = 1
    verdict = F.verify_record(record)
    assert (verdict.ok, verdict.what, verdict.step) == (False, "step", 3), verdict.text()
    assert "event 1" in verdict.problem
    record = engine_record()
    record["actions"][6]["events"].append({"type": "bonus", "vis": "all"})
    assert F.verify_record(record).step == 7


def test_a_changed_result_fails_on_the_result():
    record = engine_record()
    record["result"]["winner"] = "B" if record["result"]["winner"] == "A" else "A"
    verdict = F.verify_record(record)
    assert (verdict.ok, verdict.what) == (False, "result"), verdict.text()


def test_a_cut_record_fails_on_the_result():
    record = engine_record()
    record["actions"].pop()
    verdict = F.verify_record(record)
    assert (verdict.ok, verdict.what) == (False, "result"), verdict.text()


def test_a_result_decided_by_a_tournament_rule_is_said_so():
    record = engine_record()
    record["actions"] = record["actions"][:5]
    record["result"] = {"places": {"A": 1, "B": 2}, "winner": "A", "draw": False, "reason": "no_show",
                        "absent": ["B"]}
    verdict = F.verify_record(record)
    assert verdict.ok, verdict.text()
    assert "decided outside the game" in verdict.text()


@pytest.mark.parametrize("change", ["no_fairness", "not_revealed", "no_events", "hidden_option",
                                    "not_a_dict", "garbage"])
def test_records_that_cannot_be_checked_say_why(change):
    record = engine_record()
    if change == "no_fairness":
        del record["fairness"]
    elif change == "not_revealed":
        record["fairness"]["server_seed"] = None
    elif change == "no_events":
        record["actions"][0]["events"] = None
    elif change == "hidden_option":
        record["options"] = {"decks": "hidden"}
    elif change == "not_a_dict":
        record = [record]
    else:
        record["seats"] = 5
    verdict = F.verify_record(record)
    assert not verdict.ok and verdict.problem, verdict
    assert verdict.what == ("step" if change == "no_events" else "record")


def test_a_players_copy_carries_their_events_and_verifies():
    record = engine_record("duell")
    mine = F.record_for(record, "A")
    assert mine["events_for"] == "A"
    hidden = [e for a in record["actions"] for e in a["events"] if e["vis"] != "all" and "A" not in e["vis"]]
    assert hidden, "a Duell match has events A is not shown (B's draws)"
    assert all(e["vis"] == "all" or "A" in e["vis"] for a in mine["actions"] for e in a["events"])
    assert F.verify_record(mine).ok
    # The viewer matters: A's events are not B's.
    claimed = dict(mine, events_for="B")
    verdict = F.verify_record(claimed)
    assert (verdict.ok, verdict.what) == (False, "step"), verdict.text()


def test_a_record_that_says_it_cannot_be_replayed_is_not_replayed():
    record = engine_record()
    record["replayable"] = False
    verdict = F.verify_record(record)
    assert (verdict.ok, verdict.what) == (False, "record") and "replayable" in verdict.problem

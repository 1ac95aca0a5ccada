"""Properties over random playouts: no leaks (differential), replay, JSON, termination, every legal
entry accepted, strict rejection of garbage, timeouts, view contents."""
import json
import random
from collections import Counter

import pytest

from games.base import GameError, IllegalAction, clone, filter_events
from games.parbaj.bots import random_action
from games.parbaj.cardpool import CARDS, POOL
from games.parbaj.engine import GAME, _deck, _hand

SEATS = ["A", "B"]
ALL_IDS = sorted(CARDS)


def dumps(x):
    return json.dumps(x, sort_keys=True)


def playout(seed, options=None, on_step=None, timeout_rate=0.0):
    st = GAME.setup(options or {}, SEATS, seed)
    rnd = random.Random(seed)
    actions = []
    while GAME.result(st) is None:
        seat = rnd.choice(sorted(GAME.pending(st)))
        if timeout_rate and rnd.random() < timeout_rate:
            new, ev = GAME.timeout(st, seat)
            actions.append((seat, None))
        else:
            act = random_action(GAME.legal(st, seat), rnd)
            if on_step:
                on_step(st, seat, act, rnd)
            new, ev = GAME.apply(st, seat, act)
            actions.append((seat, act))
        st = new
        assert len(actions) < 20000
    return st, actions


# ------------------------------------------------------------------ termination, replay, JSON
@pytest.mark.parametrize("best_of", [1, 3])
def test_random_playouts_terminate_with_a_result(best_of):
    reasons = Counter()
    for seed in range(25):
        st, actions = playout(seed, {"best_of": best_of})
        res = GAME.result(st)
        assert res is not None and set(res["places"]) == set(SEATS)
        assert res["draw"] == (res["places"]["A"] == res["places"]["B"])
        assert GAME.pending(st) == {} and GAME.legal(st, "A") == []
        reasons[res["reason"]] += 1
        if best_of == 3:
            w = res["wins"]
            assert max(w.values()) >= 2 or len(res["games"]) == 3
    assert sum(reasons.values()) == 25


@pytest.mark.slow
def test_replay_is_deterministic_and_state_is_json():
    for seed in range(6):
        seen = []

        def check(st, seat, act, rnd):
            assert json.loads(json.dumps(st)) == st
            seen.append(dumps(st))  # noqa: B023  (called within this iteration)

        st, actions = playout(seed, {"best_of": 3}, on_step=check)
        replay = GAME.setup({"best_of": 3}, SEATS, seed)
        for i, (seat, act) in enumerate(actions):
            assert dumps(replay) == seen[i]
            replay, _ = GAME.apply(replay, seat, act)
        assert replay == st
        assert json.loads(json.dumps(st)) == st


def test_apply_does_not_mutate_its_input():
    def check(st, seat, act, rnd):
        before = dumps(st)
        GAME.apply(st, seat, act)
        GAME.view(st, seat)
        GAME.legal(st, seat)
        assert dumps(st) == before

    playout(3, on_step=check)


# ------------------------------------------------------------------ legal entries
def test_every_legal_entry_is_accepted():
    count = Counter()

    def check(st, seat, act, rnd):
        legal = GAME.legal(st, seat)
        assert legal, "a pending seat always has something to do"
        assert len({dumps(a) for a in legal}) == len(legal)
        for a in legal:
            GAME.apply(st, seat, a)
            count[a["type"]] += 1

    for seed in range(4):
        playout(seed, {"best_of": 3}, on_step=check)
    for kind in ("choose_deck", "choose_first", "place", "place_field", "place_coach", "done",
                 "take_token", "coach", "evolve", "attach", "declare", "pass"):
        assert count[kind], kind


def _garbage(rnd, st):
    return rnd.choice([None, 0, -1, 7, True, "", "zz", [], {}, "A1", "B3", "fire", "any",
                       rnd.choice(ALL_IDS), 1.5])


def test_garbage_actions_raise_game_errors_only():
    def check(st, seat, act, rnd):
        for _ in range(6):
            bad = dict(act)
            r = rnd.random()
            keys = [k for k in bad if k != "type"]
            if r < 0.3 and keys:
                del bad[rnd.choice(keys)]
            elif r < 0.5:
                bad[rnd.choice(["x", "card", "target", "token", "seat"])] = _garbage(rnd, st)
            elif keys:
                bad[rnd.choice(keys)] = _garbage(rnd, st)
            else:
                bad["type"] = rnd.choice(["place", "declare", "pass", "evolve", "nope"])
            try:
                GAME.apply(st, seat, bad)
            except GameError:
                pass
        other = "B" if seat == "A" else "A"
        if other not in GAME.pending(st):
            with pytest.raises(GameError):
                GAME.apply(st, other, act)

    for seed in range(4):
        playout(seed, on_step=check)


def test_promote_and_promotion_choice_reached_in_playouts():
    kinds = Counter()
    for seed in range(40):
        st, actions = playout(seed)
        kinds.update(a["type"] for _, a in actions if a)
    assert kinds["promote"] > 0


# ------------------------------------------------------------------ timeouts
def test_timeouts_play_defaults_and_playouts_still_end():
    for seed in range(8):
        st, actions = playout(seed, {"max_timeouts": 20, "best_of": 3}, timeout_rate=0.35)
        assert GAME.result(st) is not None


def test_default_actions_are_sensible():
    st = GAME.setup({"max_timeouts": 20}, SEATS, 1)
    st, ev = GAME.timeout(st, "A")
    assert st["decks"]["A"] is not None and [e["type"] for e in ev][:2] == ["timeout", "your_deck"]
    st, _ = GAME.timeout(st, "B")
    w = st["die_winner"]
    st, _ = GAME.timeout(st, w)
    assert st["starter"] == w
    while st["phase"] in ("place", "cards"):
        st, _ = GAME.timeout(st, st["active"])
    seat = st["active"]
    st, _ = GAME.timeout(st, seat)  # takes a token
    assert st["players"][seat]["took_token"] or not st["players"][seat]["fields"]
    if st["phase"] == "prep" and st["active"] == seat:
        st, ev = GAME.timeout(st, seat)  # then finishes preparing
        assert any(e["type"] == "prep_done" for e in ev)


def test_consecutive_timeouts_forfeit():
    st = GAME.setup({"max_timeouts": 2, "decks": {"A": ["stray_dog"], "B": ["stray_dog"]}}, SEATS, 9)
    w = st["die_winner"]
    st, _ = GAME.timeout(st, w)
    st = GAME.apply(st, st["active"], GAME.legal(st, st["active"])[0])[0] if st["active"] != w else st
    while GAME.result(st) is None:
        seat = sorted(GAME.pending(st))[0]
        if seat == w:
            st, ev = GAME.timeout(st, seat)
        else:
            st, ev = GAME.apply(st, seat, GAME.default_action(st, seat))
    res = GAME.result(st)
    assert res["reason"] == "timeouts" and res["places"][w] == 2


# ------------------------------------------------------------------ views
def test_views_never_show_other_hands_or_deck_lists():
    def check(st, seat, act, rnd):
        for viewer in ("A", "B", "spectator"):
            v = GAME.view(st, viewer)
            assert "seed" not in v and "decks" not in v["options"]
            for s in SEATS:
                pv = v["players"][s]
                hidden = {"hand", "deck", "deck_name", "promote"}
                if s == viewer:
                    assert hidden <= set(pv)
                    assert sorted(pv["hand"]) == sorted(_hand(st["players"][s]))
                else:
                    assert not hidden & set(pv), (viewer, s)
                assert pv["hand_size"] == len(_hand(st["players"][s]))
        om = GAME.view(st, "omniscient")
        assert all("hand" in om["players"][s] for s in SEATS)

    for seed in range(3):
        playout(seed, on_step=check)


def test_after_the_match_the_record_is_public_unless_closed():
    st, _ = playout(5)
    for viewer in ("A", "B", "spectator"):
        v = GAME.view(st, viewer)
        assert all("hand" in v["players"][s] and "deck" in v["players"][s] for s in SEATS)
        assert v == {**GAME.view(st, "omniscient"), "viewer": viewer}
    st, _ = playout(5, {"open_deck_lists": False})
    assert "hand" not in GAME.view(st, "A")["players"]["B"]
    assert "hand" not in GAME.view(st, "spectator")["players"]["A"]


def test_view_shows_battlefield_tokens_injuries_discard_and_declarations():
    def check(st, seat, act, rnd):
        v = GAME.view(st, "spectator")
        for s in SEATS:
            p = st["players"][s]
            pv = v["players"][s]
            assert pv["tokens"] == p["tokens"] and pv["discard"] == p["discard"]
            assert pv["front"] == p["front"] and pv["reserve"] == p["reserve"]
            assert pv["fields"] == p["fields"] and pv["coach"] == p["coach"]
            assert [d["creature"] for d in pv["declared"]] == [d["creature"] for d in p["declared"]]
        for uid, cr in st["creatures"].items():
            assert v["creatures"][uid]["injuries"] == cr["injuries"]
            assert v["creatures"][uid]["card"] == cr["card"]

    playout(2, on_step=check)


# ------------------------------------------------------------------ differential no-leak test
def _perturb(state, seat, rnd, keep=()):
    """Same state except ``seat``'s hidden information: other hand contents (same size) and a
    deck list changed to match. Cards in ``keep`` stay in the hand."""
    st = clone(state)
    if st["decks"][seat] is None:
        return st
    hand = _hand(st["players"][seat])
    deck = Counter(_deck(st, seat))
    new = []
    kept = list(keep)
    for c in hand:
        if c in kept:
            kept.remove(c)
            new.append(c)
        else:
            new.append(rnd.choice(ALL_IDS))
    if (not hand and st["phase"] == "deck") or (not hand and st["players"][seat]["front"] is None):
        # Before the game starts the whole deck is the secret.
        new_deck = [rnd.choice(ALL_IDS) for _ in range(sum(deck.values()))]
        st["decks"][seat] = ",".join(new_deck)
        return st
    deck.subtract(Counter(hand))
    deck.update(Counter(new))
    st["decks"][seat] = ",".join(sorted(deck.elements()))
    st["players"][seat]["hand"] = ",".join(sorted(new))
    st["deck_names"][seat] = rnd.choice(["Other", None, "Custom deck"])
    return st


def _same(st1, st2, viewers):
    for v in viewers:
        assert dumps(GAME.view(st1, v)) == dumps(GAME.view(st2, v)), v


@pytest.mark.slow
@pytest.mark.parametrize("open_lists", [True, False])
def test_differential_no_leak(open_lists):
    checked = Counter()

    def check(st, seat, act, rnd):
        other = "B" if seat == "A" else "A"
        keep = [act[k] for k in ("card",) if k in act]
        for hidden, observers in ((seat, [other, "spectator"]), (other, [seat, "spectator"])):
            alt = _perturb(st, hidden, rnd, keep if hidden == seat else ())
            if alt == st:
                continue
            _same(st, alt, observers)
            try:
                n1, e1 = GAME.apply(st, seat, act)
                n2, e2 = GAME.apply(alt, seat, act)
            except IllegalAction:
                continue  # the perturbed hand cannot make this move: nothing to compare
            if GAME.result(n1) is not None and open_lists:
                continue  # after the match the record is public
            for v in observers:
                assert dumps(filter_events(e1, v)) == dumps(filter_events(e2, v)), (v, act)
            _same(n1, n2, observers)
            checked[hidden == seat] += 1

    opts = {"open_deck_lists": open_lists, "best_of": 3}
    for seed in range(12):
        playout(seed, opts, on_step=check)
    assert checked[True] > 500 and checked[False] > 500


def test_differential_no_leak_starter_decks():
    """The deck choice itself: whichever same-size starter deck A picks, B and spectators see the
    same view and the same events."""
    by_size = {}
    for d in POOL.decks.values():
        by_size.setdefault(len(d["cards"]), []).append(d["id"])
    pairs = [ids for ids in by_size.values() if len(ids) > 1]
    assert pairs
    for ids in pairs:
        for seed in range(3):
            st = GAME.setup({}, SEATS, seed)
            outs = []
            for deck in ids:
                n, ev = GAME.apply(st, "A", {"type": "choose_deck", "deck": deck})
                n2, ev2 = GAME.apply(n, "B", {"type": "choose_deck", "deck": "wildfire"})
                outs.append({v: (dumps(GAME.view(n, v)), dumps(filter_events(ev, v)),
                                 dumps(GAME.view(n2, v)), dumps(filter_events(ev2, v)))
                             for v in ("B", "spectator")})
            assert all(o == outs[0] for o in outs)

"""Deck choice, die roll, choosing the starter, placement, fields and coach, action shapes."""
import pytest

from games.base import IllegalAction, InvalidOptions, NotYourTurn, filter_events
from games.parbaj.cardpool import POOL
from games.parbaj.engine import GAME
from games.parbaj.scenario import start, step, uid_of


def fresh(seed=1, **opts):
    return GAME.setup(opts, ["A", "B"], seed)


def test_options_schema_and_defaults():
    schema = GAME.options_schema()["properties"]
    assert schema["best_of"]["enum"] == [1, 3, 5] and schema["max_rounds"]["default"] == 40
    assert schema["decks"]["type"] == ["object", "null"]
    st = fresh()
    assert st["options"]["best_of"] == 1 and st["options"]["decks"] is None
    with pytest.raises(InvalidOptions):
        fresh(best_of=2)


def test_both_seats_choose_a_deck_first_secretly():
    st = fresh()
    assert GAME.pending(st) == {"A": "choose_deck", "B": "choose_deck"}
    assert GAME.legal(st, "A") == [{"type": "choose_deck", "deck": d} for d in POOL.decks]
    st, ev = GAME.apply(st, "A", {"type": "choose_deck", "deck": "wildfire"})
    assert GAME.pending(st) == {"B": "choose_deck"}
    assert filter_events(ev, "B") == [{"type": "deck_chosen", "seat": "A"}]
    assert filter_events(ev, "spectator") == [{"type": "deck_chosen", "seat": "A"}]
    mine = filter_events(ev, "A")[0]
    assert mine["type"] == "your_deck" and mine["name"] == "Wildfire" and len(mine["cards"]) == 15
    vb = GAME.view(st, "B")["players"]["A"]
    assert vb["deck_chosen"] is True and vb["deck_size"] is None and "deck" not in vb and "hand" not in vb
    va = GAME.view(st, "A")["players"]["A"]
    assert va["deck_name"] == "Wildfire" and va["deck_size"] == 15


def test_custom_deck_and_bad_choices():
    st = fresh()
    with pytest.raises(IllegalAction, match="no starter deck"):
        GAME.apply(st, "A", {"type": "choose_deck", "deck": "nope"})
    with pytest.raises(IllegalAction, match=r"Inferno Wolf .level III. evolves from Blaze Hound"):
        GAME.apply(st, "A", {"type": "choose_deck", "cards": ["ember_pup", "inferno_wolf"]})
    with pytest.raises(IllegalAction, match="does not take"):
        GAME.apply(st, "A", {"type": "choose_deck", "deck": "wildfire", "cards": []})
    with pytest.raises(IllegalAction, match="needs 'deck'"):
        GAME.apply(st, "A", {"type": "choose_deck"})
    st, _ = GAME.apply(st, "A", {"type": "choose_deck", "cards": ["stray_dog", "volcano"]})
    assert GAME.view(st, "A")["players"]["A"]["deck"] == ["stray_dog", "volcano"]


def test_decks_from_options_skip_the_choice():
    st = fresh(decks={"A": ["stray_dog"]})
    assert GAME.pending(st) == {"B": "choose_deck"}
    st = fresh(decks={"A": ["stray_dog"], "B": ["ember_pup"]})
    assert st["phase"] == "first" and GAME.pending(st) == {st["die_winner"]: "choose_first"}
    # The options never show the decks in any view.
    for viewer in ("A", "B", "spectator"):
        assert "decks" not in GAME.view(st, viewer)["options"]
    with pytest.raises(InvalidOptions, match="seat A cannot be played"):
        fresh(decks={"A": ["inferno_wolf"]})
    with pytest.raises(InvalidOptions, match="not a seat"):
        fresh(decks={"C": ["stray_dog"]})
    with pytest.raises(InvalidOptions):
        fresh(decks=["stray_dog"])


def test_die_roll_is_seeded_public_and_rerolls_ties():
    seen_tie = False
    for seed in range(60):
        st = fresh(seed, decks={"A": ["stray_dog"], "B": ["stray_dog"]})
        again = fresh(seed, decks={"A": ["stray_dog"], "B": ["stray_dog"]})
        assert st["rolls"] == again["rolls"]
        *ties, last = st["rolls"]
        assert all(r["A"] == r["B"] for r in ties) and last["A"] != last["B"]
        assert all(1 <= v <= 6 for r in st["rolls"] for v in r.values())
        assert st["die_winner"] == max(last, key=last.get)
        assert GAME.view(st, "spectator")["rolls"] == st["rolls"]
        seen_tie = seen_tie or bool(ties)
    assert seen_tie


def test_die_roll_events_after_last_deck_choice():
    st = fresh(3)
    st, _ = GAME.apply(st, "B", {"type": "choose_deck", "deck": "nightfall"})
    st, ev = GAME.apply(st, "A", {"type": "choose_deck", "deck": "wildfire"})
    rolls = [e for e in filter_events(ev, "spectator") if e["type"] == "die_roll"]
    assert [r["rolls"] for r in rolls] == st["rolls"]


def test_higher_roll_chooses_who_starts():
    st = fresh(2, decks={"A": ["stray_dog"], "B": ["stray_dog"]})
    w = st["die_winner"]
    other = "B" if w == "A" else "A"
    with pytest.raises(NotYourTurn):
        GAME.apply(st, other, {"type": "choose_first", "seat": other})
    with pytest.raises(IllegalAction, match="not a seat"):
        GAME.apply(st, w, {"type": "choose_first", "seat": "C"})
    st, _ = GAME.apply(st, w, {"type": "choose_first", "seat": other})
    assert st["starter"] == other and st["phase"] == "place" and GAME.pending(st) == {other: "place"}


# ------------------------------------------------------------------ placement
DECK_A = ["ember_pup", "ember_pup", "spark_salamander", "pebble_golem", "burrow_mole",
          "blaze_hound", "volcano", "ashen_ruins", "sergeant_bors"]
DECK_B = ["stray_dog", "tide_otter"]


def placing():
    st = fresh(4, decks={"A": DECK_A, "B": DECK_B})
    return step(st, st["die_winner"], {"type": "choose_first", "seat": "A"})


def test_placement_alternates_level_one_only():
    st = placing()
    legal = GAME.legal(st, "A")
    assert {a["card"] for a in legal} == {"ember_pup", "spark_salamander", "pebble_golem", "burrow_mole"}
    with pytest.raises(IllegalAction, match="Only level I"):
        GAME.apply(st, "A", {"type": "place", "card": "blaze_hound", "slot": "reserve"})
    with pytest.raises(IllegalAction, match="not in your hand"):
        GAME.apply(st, "A", {"type": "place", "card": "tide_otter", "slot": "reserve"})
    with pytest.raises(IllegalAction, match="'slot' is"):
        GAME.apply(st, "A", {"type": "place", "card": "ember_pup", "slot": "bench"})
    st, ev = GAME.apply(st, "A", {"type": "place", "card": "ember_pup", "slot": "reserve"})
    assert filter_events(ev, "B") == [{"type": "placed", "seat": "A", "creature": "A1",
                                       "card": "ember_pup", "slot": "reserve"}]
    assert GAME.pending(st) == {"B": "place"}
    # B keeps its last level I creature for the frontline.
    assert GAME.legal(st, "B") == [{"type": "place", "card": "stray_dog", "slot": "reserve"},
                                   {"type": "place", "card": "tide_otter", "slot": "reserve"},
                                   {"type": "place", "card": "stray_dog", "slot": "frontline"},
                                   {"type": "place", "card": "tide_otter", "slot": "frontline"}]
    st = step(st, "B", {"type": "place", "card": "stray_dog", "slot": "reserve"})
    st = step(st, "A", {"type": "place", "card": "ember_pup", "slot": "reserve"})
    with pytest.raises(IllegalAction, match="Keep a level I creature for the frontline"):
        GAME.apply(st, "B", {"type": "place", "card": "tide_otter", "slot": "reserve"})
    st = step(st, "B", {"type": "place", "card": "tide_otter", "slot": "frontline"})
    # B is done; A places alone, may stop filling the reserve by placing its frontline.
    assert GAME.pending(st) == {"A": "place"}
    st = step(st, "A", {"type": "place", "card": "pebble_golem", "slot": "reserve"})
    assert GAME.pending(st) == {"A": "place"}
    st = step(st, "A", {"type": "place", "card": "burrow_mole", "slot": "frontline"})
    assert st["phase"] == "cards" and GAME.pending(st) == {"A": "place_cards"}
    assert len(st["players"]["A"]["reserve"]) == 3


def test_reserve_holds_at_most_four():
    deck = ["stray_dog"] * 6
    st = GAME.setup({"decks": {"A": deck, "B": ["stray_dog"]}}, ["A", "B"], 1)
    st = step(st, st["die_winner"], {"type": "choose_first", "seat": "B"})
    st = step(st, "B", {"type": "place", "card": "stray_dog", "slot": "frontline"})
    for _ in range(4):
        st = step(st, "A", {"type": "place", "card": "stray_dog", "slot": "reserve"})
    assert GAME.legal(st, "A") == [{"type": "place", "card": "stray_dog", "slot": "frontline"}]
    with pytest.raises(IllegalAction, match="reserve is full"):
        GAME.apply(st, "A", {"type": "place", "card": "stray_dog", "slot": "reserve"})


def test_fields_need_a_creature_of_their_type_or_a_neutral():
    st = placing()
    for card, slot in (("ember_pup", "reserve"), ("stray_dog", "reserve"), ("pebble_golem", "frontline"),
                       ("tide_otter", "frontline")):
        st = step(st, st["active"], {"type": "place", "card": card, "slot": slot})
    # A: fire + earth on the battlefield. Volcano fits; Ashen Ruins (shadow/fire) fits by fire.
    assert {a.get("card") for a in GAME.legal(st, "A")} == {"volcano", "ashen_ruins", "sergeant_bors", None}
    st = step(st, "A", {"type": "place_field", "card": "volcano"})
    st = step(st, "A", {"type": "place_coach", "card": "sergeant_bors"})
    assert GAME.legal(st, "A") == [{"type": "place_field", "card": "ashen_ruins"}, {"type": "done"}]
    st = step(st, "A", {"type": "done"})
    assert GAME.pending(st) == {"B": "place_cards"}
    assert st["players"]["A"]["fields"] == ["volcano"] and st["players"]["A"]["coach"] == "sergeant_bors"


def test_field_without_matching_creature_is_refused_and_neutral_unlocks_it():
    deck = ["ember_pup", "tide_otter", "stray_dog", "sky_temple", "abyss"]
    st = GAME.setup({"decks": {"A": deck, "B": ["stray_dog"]}}, ["A", "B"], 1)
    st = step(st, st["die_winner"], {"type": "choose_first", "seat": "A"})
    st = step(st, "A", {"type": "place", "card": "ember_pup", "slot": "reserve"})
    st = step(st, "B", {"type": "place", "card": "stray_dog", "slot": "frontline"})
    st = step(st, "A", {"type": "place", "card": "tide_otter", "slot": "frontline"})
    # Fire + water: Abyss (water/shadow) fits, Sky Temple (light/air) does not.
    assert [a for a in GAME.legal(st, "A") if a["type"] == "place_field"] == [
        {"type": "place_field", "card": "abyss"}]
    with pytest.raises(IllegalAction, match="Sky Temple needs a light, air or neutral creature"):
        GAME.apply(st, "A", {"type": "place_field", "card": "sky_temple"})
    # The same deck with the neutral Stray Dog on the battlefield may place Sky Temple.
    st = GAME.setup({"decks": {"A": deck, "B": ["stray_dog"]}}, ["A", "B"], 1)
    st = step(st, st["die_winner"], {"type": "choose_first", "seat": "A"})
    st = step(st, "A", {"type": "place", "card": "ember_pup", "slot": "reserve"})
    st = step(st, "B", {"type": "place", "card": "stray_dog", "slot": "frontline"})
    st = step(st, "A", {"type": "place", "card": "stray_dog", "slot": "frontline"})
    st = step(st, "A", {"type": "place_field", "card": "sky_temple"})
    st = step(st, "A", {"type": "place_field", "card": "abyss"})
    assert st["players"]["A"]["fields"] == ["sky_temple", "abyss"]
    assert GAME.view(st, "B")["players"]["A"]["field_types"] == ["water", "air", "light", "shadow"]


def test_cards_not_placed_at_setup_cannot_be_used_later():
    st = start(["ember_pup"], ["stray_dog"], hand_a=["volcano", "sergeant_bors"])
    assert st["phase"] == "prep"
    with pytest.raises(IllegalAction, match="not possible now"):
        GAME.apply(st, "A", {"type": "place_field", "card": "volcano"})
    with pytest.raises(IllegalAction, match="not possible now"):
        GAME.apply(st, "A", {"type": "place", "card": "ember_pup", "slot": "reserve"})
    assert all(a["type"] == "done" for a in GAME.legal(st, "A"))


# ------------------------------------------------------------------ action shapes
@pytest.mark.parametrize("action, words", [
    ({"type": "fly"}, "not possible now"),
    ({"type": "take_token"}, "needs the field 'token'"),
    ({"type": "take_token", "token": "fire", "extra": 1}, "does not take the field"),
    ({"type": "take_token", "token": 3}, "wrong type"),
    ({"type": "done", "now": True}, "does not take"),
    ("done", "An action is an object"),
    ({"kind": "done"}, "An action is an object"),
])
def test_bad_action_shapes(action, words):
    st = start(["ember_pup"], ["stray_dog"], fields_a=["volcano"])
    with pytest.raises(IllegalAction, match=words):
        GAME.apply(st, "A", action)


def test_declare_field_types_are_strict():
    st = start(["ember_pup"], ["stray_dog"])
    st = step(step(st, "A", {"type": "done"}), "B", {"type": "done"})
    a = uid_of(st, "A", "ember_pup")
    for bad in ({"ability": True}, {"ability": "1"}, {"target": 5}, {"creature": None}):
        act = {"type": "declare", "creature": a, "ability": 1, "target": uid_of(st, "B", "stray_dog"),
               "token": None, **bad}
        with pytest.raises(IllegalAction, match="wrong type"):
            GAME.apply(st, "A", act)
    with pytest.raises(IllegalAction, match="needs the field 'token'"):
        GAME.apply(st, "A", {"type": "declare", "creature": a, "ability": 1, "target": None})


def test_resign_ends_the_match():
    st = start(["ember_pup"], ["stray_dog"])
    st, ev = GAME.apply(st, "B", {"type": "resign"})
    assert GAME.result(st)["winner"] == "A" and GAME.result(st)["reason"] == "resigned"

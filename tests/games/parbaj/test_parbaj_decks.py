"""Deck validation messages (one per rule) and text import/export."""
import random

import pytest

from games.parbaj.cardpool import CARDS, POOL
from games.parbaj.decks import DeckTextError, deck_from_text, deck_to_text, validate_deck

BASE = ["ember_pup", "ember_pup", "blaze_hound", "volcano", "sergeant_bors"]


def codes(ids):
    return [p.code for p in validate_deck(ids)]


def test_small_legal_deck():
    assert validate_deck(BASE) == []


def test_too_many_cards():
    ids = BASE + ["stray_dog"] * 11
    (p,) = validate_deck(ids)
    assert p.code == "too_many_cards"
    assert "16 cards" in p.message and "at most 15" in p.message
    assert validate_deck(BASE + ["stray_dog"] * 10) == []


def test_third_field():
    (p,) = validate_deck(BASE + ["stray_dog", "ashen_ruins", "abyss"])
    assert p.code == "too_many_fields"
    assert "3 different token fields" in p.message and "at most 2" in p.message
    assert "Ashen Ruins" in p.message and "Abyss" in p.message
    assert p.cards == ("volcano", "ashen_ruins", "abyss")


def test_field_limit_counts_kinds_not_cards():
    # "Legfeljebb 2 eltérő zsetonmező": two Volcanoes and an Abyss are two different fields.
    assert validate_deck(BASE + ["volcano", "ashen_ruins"]) == []
    assert validate_deck(BASE + ["stray_dog", "volcano", "abyss"]) == []
    assert validate_deck(BASE + ["volcano", "volcano", "volcano"]) == []
    (p,) = validate_deck(BASE + ["stray_dog", "volcano", "abyss", "ashen_ruins"])
    assert p.code == "too_many_fields"
    assert "3 different token fields" in p.message
    assert p.cards == ("volcano", "abyss", "ashen_ruins")


def test_second_coach():
    (p,) = validate_deck(BASE + ["old_marta"])
    assert p.code == "too_many_coaches"
    assert "Sergeant Bors" in p.message and "Old Marta" in p.message and "only one coach" in p.message


def test_evolution_without_base():
    (p,) = validate_deck(["ember_pup", "inferno_wolf"])
    assert p.code == "missing_base"
    assert p.message == ("Inferno Wolf (level III) evolves from Blaze Hound, which is not in the "
                         "deck, so it could never be played.")
    assert p.cards == ("inferno_wolf",)
    assert codes(["tide_otter", "blaze_hound"]) == ["missing_base"]


def test_field_without_creature_of_its_types():
    (p,) = validate_deck(["tide_otter", "volcano"])
    assert p.code == "field_without_creature"
    assert "Volcano (fire/earth)" in p.message and "neutral" in p.message


def test_neutral_creature_allows_any_field():
    assert validate_deck(["stray_dog", "volcano", "sky_temple"]) == []


def test_field_needs_a_level_one_creature_of_its_type():
    # Only a level I creature can be on the battlefield when fields are placed.
    assert "field_without_creature" in codes(["tide_otter", "blaze_hound", "volcano"])


def test_unknown_card():
    ps = validate_deck(BASE + ["dragon_god"])
    assert [p.code for p in ps] == ["unknown_card"]
    assert ps[0].message == "'dragon_god' is not a Párbaj card."


def test_no_level_one_creature():
    (p,) = validate_deck(["sergeant_bors", "power_strike"])
    assert p.code == "no_level_one"
    assert "no level I creature" in p.message
    assert codes([]) == ["no_level_one"]


def test_not_a_list():
    assert codes("ember_pup") == ["not_a_list"]
    assert codes(["ember_pup", 3]) == ["not_a_list"]


def test_several_problems_are_all_reported():
    ps = codes(["inferno_wolf"] * 16 + ["volcano", "abyss", "sky_temple"]
               + ["old_marta", "sergeant_bors", "nope"])
    assert set(ps) == {"unknown_card", "too_many_cards", "too_many_fields", "too_many_coaches",
                       "missing_base", "field_without_creature", "no_level_one"}


def test_problem_to_dict():
    (p,) = validate_deck(["ember_pup", "inferno_wolf"])
    assert p.to_dict() == {"code": "missing_base", "message": p.message, "cards": ["inferno_wolf"]}


# ---------------------------------------------------------------- text import / export
def test_export_format():
    text = deck_to_text(POOL.decks["wildfire"]["cards"])
    lines = text.strip().split("\n")
    assert lines[0] == "1× Sergeant Bors"
    assert lines[1] == "1× Volcano"
    assert "2× Ember Pup" in lines


@pytest.mark.parametrize("deck", sorted(POOL.decks))
def test_round_trip_starter_decks(deck):
    ids = POOL.decks[deck]["cards"]
    text = deck_to_text(ids)
    back = deck_from_text(text)
    assert sorted(back) == sorted(ids)
    assert deck_to_text(back) == text


def test_round_trip_random_lists():
    rnd = random.Random(7)
    ids = sorted(CARDS)
    for _ in range(50):
        deck = [rnd.choice(ids) for _ in range(rnd.randint(0, 20))]
        assert sorted(deck_from_text(deck_to_text(deck))) == sorted(deck)


def test_import_is_forgiving_about_format():
    text = "# my deck\n\n2x Ember Pup\n1 x blaze hound\n3 Stray Dog\nVolcano\n1*sergeant_bors\n  1×Tide Otter  \n"
    assert sorted(deck_from_text(text)) == sorted(
        ["ember_pup"] * 2 + ["blaze_hound"] + ["stray_dog"] * 3 + ["volcano", "sergeant_bors",
                                                                 "tide_otter"])


def test_import_reports_every_bad_line():
    with pytest.raises(DeckTextError) as exc:
        deck_from_text("2× Ember Pup\n1× Dragon God\n0× Stray Dog\n1× Phoenix")
    msgs = [p.message for p in exc.value.problems]
    assert msgs == ["Line 2: there is no card named 'Dragon God'.",
                    "Line 3: 0 copies of Stray Dog is not a count.",
                    "Line 4: there is no card named 'Phoenix'."]


def test_import_then_validate():
    ids = deck_from_text("1× Inferno Wolf\n1× Ember Pup")
    assert codes(ids) == ["missing_base"]

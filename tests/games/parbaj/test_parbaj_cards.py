"""Card pool: schema validation with errors naming file/card/field, pool contents, card text."""
from pathlib import Path

import pytest
import yaml

from games.parbaj import rules as R
from games.parbaj.cardlist import BEGIN, END, card_list_markdown
from games.parbaj.cardpool import CARDS, CARDS_DIR, POOL, CardDataError, card_text, load_pool
from games.parbaj.decks import validate_deck

DOCS = Path(__file__).resolve().parents[3] / "docs" / "rules" / "parbaj.md"


# ---------------------------------------------------------------- the shipped pool
def test_pool_sizes():
    kinds = {}
    for c in CARDS.values():
        kinds[c["kind"]] = kinds.get(c["kind"], 0) + 1
    assert kinds["creature"] >= 36
    assert kinds["field"] == 6
    assert kinds["coach"] == 4
    assert kinds["ability"] == 12


def test_every_element_and_neutral_has_a_full_evolution_line():
    for t in R.TYPES:
        threes = [c for c in CARDS.values() if c["kind"] == "creature" and c["type"] == t
                  and c["level"] == 3]
        assert threes, t
        for c in threes:
            two = CARDS[c["evolves_from"]]
            one = CARDS[two["evolves_from"]]
            assert (two["level"], one["level"]) == (2, 1)
            assert two["type"] == one["type"] == t


def test_fields_provide_two_elements_and_cover_all_six():
    fields = POOL.of_kind("field")
    seen = set()
    for f in fields:
        assert len(set(f["types"])) == 2 and set(f["types"]) <= set(R.ELEMENTS)
        seen |= set(f["types"])
    assert seen == set(R.ELEMENTS)


def test_coaches_have_a_costed_active_and_optional_passive():
    coaches = POOL.of_kind("coach")
    assert any(c["passive"] for c in coaches)
    assert any(not c["passive"] for c in coaches)
    assert any(c["active"]["cost"] for c in coaches)


def _all_abilities():
    for c in CARDS.values():
        if c["kind"] == "creature":
            yield from c["abilities"]
        elif c["kind"] == "ability":
            yield c["ability"]
        elif c["kind"] == "coach":
            yield c["active"]


def test_every_keyword_is_used():
    used = set()
    for ab in _all_abilities():
        used |= {k for k in R.KEYWORDS if ab[k]}
    assert used == set(R.KEYWORDS)


def test_creature_abilities_are_paid_with_their_own_type_or_any():
    for c in POOL.of_kind("creature"):
        allowed = {R.ANY} if c["type"] == R.NEUTRAL else {c["type"], R.ANY}
        for ab in c["abilities"]:
            assert set(ab["cost"]) <= allowed, (c["id"], ab["name"])


def test_starter_decks_are_legal_and_described():
    assert len(POOL.decks) >= 6
    for d in POOL.decks.values():
        assert d["name"] and d["idea"] and "\n" not in d["idea"]
        assert validate_deck(d["cards"]) == []


# ---------------------------------------------------------------- card text from data
def test_card_text_is_generated_from_the_numbers():
    for c in POOL.of_kind("creature"):
        text = card_text(c)
        assert f"Endurance {c['endurance']}" in text
        for ab in c["abilities"]:
            assert ab["name"] in text
            if ab["damage"]:
                assert f"Deal {ab['damage']} {c['type']} base damage" in text
            for k in ("heal", "armor", "poison"):
                if ab[k]:
                    assert str(ab[k]) in text
        if c["weakness"]:
            assert f"Weakness: {c['weakness']}" in text


def test_card_text_changes_when_the_data_changes():
    card = dict(CARDS["ember_pup"])
    card["abilities"] = [dict(card["abilities"][0], damage=7)]
    assert "Deal 7 fire base damage" in card_text(card)


def test_docs_card_list_is_up_to_date():
    text = DOCS.read_text(encoding="utf-8")
    a, b = text.index(BEGIN), text.index(END) + len(END)
    assert text[a:b] == card_list_markdown(), "run: python -m games.parbaj.cardlist --write docs/rules/parbaj.md"


# ---------------------------------------------------------------- schema errors
def _write_pool(tmp_path, files: dict):
    for name, data in files.items():
        (tmp_path / name).write_text(data if isinstance(data, str) else yaml.safe_dump(data),
                                     encoding="utf-8")
    return tmp_path


def _copy_pool(tmp_path, skip=()):
    for p in CARDS_DIR.glob("*.yaml"):
        if p.name not in skip:
            (tmp_path / p.name).write_text(p.read_text(encoding="utf-8"), encoding="utf-8")


GOOD = {"id": "test_imp", "name": "Test Imp", "type": "fire", "level": 1, "endurance": 5,
        "abilities": [{"name": "Poke", "kind": "attack", "cost": {"fire": 1}, "damage": 2}]}


def _errors(tmp_path, cards, kind="creature"):
    _write_pool(tmp_path, {"broken.yaml": {"kind": kind, "cards": cards}})
    with pytest.raises(CardDataError) as exc:
        load_pool(tmp_path)
    return exc.value.errors, str(exc.value)


def test_copy_of_shipped_pool_loads(tmp_path):
    _copy_pool(tmp_path)
    pool = load_pool(tmp_path)
    assert pool.cards.keys() == CARDS.keys() and pool.decks.keys() == POOL.decks.keys()


@pytest.mark.parametrize("change, field, words", [
    ({"endurance": 0}, "endurance", "whole number"),
    ({"endurance": "ten"}, "endurance", "whole number"),
    ({"type": "lava"}, "type", "must be one of"),
    ({"level": 4}, "level", "whole number"),
    ({"weakness": "fire", "immunity": "fire"}, "immunity", "same type"),
    ({"colour": "red"}, "colour", "not a known field"),
    ({"abilities": []}, "abilities", "1 to 3"),
])
def test_broken_creature_names_file_card_and_field(tmp_path, change, field, words):
    errors, text = _errors(tmp_path, [dict(GOOD, **change)])
    e = errors[0]
    assert (e.file, e.card, e.field) == ("broken.yaml", "test_imp", field)
    assert words in e.message
    assert "broken.yaml: card 'test_imp': field '" + field + "'" in text


@pytest.mark.parametrize("ability, field, words", [
    ({"name": "X", "kind": "attack", "damage": 2, "heal": 1}, "abilities[0].heal", "cannot have 'heal'"),
    ({"name": "X", "kind": "attack", "damage": 2, "lifesteal": 1}, "abilities[0].lifesteal", "not a known field"),
    ({"name": "X", "kind": "attack", "cost": {"water": 1}, "damage": 2}, "abilities[0].cost.water", "token type"),
    ({"name": "X", "kind": "attack", "damage": 0}, "abilities[0].damage", "whole number"),
    ({"name": "X", "kind": "attack", "damage": 2, "area": True, "assassin": True}, "abilities[0].assassin", "area"),
    ({"name": "X", "kind": "support", "token": "yes"}, "abilities[0].token", "true or false"),
    ({"name": "X", "kind": "magic", "damage": 1}, "abilities[0].kind", "must be one of"),
    ({"name": "X", "kind": "attack", "boost": 2}, "abilities[0]", "damage, poison or stun"),
])
def test_broken_ability_names_the_field(tmp_path, ability, field, words):
    errors, _ = _errors(tmp_path, [dict(GOOD, abilities=[ability])])
    assert errors[0].card == "test_imp" and errors[0].field == field
    assert words in errors[0].message


def test_evolution_must_name_a_lower_level_of_the_same_type(tmp_path):
    _copy_pool(tmp_path)
    errors, _ = _errors(tmp_path, [
        dict(GOOD, id="test_two", name="Test Two", level=2, evolves_from="tide_otter"),
        dict(GOOD, id="test_three", name="Test Three", level=3, evolves_from="ember_pup"),
        dict(GOOD, id="test_four", name="Test Four", level=2, evolves_from="nothing_here"),
        dict(GOOD, id="test_five", name="Test Five", level=2),
    ])
    by_card = {e.card: e for e in errors}
    assert by_card["test_two"].field == "evolves_from" and "keeps its type" in by_card["test_two"].message
    assert "evolves from level II" in by_card["test_three"].message
    assert "not a creature" in by_card["test_four"].message
    assert by_card["test_five"].field == "evolves_from"


def test_duplicate_id_and_name(tmp_path):
    _copy_pool(tmp_path)
    _write_pool(tmp_path, {"zz_more.yaml": {"kind": "creature", "cards": [
        dict(GOOD, id="ember_pup"), dict(GOOD, name="Tide Otter")]}})
    with pytest.raises(CardDataError) as exc:
        load_pool(tmp_path)
    assert [(e.file, e.card, e.field) for e in exc.value.errors] == [
        ("zz_more.yaml", "ember_pup", "id"), ("zz_more.yaml", "test_imp", "name")]
    assert "already used in creatures_fire.yaml" in exc.value.errors[0].message


def test_broken_field_coach_and_ability_card(tmp_path):
    errors, _ = _errors(tmp_path, [{"id": "bad_field", "name": "Bad", "types": ["fire", "fire"]}], "field")
    assert (errors[0].card, errors[0].field) == ("bad_field", "types")
    errors, _ = _errors(tmp_path, [{"id": "bad_coach", "name": "Bad",
                                    "active": {"name": "Hit", "damage": 3}}], "coach")
    assert (errors[0].card, errors[0].field) == ("bad_coach", "active.damage")
    errors, _ = _errors(tmp_path, [{"id": "bad_card", "name": "Bad", "kind": "passive",
                                    "damage": 3}], "ability")
    assert (errors[0].card, errors[0].field) == ("bad_card", "damage")


def test_bad_yaml_and_bad_file_shape(tmp_path):
    _write_pool(tmp_path, {"a.yaml": "kind: creature\ncards: [ {id: x", "b.yaml": {"kind": "spell", "cards": []}})
    with pytest.raises(CardDataError) as exc:
        load_pool(tmp_path)
    files = {(e.file, e.field) for e in exc.value.errors}
    assert ("a.yaml", None) in files and ("b.yaml", "kind") in files


def test_broken_starter_deck_is_reported(tmp_path):
    _copy_pool(tmp_path, skip=("decks.yaml",))
    _write_pool(tmp_path, {"decks.yaml": {"decks": [
        {"id": "bad", "name": "Bad", "idea": "x", "cards": {"inferno_wolf": 1, "volcano": 1}},
        {"id": "typo", "name": "Typo", "idea": "x", "cards": {"ember_pupp": 1}}]}})
    with pytest.raises(CardDataError) as exc:
        load_pool(tmp_path)
    got = {(e.file, e.card, e.field) for e in exc.value.errors}
    assert ("decks.yaml", "bad", "cards") in got and ("decks.yaml", "typo", "cards.ember_pupp") in got

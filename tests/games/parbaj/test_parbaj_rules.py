"""Round rules through the real apply path: keywords, step 0, healing, evolution, coach,
declarations, promotion, end of game, best-of."""
import pytest

from games.base import IllegalAction, clone, filter_events
from games.parbaj.engine import GAME
from games.parbaj.scenario import combat, give_tokens, of_type, prep_done, start, step, uid_of


def d(creature, ability, target=None, token=None):
    return {"creature": creature, "ability": ability, "target": target, "token": token}


def one_round(st, declares, log=None, bonus=None, tokens=None):
    st = prep_done(st, log, token=tokens)
    return combat(st, declares, log, bonus=bonus)


def set_injuries(st, uid, n):
    st = clone(st)
    st["creatures"][uid]["injuries"] = n
    return st


# ------------------------------------------------------------------ step 0 and base damage
def fire_vs(target_card, b_fields=(), **kw):
    st = start(["spark_salamander", "ember_pup"], [target_card], fields_a=["volcano"],
               fields_b=list(b_fields), **kw)
    return give_tokens(st, "A", {"fire": 2})


def test_base_damage():
    st = fire_vs("pebble_golem")
    a, b = uid_of(st, "A", "ember_pup"), uid_of(st, "B", "pebble_golem")
    log = []
    st = one_round(st, {"A": [d(a, 0, b)]}, log)
    (dmg,) = of_type(log, "damage")
    assert dmg == {"type": "damage", "source": a, "ability": "Scorch", "target": b,
                   "damage_type": "fire", "base": 2, "weakness": False, "immunity": False,
                   "after_weakness": 2, "boost": 0, "armor": 0, "total": 2}
    assert st["creatures"][b]["injuries"] == 2


def test_weakness_doubles_base_damage_only():
    st = fire_vs("gust_sparrow")  # air, weak to fire, endurance 5
    a, s, b = uid_of(st, "A", "ember_pup"), uid_of(st, "A", "spark_salamander"), uid_of(st, "B", "gust_sparrow")
    log = []
    st = one_round(st, {"A": [d(a, 0, b), d(s, 1, a)]}, log)  # Scorch 2 + War Cry boost 2
    (dmg,) = of_type(log, "damage")
    assert (dmg["base"], dmg["weakness"], dmg["after_weakness"], dmg["boost"], dmg["total"]) == (2, True, 4, 2, 6)
    assert of_type(log, "defeated")[0]["creature"] == b
    assert GAME.result(st)["winner"] == "A"


def test_immunity_zeroes_base_damage_only():
    st = fire_vs("spark_salamander")  # immune to fire
    a, s = uid_of(st, "A", "ember_pup"), uid_of(st, "A", "spark_salamander")
    b = uid_of(st, "B", "spark_salamander")
    log = []
    st = one_round(st, {"A": [d(a, 0, b), d(s, 1, a)]}, log)
    (dmg,) = of_type(log, "damage")
    assert (dmg["immunity"], dmg["after_weakness"], dmg["boost"], dmg["total"]) == (True, 0, 2, 2)
    assert st["creatures"][b]["injuries"] == 2


def test_neutral_damage_is_never_doubled():
    st = start(["stray_dog"], ["gust_sparrow"])  # Bite is neutral
    a, b = uid_of(st, "A", "stray_dog"), uid_of(st, "B", "gust_sparrow")
    log = []
    one_round(st, {"A": [d(a, 0, b)]}, log)
    assert of_type(log, "damage")[0]["after_weakness"] == 1


def test_armor_subtracts_after_boost_and_never_below_zero():
    st = fire_vs("pebble_golem", b_fields=["sunlit_mesa"])
    a, s, b = uid_of(st, "A", "ember_pup"), uid_of(st, "A", "spark_salamander"), uid_of(st, "B", "pebble_golem")
    log = []
    st = one_round(st, {"A": [d(a, 1, b)], "B": [d(b, 1)]}, log)  # Snap 1 vs Harden armor 1
    dmg = of_type(log, "damage")[0]
    assert (dmg["armor"], dmg["total"]) == (1, 0)
    assert st["creatures"][b]["injuries"] == 0
    log = []
    st = one_round(st, {"B": [d(b, 1)], "A": [d(a, 0, b), d(s, 1, a)]}, log)  # 2 + 2 - 1
    dmg = of_type(log, "damage")[0]
    assert (dmg["after_weakness"], dmg["boost"], dmg["armor"], dmg["total"]) == (2, 2, 1, 3)


# ------------------------------------------------------------------ heal
def test_heal_never_below_zero_injuries():
    st = start(["tide_otter", "ember_pup"], ["stray_dog"], fields_a=["stormy_coast"])
    st = give_tokens(st, "A", {"water": 1})
    o, a, _b = uid_of(st, "A", "tide_otter"), uid_of(st, "A", "ember_pup"), uid_of(st, "B", "stray_dog")
    st = set_injuries(st, a, 1)
    log = []
    st = one_round(st, {"A": [d(o, 1, a)]}, log)  # Soothe heal 2 on 1 injury
    inj = next(e for e in of_type(log, "injuries") if e["creature"] == a)
    assert (inj["before"], inj["healing"], inj["after"]) == (1, 2, 0)
    assert st["creatures"][a]["injuries"] == 0


def test_heal_and_damage_resolve_together():
    st = start(["tide_otter", "ember_pup"], ["stray_dog"], fields_a=["stormy_coast"])
    st = give_tokens(st, "A", {"water": 1})
    o, a, b = uid_of(st, "A", "tide_otter"), uid_of(st, "A", "ember_pup"), uid_of(st, "B", "stray_dog")
    log = []
    st = one_round(st, {"A": [d(o, 1, a)], "B": [d(b, 0, a)]}, log)  # heal 2, Bite 1
    assert st["creatures"][a]["injuries"] == 0
    inj = next(e for e in of_type(log, "injuries") if e["creature"] == a)
    assert (inj["damage"], inj["healing"], inj["after"]) == (1, 2, 0)


# ------------------------------------------------------------------ area, shroud, assassin
def area_setup(b_front="mist_frog"):
    st = start(["ember_pup"], ["tide_otter", b_front], fields_a=["volcano"], fields_b=["stormy_coast"],
               hand_a=["sweeping_blow"])
    a = uid_of(st, "A", "ember_pup")
    st = step(st, "A", {"type": "take_token", "token": "fire"})
    st = step(st, "A", {"type": "attach", "creature": a, "card": "sweeping_blow"})
    st = step(st, "A", {"type": "done"})
    return give_tokens(st, "A", {"fire": 2})


def test_area_hits_the_frontline_only_and_takes_no_target():
    st = area_setup("stray_dog")
    a, b, r = uid_of(st, "A", "ember_pup"), uid_of(st, "B", "stray_dog"), uid_of(st, "B", "tide_otter")
    st = prep_done(st)
    assert {"type": "declare", "creature": a, "ability": 2, "target": None, "token": None} in GAME.legal(st, "A")
    with pytest.raises(IllegalAction, match="area attack"):
        GAME.apply(st, "A", {"type": "declare", "creature": a, "ability": 2, "target": r, "token": None})
    log = []
    st = combat(st, {"A": [d(a, 2)]}, log)
    (dmg,) = of_type(log, "damage")
    assert dmg["target"] == b and dmg["total"] == 4
    assert st["creatures"][r]["injuries"] == 0


def test_shroud_blocks_area_but_not_a_plain_attack():
    st = area_setup("mist_frog")
    a, b = uid_of(st, "A", "ember_pup"), uid_of(st, "B", "mist_frog")
    st = prep_done(st)
    log = []
    st = combat(st, {"A": [d(a, 2)], "B": [d(b, 1)]}, log)  # Sweeping Blow vs Mist (shroud)
    assert of_type(log, "shrouded") and not of_type(log, "damage")
    assert st["creatures"][b]["injuries"] == 0
    log = []
    st = one_round(st, {"B": [d(b, 1)], "A": [d(a, 0, b)]}, log)  # Scorch is not area
    # Mist frog is immune to fire: base 0, but the attack was not blocked.
    assert of_type(log, "damage")[0]["target"] == b and not of_type(log, "shrouded")


def test_assassin_may_target_reserve_others_may_not():
    st = start(["burrow_mole"], ["tide_otter", "stray_dog"], fields_a=["volcano"])
    st = give_tokens(st, "A", {"earth": 1, "fire": 1})
    m, r, f = uid_of(st, "A", "burrow_mole"), uid_of(st, "B", "tide_otter"), uid_of(st, "B", "stray_dog")
    st = prep_done(st)
    targets = {a["target"] for a in GAME.legal(st, "A") if a["type"] == "declare" and a["ability"] == 0}
    assert targets == {f, r}
    log = []
    st = combat(st, {"A": [d(m, 0, r)]}, log)
    assert of_type(log, "damage")[0]["target"] == r
    assert st["creatures"][r]["injuries"] == 4  # water is weak to earth: 2 x 2


def test_plain_attack_cannot_target_reserve():
    st = start(["ember_pup"], ["tide_otter", "stray_dog"], fields_a=["volcano"])
    st = prep_done(give_tokens(st, "A", {"fire": 1}))
    a, r = uid_of(st, "A", "ember_pup"), uid_of(st, "B", "tide_otter")
    with pytest.raises(IllegalAction, match="only assassin"):
        GAME.apply(st, "A", {"type": "declare", "creature": a, "ability": 0, "target": r, "token": None})


# ------------------------------------------------------------------ poison, stun, token
def test_poison_damages_at_the_end_of_the_next_two_rounds():
    st = start(["hex_moth"], ["pebble_golem"], fields_a=["abyss"])
    h, b = uid_of(st, "A", "hex_moth"), uid_of(st, "B", "pebble_golem")
    log = []
    st = one_round(st, {"A": [d(h, 0, b)]}, log, tokens={"A": "shadow"})  # Curse: poison 2
    assert not of_type(log, "poison_damage") and st["creatures"][b]["injuries"] == 0
    assert of_type(log, "poisoned")[0] == {"type": "poisoned", "creature": b, "amount": 2, "rounds": 2}
    injuries = []
    for _ in range(3):
        log = []
        st = one_round(st, {}, log)
        injuries.append(st["creatures"][b]["injuries"])
    assert injuries == [2, 4, 4]
    assert st["creatures"][b]["poison"] is None


def test_stun_stops_abilities_next_round_without_lock():
    st = start(["breeze_sprite"], ["ember_pup"], fields_a=["sky_temple"], fields_b=["volcano"])
    st = give_tokens(give_tokens(st, "A", {"air": 3}), "B", {"fire": 2})
    z, e = uid_of(st, "A", "breeze_sprite"), uid_of(st, "B", "ember_pup")
    log = []
    st = one_round(st, {"A": [d(z, 0, e)]}, log)  # round 1: Zap, 1 damage + stun
    assert of_type(log, "stunned") == [{"type": "stunned", "creature": e, "round": 2}]
    assert GAME.view(st, "B")["creatures"][e]["stunned_round"] == 2
    st = prep_done(st)  # round 2: B starts and is stunned
    assert st["active"] == "B"
    assert not [a for a in GAME.legal(st, "B") if a["type"] == "declare"]
    with pytest.raises(IllegalAction, match="stunned"):
        GAME.apply(st, "B", {"type": "declare", "creature": e, "ability": 0, "target": z, "token": None})
    log = []
    st = combat(st, {"A": [d(z, 0, e)]}, log)  # stunned again while stunned: no stun lock
    assert of_type(log, "stun_resisted") == [{"type": "stun_resisted", "creature": e}]
    assert not of_type(log, "stunned")
    st = prep_done(st)  # round 3: A starts, then B may act again
    st = step(st, "A", {"type": "pass", "token": "air"})
    assert {"type": "declare", "creature": e, "ability": 0, "target": z, "token": None} in GAME.legal(st, "B")


def test_token_keyword_gains_the_chosen_field_type():
    st = start(["burrow_mole", "ember_pup"], ["stray_dog"], fields_a=["volcano"])
    m = uid_of(st, "A", "burrow_mole")
    st = prep_done(st, token={"A": "fire"})
    opts = [a["token"] for a in GAME.legal(st, "A") if a["type"] == "declare" and a["creature"] == m]
    assert opts == ["fire", "earth"]
    with pytest.raises(IllegalAction, match="Choose the token"):
        GAME.apply(st, "A", {"type": "declare", "creature": m, "ability": 1, "target": None, "token": "water"})
    with pytest.raises(IllegalAction, match="Choose the token"):
        GAME.apply(st, "A", {"type": "declare", "creature": m, "ability": 1, "target": None, "token": None})
    log = []
    st = combat(st, {"A": [d(m, 1, token="earth")]}, log)
    assert st["players"]["A"]["tokens"] == {"fire": 1, "earth": 1}
    assert {"type": "token", "seat": "A", "token": "earth", "reason": "ability"} in log


def test_bonus_token_only_without_an_ability():
    st = start(["ember_pup"], ["stray_dog"], fields_a=["volcano"], fields_b=["sky_temple"])
    a, b = uid_of(st, "A", "ember_pup"), uid_of(st, "B", "stray_dog")
    st = prep_done(st, token={"A": "fire", "B": "air"})
    with pytest.raises(IllegalAction, match="'pass' needs the field 'token'"):
        GAME.apply(st, "A", {"type": "pass"})
    st = step(st, "A", {"type": "declare", "creature": a, "ability": 1, "target": b, "token": None})
    with pytest.raises(IllegalAction, match="no bonus token"):
        GAME.apply(st, "A", {"type": "pass", "token": "fire"})
    st = step(st, "A", {"type": "pass"})
    log = []
    st = step(st, "B", {"type": "pass", "token": "light"}, log)
    assert st["players"]["A"]["tokens"] == {"fire": 1}
    assert st["players"]["B"]["tokens"] == {"air": 1, "light": 1}
    assert {"type": "token", "seat": "B", "token": "light", "reason": "bonus"} in log


def test_take_token_comes_first_and_only_from_own_fields():
    st = start(["ember_pup"], ["stray_dog"], fields_a=["volcano"])
    assert GAME.legal(st, "A") == [{"type": "take_token", "token": "fire"},
                                   {"type": "take_token", "token": "earth"}]
    with pytest.raises(IllegalAction, match="First take"):
        GAME.apply(st, "A", {"type": "done"})
    with pytest.raises(IllegalAction, match="not 'water'"):
        GAME.apply(st, "A", {"type": "take_token", "token": "water"})
    st = step(st, "A", {"type": "take_token", "token": "earth"})
    with pytest.raises(IllegalAction, match="already took"):
        GAME.apply(st, "A", {"type": "take_token", "token": "fire"})
    st = step(st, "A", {"type": "done"})
    # B has no field: no token step at all.
    assert GAME.legal(st, "B") == [{"type": "done"}]


# ------------------------------------------------------------------ coach
def test_coach_once_per_round_cost_and_immediate_token():
    st = start(["ember_pup"], ["stray_dog"], fields_a=["volcano"], coach_a="quartermaster_tibor")
    st = step(st, "A", {"type": "take_token", "token": "fire"})
    assert {"type": "coach", "target": None, "token": "earth"} in GAME.legal(st, "A")
    st = step(st, "A", {"type": "coach", "target": None, "token": "earth"})
    assert st["players"]["A"]["tokens"] == {"fire": 1, "earth": 1}
    with pytest.raises(IllegalAction, match="already used"):
        GAME.apply(st, "A", {"type": "coach", "target": None, "token": "earth"})


def test_coach_heal_and_cost():
    st = start(["ember_pup"], ["stray_dog"], fields_a=["volcano"], coach_a="old_marta")
    a, b = uid_of(st, "A", "ember_pup"), uid_of(st, "B", "stray_dog")
    st = set_injuries(st, a, 3)
    st = step(st, "A", {"type": "take_token", "token": "fire"})
    with pytest.raises(IllegalAction, match="own creatures"):
        GAME.apply(st, "A", {"type": "coach", "target": b, "token": None})
    st = step(st, "A", {"type": "coach", "target": a, "token": None})
    assert st["players"]["A"]["tokens"] == {}
    st = step(st, "A", {"type": "done"})
    log = []
    st = one_round(st, {}, log)
    assert st["creatures"][a]["injuries"] == 1
    assert {"type": "effect", "seat": "A", "source": "coach", "ability": "Bandage", "recipient": a,
            "heal": 2} in log


def test_coach_without_tokens_is_not_offered():
    st = start(["ember_pup"], ["stray_dog"], coach_a="old_marta")
    assert GAME.legal(st, "A") == [{"type": "done"}]
    with pytest.raises(IllegalAction, match="costs 1 any"):
        GAME.apply(st, "A", {"type": "coach", "target": uid_of(st, "A", "ember_pup"), "token": None})


def test_coach_passive_boost_applies_every_round():
    st = start(["stray_dog"], ["pebble_golem"], coach_a="sergeant_bors")
    a, b = uid_of(st, "A", "stray_dog"), uid_of(st, "B", "pebble_golem")
    log = []
    st = one_round(st, {"A": [d(a, 0, b)]}, log)
    assert of_type(log, "damage")[0]["boost"] == 1 and st["creatures"][b]["injuries"] == 2


# ------------------------------------------------------------------ evolution and ability cards
def test_evolution_keeps_injuries_once_per_round():
    st = start(["ember_pup"], ["stray_dog"], hand_a=["blaze_hound", "inferno_wolf"])
    a, b = uid_of(st, "A", "ember_pup"), uid_of(st, "B", "stray_dog")
    with pytest.raises(IllegalAction, match="does not evolve from"):
        GAME.apply(st, "A", {"type": "evolve", "creature": a, "card": "inferno_wolf"})
    st = one_round(st, {"B": [d(b, 0, a)]})
    st = one_round(st, {"B": [d(b, 0, a)]})
    assert st["creatures"][a]["injuries"] == 2
    assert (st["round"], st["active"]) == (3, "A")
    log = []
    st = step(st, "A", {"type": "evolve", "creature": a, "card": "blaze_hound"}, log)
    cr = st["creatures"][a]
    assert (cr["card"], cr["stack"], cr["injuries"]) == ("blaze_hound", ["ember_pup"], 2)
    assert log[0]["endurance"] == 8 and log[0]["injuries"] == 2
    with pytest.raises(IllegalAction, match="already evolved"):
        GAME.apply(st, "A", {"type": "evolve", "creature": a, "card": "inferno_wolf"})
    view = GAME.view(st, "B")
    assert view["creatures"][a]["card"] == "blaze_hound" and view["creatures"][a]["injuries"] == 2
    assert view["players"]["A"]["hand_size"] == 1
    st = one_round(step(st, "A", {"type": "done"}), {})
    st = step(st, "B", {"type": "done"})  # round 4: B starts
    st = step(st, "A", {"type": "evolve", "creature": a, "card": "inferno_wolf"})
    assert st["creatures"][a]["stack"] == ["ember_pup", "blaze_hound"]
    assert st["creatures"][a]["injuries"] == 2


def test_attach_one_card_per_creature_and_discard_with_it():
    st = start(["ember_pup"], ["gust_sparrow"], fields_a=["volcano"],
               hand_a=["power_strike", "shadow_step"])
    a, b = uid_of(st, "A", "ember_pup"), uid_of(st, "B", "gust_sparrow")
    st = step(st, "A", {"type": "take_token", "token": "fire"})
    st = step(st, "A", {"type": "attach", "creature": a, "card": "power_strike"})
    with pytest.raises(IllegalAction, match="already attached"):
        GAME.apply(st, "A", {"type": "attach", "creature": a, "card": "shadow_step"})
    st = step(st, "A", {"type": "done"})
    st = give_tokens(st, "A", {"fire": 1})
    st = prep_done(st)
    log = []
    st = combat(st, {"A": [d(a, 2, b)]}, log)  # Power Strike: 4 fire base, x2 weakness
    assert of_type(log, "damage")[0]["after_weakness"] == 8
    assert GAME.result(st)["winner"] == "A"


def test_second_ability_card_on_same_creature_rejected():
    st = start(["ember_pup"], ["stray_dog"], fields_a=["volcano"], hand_a=["power_strike", "shadow_step"])
    a = uid_of(st, "A", "ember_pup")
    st = step(st, "A", {"type": "take_token", "token": "fire"})
    st = step(st, "A", {"type": "attach", "creature": a, "card": "power_strike"})
    st = one_round(step(st, "A", {"type": "done"}), {})
    st = step(st, "B", {"type": "done"})  # round 2: B starts
    st = step(st, "A", {"type": "take_token", "token": "fire"})
    assert not [x for x in GAME.legal(st, "A") if x["type"] == "attach"]
    with pytest.raises(IllegalAction, match="one per creature"):
        GAME.apply(st, "A", {"type": "attach", "creature": a, "card": "shadow_step"})


def test_defeated_creature_discards_its_stack_and_card():
    st = start(["spark_salamander", "ember_pup"], ["stray_dog", "gust_sparrow"], fields_a=["volcano"],
               hand_a=["power_strike"], hand_b=["storm_hawk"])
    a, b = uid_of(st, "A", "ember_pup"), uid_of(st, "B", "gust_sparrow")
    st = step(st, "A", {"type": "take_token", "token": "fire"})
    st = step(st, "A", {"type": "done"})
    st = step(st, "B", {"type": "evolve", "creature": b, "card": "storm_hawk"})
    st = step(st, "B", {"type": "done"})
    st = give_tokens(st, "A", {"fire": 3})
    s = uid_of(st, "A", "spark_salamander")
    log = []
    st = combat(st, {"A": [d(a, 0, b), d(s, 1, a)]}, log)  # 4 + 2 = 6 < 8
    assert st["creatures"][b]["injuries"] == 6
    st = one_round(st, {"A": [d(a, 0, b)]})
    assert st["players"]["B"]["discard"] == ["gust_sparrow", "storm_hawk"]


# ------------------------------------------------------------------ declarations
def test_declaration_limits_kinds_and_costs():
    st = start(["tide_otter", "ember_pup"], ["stray_dog"], fields_a=["volcano"])
    o, a, b = uid_of(st, "A", "tide_otter"), uid_of(st, "A", "ember_pup"), uid_of(st, "B", "stray_dog")
    st = prep_done(st, token={"A": "fire"})
    with pytest.raises(IllegalAction, match="reserve creature uses only support or passive"):
        GAME.apply(st, "A", {"type": "declare", "creature": o, "ability": 0, "target": b, "token": None})
    with pytest.raises(IllegalAction, match="Soothe costs 1 water"):
        GAME.apply(st, "A", {"type": "declare", "creature": o, "ability": 1, "target": a, "token": None})
    with pytest.raises(IllegalAction, match="not one of your creatures"):
        GAME.apply(st, "A", {"type": "declare", "creature": b, "ability": 0, "target": a, "token": None})
    with pytest.raises(IllegalAction, match="abilities 0 to 1"):
        GAME.apply(st, "A", {"type": "declare", "creature": a, "ability": 5, "target": b, "token": None})
    st = step(st, "A", {"type": "declare", "creature": a, "ability": 0, "target": b, "token": None})
    assert st["players"]["A"]["tokens"] == {}  # paid at once
    with pytest.raises(IllegalAction, match="already declared an ability from your frontline"):
        GAME.apply(st, "A", {"type": "declare", "creature": a, "ability": 1, "target": b, "token": None})
    # The opponent sees the declaration before declaring.
    decl = GAME.view(st, "B")["players"]["A"]["declared"]
    assert decl[0]["creature"] == a and decl[0]["name"] == "Scorch" and decl[0]["target"] == b


def test_frontline_cannot_use_support_and_passive_works_in_reserve():
    st = start(["stray_dog", "tide_otter"], ["pebble_golem"], fields_a=["stormy_coast"])
    st = give_tokens(st, "A", {"water": 2})
    dog, o = uid_of(st, "A", "stray_dog"), uid_of(st, "A", "tide_otter")
    st = prep_done(st)
    with pytest.raises(IllegalAction, match="frontline creature uses only attack or passive"):
        GAME.apply(st, "A", {"type": "declare", "creature": o, "ability": 1, "target": o, "token": None})
    log = []
    st = combat(st, {"A": [d(dog, 1)]}, log)  # Bark (passive) from the reserve
    assert of_type(log, "effect")[0]["recipient"] == dog


def test_round_starter_alternates_and_declares_first():
    st = start(["ember_pup"], ["stray_dog"], starter="B")
    assert st["round_starter"] == "B" and st["active"] == "B"
    st = prep_done(st)
    assert st["active"] == "B"
    st = combat(st, {})
    assert st["round"] == 2 and st["round_starter"] == "A" and st["active"] == "A"


# ------------------------------------------------------------------ promotion, end of game
def test_single_reserve_creature_moves_up_by_itself():
    st = start(["spark_salamander", "ember_pup"], ["stray_dog", "gust_sparrow"], fields_a=["volcano"])
    st = give_tokens(st, "A", {"fire": 2})
    a, s, b = uid_of(st, "A", "ember_pup"), uid_of(st, "A", "spark_salamander"), uid_of(st, "B", "gust_sparrow")
    log = []
    st = one_round(st, {"A": [d(a, 0, b), d(s, 1, a)]}, log)
    p = of_type(log, "promoted")[0]
    assert p["seat"] == "B" and p["card"] == "stray_dog" and p["chosen"] is False
    assert st["phase"] == "prep"


def both_fronts_fall(reserves=("spark_salamander", "stray_dog")):
    st = start(list(reserves) + ["ember_pup"], list(reserves) + ["ember_pup"])
    a, b = uid_of(st, "A", "ember_pup"), uid_of(st, "B", "ember_pup")
    st = set_injuries(set_injuries(st, a, 4), b, 4)
    return st, a, b


def test_promotion_is_a_hidden_simultaneous_choice():
    st, a, b = both_fronts_fall()
    st = one_round(st, {"A": [d(a, 1, b)], "B": [d(b, 1, a)]})  # Snap kills both fronts
    assert st["phase"] == "promote" and GAME.pending(st) == {"A": "promote", "B": "promote"}
    dog_a = uid_of(st, "A", "stray_dog")
    assert GAME.legal(st, "A") == [{"type": "promote", "creature": uid_of(st, "A", "spark_salamander")},
                                   {"type": "promote", "creature": dog_a}]
    with pytest.raises(IllegalAction, match="reserve creatures"):
        GAME.apply(st, "A", {"type": "promote", "creature": uid_of(st, "B", "stray_dog")})
    st2, ev = GAME.apply(st, "A", {"type": "promote", "creature": dog_a})
    assert GAME.pending(st2) == {"B": "promote"}
    vb = GAME.view(st2, "B")
    assert vb["players"]["A"]["promote_chosen"] is True and "promote" not in vb["players"]["A"]
    assert vb["players"]["A"]["front"] is None
    assert filter_events(ev, "B") == [{"type": "promote_chosen", "seat": "A"}]
    # Whatever A chose, B sees the same thing until B has chosen too.
    st3, ev3 = GAME.apply(st, "A", {"type": "promote", "creature": uid_of(st, "A", "spark_salamander")})
    assert GAME.view(st3, "B") == vb and filter_events(ev3, "B") == filter_events(ev, "B")
    log = []
    st2 = step(st2, "B", {"type": "promote", "creature": uid_of(st2, "B", "spark_salamander")}, log)
    assert st2["players"]["A"]["front"] == dog_a
    assert [e["seat"] for e in of_type(log, "promoted")] == ["A", "B"]
    assert st2["phase"] == "prep" and st2["round"] == 2


def test_simultaneous_defeat_is_a_draw():
    st, a, b = both_fronts_fall(reserves=())
    log = []
    st = one_round(st, {"A": [d(a, 1, b)], "B": [d(b, 1, a)]}, log)
    res = GAME.result(st)
    assert res["draw"] is True and res["reason"] == "both_defeated" and res["places"] == {"A": 1, "B": 1}
    assert of_type(log, "match_end")


def test_game_ends_when_frontline_and_reserve_are_empty():
    st = start(["ember_pup"], ["stray_dog", "gust_sparrow"])
    a, b = uid_of(st, "A", "ember_pup"), uid_of(st, "B", "gust_sparrow")
    st = set_injuries(st, b, 4)
    st = one_round(st, {"A": [d(a, 1, b)]})
    assert GAME.result(st) is None  # the reserve moved up
    dog = uid_of(st, "B", "stray_dog")
    st = set_injuries(st, dog, 5)
    st = one_round(st, {"A": [d(a, 1, dog)]})
    assert GAME.result(st)["winner"] == "A" and GAME.result(st)["reason"] == "defeat"


def test_round_cap_is_a_draw():
    st = start(["ember_pup"], ["stray_dog"], options={"max_rounds": 2})
    st = one_round(st, {})
    assert GAME.result(st) is None
    log = []
    st = one_round(st, {}, log)
    res = GAME.result(st)
    assert res["draw"] and res["reason"] == "max_rounds"
    assert of_type(log, "game_end")[0]["rounds"] == 2


# ------------------------------------------------------------------ best of three
def fast_game(st):
    """A's Ember Pup kills B's Gust Sparrow in round 2 (Scorch 2 x2 weakness, twice)."""
    while st["phase"] == "place" or st["phase"] == "cards":
        seat = st["active"]
        st = step(st, seat, GAME.legal(st, seat)[0])
    game = st["game_no"]
    while GAME.result(st) is None and st["game_no"] == game:
        a, b = uid_of(st, "A", "ember_pup"), uid_of(st, "B", "gust_sparrow")
        st = one_round(st, {"A": [d(a, 0, b)]}, tokens={"A": "fire"})
    return st


def test_best_of_three_alternates_starters_and_ends_at_two_wins():
    deck_a = ["ember_pup", "volcano"]
    deck_b = ["gust_sparrow"]
    st = GAME.setup({"best_of": 3, "decks": {"A": deck_a, "B": deck_b}}, ["A", "B"], 11)
    st = step(st, st["die_winner"], {"type": "choose_first", "seat": "A"})
    assert st["starter"] == "A"
    st = fast_game(st)
    assert GAME.result(st) is None and st["game_no"] == 2 and st["starter"] == "B"
    assert st["wins"] == {"A": 1, "B": 0}
    assert st["phase"] == "place" and st["active"] == "B"
    assert GAME.view(st, "A")["players"]["A"]["hand_size"] == 2  # fresh game, full deck
    st = fast_game(st)
    res = GAME.result(st)
    assert res["winner"] == "A" and res["reason"] == "match" and res["wins"] == {"A": 2, "B": 0}
    assert [g["starter"] for g in res["games"]] == ["A", "B"]


def test_best_of_three_draws_use_up_games():
    st = GAME.setup({"best_of": 3, "max_rounds": 1, "decks": {"A": ["stray_dog"], "B": ["stray_dog"]}},
                    ["A", "B"], 5)
    st = step(st, st["die_winner"], {"type": "choose_first", "seat": "B"})
    while GAME.result(st) is None:
        seat = sorted(GAME.pending(st))[0]
        legal = GAME.legal(st, seat)
        act = next((a for a in legal if a["type"] in ("pass", "done")), legal[0])
        st = step(st, seat, act)
    res = GAME.result(st)
    assert res["draw"] and len(res["games"]) == 3 and res["wins"] == {"A": 0, "B": 0}
    assert [g["starter"] for g in res["games"]] == ["B", "A", "B"]


# ------------------------------------------------------------------ more keyword corners
def test_attack_boost_is_not_doubled_by_weakness():
    # Radiant Charge: 4 light base + boost 2; Shade Rat (shadow) is weak to light.
    st = start(["lumen_knight"], ["shade_rat"], fields_a=["sky_temple"],
               hand_a=["paladin", "dawn_champion"])
    k, r = uid_of(st, "A", "lumen_knight"), uid_of(st, "B", "shade_rat")
    st = step(st, "A", {"type": "take_token", "token": "light"})
    st = step(st, "A", {"type": "evolve", "creature": k, "card": "paladin"})
    st = one_round(step(st, "A", {"type": "done"}), {})
    st = step(st, "B", {"type": "done"})
    st = step(st, "A", {"type": "take_token", "token": "light"})
    st = step(st, "A", {"type": "evolve", "creature": k, "card": "dawn_champion"})
    st = step(st, "A", {"type": "done"})
    st = give_tokens(st, "A", {"light": 2})
    log = []
    st = combat(st, {"A": [d(k, 0, r)]}, log)
    dmg = of_type(log, "damage")[0]
    assert (dmg["base"], dmg["after_weakness"], dmg["boost"], dmg["total"]) == (4, 8, 2, 10)


def test_area_support_reaches_the_reserve():
    st = start(["stray_dog", "tide_otter", "ember_pup"], ["pebble_golem"], fields_a=["volcano"],
               hand_a=["group_heal"])
    dog, o, a = (uid_of(st, "A", c) for c in ("stray_dog", "tide_otter", "ember_pup"))
    for u in (dog, o, a):
        st = set_injuries(st, u, 3)
    st = step(st, "A", {"type": "take_token", "token": "fire"})
    st = step(st, "A", {"type": "attach", "creature": o, "card": "group_heal"})
    st = give_tokens(step(st, "A", {"type": "done"}), "A", {"earth": 2})
    st = prep_done(st)
    assert {"type": "declare", "creature": o, "ability": 2, "target": None, "token": None} in GAME.legal(st, "A")
    st = combat(st, {"A": [d(o, 2)]})
    assert [st["creatures"][u]["injuries"] for u in (dog, o, a)] == [1, 1, 1]


def test_support_shroud_protects_the_frontline_from_area():
    # B's Gust Sparrow (reserve) gives Tailwind (boost 1 + shroud) to its frontline.
    st = start(["ember_pup"], ["gust_sparrow", "stray_dog"], fields_a=["volcano"],
               fields_b=["sky_temple"], hand_a=["sweeping_blow"])
    a, g, f = uid_of(st, "A", "ember_pup"), uid_of(st, "B", "gust_sparrow"), uid_of(st, "B", "stray_dog")
    st = step(st, "A", {"type": "take_token", "token": "fire"})
    st = step(st, "A", {"type": "attach", "creature": a, "card": "sweeping_blow"})
    st = give_tokens(step(st, "A", {"type": "done"}), "A", {"fire": 1})
    st = prep_done(st, token={"B": "air"})
    log = []
    st = combat(st, {"A": [d(a, 2)], "B": [d(g, 1, f)]}, log)
    assert of_type(log, "shrouded")[0]["target"] == f
    assert st["creatures"][f]["injuries"] == 0

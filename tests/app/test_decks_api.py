"""The Párbaj deck builder API (app/api/decks.py): the card pool, starter decks, and each
user's saved decks, validated on save. Runs on SQLite by default and on Postgres when
DATABASE_URL is set (the suite's `client` fixture uses whichever the run has)."""
from __future__ import annotations

import pytest

from games.parbaj.cardpool import CARDS, POOL
from games.parbaj.decks import deck_to_text
from tests.conftest import guest

WILDFIRE = POOL.decks["wildfire"]["cards"]
SMALL = ["ember_pup", "ember_pup", "blaze_hound", "volcano", "sergeant_bors"]


def error(r, status, code):
    assert r.status_code == status, r.text
    body = r.json()
    assert body["error"]["code"] == code, body
    assert body["error"]["message"]
    return body["error"]


@pytest.fixture
def ann(client):
    return guest(client, "Ann")


@pytest.fixture
def bob(client):
    return guest(client, "Bob")


def save(client, who, name, cards):
    r = client.post("/api/decks", json={"name": name, "cards": cards}, headers=who["headers"])
    assert r.status_code == 201, r.text
    return r.json()


# ------------------------------------------------------------------------------ card pool
def test_cards_are_public_with_generated_text(client):
    r = client.get("/api/parbaj/cards")
    assert r.status_code == 200
    cards = r.json()
    assert {c["id"] for c in cards} == set(CARDS)
    pup = next(c for c in cards if c["id"] == "ember_pup")
    assert pup["kind"] == "creature" and pup["type"] == "fire" and pup["level"] == 1
    assert pup["endurance"] == CARDS["ember_pup"]["endurance"] and pup["weakness"] == "water"
    assert pup["text"].startswith("Ember Pup — Fire creature, level I.")
    assert "Scorch" in pup["text"] and pup["abilities"][0]["name"] == "Scorch"
    assert "blaze_hound" in pup["evolves_into"]
    # Ordered like an exported deck: coaches, fields, creatures by type and level, ability cards.
    kinds = [c["kind"] for c in cards]
    assert kinds == sorted(kinds, key=["coach", "field", "creature", "ability"].index)


def test_card_filters(client):
    def ids(**params):
        r = client.get("/api/parbaj/cards", params=params)
        assert r.status_code == 200, r.text
        return [c["id"] for c in r.json()]

    fire2 = ids(element="fire", level=2)
    assert fire2 and all(CARDS[c]["type"] == "fire" and CARDS[c]["level"] == 2 for c in fire2)
    fields = ids(kind="field", element="water")
    assert set(fields) == {c for c, d in CARDS.items() if d["kind"] == "field" and "water" in d["types"]}
    stun = ids(keyword="stun")
    assert "concussion" in stun
    for cid in stun:
        card = CARDS[cid]
        abil = card.get("abilities") or [card.get("ability") or card.get("active")]
        assert any(a["stun"] for a in abil)
    coaches = ids(kind="coach")
    assert len(coaches) == sum(1 for c in CARDS.values() if c["kind"] == "coach")
    assert ids(q="ember") == ["ember_pup"] or "ember_pup" in ids(q="ember")
    assert ids(kind="coach", level=1) == []
    for bad in ({"element": "purple"}, {"level": 4}, {"kind": "spell"}, {"keyword": "fly"}):
        error(client.get("/api/parbaj/cards", params=bad), 422, "invalid_message")


def test_starter_decks(client):
    r = client.get("/api/parbaj/starter-decks")
    assert r.status_code == 200
    decks = {d["id"]: d for d in r.json()}
    assert set(decks) == set(POOL.decks)
    w = decks["wildfire"]
    assert w["name"] == "Wildfire" and w["size"] == len(WILDFIRE) and w["idea"]
    assert sorted(w["cards"]) == sorted(WILDFIRE)
    assert w["text"] == deck_to_text(WILDFIRE)


# ------------------------------------------------------------------------------ my decks
def test_deck_endpoints_need_a_token(client):
    for method, path, body in [("get", "/api/decks", None), ("post", "/api/decks", {"name": "x", "cards": SMALL}),
                               ("post", "/api/decks/validate", {"cards": SMALL}),
                               ("post", "/api/decks/import", {"text": "1 Volcano"}),
                               ("post", "/api/decks/copy-starter", {"starter": "wildfire"}),
                               ("get", "/api/decks/dk_x", None), ("put", "/api/decks/dk_x", {"name": "y"}),
                               ("delete", "/api/decks/dk_x", None), ("get", "/api/decks/dk_x/export", None)]:
        kw = {"json": body} if body is not None else {}
        error(getattr(client, method)(path, **kw), 401, "unauthorized")


def test_create_list_get_update_delete(client, ann):
    H = ann["headers"]
    assert client.get("/api/decks", headers=H).json() == []
    d = save(client, ann, "  Fire   rush ", SMALL)
    assert d["name"] == "Fire rush" and d["id"].startswith("dk_")
    assert sorted(d["cards"]) == sorted(SMALL) and d["size"] == 5 and d["ok"] and d["problems"] == []
    assert d["created_at"].endswith("Z") and d["updated_at"].endswith("Z")
    assert client.get("/api/decks", headers=H).json() == [d]
    assert client.get(f"/api/decks/{d['id']}", headers=H).json() == d

    more = SMALL + ["inferno_wolf", "stray_dog"]
    r = client.put(f"/api/decks/{d['id']}", json={"cards": more}, headers=H)
    assert r.status_code == 200, r.text
    u = r.json()
    assert u["name"] == "Fire rush" and sorted(u["cards"]) == sorted(more) and u["size"] == 7
    assert u["updated_at"] >= d["updated_at"] and u["created_at"] == d["created_at"]
    r = client.put(f"/api/decks/{d['id']}", json={"name": "Blaze"}, headers=H)
    assert r.json()["name"] == "Blaze" and sorted(r.json()["cards"]) == sorted(more)
    error(client.put(f"/api/decks/{d['id']}", json={}, headers=H), 422, "invalid_message")

    r = client.delete(f"/api/decks/{d['id']}", headers=H)
    assert r.status_code == 204 and r.content == b""
    error(client.get(f"/api/decks/{d['id']}", headers=H), 404, "not_found")
    error(client.delete(f"/api/decks/{d['id']}", headers=H), 404, "not_found")
    assert client.get("/api/decks", headers=H).json() == []


def test_save_refuses_an_illegal_deck_with_readable_problems(client, ann):
    H = ann["headers"]
    cards = SMALL + ["stray_dog"] * 11 + ["magma_drake", "nonsense_card"]
    err = error(client.post("/api/decks", json={"name": "Bad", "cards": cards}, headers=H), 422, "invalid_deck")
    codes = [p["code"] for p in err["problems"]]
    assert codes == ["unknown_card", "too_many_cards", "missing_base"]
    msg = err["message"]
    assert "'nonsense_card' is not a Párbaj card." in msg
    assert "The deck has 18 cards; at most 15 are allowed" in msg
    assert "Magma Drake (level III) evolves from Flame Lizard, which is not in the deck" in msg
    assert all(p["message"] and p["message"] in msg for p in err["problems"])
    assert next(p for p in err["problems"] if p["code"] == "missing_base")["cards"] == ["magma_drake"]
    # Nothing was saved; an update to an illegal list is refused the same way.
    assert client.get("/api/decks", headers=H).json() == []
    d = save(client, ann, "Good", SMALL)
    err = error(client.put(f"/api/decks/{d['id']}", json={"cards": ["volcano", "ashen_ruins", "abyss"]},
                           headers=H), 422, "invalid_deck")
    assert {"too_many_fields", "no_level_one"} <= {p["code"] for p in err["problems"]}
    assert "at most 2 are allowed" in err["message"]
    assert client.get(f"/api/decks/{d['id']}", headers=H).json()["cards"] == d["cards"]


def test_every_validation_message_comes_through(client, ann):
    cases = {
        "too_many_coaches": SMALL + ["old_marta"],
        "field_without_creature": ["ember_pup", "sky_temple"],
        "no_level_one": ["volcano", "power_strike"],
        "too_many_fields": SMALL + ["ashen_ruins", "abyss"],
    }
    for code, cards in cases.items():
        r = client.post("/api/decks/validate", json={"cards": cards}, headers=ann["headers"])
        assert r.status_code == 200
        body = r.json()
        assert body["ok"] is False and body["size"] == len(cards)
        assert code in [p["code"] for p in body["problems"]], (code, body)
        assert all(p["message"].endswith((".", ")")) for p in body["problems"])
    r = client.post("/api/decks/validate", json={"cards": SMALL}, headers=ann["headers"])
    assert r.json() == {"ok": True, "size": 5, "problems": []}
    field = client.post("/api/decks/validate", json={"cards": ["ember_pup", "sky_temple"]},
                        headers=ann["headers"]).json()["problems"][0]
    assert "Sky Temple" in field["message"] and field["cards"] == ["sky_temple"]


def test_field_limit_counts_different_fields_on_save(client, ann):
    # Two Volcanoes and Ashen Ruins are two different token fields: legal (issue #15).
    twice = save(client, ann, "Twice", SMALL + ["volcano", "ashen_ruins"])
    assert sorted(twice["cards"]) == sorted(SMALL + ["volcano", "ashen_ruins"])
    r = client.post("/api/decks/validate", json={"cards": SMALL + ["volcano", "ashen_ruins"]},
                    headers=ann["headers"])
    assert r.json() == {"ok": True, "size": 7, "problems": []}
    err = error(client.post("/api/decks", json={"name": "Three", "cards": SMALL + [
        "stray_dog", "ashen_ruins", "abyss"]}, headers=ann["headers"]), 422, "invalid_deck")
    (p,) = err["problems"]
    assert p["code"] == "too_many_fields" and p["cards"] == ["volcano", "ashen_ruins", "abyss"]


def test_names_are_unique_per_user(client, ann, bob):
    a = save(client, ann, "Mine", SMALL)
    error(client.post("/api/decks", json={"name": "Mine", "cards": SMALL}, headers=ann["headers"]),
          409, "deck_name_taken")
    save(client, bob, "Mine", SMALL)  # another user may use the same name
    b = save(client, ann, "Other", SMALL)
    error(client.put(f"/api/decks/{b['id']}", json={"name": "Mine"}, headers=ann["headers"]),
          409, "deck_name_taken")
    assert client.get(f"/api/decks/{a['id']}", headers=ann["headers"]).json()["name"] == "Mine"
    for bad in ("", "   ", "x" * 41, "tab\there\x00"):
        error(client.post("/api/decks", json={"name": bad, "cards": SMALL}, headers=ann["headers"]),
              422, "invalid_message")


def test_other_users_decks_are_404(client, ann, bob):
    d = save(client, ann, "Secret", SMALL)
    H = bob["headers"]
    assert client.get("/api/decks", headers=H).json() == []
    error(client.get(f"/api/decks/{d['id']}", headers=H), 404, "not_found")
    error(client.get(f"/api/decks/{d['id']}/export", headers=H), 404, "not_found")
    error(client.put(f"/api/decks/{d['id']}", json={"name": "Mine now"}, headers=H), 404, "not_found")
    error(client.put(f"/api/decks/{d['id']}", json={"cards": SMALL}, headers=H), 404, "not_found")
    error(client.delete(f"/api/decks/{d['id']}", headers=H), 404, "not_found")
    # Same answer as for a deck that never existed.
    missing = client.get("/api/decks/dk_0000000000000000", headers=H).json()
    other = client.get(f"/api/decks/{d['id']}", headers=H).json()
    assert missing == other
    # Untouched for its owner.
    assert client.get(f"/api/decks/{d['id']}", headers=ann["headers"]).json()["name"] == "Secret"


@pytest.mark.parametrize("path,body", [
    ("/api/decks", {"name": "x", "cards": SMALL, "owner": "u_1"}),
    ("/api/decks", {"name": "x"}),
    ("/api/decks", {"name": "x", "cards": "ember_pup"}),
    ("/api/decks", {"name": 5, "cards": SMALL}),
    ("/api/decks/validate", {"cards": SMALL, "strict": True}),
    ("/api/decks/validate", {"cards": [1, 2]}),
    ("/api/decks/import", {"text": "1 Volcano", "format": "mtg"}),
    ("/api/decks/import", {"text": "x" * 20_001}),
    ("/api/decks/copy-starter", {"starter": "wildfire", "cards": SMALL}),
    ("/api/decks/copy-starter", {}),
])
def test_unknown_or_malformed_fields_are_422(client, ann, path, body):
    msg = error(client.post(path, json=body, headers=ann["headers"]), 422, "invalid_message")["message"]
    if set(body) - {"name", "cards", "text", "starter"}:
        assert "unknown field" in msg


def test_put_refuses_unknown_fields(client, ann):
    d = save(client, ann, "Keep", SMALL)
    error(client.put(f"/api/decks/{d['id']}", json={"name": "New", "id": "dk_other"}, headers=ann["headers"]),
          422, "invalid_message")
    assert client.get(f"/api/decks/{d['id']}", headers=ann["headers"]).json()["name"] == "Keep"


def test_import_and_export(client, ann):
    H = ann["headers"]
    d = save(client, ann, "Fire", SMALL)
    r = client.get(f"/api/decks/{d['id']}/export", headers=H)
    assert r.status_code == 200
    text = r.json()["text"]
    assert r.json()["name"] == "Fire"
    assert text == "1× Sergeant Bors\n1× Volcano\n2× Ember Pup\n1× Blaze Hound\n"
    back = client.post("/api/decks/import", json={"text": text}, headers=H).json()
    assert back["ok"] and back["problems"] == [] and sorted(back["cards"]) == sorted(SMALL)

    loose = "# my deck\n2x ember pup\n\nBLAZE HOUND\n1 volcano\nsergeant_bors\n"
    back = client.post("/api/decks/import", json={"text": loose}, headers=H).json()
    assert back["ok"] and sorted(back["cards"]) == sorted(SMALL)

    bad = "2x Ember Pup\nFlying Spaghetti\n1 Volcano\n1× Magma Drake\n"
    r = client.post("/api/decks/import", json={"text": bad}, headers=H)
    assert r.status_code == 200
    body = r.json()
    assert not body["ok"]
    assert sorted(body["cards"]) == sorted(["ember_pup", "ember_pup", "volcano", "magma_drake"])
    first = body["problems"][0]
    assert first["line"] == 2 and first["message"] == "Line 2: there is no card named 'Flying Spaghetti'."
    assert "missing_base" in [p["code"] for p in body["problems"]]


def test_copy_starter(client, ann, bob):
    H = ann["headers"]
    a = client.post("/api/decks/copy-starter", json={"starter": "wildfire"}, headers=H)
    assert a.status_code == 201, a.text
    assert a.json()["name"] == "Wildfire" and sorted(a.json()["cards"]) == sorted(WILDFIRE)
    b = client.post("/api/decks/copy-starter", json={"starter": "wildfire"}, headers=H).json()
    assert b["name"] == "Wildfire (2)"
    c = client.post("/api/decks/copy-starter", json={"starter": "nightfall", "name": "Night"}, headers=H).json()
    assert c["name"] == "Night" and sorted(c["cards"]) == sorted(POOL.decks["nightfall"]["cards"])
    error(client.post("/api/decks/copy-starter", json={"starter": "nightfall", "name": "Night"}, headers=H),
          409, "deck_name_taken")
    error(client.post("/api/decks/copy-starter", json={"starter": "nope"}, headers=H), 404, "not_found")
    assert [d["name"] for d in client.get("/api/decks", headers=H).json()] == ["Night", "Wildfire", "Wildfire (2)"]
    assert client.get("/api/decks", headers=bob["headers"]).json() == []


def test_a_saved_deck_is_playable_in_a_match(client, ann, bob):
    """The deck a player saved is exactly what the board sends as a custom deck."""
    d = save(client, ann, "Match deck", SMALL + ["inferno_wolf"])
    m = client.post("/api/matches", json={"game": "parbaj", "options": {}}, headers=ann["headers"]).json()
    client.post(f"/api/matches/{m['id']}/join", headers=bob["headers"])
    r = client.post(f"/api/matches/{m['id']}/actions",
                    json={"action": {"type": "choose_deck", "cards": d["cards"]}}, headers=ann["headers"])
    assert r.status_code == 200, r.text
    mine = r.json()["state"]["players"][r.json()["seat"]]
    assert mine["deck_chosen"] and sorted(mine["deck"]) == sorted(d["cards"])

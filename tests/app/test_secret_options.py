"""Secret options (``Option.secret``): Párbaj's fixed decks name each seat's deck list, which
the opponent and spectators must not learn from the options shown with a match (lobby list,
match summary, view document, SQL history summary)."""
from __future__ import annotations

import json

from games.parbaj.cardpool import POOL
from games.registry import get_game
from tests.app.support import view
from tests.conftest import guest


def _decks(a: str, b: str) -> dict:
    return {"A": list(POOL.decks[a]["cards"]), "B": list(POOL.decks[b]["cards"])}


def _parbaj_with_decks(client, decks):
    ann, bob = guest(client, "Ann"), guest(client, "Bob")
    r = client.post("/api/matches", json={"game": "parbaj", "options": {"decks": decks}},
                    headers=ann["headers"])
    assert r.status_code == 200, r.text
    mid = r.json()["id"]
    r = client.post(f"/api/matches/{mid}/join", headers=bob["headers"])
    assert r.status_code == 200 and r.json()["status"] == "live", r.text
    return mid, ann, bob


def test_public_options_hide_only_secret_values():
    game = get_game("parbaj")
    opts = game.validate_options({"decks": _decks("wildfire", "tidecaller")})
    public = game.public_options(opts)
    assert public["decks"] == {"A": "hidden", "B": "hidden"}
    assert {k: v for k, v in public.items() if k != "decks"} == {k: v for k, v in opts.items() if k != "decks"}
    assert opts["decks"]["A"] == list(POOL.decks["wildfire"]["cards"])  # the original is untouched
    assert game.public_options(game.validate_options({}))["decks"] is None
    assert get_game("duell").public_options({"mode": "prologo"}) == {"mode": "prologo"}


def test_what_others_see_does_not_depend_on_a_seats_fixed_deck(client):
    """Differential: two matches that differ only in seat A's fixed deck (its creator's own:
    nobody else's may be fixed in the lobby) show seat B and a spectator the same options, in
    the summary, the lobby list and the view document."""
    shown = []
    for a_deck in ("wildfire", "tidecaller"):
        mid, ann, bob = _parbaj_with_decks(client, {"A": _decks(a_deck, "wildfire")["A"]})
        summary = client.get(f"/api/matches/{mid}").json()
        live = [m for m in client.get("/api/matches?status=live").json() if m["id"] == mid]
        spectator = client.get(f"/api/matches/{mid}/view").json()
        bobs = view(client, mid, bob)
        shown.append(json.dumps([summary["options"], [m["options"] for m in live],
                                 spectator["options"], bobs["options"]], sort_keys=True))
        for doc in (summary, spectator, bobs):
            assert doc["options"]["decks"] == {"A": "hidden"}
    assert shown[0] == shown[1]


def test_record_options_keep_only_the_viewers_own_deck():
    """After the end (the record), a seat reads its own fixed deck; the other stays hidden
    unless the lists are open. Omniscient (admins) reads everything."""
    game = get_game("parbaj")
    decks = _decks("wildfire", "tidecaller")
    closed = game.validate_options({"decks": decks, "open_deck_lists": False})
    assert game.record_options(closed, "A")["decks"] == {"A": decks["A"], "B": "hidden"}
    assert game.record_options(closed, "B")["decks"] == {"A": "hidden", "B": decks["B"]}
    assert game.record_options(closed, "omniscient") == closed
    assert closed["decks"] == decks  # the stored options are untouched
    opened = {**closed, "open_deck_lists": True}
    assert game.record_options(opened, "A")["decks"] == decks
    pick = {"type": "choose_deck", "cards": decks["B"]}
    assert game.record_action(closed, "B", pick, "A") == {"type": "choose_deck", "hidden": True}
    assert game.record_action(closed, "B", pick, "B") == pick
    assert game.record_action(opened, "B", pick, "A") == pick
    assert game.record_action(closed, "B", {"type": "resign"}, "A") == {"type": "resign"}
    assert get_game("duell").record_options({"mode": "prologo"}, "A") == {"mode": "prologo"}

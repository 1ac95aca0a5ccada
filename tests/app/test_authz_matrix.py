"""Authorization matrix: every HTTP route of the app against every kind of caller.

The table below must name every route (a new route without a policy fails the first test), and
each cell is checked by a real request: "allowed" means the answer is not 401/403 (it may still
be a 404 or 409 about the request itself), "denied" means 401 for nobody, 403 for the rest.
"""
from __future__ import annotations

import pytest

from app.auth import User, issue_token
from tests.app.support import duell_match, play_out
from tests.conftest import account, drain

ROLES = ["anonymous", "guest", "player", "match_player", "organiser", "admin", "suspended"]
SIGNED_IN = {"guest", "player", "match_player", "organiser", "admin"}
ACCOUNTS = {"player", "match_player", "organiser", "admin"}

PUBLIC = set(ROLES)
AUTH = SIGNED_IN
ADMIN = {"admin"}
MATCH = {"match_player"}
MATCH_OR_ADMIN = {"match_player", "admin"}

# (method, path) -> roles allowed. Anything not listed is denied.
POLICY = {
    ("POST", "/api/auth/guest"): PUBLIC,
    ("POST", "/api/auth/register"): PUBLIC,
    ("POST", "/api/auth/login"): PUBLIC,
    ("POST", "/api/auth/logout"): AUTH,
    ("POST", "/api/auth/password"): ACCOUNTS,
    ("GET", "/api/me"): AUTH,
    ("GET", "/api/games"): PUBLIC,
    ("POST", "/api/matches"): AUTH,
    ("GET", "/api/matches"): PUBLIC,
    ("GET", "/api/matches/{match_id}"): PUBLIC,
    ("POST", "/api/matches/{match_id}/join"): AUTH,
    ("POST", "/api/matches/{match_id}/leave"): MATCH,
    ("POST", "/api/matches/{match_id}/start"): MATCH,
    # Public, but a token that is sent is checked: a suspended user is turned away.
    ("GET", "/api/matches/{match_id}/view"): PUBLIC - {"suspended"},
    ("POST", "/api/matches/{match_id}/actions"): MATCH,
    ("GET", "/api/matches/{match_id}/record"): MATCH_OR_ADMIN,
    ("POST", "/api/matches/{match_id}/report"): MATCH,
    ("POST", "/api/matches/{match_id}/rematch"): MATCH,
    ("GET", "/api/users/{user_id}"): PUBLIC,
    ("GET", "/api/users/{user_id}/matches"): PUBLIC,
    ("GET", "/api/leaderboard/{game}"): PUBLIC,
    # Computer players (app/api/bots.py): adding one to a table is for its host.
    ("GET", "/api/bots"): PUBLIC,
    ("POST", "/api/bots/matches"): AUTH,
    ("POST", "/api/matches/{match_id}/bots"): MATCH,
    ("GET", "/api/parbaj/cards"): PUBLIC,
    ("GET", "/api/parbaj/starter-decks"): PUBLIC,
    ("GET", "/api/decks"): AUTH,
    ("POST", "/api/decks"): AUTH,
    ("POST", "/api/decks/validate"): AUTH,
    ("POST", "/api/decks/import"): AUTH,
    ("POST", "/api/decks/copy-starter"): AUTH,
    ("GET", "/api/decks/{deck_id}"): AUTH,
    ("PUT", "/api/decks/{deck_id}"): AUTH,
    ("DELETE", "/api/decks/{deck_id}"): AUTH,
    ("GET", "/api/decks/{deck_id}/export"): AUTH,
    ("GET", "/healthz"): PUBLIC,
    ("GET", "/readyz"): PUBLIC,
    ("GET", "/metrics"): PUBLIC,
}
ADMIN_ROUTES = [
    ("GET", "/api/admin/users"),
    ("POST", "/api/admin/users/{user_id}/role"),
    ("POST", "/api/admin/users/{user_id}/suspend"),
    ("POST", "/api/admin/users/{user_id}/restore"),
    ("GET", "/api/admin/matches"),
    ("GET", "/api/admin/matches/{match_id}"),
    ("GET", "/api/admin/matches/{match_id}/steps/{step}"),
    ("GET", "/api/admin/matches/{match_id}/live"),
    ("POST", "/api/admin/matches/{match_id}/flag"),
    ("POST", "/api/admin/matches/{match_id}/notes"),
    ("GET", "/api/admin/matches/{match_id}/export.json"),
    ("GET", "/api/admin/matches/{match_id}/export.txt"),
    ("GET", "/api/admin/reports"),
    ("POST", "/api/admin/reports/{report_id}/resolve"),
    ("GET", "/api/admin/audit"),
]
POLICY.update(dict.fromkeys(ADMIN_ROUTES, ADMIN))

# Tournaments (app/api/tournaments.py). The world's tournament is a draft of "organiser": other
# callers are told it does not exist (404, i.e. "allowed" here) on the routes they may call.
ORGANISERS = {"organiser", "admin"}
T = "/api/tournaments/{tournament_id}"
POLICY.update({
    ("GET", "/api/tournaments"): PUBLIC - {"suspended"},
    ("POST", "/api/tournaments"): ORGANISERS,
    ("GET", T): PUBLIC - {"suspended"},
    ("PATCH", T): ORGANISERS,
    ("GET", T + "/rounds/{round_no}"): PUBLIC - {"suspended"},
    ("GET", T + "/bracket"): PUBLIC - {"suspended"},
    ("GET", T + "/export.json"): PUBLIC - {"suspended"},
    ("GET", T + "/export.csv"): PUBLIC - {"suspended"},
    ("POST", T + "/open-registration"): ORGANISERS,
    ("POST", T + "/open-check-in"): ORGANISERS,
    ("POST", T + "/start"): ORGANISERS,
    ("POST", T + "/next-round"): ORGANISERS,
    ("POST", T + "/cancel"): ORGANISERS,
    ("POST", T + "/pairings/{pairing_id}/override"): ORGANISERS,
    ("POST", T + "/disputes/{dispute_id}/resolve"): ORGANISERS,
    ("POST", T + "/players/{user_id}/drop"): ORGANISERS,
    ("POST", T + "/bots"): ORGANISERS,
    ("GET", T + "/decks"): AUTH,
    # Entering and playing need an account: guests get 403 account_required.
    ("GET", T + "/me"): ACCOUNTS,
    ("POST", T + "/register"): ACCOUNTS,
    ("PUT", T + "/deck"): ACCOUNTS,
    ("POST", T + "/withdraw"): ACCOUNTS,
    ("POST", T + "/check-in"): ACCOUNTS,
    ("POST", T + "/drop"): ACCOUNTS,
    ("POST", T + "/pairings/{pairing_id}/dispute"): ACCOUNTS,
    ("POST", T + "/matches/{match_id}/report"): ACCOUNTS,
})

# Balance lab (app/api/lab.py): organisers and admins; a run is its owner's (or an admin's),
# so "nope" is a 404 for them. The POST body names no game: 422 invalid_lab_run, no run starts.
POLICY.update({
    ("GET", "/api/lab/meta"): ORGANISERS,
    ("POST", "/api/lab/runs"): ORGANISERS,
    ("GET", "/api/lab/runs"): ORGANISERS,
    ("GET", "/api/lab/runs/{run_id}"): ORGANISERS,
    ("GET", "/api/lab/runs/{run_id}/report.html"): ORGANISERS,
})

BODIES = {
    "/api/lab/runs": {"game": "nope", "games": 1},
    "/api/auth/guest": {"name": "Matrix"},
    "/api/auth/register": {"name": "Matrix", "password": "long enough pw"},
    "/api/auth/login": {"name": "Matrix", "password": "long enough pw"},
    "/api/auth/password": {"old_password": "correct horse battery", "new_password": "another long pw"},
    "/api/matches": {"game": "duell"},
    "/api/matches/{match_id}/actions": {"action": {"type": "resign"}},
    "/api/matches/{match_id}/report": {"reason": "testing the matrix"},
    "/api/bots/matches": {"game": "duell", "level": "random"},
    "/api/matches/{match_id}/bots": {"level": "random"},
    "/api/decks": {"name": "m", "cards": []},
    "/api/decks/{deck_id}": {"name": "m"},
    "/api/decks/validate": {"cards": []},
    "/api/decks/import": {"text": ""},
    "/api/decks/copy-starter": {"starter": "none", "name": "m"},
    "/api/admin/users/{user_id}/role": {"role": "player"},
    "/api/admin/users/{user_id}/suspend": {"reason": "matrix test"},
    "/api/admin/matches/{match_id}/flag": {"flagged": False},
    "/api/admin/matches/{match_id}/notes": {"text": "matrix"},
    "/api/tournaments": {"name": "Matrix cup", "game": "duell", "format": "swiss"},
    T: {"name": "Matrix cup (edited)"},
    T + "/deck": {"cards": []},
    T + "/bots": {"level": "random", "count": 1},
    T + "/pairings/{pairing_id}/override": {"result": {"winner": None}, "reason": "matrix test"},
    T + "/pairings/{pairing_id}/dispute": {"reason": "matrix test"},
    T + "/disputes/{dispute_id}/resolve": {"decision": "uphold", "reason": "matrix test"},
}


def app_routes(client) -> set[tuple[str, str]]:
    """Every route of the OpenAPI document (plus /metrics, which is kept out of it)."""
    spec = client.get("/openapi.json").json()
    out = {(m.upper(), path) for path, item in spec["paths"].items() for m in item}
    return out | {("GET", "/metrics")}


def test_every_route_has_a_policy(client):
    assert app_routes(client) == set(POLICY)


@pytest.fixture
def world(client, settings):
    """A finished match (its player, a live one too), accounts for each role, ids to fill in."""
    import uuid

    sfx = uuid.uuid4().hex[:6]
    match_player = account(client, "MatchPlayer" + sfx)
    opponent = account(client, "Opponent" + sfx)
    r = client.post("/api/matches", json={"game": "duell", "options": {"duels_to_win": 1}},
                    headers=match_player["headers"])
    mid = r.json()["id"]
    client.post(f"/api/matches/{mid}/join", headers=opponent["headers"])
    play_out(client, mid, {"A": match_player, "B": opponent}, seed=1)
    drain(client)
    if client.post("/api/auth/login", json=BODIES["/api/auth/login"]).status_code != 200:
        account(client, "Matrix", password="long enough pw")
    ids = {"match_id": mid, "user_id": opponent["user"]["id"], "step": "0", "report_id": "999999",
           "deck_id": "nope", "game": "duell", "pairing_id": "S1.1", "dispute_id": "1", "round_no": "1",
           "run_id": "nope"}
    people = {
        "guest": None,
        "player": account(client, "PlainPlayer" + sfx),
        "match_player": match_player,
        "organiser": account(client, "Organiser" + sfx, role="organiser"),
        "admin": account(client, "Admin" + sfx, role="admin"),
        "suspended": account(client, "Suspended" + sfx),
    }
    client.post(f"/api/admin/users/{people['suspended']['user']['id']}/suspend",
                json={"reason": "matrix"}, headers=people["admin"]["headers"])
    r = client.post("/api/tournaments", json=BODIES["/api/tournaments"], headers=people["organiser"]["headers"])
    ids["tournament_id"] = r.json()["id"]
    return ids, people


def headers_for(role, people, settings, client=None):
    """A fresh token per request, so sign-outs and password changes don't leak across cells."""
    if role == "anonymous":
        return {}
    if role == "guest":
        user = User("u_matrixguest", "Guesty", guest=True)
    else:
        u = people[role]["user"]
        gen = 0
        if client is not None:
            from app.db import accounts

            row = client.portal.call(accounts.by_id, client.app.state.services.maker, u["id"])
            gen = row.token_gen
        user = User(u["id"], u["name"], u["role"], guest=False, gen=gen)
    return {"Authorization": f"Bearer {issue_token(user, settings)}"}


def test_matrix(client, settings, world):
    ids, people = world
    failures = []
    for (method, path), allowed in sorted(POLICY.items()):
        url = path
        for key, value in ids.items():
            url = url.replace("{" + key + "}", value)
        for role in ROLES:
            h = headers_for(role, people, settings, client)
            body = BODIES.get(path)
            r = client.request(method, url, headers=h, json=body if method in ("POST", "PUT", "PATCH") else None)
            if r.status_code >= 500:
                failures.append(f"{method} {path} as {role}: {r.status_code}")
            elif role in allowed and r.status_code in (401, 403) and not (
                    path == "/api/auth/login" and role == "suspended"):
                failures.append(f"{method} {path} as {role}: denied {r.status_code} {r.text[:80]}")
            elif role not in allowed and r.status_code not in (401, 403):
                failures.append(f"{method} {path} as {role}: allowed {r.status_code}")
            elif role not in allowed and role == "anonymous" and r.status_code != 401:
                failures.append(f"{method} {path} anonymous got {r.status_code}, not 401")
    assert not failures, "\n".join(failures)


def test_live_omniscient_and_views_during_a_match(client, settings, world):
    ids, people = world
    mid, p = duell_match(client)
    live = client.get(f"/api/admin/matches/{mid}/live", headers=people["admin"]["headers"])
    assert live.status_code == 200 and live.json()["state"]["hands"]["B"] is not None
    for role in ("player", "organiser", "guest"):
        r = client.get(f"/api/admin/matches/{mid}/live", headers=headers_for(role, people, settings))
        assert r.status_code == 403
    # A player reads only their own view during the match: the opponent's hand stays hidden.
    v = client.get(f"/api/matches/{mid}/view", headers=p["A"]["headers"]).json()
    assert v["state"]["hands"]["B"] is None
    r = client.get(f"/api/matches/{mid}/record", headers=p["A"]["headers"])
    assert r.status_code == 409  # the full record only after the end

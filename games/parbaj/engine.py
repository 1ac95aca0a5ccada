"""Párbaj engine: the tournament ("duel") mode of a creature card game.

Flow of a match::

    deck (simultaneous, hidden) -> first (die winner picks the starter; game 1 only)
    -> place (alternating, one level I creature at a time: reserve, then frontline)
    -> cards (starter, then the other: up to 2 fields and 1 coach, then "done")
    -> rounds: prep (round starter, then the other) -> combat (same order) -> resolution
       -> promote (simultaneous, hidden until both chose) -> next round (the other starts)
    -> game end -> next game of a best-of match (starters alternate) or the match result.
"""
from __future__ import annotations

from games.base import (
    CLOCK_OPTION,
    MAX_TIMEOUTS_OPTION,
    OMNISCIENT,
    Game,
    IllegalAction,
    InvalidOptions,
    Option,
    clone,
    event,
    rng,
)
from games.parbaj import rules as R
from games.parbaj.cardpool import CARDS, POOL, cost_text
from games.parbaj.decks import validate_deck

_NONE = type(None)


# ------------------------------------------------------------------------------------------
# Options
# ------------------------------------------------------------------------------------------
class DecksOption(Option):
    """``decks``: ``{"A": [card ids], "B": [card ids]}`` or null. A seat given a deck here skips
    its ``choose_deck`` decision. The lists never appear in any view."""

    def schema(self) -> dict:
        deck = {"type": "array", "items": {"type": "string"}, "maxItems": 100}
        return {"type": ["object", "null"], "default": None, "description": self.description,
                "properties": {"A": deck, "B": deck}, "additionalProperties": False}

    def check(self, value):
        if value is None:
            return None
        if not isinstance(value, dict):
            raise InvalidOptions("Option 'decks' must be an object like {\"A\": [card ids]} or null.")
        out = {}
        for seat, ids in value.items():
            if seat not in ("A", "B"):
                raise InvalidOptions(f"Option 'decks': '{seat}' is not a seat (use A or B).")
            problems = validate_deck(ids)
            if problems:
                raise InvalidOptions(f"Option 'decks': the deck for seat {seat} cannot be played: "
                                     + " ".join(p.message for p in problems))
            out[seat] = list(ids)
        return out


OPTIONS = (
    Option("best_of", int, 1, "Games in the match (1, 3 or 5); starters alternate.",
           choices=R.BEST_OF),
    Option("max_rounds", int, R.MAX_ROUNDS_DEFAULT,
           "Rounds after which a game is a draw (house rule for online play).", 1, 500),
    Option("open_deck_lists", bool, True,
           "After the match everyone sees the whole record, hands and deck lists included."),
    DecksOption("decks", dict, None, "Decks fixed by the app or a tournament, per seat; null: "
                "each seat picks as its first decision.", nullable=True, secret=True),
    CLOCK_OPTION,
    MAX_TIMEOUTS_OPTION,
)


# ------------------------------------------------------------------------------------------
# Small helpers
# ------------------------------------------------------------------------------------------
def _shape(action: dict, fields: dict) -> None:
    """Exactly ``type`` plus ``fields`` (name -> allowed types), else IllegalAction."""
    kind = action["type"]
    extra = sorted(set(action) - set(fields) - {"type"})
    if extra:
        raise IllegalAction(f"'{kind}' does not take the field(s): {', '.join(extra)}.")
    for name, types in fields.items():
        if name not in action:
            raise IllegalAction(f"'{kind}' needs the field '{name}'.")
        v = action[name]
        if isinstance(v, bool) and bool not in (types if isinstance(types, tuple) else (types,)):
            raise IllegalAction(f"'{kind}': '{name}' has the wrong type.")
        if not isinstance(v, types):
            raise IllegalAction(f"'{kind}': '{name}' has the wrong type.")


def _other(state: dict, seat: str) -> str:
    a, b = state["seats"]
    return b if seat == a else a


def _name(cid: str) -> str:
    return CARDS[cid]["name"]


def _abilities(cr: dict) -> list[dict]:
    abil = CARDS[cr["card"]]["abilities"]
    if cr["attached"]:
        return abil + [CARDS[cr["attached"]]["ability"]]
    return abil


def _field_types(p: dict) -> list[str]:
    out: list[str] = []
    for f in p["fields"]:
        for t in CARDS[f]["types"]:
            if t not in out:
                out.append(t)
    return [t for t in R.ELEMENTS if t in out]


def _pay(tokens: dict, cost: dict):
    """Return (tokens after, paid) or None. Typed parts first; each "any" token is taken from
    the type held most (ties: element order) — Ruling (ours)."""
    rem = dict(tokens)
    paid: dict[str, int] = {}
    for t, n in cost.items():
        if t == R.ANY:
            continue
        if rem.get(t, 0) < n:
            return None
        rem[t] -= n
        paid[t] = paid.get(t, 0) + n
    need = cost.get(R.ANY, 0)
    if need:
        if sum(rem.values()) < need:
            return None
        for _ in range(need):
            best = max(R.ELEMENTS, key=lambda e: (rem.get(e, 0), -R.ELEMENTS.index(e)))
            rem[best] -= 1
            paid[best] = paid.get(best, 0) + 1
    return {t: n for t, n in rem.items() if n}, paid


def _new_player() -> dict:
    # The hand is one sorted comma-joined string (hidden; small state = fast clone).
    return {"hand": "", "front": None, "reserve": [], "fields": [], "coach": None, "tokens": {},
            "discard": [], "took_token": False, "coach_use": None, "evolved": False,
            "attached": False, "declared": [], "bonus": None, "promote": None,
            "must_promote": False}


def _hand(p: dict) -> list[str]:
    return p["hand"].split(",") if p["hand"] else []


def _deck(state: dict, seat: str) -> list[str] | None:
    d = state["decks"][seat]
    return None if d is None else d.split(",")


def _mine(p: dict) -> list[str]:
    return ([p["front"]] if p["front"] else []) + p["reserve"]


class ParbajGame(Game):
    # ---------------------------------------------------------------------------------------
    # Setup and flow
    # ---------------------------------------------------------------------------------------
    def _setup(self, state: dict) -> None:
        seats = state["seats"]
        state.update({
            "phase": "deck", "decks": dict.fromkeys(seats), "deck_names": dict.fromkeys(seats),
            "rolls": [], "die_winner": None, "game_no": 0, "games": [], "wins": dict.fromkeys(seats, 0),
            "starter": None, "round": 0, "round_starter": None, "active": None, "next_uid": 1,
            "players": {s: _new_player() for s in seats}, "creatures": {},
        })
        for seat, ids in (state["options"].get("decks") or {}).items():
            if seat in seats:
                state["decks"][seat] = ",".join(ids)
                state["deck_names"][seat] = "(given by the match options)"
        if all(state["decks"][s] is not None for s in seats):
            self._after_decks(state)

    def _after_decks(self, state: dict) -> list[dict]:
        events = []
        a, b = state["seats"]
        while True:
            r = rng(state)
            roll = {a: r.randint(1, R.DIE_SIDES), b: r.randint(1, R.DIE_SIDES)}
            state["rolls"].append(roll)
            events.append(event("die_roll", rolls=roll, tie=roll[a] == roll[b]))
            if roll[a] != roll[b]:
                break
        state["die_winner"] = a if roll[a] > roll[b] else b
        state["phase"] = "first"
        state["active"] = state["die_winner"]
        return events

    def _start_game(self, state: dict, starter: str) -> list[dict]:
        state["game_no"] += 1
        state["starter"] = starter
        state["round"] = 0
        state["round_starter"] = None
        state["creatures"] = {}
        for s in state["seats"]:
            p = _new_player()
            p["hand"] = ",".join(sorted(_deck(state, s)))  # type: ignore[arg-type]  # both chose
            state["players"][s] = p
        state["phase"] = "place"
        state["active"] = starter
        return [event("game_start", game=state["game_no"], starter=starter)]

    def _start_round(self, state: dict) -> list[dict]:
        state["round"] += 1
        rs = state["starter"] if state["round"] % 2 == 1 else _other(state, state["starter"])
        state["round_starter"] = rs
        for s in state["seats"]:
            p = state["players"][s]
            p.update(took_token=not p["fields"], coach_use=None, evolved=False, attached=False,
                     declared=[], bonus=None, promote=None,
                     must_promote=False)
        state["phase"] = "prep"
        state["active"] = rs
        return [event("round_start", round=state["round"], starter=rs)]

    # ---------------------------------------------------------------------------------------
    # Pending / legal
    # ---------------------------------------------------------------------------------------
    def _pending(self, state: dict) -> dict[str, str]:
        ph = state["phase"]
        if ph == "deck":
            return {s: "choose_deck" for s in state["seats"] if state["decks"][s] is None}
        if ph == "promote":
            return {s: "promote" for s in state["seats"]
                    if state["players"][s]["must_promote"] and state["players"][s]["promote"] is None}
        return {state["active"]: {"first": "choose_first", "place": "place", "cards": "place_cards",
                                  "prep": "prepare", "combat": "declare"}[ph]}

    def _legal(self, state: dict, seat: str) -> list[dict]:
        ph = state["phase"]
        p = state["players"][seat]
        if ph == "deck":
            return [{"type": "choose_deck", "deck": d} for d in POOL.decks]
        if ph == "first":
            return [{"type": "choose_first", "seat": s} for s in state["seats"]]
        if ph == "place":
            out: list[dict] = []
            hand = _hand(p)
            l1 = sorted({c for c in hand if CARDS[c]["kind"] == "creature" and CARDS[c]["level"] == 1})
            n_l1 = sum(1 for c in hand if c in l1)
            if len(p["reserve"]) < R.RESERVE_SLOTS and n_l1 >= 2:
                out += [{"type": "place", "card": c, "slot": "reserve"} for c in l1]
            out += [{"type": "place", "card": c, "slot": "frontline"} for c in l1]
            return out
        if ph == "cards":
            out = []
            if len(p["fields"]) < R.MAX_FIELDS_IN_PLAY:
                out += [{"type": "place_field", "card": c} for c in sorted(set(_hand(p)))
                        if CARDS[c]["kind"] == "field" and self._field_ok(state, seat, c)]
            if p["coach"] is None:
                out += [{"type": "place_coach", "card": c} for c in sorted(set(_hand(p)))
                        if CARDS[c]["kind"] == "coach"]
            return out + [{"type": "done"}]
        if ph == "prep":
            if not p["took_token"]:
                return [{"type": "take_token", "token": t} for t in _field_types(p)]
            out = []
            if p["coach"] and p["coach_use"] is None:
                ab = CARDS[p["coach"]]["active"]
                if _pay(p["tokens"], ab["cost"]) is not None:
                    for tgt in self._support_targets(state, seat, ab):
                        for tok in self._token_choices(p, ab):
                            out.append({"type": "coach", "target": tgt, "token": tok})
            hand = sorted(set(_hand(p)))
            if not p["evolved"]:
                for uid in _mine(p):
                    cur = state["creatures"][uid]["card"]
                    out += [{"type": "evolve", "creature": uid, "card": c} for c in hand
                            if CARDS[c]["kind"] == "creature" and CARDS[c]["evolves_from"] == cur]
            if not p["attached"]:
                abil = [c for c in hand if CARDS[c]["kind"] == "ability"]
                for uid in _mine(p):
                    if state["creatures"][uid]["attached"] is None:
                        out += [{"type": "attach", "creature": uid, "card": c} for c in abil]
            return out + [{"type": "done"}]
        if ph == "combat":
            out = []
            for uid in _mine(p):
                pos = "front" if uid == p["front"] else "reserve"
                if any(d["pos"] == pos for d in p["declared"]):
                    continue
                cr = state["creatures"][uid]
                if cr["stun"] == state["round"]:
                    continue
                for i, ab in enumerate(_abilities(cr)):
                    if ab["kind"] not in R.USABLE_FROM[pos] or _pay(p["tokens"], ab["cost"]) is None:
                        continue
                    for tgt in self._targets(state, seat, uid, ab):
                        for tok in self._token_choices(p, ab):
                            out.append({"type": "declare", "creature": uid, "ability": i,
                                        "target": tgt, "token": tok})
            if not p["declared"] and p["fields"]:
                out += [{"type": "pass", "token": t} for t in _field_types(p)]
            else:
                out.append({"type": "pass"})
            return out
        if ph == "promote":
            return [{"type": "promote", "creature": uid} for uid in p["reserve"]]
        return []

    def _field_ok(self, state: dict, seat: str, fid: str) -> bool:
        types = CARDS[fid]["types"]
        for uid in _mine(state["players"][seat]):
            t = CARDS[state["creatures"][uid]["card"]]["type"]
            if t == R.NEUTRAL or t in types:
                return True
        return False

    @staticmethod
    def _token_choices(p: dict, ab: dict) -> list:
        if ab["token"] and p["fields"]:
            return list(_field_types(p))
        return [None]

    def _support_targets(self, state: dict, seat: str, ab: dict) -> list:
        if ab["area"] or not (ab["heal"] or ab["armor"] or ab["boost"] or ab["shroud"]):
            return [None]
        return _mine(state["players"][seat])

    def _targets(self, state: dict, seat: str, uid: str, ab: dict) -> list:
        kind = ab["kind"]
        if kind == "passive":
            return [None]
        if kind == "support":
            return self._support_targets(state, seat, ab)
        if ab["area"]:
            return [None]
        opp = state["players"][_other(state, seat)]
        out = [opp["front"]] if opp["front"] else []
        if ab["assassin"]:
            out += opp["reserve"]
        return out

    # ---------------------------------------------------------------------------------------
    # Apply
    # ---------------------------------------------------------------------------------------
    def _apply(self, state: dict, seat: str, action: dict) -> list[dict]:
        kind = action["type"]
        ph = state["phase"]
        handlers = {
            "deck": {"choose_deck": self._a_choose_deck},
            "first": {"choose_first": self._a_choose_first},
            "place": {"place": self._a_place},
            "cards": {"place_field": self._a_place_field, "place_coach": self._a_place_coach,
                      "done": self._a_cards_done},
            "prep": {"take_token": self._a_take_token, "coach": self._a_coach,
                     "evolve": self._a_evolve, "attach": self._a_attach, "done": self._a_prep_done},
            "combat": {"declare": self._a_declare, "pass": self._a_pass},
            "promote": {"promote": self._a_promote},
        }[ph]
        if kind not in handlers:
            raise IllegalAction(f"'{kind}' is not possible now; you may: "
                                f"{', '.join(sorted(handlers))}.")
        return handlers[kind](state, seat, action)

    # -- deck and first player ------------------------------------------------------------
    def _a_choose_deck(self, state, seat, action):
        if "deck" in action:
            _shape(action, {"deck": str})
            deck = POOL.decks.get(action["deck"])
            if deck is None:
                raise IllegalAction(f"There is no starter deck '{action['deck']}'.")
            ids, name = list(deck["cards"]), deck["name"]
        elif "cards" in action:
            _shape(action, {"cards": list})
            problems = validate_deck(action["cards"])
            if problems:
                raise IllegalAction("That deck cannot be played: "
                                    + " ".join(p.message for p in problems))
            ids, name = list(action["cards"]), "Custom deck"
        else:
            raise IllegalAction("'choose_deck' needs 'deck' (a starter deck id) or 'cards' (a list).")
        state["decks"][seat] = ",".join(ids)
        state["deck_names"][seat] = name
        events = [event("your_deck", vis=[seat], seat=seat, name=name, cards=sorted(ids)),
                  event("deck_chosen", seat=seat)]
        if all(state["decks"][s] is not None for s in state["seats"]):
            events += self._after_decks(state)
        return events

    def _a_choose_first(self, state, seat, action):
        _shape(action, {"seat": str})
        if action["seat"] not in state["seats"]:
            raise IllegalAction(f"'{action['seat']}' is not a seat in this match.")
        return [event("first_chosen", by=seat, starter=action["seat"])] + \
            self._start_game(state, action["seat"])

    # -- setup placement ------------------------------------------------------------------
    def _take_from_hand(self, p: dict, cid: str) -> None:
        hand = _hand(p)
        hand.remove(cid)
        p["hand"] = ",".join(hand)

    def _a_place(self, state, seat, action):
        _shape(action, {"card": str, "slot": str})
        p = state["players"][seat]
        cid, slot = action["card"], action["slot"]
        if slot not in ("reserve", "frontline"):
            raise IllegalAction("'slot' is 'reserve' or 'frontline'.")
        if cid not in _hand(p):
            raise IllegalAction("That card is not in your hand.")
        card = CARDS[cid]
        if card["kind"] != "creature" or card["level"] != 1:
            raise IllegalAction("Only level I creatures can be placed on the battlefield.")
        if slot == "reserve":
            if len(p["reserve"]) >= R.RESERVE_SLOTS:
                raise IllegalAction(f"Your reserve is full ({R.RESERVE_SLOTS}); place your frontline.")
            left = sum(1 for c in _hand(p) if CARDS[c]["kind"] == "creature" and CARDS[c]["level"] == 1)
            if left < 2:
                raise IllegalAction("Keep a level I creature for the frontline: place this one there.")
        uid = f"{seat}{state['next_uid']}"
        state["next_uid"] += 1
        self._take_from_hand(p, cid)
        state["creatures"][uid] = {"card": cid, "stack": [], "injuries": 0,
                                   "attached": None, "poison": None, "stun": 0}
        if slot == "reserve":
            p["reserve"].append(uid)
        else:
            p["front"] = uid
        events = [event("placed", seat=seat, creature=uid, card=cid, slot=slot)]
        o = _other(state, seat)
        if state["players"][o]["front"] is None:
            state["active"] = o
        elif p["front"] is not None:
            state["phase"] = "cards"
            state["active"] = state["starter"]
        return events

    def _a_place_field(self, state, seat, action):
        _shape(action, {"card": str})
        p = state["players"][seat]
        cid = action["card"]
        if cid not in _hand(p) or CARDS[cid]["kind"] != "field":
            raise IllegalAction("That token field is not in your hand.")
        if len(p["fields"]) >= R.MAX_FIELDS_IN_PLAY:
            raise IllegalAction(f"You already have {R.MAX_FIELDS_IN_PLAY} token fields.")
        if not self._field_ok(state, seat, cid):
            a, b = CARDS[cid]["types"]
            raise IllegalAction(f"{_name(cid)} needs a {a}, {b} or neutral creature on your "
                                f"battlefield.")
        self._take_from_hand(p, cid)
        p["fields"].append(cid)
        return [event("field_placed", seat=seat, card=cid, types=list(CARDS[cid]["types"]))]

    def _a_place_coach(self, state, seat, action):
        _shape(action, {"card": str})
        p = state["players"][seat]
        cid = action["card"]
        if cid not in _hand(p) or CARDS[cid]["kind"] != "coach":
            raise IllegalAction("That coach is not in your hand.")
        if p["coach"] is not None:
            raise IllegalAction("You already have a coach.")
        self._take_from_hand(p, cid)
        p["coach"] = cid
        return [event("coach_placed", seat=seat, card=cid)]

    def _a_cards_done(self, state, seat, action):
        _shape(action, {})
        events = [event("setup_done", seat=seat)]
        if seat == state["starter"]:
            state["active"] = _other(state, seat)
            return events
        return events + self._start_round(state)

    # -- preparation ----------------------------------------------------------------------
    def _need_token(self, p: dict) -> None:
        if not p["took_token"]:
            raise IllegalAction("First take this round's token (take_token).")

    def _a_take_token(self, state, seat, action):
        _shape(action, {"token": str})
        p = state["players"][seat]
        if p["took_token"]:
            raise IllegalAction("You already took this round's token.")
        t = action["token"]
        if t not in _field_types(p):
            raise IllegalAction(f"Your fields provide {', '.join(_field_types(p))} tokens, not '{t}'.")
        p["tokens"][t] = p["tokens"].get(t, 0) + 1
        p["took_token"] = True
        return [event("token", seat=seat, token=t, reason="round")]

    def _a_coach(self, state, seat, action):
        _shape(action, {"target": (str, _NONE), "token": (str, _NONE)})
        p = state["players"][seat]
        self._need_token(p)
        if p["coach"] is None:
            raise IllegalAction("You have no coach on the battlefield.")
        if p["coach_use"] is not None:
            raise IllegalAction("Your coach's ability was already used this round.")
        ab = CARDS[p["coach"]]["active"]
        tgt, tok = action["target"], action["token"]
        if tgt not in self._support_targets(state, seat, ab):
            raise IllegalAction(self._target_message(state, seat, ab, tgt))
        self._check_token(p, ab, tok)
        paid = self._charge(p, ab)
        p["coach_use"] = {"target": tgt, "token": tok, "paid": paid}
        events = [event("coach_used", seat=seat, card=p["coach"], ability=ab["name"], target=tgt,
                        token=tok, paid=paid)]
        if ab["token"] and tok:
            p["tokens"][tok] = p["tokens"].get(tok, 0) + 1
            events.append(event("token", seat=seat, token=tok, reason="coach"))
        return events

    def _own_creature(self, state, seat, uid) -> dict:
        p = state["players"][seat]
        if uid not in _mine(p):
            raise IllegalAction("That is not one of your creatures on the battlefield.")
        return state["creatures"][uid]

    def _a_evolve(self, state, seat, action):
        _shape(action, {"creature": str, "card": str})
        p = state["players"][seat]
        self._need_token(p)
        if p["evolved"]:
            raise IllegalAction("You already evolved a creature this round.")
        cr = self._own_creature(state, seat, action["creature"])
        cid = action["card"]
        if cid not in _hand(p) or CARDS[cid]["kind"] != "creature":
            raise IllegalAction("That creature card is not in your hand.")
        if CARDS[cid]["evolves_from"] != cr["card"]:
            raise IllegalAction(f"{_name(cid)} does not evolve from {_name(cr['card'])}.")
        self._take_from_hand(p, cid)
        old = cr["card"]
        cr["stack"].append(old)
        cr["card"] = cid
        p["evolved"] = True
        return [event("evolved", seat=seat, creature=action["creature"], card=cid, previous=old,
                      injuries=cr["injuries"], endurance=CARDS[cid]["endurance"])]

    def _a_attach(self, state, seat, action):
        _shape(action, {"creature": str, "card": str})
        p = state["players"][seat]
        self._need_token(p)
        if p["attached"]:
            raise IllegalAction("You already attached an ability card this round.")
        cr = self._own_creature(state, seat, action["creature"])
        cid = action["card"]
        if cid not in _hand(p) or CARDS[cid]["kind"] != "ability":
            raise IllegalAction("That ability card is not in your hand.")
        if cr["attached"] is not None:
            raise IllegalAction("That creature already has an ability card (one per creature).")
        self._take_from_hand(p, cid)
        cr["attached"] = cid
        p["attached"] = True
        return [event("attached", seat=seat, creature=action["creature"], card=cid)]

    def _a_prep_done(self, state, seat, action):
        _shape(action, {})
        p = state["players"][seat]
        self._need_token(p)
        events = [event("prep_done", seat=seat)]
        if seat == state["round_starter"]:
            state["active"] = _other(state, seat)
        else:
            state["phase"] = "combat"
            state["active"] = state["round_starter"]
        return events

    # -- combat ---------------------------------------------------------------------------
    def _check_token(self, p: dict, ab: dict, tok) -> None:
        choices = self._token_choices(p, ab)
        if tok not in choices:
            if choices == [None]:
                raise IllegalAction("This ability gives no token choice: 'token' must be null.")
            raise IllegalAction(f"Choose the token you gain: one of {', '.join(choices)}.")

    def _charge(self, p: dict, ab: dict) -> dict:
        res = _pay(p["tokens"], ab["cost"])
        if res is None:
            have = ", ".join(f"{n} {t}" for t, n in p["tokens"].items()) or "no tokens"
            raise IllegalAction(f"{ab['name']} costs {cost_text(ab['cost'])}; you have {have}.")
        p["tokens"], paid = res
        return paid

    def _target_message(self, state, seat, ab, tgt) -> str:
        if ab["kind"] == "passive":
            return "A passive ability affects its user: 'target' must be null."
        if ab["kind"] == "attack":
            if ab["area"]:
                return "An area attack hits the enemy frontline by itself: 'target' must be null."
            if ab["assassin"]:
                return "Target the enemy frontline or (assassin) an enemy reserve creature."
            return "Attacks target the enemy frontline (only assassin may target the reserve)."
        if self._support_targets(state, seat, ab) == [None]:
            return "This ability needs no target: 'target' must be null."
        return "Choose one of your own creatures as the target."

    def _a_declare(self, state, seat, action):
        _shape(action, {"creature": str, "ability": int, "target": (str, _NONE),
                        "token": (str, _NONE)})
        p = state["players"][seat]
        uid = action["creature"]
        cr = self._own_creature(state, seat, uid)
        pos = "front" if uid == p["front"] else "reserve"
        where = "frontline" if pos == "front" else "reserve"
        if any(d["pos"] == pos for d in p["declared"]):
            raise IllegalAction(f"You already declared an ability from your {where} this round.")
        if cr["stun"] == state["round"]:
            raise IllegalAction(f"{_name(cr['card'])} is stunned and uses no ability this round.")
        abil = _abilities(cr)
        i = action["ability"]
        if not 0 <= i < len(abil):
            raise IllegalAction(f"{_name(cr['card'])} has abilities 0 to {len(abil) - 1}.")
        ab = abil[i]
        if ab["kind"] not in R.USABLE_FROM[pos]:
            raise IllegalAction(f"A {where} creature uses only "
                                f"{' or '.join(R.USABLE_FROM[pos])} abilities.")
        if action["target"] not in self._targets(state, seat, uid, ab):
            raise IllegalAction(self._target_message(state, seat, ab, action["target"]))
        self._check_token(p, ab, action["token"])
        paid = self._charge(p, ab)
        d = {"creature": uid, "pos": pos, "ability": i, "name": ab["name"], "ability_kind": ab["kind"],
             "target": action["target"], "token": action["token"], "paid": paid}
        p["declared"].append(d)
        return [event("declared", seat=seat, **d)]

    def _a_pass(self, state, seat, action):
        p = state["players"][seat]
        if not p["declared"] and p["fields"]:
            _shape(action, {"token": str})
            if action["token"] not in _field_types(p):
                raise IllegalAction(f"Choose the bonus token for using no ability: one of "
                                    f"{', '.join(_field_types(p))}.")
            p["bonus"] = action["token"]
        else:
            if "token" in action and p["declared"]:
                raise IllegalAction("You used an ability this round, so there is no bonus token: "
                                    "send {\"type\": \"pass\"}.")
            _shape(action, {})
        events = [event("passed", seat=seat, bonus=p["bonus"])]
        if seat == state["round_starter"]:
            state["active"] = _other(state, seat)
            return events
        return events + self._resolve(state)

    # -- promotion ------------------------------------------------------------------------
    def _a_promote(self, state, seat, action):
        _shape(action, {"creature": str})
        p = state["players"][seat]
        if action["creature"] not in p["reserve"]:
            raise IllegalAction("Choose one of your reserve creatures to move up to the frontline.")
        p["promote"] = action["creature"]
        events = [event("promote_chosen", seat=seat)]
        if self._pending(state):
            return events
        for s in state["seats"]:
            q = state["players"][s]
            if q["must_promote"]:
                events += self._move_up(state, s, q["promote"], chosen=True)
        return events + self._start_round(state)

    def _move_up(self, state, seat, uid, chosen) -> list[dict]:
        p = state["players"][seat]
        p["reserve"].remove(uid)
        p["front"] = uid
        p["must_promote"] = False
        p["promote"] = None
        return [event("promoted", seat=seat, creature=uid, card=state["creatures"][uid]["card"],
                      chosen=chosen)]

    # ---------------------------------------------------------------------------------------
    # End of round: everything declared resolves at once
    # ---------------------------------------------------------------------------------------
    def _resolve(self, state: dict) -> list[dict]:
        rnd = state["round"]
        crs = state["creatures"]
        rs = state["round_starter"]
        order = [rs, _other(state, rs)]
        events = [event("resolution", round=rnd)]
        armor: dict[str, int] = {}
        heal: dict[str, int] = {}
        boost: dict[str, int] = {}
        shroud: set[str] = set()
        attacks = []
        tokens = []

        def give(seat, source, name, ab, recipients):
            for r in recipients:
                if ab.get("heal"):
                    heal[r] = heal.get(r, 0) + ab["heal"]
                if ab.get("armor"):
                    armor[r] = armor.get(r, 0) + ab["armor"]
                if ab.get("boost"):
                    boost[r] = boost.get(r, 0) + ab["boost"]
                if ab.get("shroud"):
                    shroud.add(r)
                eff = {k: ab[k] for k in ("heal", "armor", "boost", "shroud") if ab.get(k)}
                if eff:
                    events.append(event("effect", seat=seat, source=source, ability=name,
                                        recipient=r, **eff))

        for seat in order:
            p = state["players"][seat]
            mine = _mine(p)
            if p["coach"]:
                coach = CARDS[p["coach"]]
                cu = p["coach_use"]
                if cu is not None:
                    ab = coach["active"]
                    rec = mine if ab["area"] else ([cu["target"]] if cu["target"] else [])
                    give(seat, "coach", ab["name"], ab, rec)
                pas = coach["passive"]
                if pas:
                    rec = mine if pas["to"] == "all" else ([p["front"]] if p["front"] else [])
                    give(seat, "coach", pas["name"], pas, rec)
            for d in p["declared"]:
                ab = _abilities(crs[d["creature"]])[d["ability"]]
                if ab["kind"] == "attack":
                    attacks.append((seat, d["creature"], ab, d["target"]))
                elif ab["kind"] == "passive":
                    give(seat, d["creature"], ab["name"], ab, [d["creature"]])
                else:
                    rec = mine if ab["area"] else ([d["target"]] if d["target"] else [])
                    give(seat, d["creature"], ab["name"], ab, rec)
                if ab["token"] and d["token"]:
                    tokens.append((seat, d["token"], "ability"))
            if not p["declared"] and p["bonus"]:
                tokens.append((seat, p["bonus"], "bonus"))

        damage: dict[str, int] = {}
        poisons: dict[str, int] = {}
        stuns: list[str] = []
        for seat, uid, ab, target in attacks:
            src = crs[uid]
            dtype = CARDS[src["card"]]["type"]
            opp = state["players"][_other(state, seat)]
            targets = [opp["front"]] if ab["area"] else [target]
            for t in targets:
                if t is None or t not in crs:
                    continue
                if ab["area"] and t in shroud:
                    events.append(event("shrouded", source=uid, ability=ab["name"], target=t))
                    continue
                if ab["damage"]:
                    tc = CARDS[crs[t]["card"]]
                    base = ab["damage"]
                    weak = dtype != R.NEUTRAL and tc["weakness"] == dtype
                    imm = dtype != R.NEUTRAL and tc["immunity"] == dtype
                    after = base * 2 if weak else 0 if imm else base
                    b = ab["boost"] + boost.get(uid, 0)
                    a = armor.get(t, 0)
                    total = max(0, after + b - a)
                    damage[t] = damage.get(t, 0) + total
                    events.append(event("damage", source=uid, ability=ab["name"], target=t,
                                        damage_type=dtype, base=base, weakness=weak, immunity=imm,
                                        after_weakness=after, boost=b, armor=a, total=total))
                if ab["poison"]:
                    poisons[t] = max(poisons.get(t, 0), ab["poison"])
                if ab["stun"]:
                    stuns.append(t)
        # Poison placed in earlier rounds deals its damage now.
        ticks: dict[str, int] = {}
        for uid in sorted(crs):
            po = crs[uid]["poison"]
            if po and po["from"] <= rnd:
                ticks[uid] = po["amount"]
                po["rounds"] -= 1
                events.append(event("poison_damage", target=uid, amount=po["amount"],
                                    rounds_left=po["rounds"]))
                if po["rounds"] <= 0:
                    crs[uid]["poison"] = None
        # Injuries: max(0, injuries + damage - healing).
        for uid in sorted(set(damage) | set(heal) | set(ticks)):
            cr = crs[uid]
            dmg = damage.get(uid, 0) + ticks.get(uid, 0)
            hl = heal.get(uid, 0)
            before = cr["injuries"]
            cr["injuries"] = max(0, before + dmg - hl)
            events.append(event("injuries", creature=uid, before=before, damage=dmg, healing=hl,
                                after=cr["injuries"], endurance=CARDS[cr["card"]]["endurance"]))
        for uid, amount in sorted(poisons.items()):
            crs[uid]["poison"] = {"amount": amount, "rounds": R.POISON_ROUNDS, "from": rnd + 1}
            events.append(event("poisoned", creature=uid, amount=amount, rounds=R.POISON_ROUNDS))
        for uid in stuns:
            if crs[uid]["stun"] == rnd:
                # Ruling (ours): no stun lock. A creature stunned this round shrugs off a new stun.
                events.append(event("stun_resisted", creature=uid))
                continue
            crs[uid]["stun"] = rnd + 1
            events.append(event("stunned", creature=uid, round=rnd + 1))
        for seat, tok, why in tokens:
            tk = state["players"][seat]["tokens"]
            tk[tok] = tk.get(tok, 0) + 1
            events.append(event("token", seat=seat, token=tok, reason=why))
        # End phase: defeats.
        for seat in order:
            p = state["players"][seat]
            for uid in _mine(p):
                cr = crs[uid]
                if cr["injuries"] >= CARDS[cr["card"]]["endurance"]:
                    if p["front"] == uid:
                        p["front"] = None
                    else:
                        p["reserve"].remove(uid)
                    gone = cr["stack"] + [cr["card"]] + ([cr["attached"]] if cr["attached"] else [])
                    p["discard"] += gone
                    del crs[uid]
                    events.append(event("defeated", seat=seat, creature=uid, card=cr["card"],
                                        discarded=gone))
        # End of the game?
        empty = [s for s in state["seats"]
                 if state["players"][s]["front"] is None and not state["players"][s]["reserve"]]
        if len(empty) == 2:
            return events + self._end_game(state, None, "both_defeated")
        if len(empty) == 1:
            return events + self._end_game(state, _other(state, empty[0]), "defeat")
        if rnd >= state["options"]["max_rounds"]:
            return events + self._end_game(state, None, "max_rounds")
        # Promotion.
        choose = False
        for seat in order:
            p = state["players"][seat]
            if p["front"] is None:
                if len(p["reserve"]) == 1:
                    events += self._move_up(state, seat, p["reserve"][0], chosen=False)
                else:
                    p["must_promote"] = True
                    choose = True
        if choose:
            state["phase"] = "promote"
            state["active"] = None
            return events
        return events + self._start_round(state)

    # ---------------------------------------------------------------------------------------
    # Games and the match
    # ---------------------------------------------------------------------------------------
    def _end_game(self, state: dict, winner, reason: str) -> list[dict]:
        rec = {"game": state["game_no"], "winner": winner, "reason": reason,
               "rounds": state["round"], "starter": state["starter"]}
        state["games"].append(rec)
        if winner:
            state["wins"][winner] += 1
        events = [event("game_end", **rec, wins=dict(state["wins"]))]
        best_of = state["options"]["best_of"]
        need = best_of // 2 + 1
        a, b = state["seats"]
        w = state["wins"]
        if w[a] >= need or w[b] >= need or len(state["games"]) >= best_of:
            state["phase"] = "over"
            state["active"] = None
            if w[a] == w[b]:
                places = {a: 1, b: 1}
            else:
                places = {a: 1, b: 2} if w[a] > w[b] else {a: 2, b: 1}
            why = reason if best_of == 1 else "match"
            events.append(self.finish(state, places, why, games=list(state["games"]),
                                      wins=dict(w)))
            return events
        return events + self._start_game(state, _other(state, state["starter"]))

    # ---------------------------------------------------------------------------------------
    # Clock default and views
    # ---------------------------------------------------------------------------------------
    def default_action(self, state: dict, seat: str) -> dict:
        """An absent player: first starter deck, chooses to start, fills the battlefield in
        order, places what it can, takes the first token type, skips the optional preparation
        steps and passes (taking the bonus token)."""
        legal = self._legal(state, seat)
        ph = state["phase"]
        if ph == "first":
            return {"type": "choose_first", "seat": seat}
        if ph == "prep" and state["players"][seat]["took_token"]:
            return {"type": "done"}
        if ph == "combat":
            return next(a for a in legal if a["type"] == "pass")
        return legal[0]

    # ---------------------------------------------------------------------------------------
    # The record after the end: deck lists as the final view shows them
    # ---------------------------------------------------------------------------------------
    def record_options(self, options: dict, viewer: str) -> dict:
        # Open lists: after the end everyone reads every list (the final view shows them too).
        if options and options.get("open_deck_lists"):
            return options
        return super().record_options(options, viewer)

    def record_action(self, options: dict, seat: str, action, viewer: str):
        """Closed lists: another seat's deck choice (a starter id or a whole list) stays
        hidden after the end, as in the view."""
        if (viewer in (OMNISCIENT, seat) or (options or {}).get("open_deck_lists")
                or not isinstance(action, dict) or action.get("type") != "choose_deck"):
            return action
        return {"type": "choose_deck", "hidden": True}

    def _creature_view(self, state: dict, uid: str) -> dict:
        cr = state["creatures"][uid]
        return {"id": uid, "owner": uid[0], "card": cr["card"], "stack": list(cr["stack"]),
                "injuries": cr["injuries"], "endurance": CARDS[cr["card"]]["endurance"],
                "attached": cr["attached"], "poison": dict(cr["poison"]) if cr["poison"] else None,
                "stunned_round": cr["stun"] if cr["stun"] >= state["round"] else None}

    def _view(self, state: dict, viewer: str) -> dict:
        over = state["result"] is not None
        see_all = viewer == OMNISCIENT or (over and state["options"]["open_deck_lists"])
        players = {}
        for s in state["seats"]:
            p = state["players"][s]
            own = see_all or viewer == s
            pv = {
                "deck_chosen": state["decks"][s] is not None,
                "deck_size": len(_deck(state, s)) if state["decks"][s] is not None and (  # type: ignore[arg-type]
                    own or state["phase"] != "deck") else None,
                "hand_size": len(_hand(p)),
                "front": p["front"], "reserve": list(p["reserve"]), "fields": list(p["fields"]),
                "field_types": _field_types(p), "coach": p["coach"], "tokens": dict(p["tokens"]),
                "discard": list(p["discard"]),
                "took_token": p["took_token"], "coach_use": clone(p["coach_use"]),
                "evolved": p["evolved"], "attached": p["attached"],
                "declared": clone(p["declared"]),
                "bonus": p["bonus"], "must_promote": p["must_promote"],
                "promote_chosen": p["promote"] is not None,
            }
            if own:
                pv["hand"] = _hand(p)
                pv["deck"] = sorted(_deck(state, s)) if state["decks"][s] is not None else None  # type: ignore[arg-type]
                pv["deck_name"] = state["deck_names"][s]
                pv["promote"] = p["promote"]
            players[s] = pv
        opts = {k: v for k, v in state["options"].items() if k != "decks"}
        return {
            "game": "parbaj", "viewer": viewer, "phase": state["phase"], "options": opts,
            "game_no": state["game_no"], "games": [dict(g) for g in state["games"]],
            "wins": dict(state["wins"]), "rolls": [dict(r) for r in state["rolls"]],
            "die_winner": state["die_winner"], "starter": state["starter"],
            "round": state["round"], "round_starter": state["round_starter"],
            "active": state["active"], "pending": sorted(self.pending(state)),
            "players": players,
            "creatures": {uid: self._creature_view(state, uid) for uid in state["creatures"]},
            "result": state["result"],
        }


GAME = ParbajGame(id="parbaj", name="Párbaj", min_players=2, max_players=2, options=OPTIONS)

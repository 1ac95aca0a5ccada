"""Combat: the "War" family battle game for 2-6 players, with arithmetic attack variants.

Rules as implemented (and every ruling of ours): docs/rules/combat.md.

State (JSON only):

* ``draw``: seat -> its face-down draw pile as a string of card characters (``rules.encode``),
  top card last. Nobody sees the order.
* ``prisoners``: seat -> captured cards, same encoding (only the count is shown).
* ``clash``: the round being fought, ``{"kind": "battle"|"war", "seats": [...], "ready": [...]}``;
  ``seats`` are the seats that had cards when the round began, ``ready`` who confirmed "fight".
* ``table``: the stake of the battle in progress, one entry per round (the battle, then each war):
  seat -> ``[down, cards, value, text]`` (``down`` and ``cards`` encoded strings, topmost
  first; ``down`` is hidden, ``text`` the attack's formula, e.g. "7 x 6 = 42").
* ``set_aside``: cards out of play (encoded string) (undecidable wars, forfeited seats' cards).
* ``out``: seat -> ``{"reason", "step", "battle"}``; ``step`` orders the exits (same step =
  out together, sharing a place).
* ``battles``: completed battles; ``wars``: wars fought so far in the current battle;
  ``last``: the previous battle's table and outcome, for the view.
"""
from __future__ import annotations

from games.base import (
    MAX_TIMEOUTS_OPTION,
    OMNISCIENT,
    Action,
    Event,
    Game,
    IllegalAction,
    InvalidOptions,
    Option,
    State,
    event,
    rng,
)
from games.combat import rules as R

OPTIONS = (
    Option(
        "seats", int, None,
        "Table size (2-6); the match starts when full. Null: the host starts it.",
        2, 6, nullable=True,
    ),
    Option(
        "decks", int, None,
        "Number of 40-card decks (1 or 2). Null: 1 for 2-4 players, 2 for 5-6.",
        1, 2, nullable=True,
    ),
    Option(
        "variant", str, "basic",
        "Attack: basic (1 card), extra (2, sum), advanced (3 or 4, sum), "
        "versus (2, larger minus smaller), multiply (2, product).",
        choices=tuple(R.VARIANTS),
    ),
    Option("advanced_cards", int, 3, "Cards per attack in the advanced variant.", choices=(3, 4)),
    Option(
        "ending", str, "prisoners",
        "prisoners: play the deck out, most prisoners wins. surrender: reshuffle prisoners, "
        "play until one seat is left.",
        choices=R.ENDINGS,
    ),
    Option(
        "max_battles", int, 500,
        "Surrender ending only: after this many battles the game ends, ranked by cards held.",
        1, 10000,
    ),
    # A seat that walks away must not stall the table: the clock fights for it by default.
    Option("clock_seconds", int, 30, "Seconds to confirm a fight; null for no clock.", 5, 3600,
           nullable=True),
    MAX_TIMEOUTS_OPTION,
)

FIGHT: Action = {"type": "fight"}
CONCEDE: Action = {"type": "concede"}


def attack_size(options: dict) -> int:
    n = R.VARIANTS[options["variant"]]["cards"]
    return options["advanced_cards"] if n is None else n


def evaluate(cards: list[int], op: str) -> tuple[int, str]:
    """The value of an attack and its formula text. A short attack (fewer cards than the
    variant asks for) is computed from the cards it has; a lone card is worth its value."""
    if len(cards) == 1 or op == "card":
        return cards[0], str(cards[0])
    if op == "sum":
        value = sum(cards)
        return value, " + ".join(map(str, cards)) + f" = {value}"
    if op == "subtract":
        hi, lo = max(cards), min(cards)
        return hi - lo, f"{hi} - {lo} = {hi - lo}"
    if op == "multiply":
        value = 1
        for c in cards:
            value *= c
        return value, " x ".join(map(str, cards)) + f" = {value}"
    raise ValueError(f"unknown op {op!r}")


class CombatGame(Game):
    # ---- options ----------------------------------------------------------------------
    def validate_options(self, raw: dict | None, n_seats: int | None = None) -> dict:
        opts = super().validate_options(raw, n_seats)
        fixed = opts["seats"]
        if fixed is not None and n_seats is not None and n_seats != fixed:
            raise InvalidOptions(f"This match is set for {fixed} players, not {n_seats}.")
        n = fixed if fixed is not None else n_seats
        if opts["decks"] is None and n in R.DEFAULT_DECKS:
            opts["decks"] = R.DEFAULT_DECKS[n]
        return opts

    # ---- concede is resign: allowed any time to a seat still in ------------------------
    def apply(self, state: State, seat: str, action: Action, *, copy: bool = True
              ) -> tuple[State, list[Event]]:
        if isinstance(action, dict) and action.get("type") == "concede":
            if set(action) != {"type"}:
                raise IllegalAction("'concede' takes no other fields.")
            action = {"type": "resign"}
        return super().apply(state, seat, action, copy=copy)

    # ---- hooks ------------------------------------------------------------------------
    def _setup(self, state: State) -> None:
        opts = state["options"]
        seats = state["seats"]
        decks = opts["decks"] or R.DEFAULT_DECKS[len(seats)]
        deck = [v for v in R.CARD_VALUES for _ in range(R.COPIES_PER_DECK * decks)]
        rng(state).shuffle(deck)
        n = len(seats)
        # One at a time from seat A around the table; each card lands on top of the pile.
        draw = {s: R.encode(deck[i::n]) for i, s in enumerate(seats)}
        state.update(
            size=len(deck),
            draw=draw,
            prisoners=dict.fromkeys(seats, ""),
            out={},
            out_steps=0,
            battles=0,
            wars=0,
            clash=None,
            table=[],
            set_aside="",
            last=None,
        )
        self._start_battle(state, [])

    def _pending(self, state: State) -> dict[str, str]:
        clash = state["clash"]
        if clash is None:
            return {}
        out, ready = state["out"], clash["ready"]
        return {s: "fight" for s in clash["seats"] if s not in ready and s not in out}

    def _legal(self, state: State, seat: str) -> list[Action]:
        return [dict(FIGHT), dict(CONCEDE)]

    def default_action(self, state: State, seat: str) -> Action:
        return dict(FIGHT)

    def _apply(self, state: State, seat: str, action: Action) -> list[Event]:
        kind = action["type"]
        if kind != "fight":
            raise IllegalAction(
                f"Unknown action '{kind}'. Combat's actions are 'fight' and 'concede'."
            )
        if len(action) != 1:
            raise IllegalAction("'fight' takes no other fields.")
        state["clash"]["ready"].append(seat)
        events = [event("ready", seat=seat, battle=state["battles"] + 1)]
        self._advance(state, events)
        return events

    def _forfeit(self, state: State, seat: str, reason: str) -> list[Event]:
        """The seat is out at once; its draw pile and prisoners are set aside. Cards it
        already staked on the table stay there for whoever wins the battle. The rest play on."""
        if seat in state["out"]:
            raise IllegalAction("You are already out of this match.")
        draw, pris = state["draw"][seat], state["prisoners"][seat]
        n = len(draw) + len(pris)
        state["set_aside"] += draw + pris
        state["draw"][seat], state["prisoners"][seat] = "", ""
        events = [event("forfeit", seat=seat, reason=reason, set_aside=n)]
        self._knock_out(state, [seat], reason)
        # Between battles the game may be over now; mid-war only if one seat (or none) is left.
        if (not state["table"] or len(self._in(state)) <= 1) and self._check_end(state, events):
            return events
        self._advance(state, events)
        return events

    # ---- the battle -------------------------------------------------------------------
    def _in(self, state: State) -> list[str]:
        out = state["out"]
        return [s for s in state["seats"] if s not in out]

    def _available(self, state: State, seat: str) -> int:
        n = len(state["draw"][seat])
        if state["options"]["ending"] == "surrender":
            n += len(state["prisoners"][seat])
        return n

    def _armed(self, state: State) -> list[str]:
        """Seats still in that have cards to play."""
        return [s for s in self._in(state) if self._available(state, s) > 0]

    def _reshuffle(self, state: State, seat: str, events: list[Event]) -> None:
        """Surrender ending: an empty draw pile is replaced by the shuffled prisoners."""
        cards = list(state["prisoners"][seat])
        rng(state).shuffle(cards)
        state["draw"][seat] += "".join(cards)
        state["prisoners"][seat] = ""
        events.append(event("reshuffle", seat=seat, cards=len(cards)))

    def _take(self, state: State, seat: str, n: int, events: list[Event]) -> list[int]:
        """Up to ``n`` cards off the top of the seat's draw pile, topmost first."""
        got: list[int] = []
        while n > 0:
            draw = state["draw"][seat]
            if not draw:
                if state["options"]["ending"] != "surrender" or not state["prisoners"][seat]:
                    break
                self._reshuffle(state, seat, events)
                continue
            k = min(n, len(draw))
            got += R.decode(draw[:-k - 1:-1])
            state["draw"][seat] = draw[:-k]
            n -= k
        return got

    def _start_battle(self, state: State, events: list[Event]) -> None:
        seats = self._armed(state)
        state["wars"] = 0
        state["clash"] = {"kind": "battle", "seats": seats, "ready": []}
        events.append(event("battle", battle=state["battles"] + 1, seats=list(seats)))

    def _advance(self, state: State, events: list[Event]) -> None:
        """Resolve rounds for as long as nobody is left to confirm."""
        while state["result"] is None and state["clash"] is not None:
            if self._pending(state):
                return
            self._resolve(state, events)

    def _resolve(self, state: State, events: list[Event]) -> None:
        clash = state["clash"]
        war = clash["kind"] == "war"
        opts = state["options"]
        k = attack_size(opts)
        op = R.VARIANTS[opts["variant"]]["op"]
        battle = state["battles"] + 1
        out = state["out"]
        played: dict[str, list] = {}
        for s in clash["seats"]:
            if s in out:
                continue
            n = self._available(state, s)
            if n == 0:
                continue  # sits this round out; its stake stays on the table
            down_n = min(R.WAR_FACE_DOWN, n - k) if war and n > k else 0
            down = self._take(state, s, down_n, events)
            cards = self._take(state, s, min(k, n - down_n), events)
            value, text = evaluate(cards, op)
            played[s] = [R.encode(down), R.encode(cards), value, text]
        if not played:  # everyone who was to fight this round has left the match
            self._set_aside_table(state, events)
            return
        state["table"].append(played)
        events.append(
            event(
                "attack", battle=battle, war=state["wars"],
                attacks={s: _public_entry(e, op) for s, e in played.items()},
            )
        )
        if any(e[0] for e in played.values()):
            events.append(
                event(
                    "face_down", vis=[OMNISCIENT], battle=battle, war=state["wars"],
                    cards={s: R.decode(e[0]) for s, e in played.items() if e[0]},
                )
            )
        best = max(e[2] for e in played.values())
        top = [s for s, e in played.items() if e[2] == best]
        if len(top) == 1:
            winner = top[0]
            won = _table_cards(state["table"])
            state["prisoners"][winner] += won
            events.append(
                event("capture", battle=battle, seat=winner, value=best, cards=len(won))
            )
            self._end_battle(state, events, winner, len(won))
            return
        # A tie for the strongest: every seat that still has cards goes to war.
        state["wars"] += 1
        seats = self._armed(state)
        events.append(
            event("war", battle=battle, war=state["wars"], tied=top, value=best, seats=list(seats))
        )
        if not seats:
            self._set_aside_table(state, events)
            return
        state["clash"] = {"kind": "war", "seats": seats, "ready": []}

    def _set_aside_table(self, state: State, events: list[Event]) -> None:
        """A war nobody can fight: the table goes out of play, nobody takes it."""
        cards = _table_cards(state["table"])
        state["set_aside"] += cards
        events.append(event("set_aside", battle=state["battles"] + 1, cards=len(cards)))
        self._end_battle(state, events, None, len(cards))

    def _end_battle(self, state: State, events: list[Event], winner: str | None, n: int) -> None:
        state["battles"] += 1
        state["last"] = {"battle": state["battles"], "winner": winner, "cards": n,
                         "rounds": state["table"]}
        state["table"] = []
        state["clash"] = None
        if state["options"]["ending"] == "surrender":
            gone = []
            for s in self._in(state):
                if not state["draw"][s]:
                    if state["prisoners"][s]:
                        self._reshuffle(state, s, events)
                    else:
                        gone.append(s)
            if gone:
                self._knock_out(state, gone, "no_cards")
                events.append(event("out", seats=gone, reason="no_cards"))
        if not self._check_end(state, events):
            self._start_battle(state, events)

    def _knock_out(self, state: State, seats: list[str], reason: str) -> None:
        state["out_steps"] += 1
        for s in seats:
            state["out"][s] = {"reason": reason, "step": state["out_steps"],
                               "battle": state["battles"]}

    # ---- the end ----------------------------------------------------------------------
    def _check_end(self, state: State, events: list[Event]) -> bool:
        ins = self._in(state)
        opts = state["options"]
        if len(ins) <= 1:
            reason = "last_standing" if ins else "all_out"
        elif opts["ending"] == "prisoners":
            if sum(1 for s in ins if state["draw"][s]) >= 2:
                return False
            reason = "cards_out"
        elif state["battles"] >= opts["max_battles"]:
            reason = "max_battles"
        else:
            return False
        state["clash"] = None
        events.append(
            self.finish(state, self._places(state), reason, scores=self._scores(state),
                        battles=state["battles"])
        )
        return True

    def _scores(self, state: State) -> dict[str, int]:
        """Prisoners ending: prisoner count. Surrender: cards held (draw pile + prisoners)."""
        pris = state["prisoners"]
        if state["options"]["ending"] == "prisoners":
            return {s: len(pris[s]) for s in state["seats"]}
        draw = state["draw"]
        return {s: len(draw[s]) + len(pris[s]) for s in state["seats"]}

    def _places(self, state: State) -> dict[str, int]:
        """Seats still in rank above seats out, by score; seats out rank by how late they
        left. Equal keys share a place (1, 1, 3)."""
        scores, out = self._scores(state), state["out"]
        keys = {s: ((0, out[s]["step"]) if s in out else (1, scores[s])) for s in state["seats"]}
        vals = list(keys.values())
        return {s: 1 + sum(1 for v in vals if v > key) for s, key in keys.items()}

    # ---- the view ---------------------------------------------------------------------
    def _view(self, state: State, viewer: str) -> dict:
        omni = viewer == OMNISCIENT
        opts = state["options"]
        draw, pris, out = state["draw"], state["prisoners"], state["out"]
        clash = state["clash"]
        ready = clash["ready"] if clash else ()
        waiting = self.pending(state)
        seats = {
            s: {
                "draw": len(draw[s]),
                "prisoners": len(pris[s]),
                "out": out[s]["reason"] if s in out else None,
                "ready": s in ready,
                "pending": s in waiting,
            }
            for s in state["seats"]
        }
        op = R.VARIANTS[opts["variant"]]["op"]
        table = state["table"]
        face_down = sum(len(e[0]) for r in table for e in r.values())
        places = self._places(state)
        scores = self._scores(state)
        view = {
            "game": "combat",
            "you": viewer if viewer in draw else None,
            "variant": opts["variant"],
            "attack_cards": attack_size(opts),
            "ending": opts["ending"],
            "deck_size": state["size"],
            "battles_done": state["battles"],
            "battle": state["battles"] + 1 if clash else None,
            "clash": None if clash is None else {
                "kind": clash["kind"], "war": state["wars"],
                "seats": list(clash["seats"]), "ready": list(ready),
            },
            "seats": seats,
            "table": {
                "rounds": [_render_round(r, op, omni) for r in table],
                "cards": face_down + sum(len(e[1]) for r in table for e in r.values()),
                "face_down": face_down,
            },
            "set_aside": len(state["set_aside"]),
            "last_battle": None,
            "standings": sorted(
                ({"seat": s, "place": places[s], "score": scores[s]} for s in state["seats"]),
                key=lambda x: x["place"],
            ),
            "result": state["result"],
        }
        last = state["last"]
        if last is not None:
            view["last_battle"] = {
                "battle": last["battle"], "winner": last["winner"], "cards": last["cards"],
                "rounds": [_render_round(r, op, omni) for r in last["rounds"]],
            }
        if opts["ending"] == "surrender":
            view["max_battles"] = opts["max_battles"]
        if omni:
            view["hidden"] = {
                "draw": {s: R.decode(draw[s]) for s in state["seats"]},
                "prisoners": {s: R.decode(pris[s]) for s in state["seats"]},
                "set_aside": R.decode(state["set_aside"]),
            }
        return view


def _public_entry(e: list, op: str) -> dict:
    """A table entry as players see it: face-down count, face-up cards, value, formula."""
    return {"down": len(e[0]), "cards": R.decode(e[1]), "value": e[2], "op": op, "text": e[3]}


def _render_round(r: dict, op: str, omni: bool) -> dict:
    if omni:
        return {s: {**_public_entry(e, op), "down_cards": R.decode(e[0])} for s, e in r.items()}
    return {s: _public_entry(e, op) for s, e in r.items()}


def _table_cards(table: list[dict]) -> str:
    """Every card on the table, encoded, in the order laid."""
    return "".join(e[0] + e[1] for r in table for e in r.values())


GAME = CombatGame(
    id="combat",
    name="Combat",
    min_players=2,
    max_players=6,
    options=OPTIONS,
)

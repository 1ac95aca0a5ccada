"""Duel (game id ``duel``): a two-player sword duel with secret three-slot plans.

Rules as implemented: docs/rules/duel.md. Tables: games/duel/tables.py. Commitments:
games/duel/commit.py and docs/commitments.md.

The state is kept deliberately small and flat, because ``Game.apply`` deep-copies it on every
action (see the speed target in docs/dev/engine-brief.md):

  phase        "duellist" | "stance" | "plan" | "footwork" | "dodge"
  slot         global slot counter of the current (or next) slot, from 1; drives the weather
  ex, xs       exchange number; slot within the exchange (1..3)
  w, blind     weather of ``slot``; the seat the sun blinds (or None)
  sun, xy      chance draws of the current cycle: seat blinded first; what X is ("rain"/"fog")
  who          seats asked in the current simultaneous decision, as a string: "AB", "A", "B", ""
  buf          seat -> None | record: a locked choice not yet resolved
  later        openings hidden by weather (one "seat decision record" per line), published at
               match end
  salts        salts drawn but not used yet (see commit.new_salt)
  P[seat]      d duellist, hp, st stamina, pos, stance, lock (locked slots left),
               plan (record of the locked plan), rev (this exchange's revealed slots, one string
               each: "slot technique status mighty visible"), f (flag bits, see F_*)

A *record* is one string: salt (32 hex) + commitment (64 hex) + compact value of the choice
(``brute``; ``high``; ``toward``; ``1``/``0`` for a dodge; ``high/downward_cut,low/wait,...``
for a plan). ``_choice`` turns it back into the action object the commitment was made over.
"""
from __future__ import annotations

from games.base import (
    ALL,
    CLOCK_OPTION,
    MAX_TIMEOUTS_OPTION,
    OMNISCIENT,
    SPECTATOR,
    Game,
    IllegalAction,
    InvalidOptions,
    Option,
    State,
    event,
    rng,
)

from . import tables as T
from .commit import canonical_json, commitment_of_json, new_salt

SEATS = ("A", "B")
OTHER = {"A": "B", "B": "A"}
IDX = {s: i for i, s in enumerate(T.STANCES)}
COST = {k: v["cost"] for k, v in T.TECHNIQUES.items()}
STEP = {k: v["step"] for k, v in T.TECHNIQUES.items()}
RANGE = {k: v["range"] for k, v in T.TECHNIQUES.items()}
DAMAGE = {k: v["damage"] for k, v in T.TECHNIQUES.items()}
TECH_STANCE = {k: v["stance"] for k, v in T.TECHNIQUES.items()}
ATTACKS = frozenset(k for k, v in T.TECHNIQUES.items() if v["kind"] == "attack")
DEFENSIVE = frozenset(k for k, v in T.TECHNIQUES.items() if v["kind"] == "defense")
_ABBR = {v["abbr"]: k for k, v in T.TECHNIQUES.items()}

# Flag bits in P[seat]["f"]. The first five describe the slot being played and are reset at its
# start; the others carry over between slots.
F_LOCKED = 1  # full action lock this slot
F_REST = 2  # forced rest this slot
F_MISPLAY = 4  # the planned slot is a misplay (hidden until the technique reveal)
F_DODGED = 8  # dodged this slot
F_STAYED = 16  # chose Stay footwork this slot
F_SV = 32  # the current stance was revealed to the other side (opponent and spectators)
F_OPEN = 64  # nothing of this exchange's plan was hidden by weather from the other side
F_CUT = 128  # performed a High cut (Downward/Advancing/Mighty) in the previous slot
F_STIFF = 256  # thrust stiffness for this slot
SLOT_FLAGS = F_LOCKED | F_REST | F_MISPLAY | F_DODGED | F_STAYED


def _cell(text: str):
    """Counter-table cell -> (dealt by row, dealt by column), or None for a Clash."""
    if text == "clash":
        return None
    if ":" in text:
        a, b = text.split(":")
        return int(a), int(b)
    n = int(text)
    return (n, 0) if n > 0 else (0, -n)


COUNTER = {
    _ABBR[row]: {_ABBR[col]: _cell(c) for col, c in zip(T.COUNTER_COLUMNS, cells)}
    for row, cells in T.COUNTER_ROWS.items()
}
PAIRS = [{"stance": s, "technique": t} for s in T.STANCES
         for t in [k for k, v in T.TECHNIQUES.items() if v["stance"] == s] + ["wait"]]
PHASE_WORDS = {
    "duellist": "the choice of duellists",
    "stance": "the opening stances",
    "plan": "the plans",
    "footwork": "footwork",
    "dodge": "the dodge decisions",
}
FIELD = {"duellist": "duellist", "stance": "stance", "plan": "slots", "footwork": "move", "dodge": "dodge"}
CYCLE_LEN = sum(k for _, k in T.CYCLE)
X_OFFSET = sum(k for kind, k in T.CYCLE[: [c[0] for c in T.CYCLE].index("X")])
RAIN_OTHER = {"rain": "fog", "fog": "rain"}


# ------------------------------------------------------------------------------------------
# Records and choices
# ------------------------------------------------------------------------------------------
def _choice(kind: str, value: str) -> dict:
    """The action object a compact value stands for (what the commitment was made over)."""
    if kind == "plan":
        return {"type": "plan", "slots": [
            {"stance": a, "technique": b} for a, b in (x.split("/") for x in value.split(","))]}
    if kind == "dodge":
        return {"type": "dodge", "dodge": value == "1"}
    return {"type": kind, FIELD[kind]: value}


def _choice_json(kind: str, value: str) -> str:
    """canonical_json(_choice(kind, value)), built directly (values never need escaping)."""
    if kind == "plan":
        slots = ",".join('{"stance":"%s","technique":"%s"}' % tuple(x.split("/"))
                         for x in value.split(","))
        return '{"slots":[%s],"type":"plan"}' % slots
    return _SMALL_JSON[kind, value]


_SMALL_JSON = {
    (kind, v): canonical_json(_choice(kind, v))
    for kind, values in (("duellist", T.DUELLISTS), ("stance", T.STANCES),
                         ("footwork", T.RONIN_MOVES), ("dodge", ("0", "1")))
    for v in values
}


def _plan_slot(rec: str, xs: int) -> list[str]:
    """[stance, technique] of slot ``xs`` (1-based) of a plan record."""
    return rec[96:].split(",")[xs - 1].split("/")


# ------------------------------------------------------------------------------------------
# Weather and geometry
# ------------------------------------------------------------------------------------------
def weather_at(n: int, sun_first: str | None, x: str | None) -> tuple[str, str | None]:
    """Weather of global slot ``n`` and the seat the sun blinds (None when not sunny)."""
    if n <= T.NORMAL_OPENING:
        return "normal", None
    o = (n - T.NORMAL_OPENING - 1) % CYCLE_LEN
    for kind, length in T.CYCLE:
        if o < length:
            if kind == "sun":
                return "sun", sun_first if o < T.SUN_SWITCH else OTHER[sun_first]
            if kind == "X":
                return x, None
            if kind == "Y":
                return RAIN_OTHER[x], None
            return kind, None
        o -= length
    raise AssertionError("unreachable")


def set_weather(st: State) -> None:
    st["w"], st["blind"] = weather_at(st["slot"], st["sun"], st["xy"])


def _hid(st: State, s: str) -> bool:
    """Are ``s``'s stance and footwork hidden from the other side (opponent and spectators)?"""
    w = st["w"]
    if w == "sun":
        return st["blind"] != s
    if w == "fog":
        P = st["P"]
        return P["B"]["pos"] - P["A"]["pos"] > 1
    return False


def _sunhid(st: State, s: str) -> bool:
    """Are ``s``'s position, technique and dodge hidden from the other side (the sun)?"""
    return st["w"] == "sun" and st["blind"] != s


def _room(st: State, s: str) -> bool:
    k = T.DODGE_DISTANCE + (T.RAIN_EXTRA if st["w"] == "rain" else 0)
    pos = st["P"][s]["pos"]
    return pos - k >= 1 if s == "A" else pos + k <= st["options"]["track_length"]


def _move(st: State, want: dict) -> dict:
    """Move both pieces at once; ``want`` maps seat -> steps toward the opponent (negative: away).
    A piece stops at a wall and next to the opponent's current space; if the two would end on the
    same space or pass each other, neither moves. Seat A is always left of seat B."""
    P = st["P"]
    pa, pb = P["A"], P["B"]
    a, b = pa["pos"], pb["pos"]
    na = a + want.get("A", 0)
    nb = b - want.get("B", 0)
    if na >= b:
        na = b - 1
    if na < 1:
        na = 1
    if nb <= a:
        nb = a + 1
    last = st["options"]["track_length"]
    if nb > last:
        nb = last
    if na >= nb:
        na, nb = a, b
    pa["pos"], pb["pos"] = na, nb
    return {"A": (a, na), "B": (b, nb)}


def _pos_event(kind: str, st: State, s: str, frm: int, to: int) -> dict:
    return event(kind, [s] if _sunhid(st, s) else ALL, **{"seat": s, "from": frm, "to": to})


def _rev_entry(text: str) -> dict:
    n, tech, status, mighty, _ = text.split(" ")
    e = {"slot": int(n), "technique": tech, "status": status}
    if mighty == "1":
        e["mighty"] = True
    return e


# ------------------------------------------------------------------------------------------
# The game
# ------------------------------------------------------------------------------------------
class Duel(Game):
    # ---- setup -----------------------------------------------------------------------------
    def _setup(self, st: State) -> None:
        if list(st["seats"]) != list(SEATS):
            raise InvalidOptions("Duel is played by seats A and B.")
        c = (st["options"]["track_length"] + 1) // 2
        st.update(phase="duellist", slot=1, ex=0, xs=0, sun=None, xy=None, who="AB",
                  buf={"A": None, "B": None}, later="", salts="")
        set_weather(st)
        st["P"] = {
            s: {"d": None, "hp": 0, "st": T.MAX_STAMINA, "pos": c - 2 if s == "A" else c + 2,
                "stance": "middle", "lock": 0, "plan": None, "rev": [], "f": F_SV | F_OPEN}
            for s in SEATS
        }

    # ---- who acts, what is legal ---------------------------------------------------------
    def _pending(self, st: State) -> dict[str, str]:
        ph = st["phase"]
        buf = st["buf"]
        return {s: ph for s in st["who"] if buf[s] is None}

    def _legal(self, st: State, seat: str) -> list[dict]:
        ph = st["phase"]
        if ph == "footwork":
            moves = T.RONIN_MOVES if st["P"][seat]["d"] == "ronin" else T.MOVES
            return [{"type": "footwork", "move": m} for m in moves]
        if ph == "dodge":
            out = [{"type": "dodge", "dodge": True}] if _room(st, seat) else []
            return out + [{"type": "dodge", "dodge": False}]
        if ph == "plan":
            op = st["P"][seat]["stance"]
            return [{"type": "plan", "slots": [
                {"one_of": [dict(x) for x in PAIRS if x["stance"] == op]},
                {"one_of": [dict(x) for x in PAIRS]},
                {"one_of": [dict(x) for x in PAIRS]}]}]
        if ph == "stance":
            return [{"type": "stance", "stance": s} for s in T.STANCES]
        return [{"type": "duellist", "duellist": d} for d in T.DUELLISTS]

    def default_action(self, st: State, seat: str) -> dict:
        """The clock's move: Stay; no dodge; Wait x3 in the opening stance; Middle; the Brute."""
        ph = st["phase"]
        if ph == "footwork":
            return {"type": "footwork", "move": "stay"}
        if ph == "dodge":
            return {"type": "dodge", "dodge": False}
        if ph == "plan":
            op = st["P"][seat]["stance"]
            return {"type": "plan", "slots": [{"stance": op, "technique": "wait"} for _ in range(3)]}
        if ph == "stance":
            return {"type": "stance", "stance": "middle"}
        return {"type": "duellist", "duellist": next(iter(T.DUELLISTS))}

    # ---- apply -----------------------------------------------------------------------------
    def _apply(self, st: State, seat: str, a: dict) -> list[dict]:
        ph = st["phase"]
        t = a["type"]
        if t not in FIELD:
            raise IllegalAction(f"Unknown action type '{t}'.")
        if t != ph:
            raise IllegalAction(f"The match is waiting for {PHASE_WORDS[ph]}, not a '{t}' action.")
        if len(a) != 2 or FIELD[t] not in a:
            raise IllegalAction(f"A '{t}' action has exactly two fields: type and {FIELD[t]}.")
        value = self._CHECK[ph](self, st, seat, a[FIELD[t]])
        salt = new_salt(st)
        h = commitment_of_json(salt, _choice_json(ph, value))
        buf = st["buf"]
        buf[seat] = salt + h + value
        ev = [event("commit", seat=seat, decision=ph, commitment=h)]
        for s in st["who"]:
            if buf[s] is None:
                return ev
        self._RESOLVE[ph](self, st, ev)
        return ev

    # Validation: each returns the compact value of the choice.
    def _check_duellist(self, st, seat, d):
        if not isinstance(d, str) or d not in T.DUELLISTS:
            raise IllegalAction("Choose a duellist: " + ", ".join(T.DUELLISTS) + ".")
        return d

    def _check_stance(self, st, seat, s):
        if not isinstance(s, str) or s not in IDX:
            raise IllegalAction("A stance is high, middle or low.")
        return s

    def _check_plan(self, st, seat, slots):
        if not isinstance(slots, list) or len(slots) != T.SLOTS_PER_EXCHANGE:
            raise IllegalAction("A plan is a list of exactly three slots.")
        out = []
        for i, sl in enumerate(slots, 1):
            if not isinstance(sl, dict) or len(sl) != 2 or "stance" not in sl or "technique" not in sl:
                raise IllegalAction(f"Slot {i} must be an object with 'stance' and 'technique'.")
            s, t = sl["stance"], sl["technique"]
            if not isinstance(s, str) or s not in IDX:
                raise IllegalAction(f"Slot {i}: a stance is high, middle or low.")
            if not isinstance(t, str) or t not in TECH_STANCE:
                raise IllegalAction(f"Slot {i}: unknown technique.")
            if t != "wait" and TECH_STANCE[t] != s:
                raise IllegalAction(f"Slot {i}: {t.replace('_', ' ')} is not a {s} technique.")
            out.append(s + "/" + t)
        op = st["P"][seat]["stance"]
        if slots[0]["stance"] != op:
            raise IllegalAction(f"Slot 1 must use your opening stance ({op}).")
        return ",".join(out)

    def _check_footwork(self, st, seat, m):
        moves = T.RONIN_MOVES if st["P"][seat]["d"] == "ronin" else T.MOVES
        if not isinstance(m, str) or m not in moves:
            raise IllegalAction("Footwork is one of: " + ", ".join(moves) + ".")
        return m

    def _check_dodge(self, st, seat, d):
        if not isinstance(d, bool):
            raise IllegalAction("'dodge' is true or false.")
        if d and not _room(st, seat):
            raise IllegalAction("There is no room behind you to dodge.")
        return "1" if d else "0"

    # ---- commitments -----------------------------------------------------------------------
    @staticmethod
    def _open(st: State, s: str, kind: str, rec: str, hidden: bool, ev: list) -> None:
        """Publish a commitment's salt and choice; when weather hides the choice from the other
        side, only the owner gets it now and everyone at the end of the match."""
        if hidden:
            ev.append(event("reveal", [s], seat=s, decision=kind, choice=_choice(kind, rec[96:]),
                            salt=rec[:32], commitment=rec[32:96]))
            st["later"] += f"{s} {kind} {rec}\n"
        else:
            ev.append(event("reveal", seat=s, decision=kind, choice=_choice(kind, rec[96:]),
                            salt=rec[:32], commitment=rec[32:96]))

    def _ask(self, st: State, phase: str, who: str, ev: list) -> None:
        st["who"] = who
        st["buf"] = {"A": None, "B": None}
        if who:
            st["phase"] = phase
        else:
            self._RESOLVE[phase](self, st, ev)

    # ---- resolution ------------------------------------------------------------------------
    def _resolve_duellist(self, st: State, ev: list) -> None:
        health = st["options"]["health"]
        for s in SEATS:
            rec = st["buf"][s]
            p = st["P"][s]
            p["d"] = d = rec[96:]
            p["hp"] = health + T.DUELLISTS[d]["health_bonus"]
            self._open(st, s, "duellist", rec, False, ev)
        for s in SEATS:
            p = st["P"][s]
            ev.append(event("duellist", seat=s, duellist=p["d"], health=p["hp"], stamina=p["st"],
                            position=p["pos"]))
        self._start_exchange(st, ev)

    def _start_exchange(self, st: State, ev: list) -> None:
        st["ex"] += 1
        st["xs"] = 1
        for s in SEATS:
            p = st["P"][s]
            p["rev"], p["plan"] = [], None
        ev.append(event("exchange", exchange=st["ex"], slot=st["slot"]))
        self._ask(st, "stance", "AB", ev)

    def _resolve_stance(self, st: State, ev: list) -> None:
        for s in SEATS:
            rec = st["buf"][s]
            p = st["P"][s]
            p["stance"] = stance = rec[96:]
            h = _hid(st, s)
            p["f"] = (p["f"] & ~(F_SV | F_OPEN)) | (0 if h else F_SV | F_OPEN)
            n = st["slot"]
            if h:
                ev.append(event("stance", [s], seat=s, slot=n, stance=stance, opening=True))
                ev.append(event("stance", [OTHER[s], SPECTATOR], seat=s, slot=n, stance=None, opening=True))
            else:
                ev.append(event("stance", seat=s, slot=n, stance=stance, opening=True))
            self._open(st, s, "stance", rec, h, ev)
        self._ask(st, "plan", "AB", ev)

    def _resolve_plan(self, st: State, ev: list) -> None:
        for s in SEATS:
            st["P"][s]["plan"] = st["buf"][s]
        st["buf"] = {"A": None, "B": None}
        self._start_slot(st, ev)

    def _start_slot(self, st: State, ev: list) -> None:
        """Before the slot (states, forced rest, misplays) and step 1, the stances."""
        P = st["P"]
        xs, n = st["xs"], st["slot"]
        ev.append(event("slot", slot=n, exchange=st["ex"], exchange_slot=xs,
                        weather=st["w"], blind=st["blind"]))
        movers = ""
        for s in SEATS:
            p = P[s]
            stance, t = _plan_slot(p["plan"], xs)
            f = p["f"] & ~SLOT_FLAGS
            if p["lock"] > 0:
                f |= F_LOCKED
            if p["st"] == 0 or p["st"] < COST[t]:
                f |= F_REST
            jump = abs(IDX[stance] - IDX[p["stance"]]) > 1 and not (stance == "low" and f & F_CUT)
            if jump:
                f |= F_MISPLAY
            elif not f & (F_LOCKED | F_REST):
                heavy = f & F_CUT and p["d"] != "samurai"
                if (heavy and not (stance == "low" and t in T.HEAVY_RECOVERY_OK)) or (
                    f & F_STIFF and t != "wait"
                ):
                    f |= F_MISPLAY
            p["stance"] = "middle" if jump else stance
            if _hid(st, s):
                f &= ~(F_SV | F_OPEN)
                e = event("stance", [s], seat=s, slot=n, stance=p["stance"])
                ev.append(e)
                ev.append(event("stance", [OTHER[s], SPECTATOR], seat=s, slot=n, stance=None))
            else:
                f |= F_SV
                e = event("stance", seat=s, slot=n, stance=p["stance"])
                ev.append(e)
            if jump:
                e["planned"] = stance
                e["misplay"] = True
            p["f"] = f
            if f & F_LOCKED:
                ev.append(event("locked", seat=s, slots_left=p["lock"]))
            if f & F_REST:
                ev.append(event("rest", seat=s))
            if not f & (F_LOCKED | F_REST):
                movers += s
        self._ask(st, "footwork", movers, ev)

    def _resolve_footwork(self, st: State, ev: list) -> None:
        """Step 2: footwork, both at once; then who may dodge."""
        P = st["P"]
        buf = st["buf"]
        rain = st["w"] == "rain"
        want, hid = {}, {}
        who = st["who"]
        for s in who:
            mv = buf[s][96:]
            if mv == "stay":
                P[s]["f"] |= F_STAYED
            m = T.RONIN_MOVES[mv]
            if m and rain:
                m += T.RAIN_EXTRA if m > 0 else -T.RAIN_EXTRA
            want[s] = m
            hid[s] = _hid(st, s)
        moved = _move(st, want) if want else {}
        for s in who:
            frm, to = moved[s]
            rec = buf[s]
            if hid[s]:
                ev.append(event("footwork", [s], **{"seat": s, "move": rec[96:], "from": frm, "to": to}))
                if not _sunhid(st, s):  # fog: the move is hidden, the position is not
                    ev.append(event("footwork", [OTHER[s], SPECTATOR], **{"seat": s, "from": frm, "to": to}))
            else:
                ev.append(event("footwork", **{"seat": s, "move": rec[96:], "from": frm, "to": to}))
            self._open(st, s, "footwork", rec, hid[s], ev)
        who = ""
        for s in SEATS:
            p = P[s]
            if p["f"] & (F_LOCKED | F_REST | F_STIFF) or p["st"] < T.DODGE_COST:
                continue
            # Under the sun the offer must not reveal the hidden position: a player the sun hides
            # is asked even when the wall leaves no room (then only "no dodge" is legal).
            if _room(st, s) or _sunhid(st, s):
                who += s
        self._ask(st, "dodge", who, ev)

    def _resolve_dodge(self, st: State, ev: list) -> None:
        """Step 3: dodges, then the rest of the slot."""
        P = st["P"]
        buf = st["buf"]
        who = st["who"]
        k = T.DODGE_DISTANCE + (T.RAIN_EXTRA if st["w"] == "rain" else 0)
        want = {}
        for s in who:
            if buf[s][96:] == "1":
                P[s]["f"] |= F_DODGED
                P[s]["st"] -= T.DODGE_COST
                want[s] = -k
        moved = _move(st, want) if want else {}
        for s in who:
            vis = [s] if _sunhid(st, s) else ALL
            if s in want:
                frm, to = moved[s]
                ev.append(event("dodge", vis, **{"seat": s, "dodge": True, "from": frm, "to": to}))
            else:
                ev.append(event("dodge", vis, seat=s, dodge=False))
            self._open(st, s, "dodge", buf[s], vis != ALL, ev)
        st["buf"] = {"A": None, "B": None}
        st["who"] = ""
        self._play_slot(st, ev)

    def _play_slot(self, st: State, ev: list) -> None:
        """Steps 4-6 (technique, technique step, damage), the states, and what comes next."""
        P = st["P"]
        pA, pB = P["A"], P["B"]
        xs, n = st["xs"], st["slot"]
        rain = st["w"] == "rain"
        status, perf, tech, mighty = {}, {}, {}, {}
        # 4. Technique reveal
        for s in SEATS:
            p = P[s]
            f = p["f"]
            t = _plan_slot(p["plan"], xs)[1]
            if f & F_LOCKED:
                stt = "locked"
            elif f & F_REST:
                stt = "rest"
            elif f & F_DODGED:
                stt = "dodged"
            elif f & F_MISPLAY:
                stt = "misplay"
                p["stance"] = "middle"
            elif t == "wait":
                stt = "wait"
            else:
                stt = "performed"
            ok = stt == "performed"
            status[s], perf[s], tech[s] = stt, ok, t
            m = mighty[s] = ok and xs == 1 and p["d"] == "brute" and t in T.HEAVY_CUTS
            h = _sunhid(st, s)
            # No stance here: fog may hide the stance while the technique is visible.
            p["rev"].append(f"{n} {t} {stt} {int(m)} {int(not h)}")
            e = {"seat": s, "slot": n, "technique": t, "status": stt}
            if m:
                e["mighty"] = True
            if h:
                p["f"] = f & ~F_OPEN
                ev.append(event("technique", [s], **e))
                ev.append(event("technique", [OTHER[s], SPECTATOR], seat=s, slot=n, technique=None))
            else:
                ev.append(event("technique", **e))
        # 5. Technique step
        want = {}
        for s in SEATS:
            if perf[s]:
                m = STEP[tech[s]]
                if m:
                    want[s] = m + (T.RAIN_EXTRA if m > 0 else -T.RAIN_EXTRA) * rain
        if want:
            moved = _move(st, want)
            for s in want:
                ev.append(_pos_event("step", st, s, *moved[s]))
        # 6. Damage
        dist = pB["pos"] - pA["pos"]
        out = {"A": 0, "B": 0}  # damage dealt by each seat
        reach = {"A": False, "B": False}
        stop = {"A": False, "B": False}  # this seat's Samurai Block stopped the other's attack
        clash = False
        dodged = (pA["f"] | pB["f"]) & F_DODGED
        if dodged:
            for s in SEATS:
                t = tech[s]
                if perf[s] and P[OTHER[s]]["f"] & F_DODGED and t in T.PURSUIT and dist <= T.PURSUIT_RANGE:
                    out[s] = T.PURSUIT[t]
        else:
            for s in SEATS:
                r = RANGE[tech[s]]
                if perf[s] and r:
                    reach[s] = r[0] <= dist <= r[1]
            for s in SEATS:
                if perf[s] and tech[s] in DEFENSIVE:
                    reach[s] = reach[OTHER[s]] and tech[OTHER[s]] in ATTACKS
            if reach["A"] and reach["B"]:
                clash = self._both(P, tech, mighty, out, stop)
            else:
                for s in SEATS:
                    if reach[s]:
                        out[s] = T.MIGHTY_DAMAGE if mighty[s] else DAMAGE[tech[s]]
        # Stamina: techniques (Counterattack and Block only when they work) and clashes
        for s in SEATS:
            if perf[s]:
                t = tech[s]
                c = COST[t]
                if t in DEFENSIVE and not (reach[s] and out[OTHER[s]] == 0):
                    c = 0
                if clash:
                    c += T.CLASH_COST
                P[s]["st"] = max(0, P[s]["st"] - c)
        if clash:
            ev.append(event("clash"))
            k = T.CLASH_KNOCKBACK + (T.RAIN_EXTRA if rain else 0)
            moved = _move(st, {"A": -k, "B": -k})
            for s in SEATS:
                ev.append(_pos_event("knockback", st, s, *moved[s]))
        for s in SEATS:
            if out[s]:
                q = P[OTHER[s]]
                q["hp"] = max(0, q["hp"] - out[s])
                ev.append(event("hit", seat=OTHER[s], damage=out[s], health=q["hp"]))
        # 7. States for the next slot; slot-end recovery
        for s in SEATS:
            p = P[s]
            t = tech[s]
            f = p["f"]
            left = p["lock"] - 1 if f & F_LOCKED else p["lock"]
            new = 0
            if mighty[s] and out[s] == 0:
                new = T.MIGHTY_MISS_LOCK
            if perf[s] and t in ATTACKS and out[s] == 0 and P[OTHER[s]]["d"] == "master":
                new = max(new, T.ABILITY_LOCK)
            if stop[OTHER[s]]:
                new = max(new, T.ABILITY_LOCK)
            if new > left:
                left = new
                ev.append(event("lock", seat=s, slots=new))
            p["lock"] = left
            f &= ~(F_CUT | F_STIFF)
            if perf[s] and t in T.HEAVY_CUTS:
                f |= F_CUT
            if perf[s] and t in T.THRUSTS and out[s] == 0 and p["d"] != "samurai":
                f |= F_STIFF
            p["f"] = f
            if f & F_REST:
                p["st"] = min(T.MAX_STAMINA, p["st"] + T.REST_RECOVERY)
            elif status[s] == "wait" and f & F_STAYED:
                p["st"] = min(T.MAX_STAMINA, p["st"] + T.WAIT_RECOVERY)
        ev.append(event("slot_end", slot=n,
                        health={"A": pA["hp"], "B": pB["hp"]},
                        stamina={"A": pA["st"], "B": pB["st"]},
                        lock={"A": pA["lock"], "B": pB["lock"]},
                        heavy_recovery={"A": _heavy(pA), "B": _heavy(pB)},
                        thrust_stiffness={"A": bool(pA["f"] & F_STIFF), "B": bool(pB["f"] & F_STIFF)}))
        # Match end, exchange end, next slot
        hpA, hpB = pA["hp"], pB["hp"]
        if hpA == 0 or hpB == 0:
            places = {"A": 1 if hpA or not hpB else 2, "B": 1 if hpB or not hpA else 2}
            ev += self._end(st, places, "knockout")
            return
        if n >= st["options"]["max_slots"]:
            places = {"A": 1 if hpA >= hpB else 2, "B": 1 if hpB >= hpA else 2}
            ev += self._end(st, places, "max_slots")
            return
        over = dodged or xs == T.SLOTS_PER_EXCHANGE
        if over:
            self._end_exchange(st, ev)
        st["slot"] = n + 1
        self._advance_weather(st, ev)
        if over:
            self._start_exchange(st, ev)
        else:
            st["xs"] = xs + 1
            self._start_slot(st, ev)

    @staticmethod
    def _both(P: dict, tech: dict, mighty: dict, out: dict, stop: dict) -> bool:
        """Both attacks reach: the counter table with the duellists' overrides. Returns clash."""
        if mighty["A"] and mighty["B"]:
            return True
        if mighty["A"] or mighty["B"]:
            m = "A" if mighty["A"] else "B"
            o = OTHER[m]
            if P[o]["d"] == "samurai" and tech[o] == "block":
                stop[o] = True
            else:
                out[m] = T.MIGHTY_DAMAGE
            return False
        for s in SEATS:
            if P[s]["d"] == "samurai" and tech[OTHER[s]] == "advancing_cut":
                if tech[s] == "block":
                    stop[s] = True
                    return False
                if tech[s] == "counterattack":
                    out[s] = 1
                    return False
        cell = COUNTER[tech["A"]][tech["B"]]
        if cell is None:
            return True
        out["A"], out["B"] = cell
        for s in SEATS:
            if P[s]["d"] == "samurai" and tech[s] == "block" and tech[OTHER[s]] in T.THRUSTS:
                stop[s] = True
        return False

    def _end_exchange(self, st: State, ev: list) -> None:
        """Discard the plans (opening them), recover, clear the one-slot states. The event does
        not say why the exchange ended: a dodge the sun hid must stay hidden."""
        for s in SEATS:
            p = st["P"][s]
            self._open(st, s, "plan", p["plan"], not p["f"] & F_OPEN, ev)
            p["plan"] = None
            p["st"] = min(T.MAX_STAMINA, p["st"] + T.EXCHANGE_RECOVERY)
            p["f"] = (p["f"] & ~(F_CUT | F_STIFF)) | F_OPEN
        ev.append(event("exchange_end", exchange=st["ex"],
                        stamina={s: st["P"][s]["st"] for s in SEATS}))

    def _advance_weather(self, st: State, ev: list) -> None:
        n = st["slot"]
        if n > T.NORMAL_OPENING:
            o = (n - T.NORMAL_OPENING - 1) % CYCLE_LEN
            if o == 0:
                st["sun"] = rng(st).choice(SEATS)
                ev.append(event("chance", draw="sun_first", slot=n, seat=st["sun"]))
            elif o == X_OFFSET:
                st["xy"] = "rain" if rng(st).random() < 0.5 else "fog"
                ev.append(event("chance", draw="rain_or_fog", slot=n,
                                first=st["xy"], then=RAIN_OTHER[st["xy"]]))
        before = (st["w"], st["blind"])
        set_weather(st)
        if (st["w"], st["blind"]) != before:
            ev.append(event("weather", slot=n, weather=st["w"], blind=st["blind"]))

    # ---- the end ---------------------------------------------------------------------------
    def _end(self, st: State, places: dict, reason: str) -> list[dict]:
        """Finish and make the whole record public: every opening held back by weather, the
        current plans and any locked-in choices."""
        ev: list[dict] = []
        for line in st["later"].splitlines():
            s, kind, rec = line.split(" ")
            ev.append(event("reveal", seat=s, decision=kind, choice=_choice(kind, rec[96:]),
                            salt=rec[:32], commitment=rec[32:96], deferred=True))
        st["later"] = ""
        P = st["P"]
        for s in SEATS:
            if P[s]["plan"]:
                self._open(st, s, "plan", P[s]["plan"], False, ev)
        for s in SEATS:
            if st["buf"][s]:
                self._open(st, s, st["phase"], st["buf"][s], False, ev)
        ev.append(self.finish(st, places, reason, health={s: P[s]["hp"] for s in SEATS},
                              slot=st["slot"]))
        return ev

    def _forfeit(self, st: State, seat: str, reason: str) -> list[dict]:
        places = {s: (2 if s == seat else 1) for s in SEATS}
        return [event("forfeit", seat=seat, reason=reason)] + self._end(st, places, reason)

    # ---- view ------------------------------------------------------------------------------
    def _view(self, st: State, viewer: str) -> dict:
        full = viewer == OMNISCIENT or st["result"] is not None
        P, buf = st["P"], st["buf"]
        blind = st["blind"]
        ph = st["phase"]
        players = {}
        for s in SEATS:
            p = P[s]
            own = full or viewer == s
            b = buf[s]
            plan = p["plan"]
            f = p["f"]
            d = {
                "duellist": p["d"],
                "health": p["hp"],
                "stamina": p["st"],
                "position": p["pos"] if own or blind is None or blind == s else None,
                "stance": p["stance"] if own or f & F_SV else None,
                "heavy_recovery": _heavy(p),
                "thrust_stiffness": bool(f & F_STIFF),
                "lock": p["lock"],
                "committed": b is not None,
                "commitment": b[32:96] if b else None,
                "plan_commitment": plan[32:96] if plan else None,
            }
            if own:
                d["played"] = [_rev_entry(x) for x in p["rev"]]
                d["plan"] = _choice("plan", plan[96:])["slots"] if plan else None
                d["locked_choice"] = _choice(ph, b[96:]) if b else None
                if full:
                    d["plan_salt"] = plan[:32] if plan else None
                    d["locked_salt"] = b[:32] if b else None
            else:
                d["played"] = [_rev_entry(x) if x[-1] == "1" else {"slot": int(x.split(" ", 1)[0]), "hidden": True}
                               for x in p["rev"]]
            players[s] = d
        return {
            "phase": ph,
            "pending": [s for s in st["who"] if buf[s] is None] if st["result"] is None else [],
            "slot": st["slot"],
            "exchange": st["ex"],
            "exchange_slot": st["xs"],
            "weather": st["w"],
            "blind": blind,
            "track_length": st["options"]["track_length"],
            "max_slots": st["options"]["max_slots"],
            "you": viewer if viewer in P else None,
            "players": players,
            "result": st["result"],
        }


def _heavy(p: dict) -> bool:
    return bool(p["f"] & F_CUT) and p["d"] != "samurai"


Duel._CHECK = {ph: getattr(Duel, "_check_" + ph) for ph in FIELD}
Duel._RESOLVE = {ph: getattr(Duel, "_resolve_" + ph) for ph in FIELD}

GAME = Duel(
    id="duel",
    name="Duel",
    min_players=2,
    max_players=2,
    options=(
        Option("max_slots", int, 60, "The match ends after this many slots; more health wins.", 1, 1000),
        Option("health", int, 5, "Starting health (the Brute gets one more).", 1, 50),
        Option("track_length", int, 15, "Spaces on the track (walls at both ends).", 9, 31),
        CLOCK_OPTION,
        MAX_TIMEOUTS_OPTION,
    ),
)

"""The strong Duel bot: determinized Monte Carlo search over the current exchange.

The bot reads only the seat's view document (``games.bots.view_doc``). At each decision it

1. lists candidate actions (the legal footwork or dodge choices; the three opening stances; for
   a plan, a set of plans that will not misplay and that the seat can pay for — see
   ``candidate_plans``);
2. draws ``samples`` *determinizations* of the view (``determinize``): whole engine states
   that give this seat exactly its view, with what it cannot see sampled — the opponent's
   hidden plan, stance, position or locked choice, and the future weather draws;
3. plays each candidate in each sampled world with the real engine (``games/duel/engine.py``)
   to the end of the exchange, both seats moving by the fast policy ``policy`` (the opponent
   partly at random, since the bot cannot tell a careful opponent from a careless one), and
   scores the end with ``evaluate`` (health, then stamina and locks);
4. plays the candidate with the best mean. Every candidate meets the same sampled worlds and
   the same rollout draws (common random numbers), so small differences are not noise.

Budget: ``budget`` is the number of rollouts per decision, split evenly over the candidates
(at least ``MIN_SAMPLES`` each). The default (``DEFAULT_BUDGET``) keeps the slowest decision, a
plan, around 50–150 ms on the reference machine; the lab uses smaller budgets for speed (see
docs/lab.md for the strength at each).

The determinization writes the engine's own state layout (documented at the top of
``games/duel/engine.py``); tests/games/test_bots.py checks that every determinized state gives
the seat the very view it was built from, so a change of layout there fails a test here.
"""
from __future__ import annotations

import random
from collections.abc import Sequence

from games.base import clone
from games.duel import engine as E
from games.duel import tables as T
from games.duel.bots import random_action

GAME = E.GAME
DEFAULT_BUDGET = 128
MIN_SAMPLES = 2
MAX_PLAN_CANDIDATES = 24
HORIZON_SLOTS = 3  # rollouts stop when this many more slots have started
# Share of the opponent's rollout decisions made at random (the rest by ``policy``).
OPPONENT_NOISE = 0.5
OWN_NOISE = 0.1
# Duellist preference when the bot chooses: the Brute's Mighty slot-1 cut makes it the best
# against random (measured while tuning, docs/lab.md).
DUELLIST_ORDER = ("brute", "ronin", "master", "samurai")

STANCES = T.STANCES
TECHS_OF = {s: [t for t, v in T.TECHNIQUES.items() if v["stance"] == s] + ["wait"]
            for s in STANCES}
COST = E.COST
RANGE = E.RANGE
STEP = E.STEP
ATTACKS = E.ATTACKS
HEAVY = frozenset(T.HEAVY_CUTS)
HEAVY_OK = frozenset(T.HEAVY_RECOVERY_OK)
OTHER = E.OTHER


# ------------------------------------------------------------------------------------------
# Plans
# ------------------------------------------------------------------------------------------
def _jump(a: str, b: str) -> bool:
    return {a, b} == {"high", "low"}


def plan_ok(slots: Sequence[tuple[str, str]], duellist: str | None, stamina: int,
            cut: bool = False) -> bool:
    """Does this plan play without a foreseeable misplay or forced rest? ``cut``: a High cut
    was performed in the slot before the first one (never at an exchange start)."""
    prev = None
    for stance, tech in slots:
        if prev is not None and _jump(prev, stance) and not (prev == "high" and cut
                                                                and stance == "low"):
            return False
        if cut and duellist != "samurai" and not (stance == "low" and tech in HEAVY_OK):
            return False
        c = COST[tech]
        if tech != "wait" and (stamina == 0 or stamina < c):
            return False
        stamina -= c if tech not in E.DEFENSIVE else 0  # defences pay only when they work
        cut = tech in HEAVY
        prev = stance
    return True


_ALL_SLOTS = [(s, t) for s in STANCES for t in TECHS_OF[s]]


_VALID_PLANS: dict[tuple, tuple] = {}


def valid_plans(opening: str, duellist: str | None, stamina: int) -> tuple:
    """Every plan from ``opening`` that ``plan_ok`` accepts, with a technique in it (cached:
    it depends only on the opening stance, whether the duellist is the Samurai, and the
    stamina up to the most three slots can cost)."""
    key = (opening, duellist == "samurai", min(stamina, 7))
    found = _VALID_PLANS.get(key)
    if found is None:
        out = []
        for t1 in TECHS_OF[opening]:
            for s2, t2 in _ALL_SLOTS:
                for s3, t3 in _ALL_SLOTS:
                    slots = ((opening, t1), (s2, t2), (s3, t3))
                    if t1 == t2 == t3 == "wait":
                        continue
                    if plan_ok(slots, "samurai" if key[1] else None, key[2]):
                        out.append(slots)
        found = _VALID_PLANS[key] = tuple(out)
    return found


def _closing(duellist: str | None, rain: bool) -> int:
    """The most a seat's footwork can close the distance in one slot."""
    m = 2 if duellist == "ronin" else 1
    return m + (1 if rain else 0)


def reach_limits(view: dict, me: str) -> list[int] | None:
    """For exchange slots 1..3 from now: the smallest distance the two could be at when that
    slot's techniques strike (both closing as fast as they can, both stepping forward). An
    attack whose range starts beyond it cannot reach in that slot. None when the sun hides the
    opponent's position."""
    a, b = view["players"][me], view["players"][OTHER[me]]
    if a["position"] is None or b["position"] is None:
        return None
    rain = view["weather"] == "rain"
    d = abs(a["position"] - b["position"])
    per_slot = _closing(a["duellist"], rain) + _closing(b["duellist"], rain)
    steps = 2 + (2 if rain else 0)  # both advancing techniques step forward
    return [max(1, d - k * per_slot - steps) for k in (1, 2, 3)]


def candidate_plans(opening: str, duellist: str | None, stamina: int,
                    rnd: random.Random, limit: int = MAX_PLAN_CANDIDATES,
                    limits: list[int] | None = None) -> list:
    """Plans worth evaluating: no foreseeable misplay, affordable, at least one technique,
    no attack planned where it cannot possibly reach (``limits``, see ``reach_limits``); at
    most ``limit`` of them, three in four attacking in slot 1 (those decide most exchanges),
    and always the safe plan (Wait x3) too."""
    plans: Sequence[tuple] = valid_plans(opening, duellist, stamina)
    if limits is not None:
        plans = [p for p in plans
                 if all(RANGE[t] is None or limits[i] <= RANGE[t][1] for i, (_, t) in enumerate(p))]
    first = [p for p in plans if p[0][1] != "wait"]
    rest = [p for p in plans if p[0][1] == "wait"]
    k = min(len(first), (limit * 3) // 4)
    out = rnd.sample(first, k) + rnd.sample(rest, min(len(rest), limit - k))
    safe = ((opening, "wait"),) * 3
    if safe not in out:
        out.append(safe)
    return out


def plan_action(slots) -> dict:
    return {"type": "plan", "slots": [{"stance": s, "technique": t} for s, t in slots]}


def _plan_value(slots) -> str:
    return ",".join(f"{s}/{t}" for s, t in slots)


# ------------------------------------------------------------------------------------------
# Determinization: a whole engine state consistent with one seat's view
# ------------------------------------------------------------------------------------------
def _sun_and_xy(view: dict, rnd: random.Random) -> tuple[str | None, str | None]:
    """The current weather cycle's chance draws, as far as the view tells them."""
    n, w, blind = view["slot"], view["weather"], view["blind"]
    if n <= T.NORMAL_OPENING:
        return None, None
    o = (n - T.NORMAL_OPENING - 1) % E.CYCLE_LEN
    sun = rnd.choice(E.SEATS)
    if w == "sun":
        sun = blind if o < T.SUN_SWITCH else OTHER[blind]
    xy = rnd.choice(("rain", "fog"))
    kind = E._CYCLE_AT[o][0]
    if kind == "X" and w in ("rain", "fog"):
        xy = w
    elif kind == "Y" and w in ("rain", "fog"):
        xy = E.RAIN_OTHER[w]
    return sun, xy


def _cut_before(played: list[dict], xs: int) -> bool | None:
    """Was a High cut performed in the slot before exchange slot ``xs``? None: hidden."""
    if xs <= 1 or not played:
        return False
    last = played[-1]
    if last.get("hidden"):
        return None
    return last["technique"] in HEAVY and last["status"] == "performed"


def _rev_strings(played: list[dict], slots) -> list[str]:
    out = []
    for i, e in enumerate(played):
        if e.get("hidden"):
            tech = slots[i][1] if i < len(slots) else "wait"
            out.append(f"{e['slot']} {tech} performed 0 0")
        else:
            m = "1" if e.get("mighty") else "0"
            out.append(f"{e['slot']} {e['technique']} {e['status']} {m} 1")
    return out


def _sample_opponent_plan(view: dict, opp: str, rnd: random.Random, resting: bool | None
                          ) -> list[tuple[str, str]]:
    """A plan for the opponent consistent with what the seat saw of it this exchange: the
    techniques revealed so far, the stance it stands in now, whether it rests this slot."""
    p = view["players"][opp]
    xs = view["exchange_slot"]
    played = p["played"]
    slots: list[tuple[str, str]] = []
    for e in played:
        if e.get("hidden"):
            slots.append(rnd.choice(_ALL_SLOTS))
        else:
            t = e["technique"]
            s = E.TECH_STANCE[t] or rnd.choice(STANCES)
            slots.append((s, t))
    # The current slot (its stance shows unless weather hides it), then the later ones.
    stance = p["stance"] or rnd.choice(STANCES)
    prev = stance
    while len(slots) < 3:
        if len(slots) == xs - 1:
            s = stance
            techs = TECHS_OF[s]
            if resting is not None:
                st = p["stamina"]
                fits = [t for t in techs if (t != "wait" and (st == 0 or st < COST[t])) == resting]
                techs = fits or techs
            slots.append((s, rnd.choice(techs)))
        else:
            near = [s for s in STANCES if not _jump(prev, s)]
            s = rnd.choice(near)
            slots.append((s, rnd.choice(TECHS_OF[s])))
        prev = slots[-1][0]
    return slots[:3]


def determinize(doc: dict, rnd: random.Random) -> dict:
    """A Duel state that gives ``doc["seat"]`` exactly the view ``doc["state"]`` (and the same
    ``legal`` and ``pending``), with every hidden part drawn from ``rnd``."""
    view, me = doc["state"], doc["seat"]
    opp = OTHER[me]
    ph = view["phase"]
    xs = view["exchange_slot"]
    track = view["track_length"]
    pending = set(view["pending"])
    players = view["players"]
    who = "".join(s for s in E.SEATS if s in pending or players[s]["committed"])
    sun, xy = _sun_and_xy(view, rnd)
    st: dict = {
        "game": "duel", "options": dict(doc["options"]), "seats": list(E.SEATS),
        "seed": rnd.getrandbits(62), "rng_n": 0, "result": view["result"],
        "timeouts": {"A": 0, "B": 0}, "phase": ph, "slot": view["slot"],
        "ex": view["exchange"], "xs": xs, "sun": sun, "xy": xy, "who": who,
        "buf": {"A": None, "B": None}, "later": "", "salts": "", "w": view["weather"],
        "blind": view["blind"],
    }
    in_slot = ph in ("footwork", "dodge")
    P = {}
    pos = {s: players[s]["position"] for s in E.SEATS}
    if pos[opp] is None:  # the sun hides the opponent: somewhere on its side of us
        if opp == "B":
            pos[opp] = rnd.randint(pos[me] + 1, min(track, pos[me] + 6))
        else:
            pos[opp] = rnd.randint(max(1, pos[me] - 6), pos[me] - 1)
    for s in E.SEATS:
        p = players[s]
        own = s == me
        d = p["duellist"]
        f = 0
        if p["stance"] is not None and not own:
            f |= E.F_SV
        if own and not E._hid({"w": view["weather"], "blind": view["blind"],
                               "P": {x: {"pos": pos[x]} for x in E.SEATS}}, s):
            f |= E.F_SV
        f |= E.F_OPEN
        if p["thrust_stiffness"]:
            f |= E.F_STIFF
        slots = None
        plan_rec = None
        if p["plan_commitment"] is not None:
            if own:
                slots = [(x["stance"], x["technique"]) for x in p["plan"]]
            else:
                resting = None
                if ph == "footwork" and p["lock"] == 0:
                    resting = s not in who
                slots = _sample_opponent_plan(view, s, rnd, resting)
            plan_rec = "0" * 32 + p["plan_commitment"] + _plan_value(slots)
        stance = p["stance"]
        if stance is None:
            stance = slots[xs - 1][0] if in_slot and slots else rnd.choice(STANCES)
        if in_slot:
            cut = _cut_before(p["played"], xs)
            if cut is None:
                prev = slots[xs - 2] if slots and xs >= 2 else ("middle", "wait")
                cut = p["heavy_recovery"] or (d == "samurai" and prev[1] in HEAVY)
            if cut:
                f |= E.F_CUT
            if p["lock"] > 0:
                f |= E.F_LOCKED
            assert slots is not None  # footwork and dodge come after both plans are locked
            tech = slots[xs - 1][1]
            planned = slots[xs - 1][0]
            if p["stamina"] == 0 or p["stamina"] < COST[tech]:
                f |= E.F_REST
            if ph == "footwork" and p["lock"] == 0 and s not in who:
                f |= E.F_REST  # not asked for footwork and not locked: resting
            if not f & (E.F_LOCKED | E.F_REST):
                if planned != stance:
                    f |= E.F_MISPLAY  # a High<->Low jump (the stance shows as Middle)
                elif (f & E.F_CUT and d != "samurai" and not (planned == "low" and tech in HEAVY_OK)) \
                        or (f & E.F_STIFF and tech != "wait"):
                    f |= E.F_MISPLAY
        P[s] = {"d": d, "hp": p["health"], "st": p["stamina"], "pos": pos[s], "stance": stance,
                "lock": p["lock"], "plan": plan_rec,
                "rev": _rev_strings(p["played"], slots or []), "f": f}
        # A choice locked in this decision: our own as it is, the opponent's sampled.
        if p["committed"]:
            if own:
                value = _choice_value(ph, p["locked_choice"])
            else:
                value = _sample_choice(ph, view, s, stance, rnd)
            st["buf"][s] = "0" * 32 + p["commitment"] + value
    st["P"] = P
    return st


def _choice_value(ph: str, choice: dict) -> str:
    if ph == "plan":
        return _plan_value([(x["stance"], x["technique"]) for x in choice["slots"]])
    if ph == "dodge":
        return "1" if choice["dodge"] else "0"
    return choice[E.FIELD[ph]]


def _sample_choice(ph: str, view: dict, s: str, stance: str, rnd: random.Random) -> str:
    if ph == "duellist":
        return rnd.choice(list(T.DUELLISTS))
    if ph == "stance":
        return rnd.choice(STANCES)
    if ph == "plan":
        p = view["players"][s]
        plans = valid_plans(stance, p["duellist"], p["stamina"])
        if plans and rnd.random() < 0.5:
            return _plan_value(rnd.choice(plans))
        return _plan_value([(stance, rnd.choice(TECHS_OF[stance]))]
                           + [rnd.choice(_ALL_SLOTS) for _ in range(2)])
    if ph == "footwork":
        moves = T.RONIN_MOVES if view["players"][s]["duellist"] == "ronin" else T.MOVES
        return rnd.choice(list(moves))
    return "1" if rnd.random() < 0.2 else "0"


# ------------------------------------------------------------------------------------------
# The rollout policy (both seats, from their own views) and the evaluation
# ------------------------------------------------------------------------------------------
def _reach_after(tech: str, dist: int, rain: bool) -> bool:
    r = RANGE[tech]
    if not r:
        return False
    step = STEP[tech]
    if step and rain:
        step += 1 if step > 0 else -1
    d = dist - step
    return r[0] <= d <= r[1]


def policy(view: dict, seat: str, legal: list, rnd: random.Random) -> dict:
    """A quick sensible move for ``seat`` from its view: footwork that brings its technique
    into range (or keeps a Wait out of reach), no dodge unless under a likely hit, a plan that
    will not misplay, the stance with the most options."""
    ph = view["phase"]
    me = view["players"][seat]
    if ph == "footwork":
        plan = me["plan"]
        xs = view["exchange_slot"]
        tech = plan[xs - 1]["technique"] if plan else "wait"
        later = [x["technique"] for x in plan[xs:]] if plan else []
        rain = view["weather"] == "rain"
        opp = view["players"][OTHER[seat]]
        if me["position"] is None or opp["position"] is None:
            return dict(rnd.choice(legal))
        dist = abs(opp["position"] - me["position"])
        coming = any(t in ATTACKS for t in later)
        best, best_key = None, None
        for a in legal:
            m = T.RONIN_MOVES[a["move"]]
            if m and rain:
                m += 1 if m > 0 else -1
            d = max(1, dist - m)
            if tech in ATTACKS:
                key = (_reach_after(tech, d, rain), -abs(d - 2), -abs(m))
            elif tech == "wait":
                # Out of reach now; close in (to just outside reach) when an attack follows.
                key = (d >= 3, -abs(d - 3) if coming else 0, -abs(m))
            else:  # Counterattack / Block want the opponent's attack to reach
                key = (1 <= d <= 2, 0, -abs(m))
            if best_key is None or key > best_key:
                best, best_key = a, key
        assert best is not None  # legal is never empty for a seat that is asked
        return dict(best)
    if ph == "dodge":
        return {"type": "dodge", "dodge": False}
    if ph == "plan":
        plans = valid_plans(me["stance"], me["duellist"], me["stamina"])
        return plan_action(rnd.choice(plans) if plans else ((me["stance"], "wait"),) * 3)
    if ph == "stance":
        return {"type": "stance", "stance": rnd.choice(STANCES)}
    return dict(rnd.choice(legal))


# Evaluation weights: health decides the match; stamina and locks decide the next exchanges;
# standing off far apart (or against a wall) wastes the slots the bot needs to land a hit.
W_HEALTH = 10.0
W_STAMINA = 0.1
W_LOCK = 1.5
W_FAR = 0.4  # per space beyond ENGAGE
ENGAGE = 3
W_WALL = 0.3  # for standing with no room to dodge


def evaluate(st: dict, me: str) -> float:
    """How good ``st`` is for ``me``: a decided match counts ±1000, otherwise health, then
    stamina, locks, distance and room behind (see the weights above)."""
    res = st["result"]
    P = st["P"]
    a, b = P[me], P[OTHER[me]]
    score = (W_HEALTH * (a["hp"] - b["hp"]) + W_STAMINA * (a["st"] - b["st"])
             - W_LOCK * (a["lock"] - b["lock"]))
    if res is not None:
        if res["draw"]:
            return score
        return score + (1000.0 if res["winner"] == me else -1000.0)
    dist = abs(a["pos"] - b["pos"])
    score -= W_FAR * max(0, dist - ENGAGE)
    room = a["pos"] - 1 if me == "A" else st["options"]["track_length"] - a["pos"]
    if room < T.DODGE_DISTANCE:
        score -= W_WALL
    return score


def rollout(st: dict, me: str, until_slot: int, rnd: random.Random) -> float:
    """Play ``st`` (owned, changed in place) until slot ``until_slot`` starts (or the match
    ends); the score for ``me``. A fixed horizon in slots, not "the end of the exchange": a
    dodge ends the exchange early, and an exchange-long horizon would reward it for that."""
    game = GAME
    for _ in range(80):
        if st["result"] is not None or st["slot"] >= until_slot:
            break
        pending = game.pending(st)
        if not pending:
            break
        s = min(pending)
        legal = game.legal(st, s)
        noise = OPPONENT_NOISE if s != me else OWN_NOISE
        if rnd.random() < noise:
            action = random_action(legal, rnd)
        else:
            action = policy(game.view(st, s), s, legal, rnd)
        st, _ = game.apply(st, s, action, copy=False)
    return evaluate(st, me)


# ------------------------------------------------------------------------------------------
# The bot
# ------------------------------------------------------------------------------------------
class StrongDuel:
    def __init__(self, budget: int | None = None):
        self.budget = max(1, int(budget or DEFAULT_BUDGET))

    def __call__(self, doc: dict, rnd: random.Random) -> dict:
        legal = doc["legal"]
        view, me = doc["state"], doc["seat"]
        ph = view["phase"]
        if ph == "duellist":
            return {"type": "duellist", "duellist": DUELLIST_ORDER[0]}
        if ph == "plan":
            p = view["players"][me]
            # As many candidates as the budget can tell apart (about six rollouts each).
            limit = max(6, min(MAX_PLAN_CANDIDATES, self.budget // 6))
            plans = candidate_plans(p["stance"], p["duellist"], p["stamina"], rnd, limit,
                                    limits=reach_limits(view, me))
            cands = [plan_action(x) for x in plans]
        else:  # the opening stance, footwork, a dodge: every legal choice
            cands = [dict(a) for a in legal]
        if len(cands) == 1:
            return cands[0]
        return cands[self._best(doc, cands, rnd)]

    def _best(self, doc: dict, cands: list[dict], rnd: random.Random) -> int:
        """Successive halving: the budget is split evenly over rounds; in each round every
        surviving candidate meets the same fresh sampled worlds, and the better half goes on,
        until two are left (they share the last round)."""
        me = doc["seat"]
        until = doc["state"]["slot"] + HORIZON_SLOTS
        alive = list(range(len(cands)))
        totals = [0.0] * len(cands)
        counts = [0] * len(cands)
        rounds = max(1, (len(cands) - 1).bit_length())
        per_round = max(1, self.budget // rounds)
        while True:
            for _ in range(max(MIN_SAMPLES, per_round // len(alive))):
                world = determinize(doc, rnd)
                seed = rnd.getrandbits(32)
                for i in alive:
                    # A deep copy: the rollout plays in place and the sampled world must stay
                    # as it is for the next candidate (the engine's copy-on-write apply shares
                    # the containers it does not write).
                    w, _ = GAME.apply(clone(world), me, cands[i], copy=False)
                    totals[i] += rollout(w, me, until, random.Random(seed))
                    counts[i] += 1
            if len(alive) <= 2:
                break
            alive.sort(key=lambda i: (-totals[i] / counts[i], i))
            alive = alive[: (len(alive) + 1) // 2]
        return max(alive, key=lambda i: (totals[i] / counts[i], -i))


def make_bot(budget: int | None = None) -> StrongDuel:
    return StrongDuel(budget)

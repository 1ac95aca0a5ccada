// Duel: the rule tables as plain data (a copy of games/duel/tables.py) and pure helpers the
// board uses: the weather schedule, the plan checker (foreseeable misplays) and the slot
// records built from the event stream. No DOM here, so tests and tools can import it.

export const SEATS = ['A', 'B'];
export const OTHER = { A: 'B', B: 'A' };
export const STANCES = ['high', 'middle', 'low'];
export const DUELLISTS = ['brute', 'samurai', 'ronin', 'master'];
export const HEALTH_BONUS = { brute: 1, samurai: 0, ronin: 0, master: 0 };

export const TECHNIQUES = {
  downward_cut: { abbr: 'DC', stance: 'high', step: 0, range: [1, 2], damage: 5, cost: 2, kind: 'attack' },
  advancing_cut: { abbr: 'AC', stance: 'high', step: 1, range: [1, 2], damage: 5, cost: 2, kind: 'attack' },
  retreating_cut: { abbr: 'RC', stance: 'high', step: -1, range: [1, 2], damage: 2, cost: 2, kind: 'attack' },
  counterattack: { abbr: 'CA', stance: 'middle', step: 0, range: null, damage: 1, cost: 1, kind: 'defense' },
  advancing_thrust: { abbr: 'AT', stance: 'middle', step: 1, range: [2, 2], damage: 2, cost: 2, kind: 'attack' },
  block: { abbr: 'B', stance: 'middle', step: -1, range: null, damage: 0, cost: 1, kind: 'defense' },
  horizontal_cut: { abbr: 'HC', stance: 'low', step: 0, range: [1, 2], damage: 1, cost: 1, kind: 'attack' },
  retreating_horizontal_cut: { abbr: 'RH', stance: 'low', step: -1, range: [1, 2], damage: 1, cost: 2, kind: 'attack' },
  low_advancing_thrust: { abbr: 'LT', stance: 'low', step: 1, range: [1, 2], damage: 2, cost: 2, kind: 'attack' },
  wait: { abbr: 'W', stance: null, step: 0, range: null, damage: 0, cost: 0, kind: 'wait' },
};
export const TECH_ORDER = Object.keys(TECHNIQUES);
export const ABBR = Object.fromEntries(TECH_ORDER.map((k) => [TECHNIQUES[k].abbr, k]));

/** The techniques a slot in `stance` may hold: the stance's three, then Wait. */
export function techniquesOf(stance) {
  return TECH_ORDER.filter((k) => TECHNIQUES[k].stance === stance).concat('wait');
}

// The counter table exactly as printed in the seed: row = yours, column = theirs.
export const COUNTER_COLUMNS = ['DC', 'AC', 'RC', 'CA', 'AT', 'B', 'HC', 'RH', 'LT'];
export const COUNTER_ROWS = {
  DC: ['clash', '-5', '+5', '+5', '-5', '+5', '0', '+5', '+5'],
  AC: ['+5', 'clash', '+5', '+5', '-5', '+5', '-5', '+5', '-5'],
  RC: ['-5', '-5', '2:2', '+1', '+2', '0', '+2', '+2', '+2'],
  CA: ['-5', '-5', '-1', '0', '+1', '0', '-1', '-1', '+1'],
  AT: ['+5', '+5', '-2', '-1', '2:2', '0', '+5', '-2', '+5'],
  B: ['-5', '-5', '0', '0', '0', '0', '0', '0', '0'],
  HC: ['0', '+5', '-2', '+1', '-5', '0', '1:1', '0', '+1'],
  RH: ['-5', '-5', '-2', '+1', '+2', '0', '0', '1:1', '-5'],
  LT: ['-5', '+5', '-2', '-1', '-5', '0', '-1', '+5', '2:2'],
};

export const MOVES = ['toward', 'stay', 'away'];
export const RONIN_MOVES = ['toward2', 'toward', 'stay', 'away', 'away2'];
export const MOVE_STEPS = { toward: 1, stay: 0, away: -1, toward2: 2, away2: -2 };
export const HEAVY_CUTS = ['downward_cut', 'advancing_cut'];
export const THRUSTS = ['advancing_thrust', 'low_advancing_thrust'];
export const HEAVY_RECOVERY_OK = ['horizontal_cut', 'wait'];
export const MAX_STAMINA = 20;
export const DODGE_DISTANCE = 2;

// ---------------------------------------------------------------------------------------------
// Weather: slots 1..9 normal, then sun x6, normal x3, X x6, normal x3, Y x6, normal x3 (27).
// ---------------------------------------------------------------------------------------------
export const NORMAL_OPENING = 9;
export const CYCLE = [['sun', 6], ['normal', 3], ['X', 6], ['normal', 3], ['Y', 6], ['normal', 3]];
export const CYCLE_LEN = 27;
export const SUN_SWITCH = 3;

/** Index of the 27-slot cycle that slot n belongs to (-1 in the opening). */
export function cycleOf(n) {
  return n <= NORMAL_OPENING ? -1 : Math.floor((n - NORMAL_OPENING - 1) / CYCLE_LEN);
}

/** Weather of global slot n. draws: {sun: {cycle: seat}, xy: {cycle: 'rain'|'fog'}} (what is
 *  known so far). Returns {kind: 'normal'|'sun'|'rain'|'fog'|'rain_or_fog', blind: seat|null,
 *  half: 1|2 for sun}. An undrawn sun has blind null; an undrawn X/Y is 'rain_or_fog'. */
export function weatherAt(n, draws = {}) {
  if (n <= NORMAL_OPENING) return { kind: 'normal', blind: null };
  const c = cycleOf(n);
  let o = (n - NORMAL_OPENING - 1) % CYCLE_LEN;
  const sunFirst = draws.sun ? draws.sun[c] : undefined;
  const xy = draws.xy ? draws.xy[c] : undefined;
  for (const [kind, len] of CYCLE) {
    if (o < len) {
      if (kind === 'sun') {
        const half = o < SUN_SWITCH ? 1 : 2;
        const blind = sunFirst ? (half === 1 ? sunFirst : OTHER[sunFirst]) : null;
        return { kind: 'sun', blind, half };
      }
      if (kind === 'X') return { kind: xy || 'rain_or_fog', blind: null };
      if (kind === 'Y') return { kind: xy ? (xy === 'rain' ? 'fog' : 'rain') : 'rain_or_fog', blind: null };
      return { kind, blind: null };
    }
    o -= len;
  }
  return { kind: 'normal', blind: null };
}

/** The next change of weather after slot n (whose weather, from the view, is `current`
 *  {kind, blind}): {slot, in, weather} or null when none comes before maxSlots. */
export function nextWeatherChange(n, current, draws, maxSlots) {
  const half = current.kind === 'sun' ? weatherAt(n, {}).half : undefined;
  for (let k = 1; k <= CYCLE_LEN + 1; k++) {
    const m = n + k;
    if (maxSlots && m > maxSlots) return null;
    const w = weatherAt(m, draws);
    const same = w.kind === current.kind && (w.kind !== 'sun' || w.half === half);
    if (!same) return { slot: m, in: k, weather: w };
  }
  return null;
}

/** Learn the cycle draws that the current view implies (the weather of its slot is known). */
export function inferDraws(draws, slot, weather, blind) {
  const c = cycleOf(slot);
  if (c < 0) return draws;
  const o = (slot - NORMAL_OPENING - 1) % CYCLE_LEN;
  const out = { sun: { ...(draws.sun || {}) }, xy: { ...(draws.xy || {}) } };
  if (weather === 'sun' && blind && out.sun[c] === undefined) {
    out.sun[c] = o < SUN_SWITCH ? blind : OTHER[blind];
  }
  if ((weather === 'rain' || weather === 'fog') && out.xy[c] === undefined) {
    const inX = o >= 9 && o < 15;
    out.xy[c] = inX ? weather : weather === 'rain' ? 'fog' : 'rain';
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Plan checker: the misplays a player can foresee before locking (docs/rules/duel.md, "A slot").
// ---------------------------------------------------------------------------------------------
/**
 * slots: [{stance, technique}] x3. me: {opening, duellist, stamina, lock}.
 * Returns one list per slot of {level: 'misplay'|'rest'|'locked'|'risk'|'info', key, ...params}.
 * 'misplay' and 'rest' are certain if the earlier slots go as planned; 'risk' depends on the
 * opponent (a thrust that misses leaves stiffness).
 */
export function checkPlan(slots, me) {
  const out = [[], [], []];
  let prev = me.opening;
  let cut = false; // a performed High cut in the previous slot
  let thrust = false; // a performed thrust in the previous slot (stiff if it dealt nothing)
  let stamina = me.stamina ?? MAX_STAMINA;
  let lock = me.lock || 0;
  const samurai = me.duellist === 'samurai';
  for (let i = 0; i < 3; i++) {
    const sl = slots[i];
    if (!sl) continue;
    const { stance, technique } = sl;
    const w = out[i];
    const locked = lock > 0;
    const cost = TECHNIQUES[technique].cost;
    const rest = stamina === 0 || stamina < cost;
    const jump = Math.abs(STANCES.indexOf(stance) - STANCES.indexOf(prev)) > 1 && !(stance === 'low' && cut);
    let misplay = false;
    if (locked) w.push({ level: 'locked', key: 'warn_locked', n: lock });
    if (rest) w.push({ level: 'rest', key: 'warn_rest', stamina, cost });
    if (jump) {
      misplay = true;
      w.push({ level: 'misplay', key: 'warn_jump', from: prev, to: stance });
    } else if (!locked && !rest) {
      if (cut && !samurai && !(stance === 'low' && HEAVY_RECOVERY_OK.includes(technique))) {
        misplay = true;
        w.push({ level: 'misplay', key: 'warn_heavy', prevSlot: i });
      }
      if (thrust && !samurai && technique !== 'wait') {
        w.push({ level: 'risk', key: 'warn_stiff', prevSlot: i });
      }
    }
    if (!misplay && !locked && !rest && me.duellist === 'brute' && i === 0 && HEAVY_CUTS.includes(technique)) {
      w.push({ level: 'info', key: 'warn_mighty' });
    }
    const performed = !locked && !rest && !misplay && technique !== 'wait';
    if (performed) stamina = Math.max(0, stamina - cost);
    if (rest) stamina = Math.min(MAX_STAMINA, stamina + 1);
    prev = misplay ? 'middle' : stance;
    cut = performed && HEAVY_CUTS.includes(technique);
    thrust = performed && THRUSTS.includes(technique);
    if (locked) lock -= 1;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The event stream, digested: slots, exchanges, commitments and the order of things for the log.
// ---------------------------------------------------------------------------------------------
function reaches(tech, dist) {
  const r = TECHNIQUES[tech] && TECHNIQUES[tech].range;
  return !!r && dist >= r[0] && dist <= r[1];
}

/**
 * events: every event seen, in order (each with its `version`). Returns
 * {entries, slots, commits, reveals, draws, positions}. `entries` is the log in order:
 * {kind: 'slot', slot} (the words are built from slots.get(slot)) or {kind, ...params}.
 */
export function digest(events) {
  const slots = new Map();
  const commits = new Map(); // commitment -> {seat, decision, version, exchange, slot}
  const reveals = [];
  const entries = [];
  const draws = { sun: {}, xy: {} };
  const pos = { A: null, B: null };
  const duellists = { A: null, B: null };
  let exchange = 0;
  let cur = null; // the slot being played
  let slotNo = 1;
  const capture = () => {
    if (cur && cur.dist === undefined) {
      cur.dist = cur.weather === 'sun' || pos.A == null || pos.B == null ? null : pos.B - pos.A;
    }
  };
  for (const e of events) {
    switch (e.type) {
      case 'commit':
        commits.set(e.commitment, { seat: e.seat, decision: e.decision, version: e.version, exchange, slot: slotNo });
        break;
      case 'reveal':
        reveals.push({ ...e });
        break;
      case 'duellist':
        duellists[e.seat] = e.duellist;
        pos[e.seat] = e.position;
        if (duellists.A && duellists.B) entries.push({ kind: 'duellists', a: duellists.A, b: duellists.B, version: e.version });
        break;
      case 'exchange':
        exchange = e.exchange;
        slotNo = e.slot;
        entries.push({ kind: 'exchange', n: e.exchange, slot: e.slot, version: e.version });
        break;
      case 'slot': {
        slotNo = e.slot;
        cur = {
          slot: e.slot, exchange: e.exchange, xs: e.exchange_slot, weather: e.weather, blind: e.blind,
          stance: {}, footwork: {}, dodge: {}, technique: {}, hits: {}, locks: {}, locked: {}, rest: {},
          steps: {}, knockback: {}, clash: false, end: null, version: e.version,
          start: { A: pos.A, B: pos.B },
        };
        slots.set(e.slot, cur);
        entries.push({ kind: 'slot', slot: e.slot, version: e.version });
        break;
      }
      case 'stance':
        if (e.opening) {
          entries.push({ kind: 'opening', seat: e.seat, stance: e.stance, version: e.version });
        } else if (cur && cur.slot === e.slot) {
          cur.stance[e.seat] = { stance: e.stance, planned: e.planned, misplay: !!e.misplay };
        }
        break;
      case 'locked':
        if (cur) cur.locked[e.seat] = e.slots_left;
        break;
      case 'rest':
        if (cur) cur.rest[e.seat] = true;
        break;
      case 'footwork':
        if (cur) cur.footwork[e.seat] = { move: e.move, from: e.from, to: e.to };
        pos[e.seat] = e.to;
        break;
      case 'dodge':
        if (cur) cur.dodge[e.seat] = { dodge: e.dodge, from: e.from, to: e.to };
        if (e.dodge && e.to != null) pos[e.seat] = e.to;
        break;
      case 'technique':
        if (cur && cur.slot === e.slot) cur.technique[e.seat] = { technique: e.technique, status: e.status, mighty: !!e.mighty };
        break;
      case 'step':
        if (cur) cur.steps[e.seat] = { from: e.from, to: e.to };
        pos[e.seat] = e.to;
        break;
      case 'clash':
        capture();
        if (cur) cur.clash = true;
        break;
      case 'knockback':
        if (cur) cur.knockback[e.seat] = { from: e.from, to: e.to };
        pos[e.seat] = e.to;
        break;
      case 'hit':
        capture();
        if (cur) cur.hits[e.seat] = { damage: e.damage, health: e.health };
        break;
      case 'lock':
        capture();
        if (cur) cur.locks[e.seat] = e.slots;
        break;
      case 'slot_end':
        capture();
        if (cur) cur.end = e;
        break;
      case 'exchange_end':
        entries.push({ kind: 'exchange_end', n: e.exchange, version: e.version });
        break;
      case 'chance':
        if (e.draw === 'sun_first') {
          draws.sun[cycleOf(e.slot)] = e.seat;
          entries.push({ kind: 'chance_sun', seat: e.seat, slot: e.slot, version: e.version });
        } else if (e.draw === 'rain_or_fog') {
          draws.xy[cycleOf(e.slot)] = e.first;
          entries.push({ kind: 'chance_xy', first: e.first, then: e.then, slot: e.slot, version: e.version });
        }
        break;
      case 'weather':
        entries.push({ kind: 'weather', weather: e.weather, blind: e.blind, slot: e.slot, version: e.version });
        break;
      case 'timeout':
        entries.push({ kind: 'timeout', seat: e.seat, version: e.version });
        break;
      case 'forfeit':
        entries.push({ kind: 'forfeit', seat: e.seat, reason: e.reason, version: e.version });
        break;
      case 'match_end':
        entries.push({ kind: 'match_end', result: e.result, version: e.version });
        break;
      default:
        break;
    }
  }
  return { entries, slots, commits, reveals, draws, positions: pos, duellists };
}

/**
 * What happened in one slot, as a list of phrases {key, seat?, ...} for the log (the board turns
 * each into words). Order: misplayed stances, locks and rests, footwork, dodges, techniques with
 * their outcome, the clash, new locks.
 */
export function slotPhrases(S) {
  const parts = [];
  if (!S) return parts;
  for (const s of SEATS) {
    const st = S.stance[s];
    if (st && st.misplay) parts.push({ key: 'log_jump', seat: s, planned: st.planned });
  }
  for (const s of SEATS) {
    if (S.locked[s] !== undefined) parts.push({ key: 'log_locked', seat: s, n: S.locked[s] });
    if (S.rest[s]) parts.push({ key: 'log_rest', seat: s });
  }
  for (const s of SEATS) {
    const f = S.footwork[s];
    if (!f) continue;
    if (f.move === undefined) {
      if (f.from !== f.to) parts.push({ key: 'log_move_hidden', seat: s, to: f.to });
    } else if (f.move === 'stay') {
      parts.push({ key: 'log_stay', seat: s });
    } else if (f.from === f.to) {
      parts.push({ key: 'log_move_stopped', seat: s, move: f.move });
    } else {
      parts.push({ key: `log_${f.move}`, seat: s, to: f.to });
    }
  }
  for (const s of SEATS) {
    const d = S.dodge[s];
    if (d && d.dodge) parts.push({ key: 'log_dodge', seat: s, to: d.to });
  }
  const dealt = { A: (S.hits.B && S.hits.B.damage) || 0, B: (S.hits.A && S.hits.A.damage) || 0 };
  const T = S.technique;
  const dist = S.dist ?? null;
  for (const s of SEATS) {
    const o = OTHER[s];
    const te = T[s];
    if (!te) continue;
    if (te.technique === null) {
      parts.push({ key: 'log_tech_hidden', seat: s });
      continue;
    }
    const tech = te.technique;
    const base = { seat: s, tech, mighty: te.mighty };
    if (te.status === 'wait') {
      parts.push({ key: 'log_wait', seat: s });
      continue;
    }
    if (te.status === 'misplay') {
      parts.push({ key: tech === 'wait' ? 'log_misplay_wait' : 'log_misplay', ...base });
      continue;
    }
    if (te.status === 'dodged') {
      if (tech !== 'wait') parts.push({ key: 'log_cancelled', ...base });
      continue;
    }
    if (te.status !== 'performed') continue;
    const info = TECHNIQUES[tech];
    const ot = T[o];
    const oPerf = ot && ot.status === 'performed' && ot.technique;
    const oTech = oPerf ? ot.technique : null;
    const mine = dealt[s];
    if (S.dodge[o] && S.dodge[o].dodge) {
      if (mine > 0) parts.push({ key: 'log_pursuit', ...base, n: mine });
      else if (info.kind === 'attack') parts.push({ key: 'log_dodged', ...base });
      else parts.push({ key: 'log_idle', ...base });
      continue;
    }
    if (info.kind === 'attack') {
      if (mine > 0) parts.push({ key: 'log_hit', ...base, n: mine });
      else if (S.clash) parts.push({ key: 'log_clashes', ...base });
      else if (dist !== null && !reaches(tech, dist)) parts.push({ key: 'log_miss', ...base });
      else if (oTech === 'block') parts.push({ key: 'log_blocked', ...base });
      else if (oTech === 'counterattack') parts.push({ key: 'log_countered', ...base });
      else if (dealt[o] > 0) parts.push({ key: 'log_beaten', ...base });
      else parts.push({ key: 'log_no_damage', ...base });
    } else {
      const oAttack = oTech && TECHNIQUES[oTech].kind === 'attack';
      const reached = oAttack && (dist === null || reaches(oTech, dist) || dealt[o] > 0 || mine > 0);
      if (mine > 0) parts.push({ key: 'log_counter_hit', ...base, n: mine });
      else if (reached && dealt[o] === 0) parts.push({ key: tech === 'block' ? 'log_block_holds' : 'log_counter_holds', ...base });
      else if (reached) parts.push({ key: 'log_defence_fails', ...base });
      else parts.push({ key: 'log_idle', ...base });
    }
  }
  if (S.clash) parts.push({ key: 'log_clash' });
  for (const s of SEATS) {
    if (S.locks[s]) parts.push({ key: 'log_lock', seat: s, n: S.locks[s] });
  }
  return parts;
}

/** Compare a plan opening with the public record: the technique shown in each played slot. */
export function planMatchesRecord(choice, seat, exchange, slots) {
  if (!choice || !Array.isArray(choice.slots)) return false;
  for (const S of slots.values()) {
    if (S.exchange !== exchange) continue;
    const te = S.technique[seat];
    if (!te || te.technique === null || te.technique === undefined) continue;
    const planned = choice.slots[S.xs - 1];
    if (!planned || planned.technique !== te.technique) return false;
  }
  return true;
}

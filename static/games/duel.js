// Duel board (plain ES module, no build step).
//
//   import { mount } from "/static/games/duel.js";
//   const board = mount(element, { t, act, seat, matchId, lang });
//   board.update(viewDoc);  ...  board.destroy();
//
// The view document's `state` is the engine view of games/duel (docs/rules/duel.md); its
// `events` are the events since the last document. The board also loads the match's whole event
// history once (GET /api/matches/{id}/view?since=0) so that the log and the commitment checks
// cover the match from its first decision, even after a reload.
//
// Every secret choice is published as a commitment when locked and opened when revealed
// (docs/commitments.md). Each opening is re-hashed here, in the browser (duel_commit.js), and
// compared with the commitment published earlier: ✓ verified / ✗ does not match.
//
// Only actions of `legal` are sent (the plan is checked against its template).

import { request } from '../api.js';
import { append, el, fmtClock, same, submitAction, svg } from './board.js';
import { verifyCommitment } from './duel_commit.js';
import {
  SEATS,
  OTHER,
  STANCES,
  DUELLISTS,
  HEALTH_BONUS,
  TECHNIQUES,
  TECH_ORDER,
  COUNTER_COLUMNS,
  COUNTER_ROWS,
  ABBR,
  MOVE_STEPS,
  MAX_STAMINA,
  DODGE_DISTANCE,
  techniquesOf,
  checkPlan,
  digest,
  slotPhrases,
  planMatchesRecord,
  nextWeatherChange,
  inferDraws,
} from './duel_rules.js';

// the slot phrases that tell how a seat's own technique went (duel_rules.slotPhrases)
const TECH_PHRASES = new Set([
  'log_hit', 'log_clashes', 'log_miss', 'log_blocked', 'log_countered', 'log_beaten', 'log_no_damage',
  'log_counter_hit', 'log_block_holds', 'log_counter_holds', 'log_defence_fails', 'log_idle',
  'log_pursuit', 'log_dodged', 'log_wait', 'log_misplay', 'log_cancelled',
]);
const CELL = 46; // px per track space in the SVG's own units
const PAD = 14;
const TRACK_H = 150;
const LOG_MAX = 80;

// ---------------------------------------------------------------------------------------------
// DOM helpers
// ---------------------------------------------------------------------------------------------
/** node.replaceChildren(...) without the nulls (replaceChildren would print "null"). */
function fill(node, ...children) {
  node.replaceChildren();
  return append(node, children);
}

function svgFrom(markup, cls) {
  const wrap = document.createElement('span');
  wrap.className = cls;
  wrap.setAttribute('aria-hidden', 'true');
  wrap.innerHTML = markup;
  return wrap;
}

// ---------------------------------------------------------------------------------------------
// Ink drawings (no fonts needed): stances, duellists, weather.
// ---------------------------------------------------------------------------------------------
const STANCE_SWORD = {
  high: 'M10 31 L31 8',
  middle: 'M6 22 L36 17',
  low: 'M8 13 L33 31',
};
const STANCE_GUARD = {
  high: 'M11 23 L18 30',
  middle: 'M12 16 L13 26',
  low: 'M12 22 L17 14',
};

function stanceGlyph(stance, cls = 'duel-glyph') {
  if (!stance) {
    return svgFrom(
      '<svg viewBox="0 0 40 40" focusable="false"><circle cx="20" cy="20" r="13" fill="none" stroke="currentColor" stroke-width="2" stroke-dasharray="3 3"/><text x="20" y="26" text-anchor="middle" font-size="16" fill="currentColor">?</text></svg>',
      cls,
    );
  }
  return svgFrom(
    `<svg viewBox="0 0 40 40" focusable="false"><path d="${STANCE_SWORD[stance]}" stroke="currentColor" stroke-width="3.2" stroke-linecap="round" fill="none"/>` +
      `<path d="${STANCE_GUARD[stance]}" stroke="#b3261e" stroke-width="3.2" stroke-linecap="round" fill="none"/></svg>`,
    `${cls} stance-${stance}`,
  );
}

const EMBLEMS = {
  brute:
    '<g transform="rotate(-35 32 32)"><rect x="26" y="6" width="12" height="44" rx="6" fill="currentColor"/>' +
    '<rect x="29" y="48" width="6" height="12" rx="2" fill="currentColor"/>' +
    '<g fill="#f4efe6"><circle cx="30" cy="14" r="1.6"/><circle cx="34" cy="20" r="1.6"/><circle cx="30" cy="26" r="1.6"/><circle cx="34" cy="32" r="1.6"/><circle cx="30" cy="38" r="1.6"/></g></g>',
  samurai:
    '<circle cx="32" cy="32" r="25" fill="none" stroke="currentColor" stroke-width="3"/>' +
    '<path d="M17 47 Q32 30 48 14" stroke="currentColor" stroke-width="3.5" fill="none" stroke-linecap="round"/>' +
    '<ellipse cx="22" cy="41" rx="6" ry="2.6" transform="rotate(-45 22 41)" fill="#b3261e"/>',
  ronin:
    '<path d="M6 40 Q32 6 58 40 Z" fill="currentColor"/>' +
    '<path d="M3 41 L61 41" stroke="currentColor" stroke-width="3" stroke-linecap="round"/>' +
    '<path d="M20 41 Q24 54 32 56 Q40 54 44 41" stroke="#b3261e" stroke-width="2" fill="none"/>' +
    '<path d="M18 30 L46 30" stroke="#f4efe6" stroke-width="1.2" opacity=".6"/>',
  master:
    '<path d="M45 13 A22 22 0 1 0 53 38" stroke="currentColor" stroke-width="6" fill="none" stroke-linecap="round"/>' +
    '<path d="M47 16 A18 18 0 0 0 40 12" stroke="currentColor" stroke-width="2" fill="none" opacity=".5"/>' +
    '<circle cx="32" cy="33" r="4" fill="#b3261e"/>',
};

function emblem(duellist, cls = 'duel-emblem') {
  const body = EMBLEMS[duellist] || '<circle cx="32" cy="32" r="20" fill="none" stroke="currentColor" stroke-width="3" stroke-dasharray="5 5"/>';
  return svgFrom(`<svg viewBox="0 0 64 64" focusable="false">${body}</svg>`, cls);
}

const WEATHER_ICONS = {
  normal:
    '<path d="M3 25 L11 14 L16 19 L21 12 L29 25 Z" fill="currentColor"/><circle cx="23" cy="7" r="3" fill="none" stroke="currentColor" stroke-width="1.5"/>',
  sun:
    '<circle cx="16" cy="16" r="7" fill="#b3261e"/><g stroke="#b3261e" stroke-width="2" stroke-linecap="round">' +
    '<path d="M16 2v4M16 26v4M2 16h4M26 16h4M6 6l3 3M23 23l3 3M26 6l-3 3M9 23l-3 3"/></g>',
  rain:
    '<path d="M7 13 Q8 6 16 6 Q24 6 25 13 Z" fill="currentColor"/><g stroke="currentColor" stroke-width="2" stroke-linecap="round">' +
    '<path d="M9 17l-2 6M15 17l-2 8M21 17l-2 6M26 17l-2 5"/></g>',
  fog:
    '<g stroke="currentColor" stroke-width="2.4" stroke-linecap="round" fill="none">' +
    '<path d="M4 10 Q10 6 16 10 T28 10"/><path d="M4 17 Q10 13 16 17 T28 17"/><path d="M4 24 Q10 20 16 24 T28 24" opacity=".6"/></g>',
  rain_or_fog:
    '<circle cx="16" cy="16" r="12" fill="none" stroke="currentColor" stroke-width="2" stroke-dasharray="4 3"/>' +
    '<text x="16" y="21" text-anchor="middle" font-size="14" font-weight="700" fill="currentColor">?</text>',
};

function weatherIcon(kind, cls = 'duel-wicon') {
  return svgFrom(`<svg viewBox="0 0 32 32" focusable="false">${WEATHER_ICONS[kind] || WEATHER_ICONS.normal}</svg>`, cls);
}

const SEAL_MARK =
  '<svg viewBox="0 0 40 40" focusable="false"><rect x="4" y="4" width="32" height="32" rx="3" fill="#b3261e"/>' +
  '<g stroke="#f4efe6" stroke-width="3" stroke-linecap="round"><path d="M12 28 L28 12"/><path d="M28 28 L12 12"/></g></svg>';

// ---------------------------------------------------------------------------------------------
// The board
// ---------------------------------------------------------------------------------------------
export function mount(root, ctx) {
  const t = (key, params) => ctx.t(`duel.${key}`, params ?? {});
  let doc = null;
  let destroyed = false;
  let busy = false;
  let error = null;
  let rulesOpen = false;
  let planDraft = null; // {key, slots: [{stance, technique}] x3}
  let preview = null; // footwork preview: {seat, to}
  let fxVersion = null; // effects (hit numbers) are shown for events after this version
  let historyComplete = false;
  let renderQueued = false;
  const batches = new Map(); // version -> events of that version
  let dig = digest([]);
  const checks = new Map(); // reveal key -> {state: 'pending'|'done', hashOk}

  // ---- skeleton ----------------------------------------------------------------------------
  const board = el('section', { class: 'duel', 'aria-label': t('title') });
  const top = el('div', { class: 'duel-top' });
  const progress = el('div', { class: 'duel-progress' });
  const weatherBox = el('div', { class: 'duel-weather', 'data-testid': 'weather' });
  const rulesBtn = el('button', {
    type: 'button',
    class: 'duel-btn duel-btn-ghost duel-rules-toggle',
    'aria-expanded': 'false',
    'aria-controls': 'duel-rules',
    'data-testid': 'rules-toggle',
    'data-focus': 'rules-toggle',
    onclick: () => {
      rulesOpen = !rulesOpen;
      renderRules();
      if (rulesOpen) rulesPanel.querySelector('h3')?.focus();
    },
  });
  top.append(progress, weatherBox, el('div', { class: 'duel-tools' }, [rulesBtn]));
  const rulesPanel = el('div', { class: 'duel-rules', id: 'duel-rules', hidden: true, 'data-testid': 'rules-panel' });
  const fighters = el('div', { class: 'duel-fighters' });
  const trackBox = el('div', { class: 'duel-track' });
  const stage = el('div', { class: 'duel-stage', 'aria-label': t('stage_label'), role: 'group' });
  const decide = el('div', { class: 'duel-decide', 'data-testid': 'decide' });
  const message = el('div', { class: 'duel-message', role: 'alert' });
  const logBox = el('ol', { class: 'duel-log', 'aria-live': 'polite', 'data-testid': 'slot-log' });
  const sealsBox = el('div', { class: 'duel-seals-body' });
  const lower = el('div', { class: 'duel-lower' }, [
    el('section', { class: 'duel-log-wrap', 'aria-labelledby': 'duel-log-title' }, [
      el('h3', { id: 'duel-log-title' }, t('log_title')),
      logBox,
    ]),
    el('section', { class: 'duel-seals', 'aria-labelledby': 'duel-seals-title' }, [
      el('h3', { id: 'duel-seals-title' }, t('seals_title')),
      el('p', { class: 'duel-small duel-muted' }, t('seals_intro')),
      sealsBox,
    ]),
  ]);
  board.append(top, rulesPanel, fighters, trackBox, stage, message, decide, lower);
  root.append(board);

  const clockTimer = setInterval(renderClock, 250);

  // ---- helpers over the current document --------------------------------------------------
  const S = () => (doc && doc.state) || null;
  const me = () => (doc && 'seat' in doc ? doc.seat : ctx.seat) || null;
  const leftSeat = () => (me() === 'B' ? 'B' : 'A');
  const finished = () => !!(doc && (doc.result || doc.status === 'finished' || (S() && S().result)));
  const legal = () => (doc && doc.legal) || [];
  const canAct = () =>
    !busy && doc && doc.status === 'live' && !finished() && me() && (doc.pending || []).includes(me()) && legal().length > 0;

  function playerName(seat) {
    const p = ((doc && doc.players) || []).find((x) => x.seat === seat);
    return (p && p.user && p.user.name) || t('seat', { seat });
  }

  function nameOf(seat) {
    const name = playerName(seat);
    return seat === me() ? t('you_suffix', { name }) : name;
  }

  /** Who, in the log: the duellist when the two differ, else the player's name. */
  function who(seat) {
    const st = S();
    const d = st && st.players;
    const a = d && d.A && d.A.duellist;
    const b = d && d.B && d.B.duellist;
    if (a && b && a !== b) return duellistName(d[seat].duellist);
    return playerName(seat);
  }

  const duellistName = (d) => (d ? t(`duellist_${d}`) : t('duellist_unknown'));
  const stanceName = (s) => (s ? t(`stance_${s}`) : t('hidden'));
  const techName = (k) => t(`tech_${k}`);
  const techLabel = (k, mighty) => (mighty ? t('mighty_cut', { tech: techName(k) }) : techName(k));
  const weatherName = (k) => t(`weather_${k}`);

  /** Replace `target`'s children only when the new ones differ (so entrance animations play
   *  once, and focus and hover stay where they are when nothing changed). */
  function swap(target, ...children) {
    const tmp = document.createElement(target.tagName);
    append(tmp, children);
    fillClocks(tmp);
    if (tmp.innerHTML === target.innerHTML) return false;
    target.replaceChildren(...tmp.childNodes);
    return true;
  }

  function scheduleRender() {
    if (renderQueued || destroyed) return;
    renderQueued = true;
    Promise.resolve().then(() => {
      renderQueued = false;
      if (!destroyed) render();
    });
  }

  // ---- events ------------------------------------------------------------------------------
  function ingest(events) {
    let changed = false;
    const byVersion = new Map();
    for (const e of events || []) {
      const v = e.version ?? -1;
      if (!byVersion.has(v)) byVersion.set(v, []);
      byVersion.get(v).push(e);
    }
    for (const [v, list] of byVersion) {
      if (!batches.has(v) || !same(batches.get(v), list)) {
        batches.set(v, list);
        changed = true;
      }
    }
    if (changed) {
      const all = [...batches.keys()].sort((a, b) => a - b).flatMap((v) => batches.get(v));
      dig = digest(all);
      startChecks();
    }
    return changed;
  }

  async function loadHistory() {
    try {
      const full = await request('GET', `/api/matches/${encodeURIComponent(ctx.matchId)}/view?since=0`);
      if (destroyed || !full) return;
      historyComplete = true;
      ingest(full.events);
      scheduleRender();
    } catch {
      /* the live stream still works; checks then rely on what arrived */
    }
  }

  // ---- commitment checks ---------------------------------------------------------------------
  const revealKey = (r) => `${r.commitment}|${r.salt}|${JSON.stringify(r.choice)}`;

  function startChecks() {
    for (const r of dig.reveals) {
      const key = revealKey(r);
      if (checks.has(key)) continue;
      const entry = { state: 'pending', hashOk: false };
      checks.set(key, entry);
      verifyCommitment(r.commitment, r.salt, r.choice).then((ok) => {
        entry.state = 'done';
        entry.hashOk = ok;
        scheduleRender();
      });
    }
  }

  /** {state: 'pending'|'ok'|'bad', reason} of one opening. */
  function checkOf(r) {
    const c = checks.get(revealKey(r));
    if (!c || c.state !== 'done') return { state: 'pending' };
    if (!c.hashOk) return { state: 'bad', reason: 'hash' };
    const pub = dig.commits.get(r.commitment);
    if (pub && (pub.seat !== r.seat || pub.decision !== r.decision)) return { state: 'bad', reason: 'seat' };
    if (!pub && historyComplete) return { state: 'bad', reason: 'unpublished' };
    if (pub && !recordAgrees(r, pub)) return { state: 'bad', reason: 'record' };
    return { state: 'ok' };
  }

  function recordAgrees(r, pub) {
    const ch = r.choice || {};
    if (r.decision === 'plan') return planMatchesRecord(ch, r.seat, pub.exchange, dig.slots);
    const Sl = dig.slots.get(pub.slot);
    if (r.decision === 'footwork' && Sl && Sl.footwork[r.seat] && Sl.footwork[r.seat].move !== undefined) {
      return Sl.footwork[r.seat].move === ch.move;
    }
    if (r.decision === 'dodge' && Sl && Sl.dodge[r.seat]) return Sl.dodge[r.seat].dodge === ch.dodge;
    if (r.decision === 'duellist' && dig.duellists[r.seat]) return dig.duellists[r.seat] === ch.duellist;
    return true;
  }

  function checkMark(r, extra = {}) {
    const c = checkOf(r);
    const text = c.state === 'ok' ? t('check_ok') : c.state === 'bad' ? t('check_bad') : t('check_pending');
    const title = [
      t('check_title', { decision: t(`decision_${r.decision}`), who: playerName(r.seat) }),
      `${t('check_commitment')}: ${r.commitment}`,
      `${t('check_salt')}: ${r.salt}`,
      c.state === 'bad' ? t(`check_reason_${c.reason}`) : '',
    ]
      .filter(Boolean)
      .join('\n');
    return el(
      'span',
      {
        class: `duel-check check-${c.state}`,
        'data-testid': 'commit-check',
        'data-verified': c.state === 'ok' ? 'true' : c.state === 'bad' ? 'false' : 'pending',
        'data-decision': r.decision,
        title,
        ...extra,
      },
      [el('span', { class: 'duel-check-mark', 'aria-hidden': 'true' }, c.state === 'ok' ? '✓' : c.state === 'bad' ? '✗' : '…'), el('span', {}, text)],
    );
  }

  // ---- sending -------------------------------------------------------------------------------
  function planFitsTemplate(action) {
    const tpl = legal().find((a) => a.type === 'plan');
    if (!tpl || !Array.isArray(action.slots) || action.slots.length !== tpl.slots.length) return false;
    return tpl.slots.every((slot, i) => (slot.one_of || [slot]).some((x) => same(x, action.slots[i])));
  }

  function send(action) {
    if (!canAct()) return;
    const ok = action.type === 'plan' ? planFitsTemplate(action) : legal().some((a) => same(a, action));
    if (!ok) return; // only ever send listed actions
    busy = true;
    error = null;
    preview = null;
    render();
    submitAction(ctx, action, () => !destroyed, (refused) => {
      busy = false;
      error = refused;
      render();
    });
  }

  // ---- rendering -------------------------------------------------------------------------------
  function keepFocus(fn) {
    const active = document.activeElement;
    const key = active && board.contains(active) ? active.getAttribute('data-focus') : null;
    fn();
    if (key && document.activeElement !== active) {
      const again = board.querySelector(`[data-focus="${CSS.escape(key)}"]`);
      if (again && !again.disabled) again.focus({ preventScroll: true });
      else decide.querySelector('button:not([disabled])')?.focus({ preventScroll: true });
    }
  }

  function render() {
    if (destroyed) return;
    keepFocus(() => {
      const st = S();
      rulesBtn.textContent = rulesOpen ? t('rules_hide') : t('rules_show');
      rulesBtn.setAttribute('aria-expanded', String(rulesOpen));
      if (!st) {
        progress.textContent = t('waiting_start');
        decide.replaceChildren();
        return;
      }
      renderTop(st);
      renderFighters(st);
      renderTrack(st);
      renderStage(st);
      renderDecide(st);
      renderMessage();
      renderLog();
      renderSeals();
      renderClock();
      board.dataset.phase = finished() ? 'over' : st.phase;
    });
  }

  // ---- top bar: progress, weather now and next, clock ---------------------------------------
  function renderTop(st) {
    swap(progress,
      el('span', { class: 'duel-slotno' }, [
        el('span', { class: 'duel-k' }, t('slot_word')),
        el('strong', {}, String(st.slot)),
        el('span', { class: 'duel-muted' }, t('of_max', { max: st.max_slots })),
      ]),
      st.exchange
        ? el('span', { class: 'duel-exch' }, [
            t('exchange_n', { n: st.exchange }),
            el('span', { class: 'duel-steps', title: t('exchange_step', { n: st.exchange, xs: st.exchange_slot || 1 }) },
              [1, 2, 3].map((i) => el('span', { class: `step${i < (st.exchange_slot || 1) ? ' done' : i === (st.exchange_slot || 1) ? ' now' : ''}` }))),
          ])
        : null,
    );
    const draws = inferDraws(dig.draws, st.slot, st.weather, st.blind);
    const now = { kind: st.weather, blind: st.blind };
    const next = nextWeatherChange(st.slot, now, draws, st.max_slots);
    const blindText = (w) => (w.kind === 'sun' && w.blind ? t('blinds', { name: playerName(w.blind) }) : '');
    swap(weatherBox,
      el('div', { class: `duel-wnow w-${st.weather}`, 'data-testid': 'weather-now' }, [
        weatherIcon(st.weather),
        el('span', { class: 'duel-wtext' }, [
          el('span', { class: 'duel-k' }, t('weather_now')),
          el('strong', {}, weatherName(st.weather)),
          blindText(now) ? el('small', {}, blindText(now)) : null,
        ]),
      ]),
      el('div', { class: 'duel-wnext', 'data-testid': 'weather-next', title: next && next.weather.kind === 'sun' && !next.weather.blind ? t('blind_drawn') : null }, next
        ? [
            el('span', { class: 'duel-countdown', title: t('weather_countdown_title', { count: next.in, slot: next.slot }) }, [
              el('strong', { 'data-testid': 'weather-countdown' }, String(next.in)),
              el('small', {}, t('slots_short', { count: next.in })),
            ]),
            weatherIcon(next.weather.kind, 'duel-wicon small'),
            el('span', { class: 'duel-wtext' }, [
              el('span', { class: 'duel-k' }, t('weather_next_at', { slot: next.slot })),
              el('strong', {}, weatherName(next.weather.kind)),
              blindText(next.weather) ? el('small', {}, blindText(next.weather)) : null,
            ]),
          ]
        : [el('span', { class: 'duel-muted duel-small' }, t('weather_no_change'))]),
    );
  }

  function renderClock() {
    fillClocks(board);
  }

  /** The deadline a clock shows: data-clock="mine" (my own decision) or "others" (the earliest
   *  of the seats still deciding). The shell's `deadline` falls back to another seat's clock
   *  for a seat that is not pending, so `deadlines` is read per seat. */
  function deadlineOf(which) {
    if (!doc || doc.status !== 'live' || finished()) return NaN;
    const dls = doc.deadlines || {};
    const pending = doc.pending || [];
    if (which === 'mine') {
      const mine = me();
      if (!mine || !pending.includes(mine)) return NaN;
      return Date.parse(dls[mine] || doc.deadline || '');
    }
    const times = pending.filter((s) => s !== me()).map((s) => Date.parse(dls[s] || '')).filter((x) => !Number.isNaN(x));
    return times.length ? Math.min(...times) : NaN;
  }

  function fillClocks(scope) {
    for (const node of scope.querySelectorAll('[data-clock]')) {
      const deadline = deadlineOf(node.dataset.clock);
      if (Number.isNaN(deadline)) {
        node.textContent = '';
        node.classList.remove('urgent');
        continue;
      }
      const left = deadline - Date.now();
      node.textContent = t('clock', { time: fmtClock(left) });
      node.classList.toggle('urgent', left < 10000);
    }
  }

  // ---- fighters ----------------------------------------------------------------------------
  function stateBadges(p, seat, st) {
    const out = [];
    if (p.lock > 0) out.push(['lock', t('state_lock', { count: p.lock })]);
    if (p.heavy_recovery) out.push(['heavy', t('state_heavy')]);
    if (p.thrust_stiffness) out.push(['stiff', t('state_stiff')]);
    const cur = dig.slots.get(st.slot);
    if (cur && cur.rest[seat] && ['footwork', 'dodge'].includes(st.phase)) out.push(['rest', t('state_rest')]);
    return out.map(([k, text]) =>
      el('span', { class: `duel-badge badge-${k}`, title: t(`state_${k}_help`), 'data-testid': `state-${k}` }, text),
    );
  }

  function fighterCard(seat, st) {
    const p = st.players[seat];
    const mine = seat === me();
    const maxHp = Math.max(p.health, (doc.options && doc.options.health != null ? doc.options.health : 5) + (HEALTH_BONUS[p.duellist] || 0));
    const hpShown = p.duellist ? p.health : maxHp;
    const pending = (doc.pending || []).includes(seat) && !finished();
    const pips = [];
    for (let i = 0; i < maxHp; i++) pips.push(el('span', { class: `pip${i < hpShown ? ' full' : ''}${p.duellist ? '' : ' unknown'}` }));
    const stamPct = Math.max(0, Math.min(100, (p.stamina / MAX_STAMINA) * 100));
    const status = finished()
      ? null
      : pending
        ? el('span', { class: 'duel-thinking' }, [el('span', { class: 'dots', 'aria-hidden': 'true' }), t('deciding')])
        : p.committed
          ? el('span', { class: 'duel-sealed' }, [svgFrom(SEAL_MARK, 'duel-mini-seal'), t('sealed')])
          : null;
    return el('article', { class: `duel-fighter seat-${seat}${mine ? ' mine' : ''}${pending ? ' pending' : ''}`, 'data-seat': seat, 'data-testid': `fighter-${seat}` }, [
      el('div', { class: 'duel-band', 'aria-hidden': 'true' }, p.duellist ? duellistName(p.duellist) : t('seat', { seat })),
      el('div', { class: 'duel-fbody' }, [
        el('div', { class: 'duel-fhead' }, [
          emblem(p.duellist),
          el('div', { class: 'duel-fname' }, [
            el('strong', {}, nameOf(seat)),
            el('span', { class: 'duel-muted duel-small' }, p.duellist ? t('duellist_of', { d: duellistName(p.duellist), seat }) : t('choosing_duellist', { seat })),
          ]),
        ]),
        el('div', { class: 'duel-meters' }, [
        el('div', { class: 'duel-meter', title: t('health_title', { n: p.health, max: maxHp }) }, [
          el('span', { class: 'duel-k' }, t('health')),
          maxHp <= 12
            ? el('span', { class: 'duel-pips', role: 'img', 'aria-label': t('health_title', { n: p.health, max: maxHp }) }, pips)
            : el('span', { class: 'duel-bar health', role: 'img', 'aria-label': t('health_title', { n: p.health, max: maxHp }) }, [
                el('span', { class: 'fill', style: `width:${Math.max(0, Math.min(100, (hpShown / maxHp) * 100))}%` }),
              ]),
          el('strong', { 'data-testid': `health-${seat}` }, p.duellist ? String(p.health) : '—'),
        ]),
        el('div', { class: 'duel-meter', title: t('stamina_title', { n: p.stamina, max: MAX_STAMINA }) }, [
          el('span', { class: 'duel-k' }, t('stamina')),
          el('span', { class: 'duel-bar', role: 'img', 'aria-label': t('stamina_title', { n: p.stamina, max: MAX_STAMINA }) }, [
            el('span', { class: 'fill', style: `width:${stamPct}%` }),
          ]),
          el('strong', { 'data-testid': `stamina-${seat}` }, String(p.stamina)),
        ]),
        ]),
        el('div', { class: 'duel-frow' }, [
          el('span', { class: 'duel-stance' }, [stanceGlyph(p.stance), el('span', {}, p.stance ? t('stance_is', { stance: stanceName(p.stance) }) : t('stance_hidden'))]),
          el('span', { class: 'duel-badges' }, stateBadges(p, seat, st)),
          status,
        ]),
      ]),
    ]);
  }

  function renderFighters(st) {
    const L = leftSeat();
    const dist = st.players.A.position != null && st.players.B.position != null ? st.players.B.position - st.players.A.position : null;
    swap(fighters,
      fighterCard(L, st),
      el('div', { class: 'duel-vs', 'aria-hidden': 'true' }, [
        el('span', { class: 'vs' }, t('vs')),
        dist !== null ? el('span', { class: `duel-dist${dist <= 2 ? ' in-reach' : ''}` }, t('distance', { n: dist })) : null,
        dist !== null && dist <= 2 ? el('span', { class: 'duel-dist in-reach' }, t('in_reach')) : null,
      ]),
      fighterCard(OTHER[L], st),
    );
  }

  // ---- track -------------------------------------------------------------------------------
  const track = { key: null, root: null, tokens: {}, ghost: null, fx: null, line: null, label: null, last: {} };

  function xOf(st, space) {
    const flip = leftSeat() === 'B';
    const idx = flip ? st.track_length - space : space - 1;
    return PAD + idx * CELL + CELL / 2;
  }

  function buildTrack(st) {
    const Ln = st.track_length;
    const width = PAD * 2 + Ln * CELL;
    const rootSvg = svg('svg', {
      viewBox: `0 0 ${width} ${TRACK_H}`,
      class: 'duel-svg',
      role: 'img',
      'data-testid': 'track',
    });
    const defs = svg('defs', {}, [
      svg('pattern', { id: 'duel-hatch', width: 6, height: 6, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' }, [
        svg('line', { x1: 0, y1: 0, x2: 0, y2: 6, stroke: '#1b1b1b', 'stroke-width': 2.2 }),
      ]),
      svg('pattern', { id: 'duel-rain', width: 14, height: 18, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(18)' }, [
        svg('line', { x1: 4, y1: 0, x2: 4, y2: 9, stroke: '#1b1b1b', 'stroke-width': 1, opacity: 0.35 }),
      ]),
      svg('radialGradient', { id: 'duel-sunwash', cx: '92%', cy: '0%', r: '75%' }, [
        svg('stop', { offset: '0%', 'stop-color': '#b3261e', 'stop-opacity': 0.28 }),
        svg('stop', { offset: '100%', 'stop-color': '#b3261e', 'stop-opacity': 0 }),
      ]),
      svg('filter', { id: 'duel-blur' }, [svg('feGaussianBlur', { stdDeviation: 6 })]),
    ]);
    rootSvg.append(defs);
    rootSvg.append(svg('rect', { class: 'duel-sky', x: 0, y: 0, width, height: TRACK_H }));
    // the ground: a brush stroke under the spaces
    rootSvg.append(svg('path', { class: 'duel-ground', d: `M${PAD - 6} 128 Q ${width / 2} 124 ${width - PAD + 6} 129` }));
    const spaces = svg('g', { class: 'duel-spaces' });
    for (let space = 1; space <= Ln; space++) {
      const cx = xOf(st, space);
      const wall = space === 1 || space === Ln;
      const g = svg('g', { class: `duel-space${wall ? ' wall' : ''}`, 'data-space': space });
      g.append(svg('rect', { x: cx - CELL / 2 + 3, y: 96, width: CELL - 6, height: 26, rx: 2 }));
      if (wall) g.append(svg('rect', { class: 'hatch', x: cx - CELL / 2 + 3, y: 96, width: CELL - 6, height: 26, rx: 2 }));
      g.append(svg('text', { x: cx, y: 143, 'text-anchor': 'middle', class: 'duel-num' }, String(space)));
      if (wall) g.append(svg('title', {}, t('wall_title', { n: space })));
      spaces.append(g);
    }
    rootSvg.append(spaces);
    const line = svg('line', { class: 'duel-distline', x1: 0, y1: 70, x2: 0, y2: 70 });
    const label = svg('text', { class: 'duel-distlabel', x: 0, y: 62, 'text-anchor': 'middle' });
    rootSvg.append(line, label);
    const ghost = svg('g', { class: 'duel-ghost', style: 'opacity:0' }, [
      svg('circle', { cx: 0, cy: 70, r: 17 }),
      svg('text', { x: 0, y: 75, 'text-anchor': 'middle' }, ''),
    ]);
    rootSvg.append(ghost);
    const tokens = {};
    for (const s of SEATS) {
      const tok = svg('g', { class: `duel-token seat-${s}`, 'data-testid': `token-${s}` }, [
        svg('ellipse', { class: 'shadow', cx: 0, cy: 92, rx: 16, ry: 4 }),
        svg('g', { class: 'sword' }, [
          svg('path', { class: 'blade', d: 'M14 70 L44 70' }),
          svg('path', { class: 'guard', d: 'M16 64 L16 76' }),
        ]),
        svg('circle', { class: 'body', cx: 0, cy: 70, r: 17 }),
        svg('text', { class: 'initial', x: 0, y: 76, 'text-anchor': 'middle' }, s),
        svg('text', { class: 'name', x: 0, y: 36, 'text-anchor': 'middle' }, ''),
        svg('text', { class: 'hidden-mark', x: 0, y: 76, 'text-anchor': 'middle' }, '?'),
        svg('title', {}, ''),
      ]);
      tokens[s] = tok;
      rootSvg.append(tok);
    }
    const weatherLayer = svg('rect', { class: 'duel-weather-layer', x: 0, y: 0, width, height: TRACK_H });
    rootSvg.append(weatherLayer);
    const fx = svg('g', { class: 'duel-fx' });
    rootSvg.append(fx);
    trackBox.replaceChildren(rootSvg);
    Object.assign(track, { root: rootSvg, tokens, ghost, fx, line, label, last: {} });
  }

  function renderTrack(st) {
    const key = `${st.track_length}|${leftSeat()}|${ctx.lang || ''}`;
    if (track.key !== key) {
      buildTrack(st);
      track.key = key;
    }
    const rootSvg = track.root;
    rootSvg.setAttribute('class', `duel-svg w-${st.weather}`);
    const pos = {};
    for (const s of SEATS) {
      const p = st.players[s];
      const known = p.position != null;
      // the sun hides the opponent's position: draw them where they were last seen
      const at = known ? p.position : track.last[s] ?? dig.positions[s];
      if (known) track.last[s] = p.position;
      pos[s] = at;
      const tok = track.tokens[s];
      if (at == null) {
        tok.style.opacity = '0';
        continue;
      }
      tok.style.opacity = '';
      const x = xOf(st, at);
      tok.style.transform = `translate(${x}px, 0px)`;
      const stance = p.stance;
      const sword = tok.querySelector('.sword');
      const angle = stance === 'high' ? -38 : stance === 'low' ? 32 : 0;
      const right = s === leftSeat(); // until both positions are known: face the middle
      sword.style.transform = `scale(${right ? 1 : -1}, 1) rotate(${angle}deg)`;
      sword.style.opacity = stance ? '1' : '0';
      tok.classList.toggle('mine', s === me());
      tok.classList.toggle('unseen', !known);
      tok.classList.toggle('stance-hidden', !stance);
      tok.querySelector('.initial').textContent = p.duellist ? duellistName(p.duellist).slice(0, 1) : s;
      tok.querySelector('.name').textContent = playerName(s);
      tok.querySelector('title').textContent = known
        ? t('token_title', { name: nameOf(s), space: at, stance: stanceName(stance) })
        : t('token_unseen', { name: nameOf(s) });
    }
    // face each other: recompute facing now that both positions are known
    for (const s of SEATS) {
      if (pos[s] == null || pos[OTHER[s]] == null) continue;
      const right = xOf(st, pos[s]) < xOf(st, pos[OTHER[s]]);
      const p = st.players[s];
      const angle = p.stance === 'high' ? -38 : p.stance === 'low' ? 32 : 0;
      track.tokens[s].querySelector('.sword').style.transform = `scale(${right ? 1 : -1}, 1) rotate(${angle}deg)`;
    }
    const bothSeen = st.players.A.position != null && st.players.B.position != null;
    track.line.style.opacity = '0';
    track.label.textContent = '';
    if (bothSeen) {
      const xa = xOf(st, pos.A);
      const xb = xOf(st, pos.B);
      const lo = Math.min(xa, xb) + 22;
      const hi = Math.max(xa, xb) - 22;
      const d = pos.B - pos.A;
      const show = hi - lo > 8;
      track.line.setAttribute('x1', lo);
      track.line.setAttribute('x2', Math.max(lo, hi));
      track.line.style.opacity = show ? '1' : '0';
      track.line.classList.toggle('in-reach', d <= 2);
      track.label.setAttribute('x', (xa + xb) / 2);
      track.label.textContent = show ? String(d) : '';
      track.label.classList.toggle('in-reach', d <= 2);
      rootSvg.setAttribute('aria-label', t('track_label', { n: st.track_length, a: nameOf('A'), pa: st.players.A.position ?? '?', b: nameOf('B'), pb: st.players.B.position ?? '?', d }));
    }
    // footwork preview
    if (preview && pos[preview.seat] != null) {
      track.ghost.style.opacity = '1';
      track.ghost.style.transform = `translate(${xOf(st, preview.to)}px, 0px)`;
      track.ghost.querySelector('text').textContent = String(preview.to);
    } else {
      track.ghost.style.opacity = '0';
    }
    // effects for new hits and clashes
    const versions = [...batches.keys()];
    const maxV = versions.length ? Math.max(...versions) : 0;
    if (fxVersion === null) {
      fxVersion = maxV;
      return;
    }
    if (maxV > fxVersion) {
      for (const v of versions.filter((x) => x > fxVersion).sort((a, b) => a - b)) {
        for (const e of batches.get(v)) {
          if (e.type === 'hit' && pos[e.seat] != null) spawnFx(xOf(st, pos[e.seat]), `−${e.damage}`, 'hit', e.seat);
          if (e.type === 'clash' && pos.A != null && pos.B != null) spawnFx((xOf(st, pos.A) + xOf(st, pos.B)) / 2, t('fx_clash'), 'clash');
          if (e.type === 'dodge' && e.dodge && pos[e.seat] != null) spawnFx(xOf(st, pos[e.seat]), t('fx_dodge'), 'dodge');
          if (e.type === 'technique' && e.status === 'misplay' && pos[e.seat] != null) spawnFx(xOf(st, pos[e.seat]), t('fx_misplay'), 'misplay');
        }
      }
      fxVersion = maxV;
    }
  }

  function spawnFx(x, text, kind, seat) {
    const node = svg('text', { class: `fx fx-${kind}`, x, y: 46, 'text-anchor': 'middle' }, text);
    track.fx.append(node);
    if (seat && track.tokens[seat]) {
      const tok = track.tokens[seat];
      tok.classList.remove('struck');
      void tok.getBoundingClientRect();
      tok.classList.add('struck');
    }
    setTimeout(() => node.remove(), 1900);
  }

  // ---- the stage: this exchange's three slots, face down until played ------------------------
  const stageState = { key: null, cells: new Map() };

  function outcomeFor(S, seat) {
    const parts = slotPhrases(S).filter((p) => p.seat === seat);
    const dealt = (S.hits[OTHER[seat]] && S.hits[OTHER[seat]].damage) || 0;
    const taken = (S.hits[seat] && S.hits[seat].damage) || 0;
    const te = S.technique[seat];
    if (!te) return null;
    if (te.status === 'locked') return { cls: 'locked', text: t('stamp_locked') };
    if (te.status === 'rest') return { cls: 'rest', text: t('stamp_rest') };
    if (te.status === 'dodged') return { cls: 'dodged', text: t('stamp_dodged') };
    if (te.status === 'misplay') return { cls: 'misplay', text: t('stamp_misplay') };
    if (dealt > 0) return { cls: 'hit', text: t('stamp_hit', { n: dealt }) };
    if (S.clash) return { cls: 'clash', text: t('stamp_clash') };
    const key = parts.map((p) => p.key).find((k) => TECH_PHRASES.has(k));
    if (key === 'log_blocked') return { cls: 'blocked', text: t('stamp_blocked') };
    if (key === 'log_block_holds' || key === 'log_counter_holds') return { cls: 'held', text: t('stamp_held') };
    if (key === 'log_miss' || key === 'log_dodged') return { cls: 'miss', text: t('stamp_miss') };
    if (taken > 0 && te.status === 'performed' && te.technique !== 'wait') return { cls: 'beaten', text: t('stamp_beaten') };
    if (te.status === 'wait') return { cls: 'wait', text: t('stamp_wait') };
    return null;
  }

  function techCard(tech, opts = {}) {
    const info = TECHNIQUES[tech];
    return el('div', { class: `duel-card tech face${opts.cls ? ` ${opts.cls}` : ''}`, title: techName(tech) }, [
      el('span', { class: 'abbr' }, info.abbr),
      el('span', { class: 'banner' }, opts.mighty ? t('mighty_cut', { tech: techName(tech) }) : techName(tech)),
      opts.stamp ? el('span', { class: `stamp stamp-${opts.stamp.cls}` }, opts.stamp.text) : null,
    ]);
  }

  function cardBack(text) {
    return el('div', { class: 'duel-card back' }, [svgFrom(SEAL_MARK, 'duel-back-seal'), text ? el('span', { class: 'back-text' }, text) : null]);
  }

  /** A seat's plan for an exchange, once its opening is public. */
  function revealedPlan(seat, ex) {
    const r = dig.reveals.find((x) => x.decision === 'plan' && x.seat === seat && dig.commits.get(x.commitment)?.exchange === ex);
    return r && r.choice && Array.isArray(r.choice.slots) ? r.choice.slots : null;
  }

  function cellContent(seat, xs, ex, st) {
    const Sl = [...dig.slots.values()].find((x) => x.exchange === ex && x.xs === xs);
    const mineSeat = seat === me();
    const p = st.players[seat];
    const plan = ex === st.exchange && (mineSeat || finished()) ? p.plan : revealedPlan(seat, ex);
    const gone = (Sl && Sl.end) || ex < st.exchange || finished(); // this slot can no longer be played
    const current = ex === st.exchange && xs === st.exchange_slot && ['footwork', 'dodge'].includes(st.phase) && !finished();
    // stance chip
    let stance = null;
    let stanceCls = '';
    if (Sl && Sl.stance[seat]) {
      stance = Sl.stance[seat].stance;
      if (Sl.stance[seat].misplay) stanceCls = 'misplay';
    } else if (plan) {
      stance = plan[xs - 1].stance;
      stanceCls = 'planned';
    }
    const stanceKnown = Sl && Sl.stance[seat] ? true : !!plan;
    const te = Sl && Sl.technique[seat];
    let card;
    let key;
    if (te && te.technique) {
      const stamp = outcomeFor(Sl, seat);
      key = `face|${te.technique}|${te.status}|${stamp ? stamp.cls + stamp.text : ''}`;
      card = techCard(te.technique, { mighty: te.mighty, stamp, cls: 'revealed' });
    } else if (te) {
      key = 'hidden-tech';
      card = cardBack(t('hidden_by_sun'));
    } else if (plan) {
      key = `plan|${plan[xs - 1].technique}|${gone}`;
      card = techCard(plan[xs - 1].technique, { cls: gone ? 'planned unplayed' : 'planned' });
      if (gone) card.title = `${techName(plan[xs - 1].technique)} — ${t('unplayed')}`;
    } else {
      key = gone ? 'back-unplayed' : 'back';
      card = cardBack(gone ? t('unplayed') : '');
    }
    const chips = [];
    if (Sl) {
      const f = Sl.footwork[seat];
      if (f) chips.push(el('span', { class: 'chip' }, f.move ? t(`move_short_${f.move}`) : t('move_short_hidden')));
      const d = Sl.dodge[seat];
      if (d && d.dodge) chips.push(el('span', { class: 'chip red' }, t('fx_dodge')));
      if (Sl.locked[seat] !== undefined) chips.push(el('span', { class: 'chip' }, t('stamp_locked')));
      if (Sl.rest[seat]) chips.push(el('span', { class: 'chip' }, t('stamp_rest')));
    }
    const stanceKey = `${stanceKnown ? stance : 'none'}|${stanceCls}`;
    return {
      key: `${key}|${stanceKey}|${chips.map((c) => c.textContent).join(',')}|${current}`,
      node: el('div', { class: `duel-cell${current ? ' current' : ''}`, 'data-testid': `cell-${seat}-${xs}` }, [
        el('div', { class: `duel-cell-stance ${stanceCls}` }, stanceKnown
          ? [stanceGlyph(stance, 'duel-glyph tiny'), el('span', {}, stanceName(stance))]
          : [el('span', { class: 'duel-muted' }, '·')]),
        card,
        el('div', { class: 'duel-chips' }, chips),
      ]),
    };
  }

  function renderStage(st) {
    if (!st.exchange) {
      stage.hidden = true;
      return;
    }
    stage.hidden = false;
    let ex = st.exchange;
    const hasSlots = [...dig.slots.values()].some((x) => x.exchange === ex);
    if (!hasSlots && ['stance', 'plan'].includes(st.phase) && !finished()) {
      // before the first slot of an exchange: show the last one as it was played (if any)
      if (ex === 1) {
        stage.hidden = true;
        return;
      }
      ex -= 1;
    }
    const L = leftSeat();
    const skey = `${ex}|${L}|${st.exchange}`;
    if (stageState.key !== skey) {
      stageState.key = skey;
      stageState.cells = new Map();
      const title = el('div', { class: 'duel-stage-title' }, [
        el('strong', {}, t('exchange_n', { n: ex })),
        el('span', { class: 'duel-muted duel-small' }, ex < st.exchange ? t('stage_previous') : t('stage_current')),
      ]);
      const rows = [L, OTHER[L]].map((seat) => {
        const row = el('div', { class: `duel-stage-row seat-${seat}` }, [
          el('div', { class: 'duel-stage-who' }, [el('strong', {}, playerName(seat)), el('span', { class: 'duel-muted duel-small' }, duellistName(st.players[seat].duellist))]),
        ]);
        for (let xs = 1; xs <= 3; xs++) {
          const holder = el('div', { class: 'duel-cell-holder' });
          stageState.cells.set(`${seat}|${xs}`, holder);
          row.append(holder);
        }
        return row;
      });
      fill(stage, title, ...rows);
    }
    for (const seat of SEATS) {
      for (let xs = 1; xs <= 3; xs++) {
        const holder = stageState.cells.get(`${seat}|${xs}`);
        const { key, node } = cellContent(seat, xs, ex, st);
        if (holder.dataset.key !== key) {
          holder.dataset.key = key;
          holder.replaceChildren(node);
        }
      }
    }
  }

  // ---- decisions -----------------------------------------------------------------------------
  function clockEl(which) {
    return el('span', { class: 'duel-clock small', 'data-clock': which, title: t(which === 'mine' ? 'clock_title' : 'clock_title_others') });
  }

  function decideHead(title, sub, which = 'mine') {
    return el('div', { class: 'duel-decide-head' }, [
      el('div', {}, [el('h3', { id: 'duel-decide-title' }, title), sub ? el('p', { class: 'duel-muted duel-sub' }, sub) : null]),
      clockEl(which),
    ]);
  }

  const PANELS = {
    duellist: () => duellistPanel(),
    stance: (st) => stancePanel(st),
    plan: (st) => planPanel(st),
    footwork: (st) => footworkPanel(st),
    dodge: (st) => dodgePanel(st),
  };
  let lastDecision = null;
  let lastPanel = null;

  /** The panel rises in once per decision, not on every redraw (e.g. each click of the plan). */
  function entering(panel, key) {
    if (key !== lastPanel) {
      lastPanel = key;
      panel.classList.add('enter');
    }
    return panel;
  }

  function renderDecide(st) {
    const where = `${st.phase}|${st.exchange}|${st.slot}`;
    if (finished()) return swap(decide, entering(finalPanel(st), 'final'));
    if (me() && canAct() && PANELS[st.phase]) {
      swap(decide, entering(PANELS[st.phase](st), `act|${where}`));
      // A new decision below the fold: bring it up (once per decision).
      if (where !== lastDecision) {
        lastDecision = where;
        const r = decide.getBoundingClientRect();
        if (r.top > window.innerHeight * 0.75) window.scrollBy(0, r.top - window.innerHeight * 0.3);
      }
      return;
    }
    swap(decide, entering(waitingPanel(st), `wait|${where}`));
  }

  function duellistPanel() {
    const cards = legal()
      .filter((a) => a.type === 'duellist')
      .map((a) => {
        const d = a.duellist;
        const hp = ((doc.options && doc.options.health) ?? 5) + (HEALTH_BONUS[d] || 0);
        return el('button', {
          type: 'button',
          class: `duel-dcard d-${d}`,
          'data-testid': `duellist-${d}`,
          'data-focus': `duellist-${d}`,
          'aria-describedby': `duel-ability-${d}`,
          onclick: () => send(a),
        }, [
          el('span', { class: 'duel-band' }, duellistName(d)),
          el('span', { class: 'duel-dcard-body' }, [
            emblem(d),
            el('strong', { class: 'duel-dname' }, duellistName(d)),
            el('span', { class: 'duel-dstats' }, t('duellist_stats', { hp, st: MAX_STAMINA })),
            el('span', { class: 'duel-ability', id: `duel-ability-${d}` }, t(`ability_${d}`)),
          ]),
        ]);
      });
    return el('div', { class: 'duel-panel', role: 'group', 'aria-labelledby': 'duel-decide-title' }, [
      decideHead(t('choose_duellist'), t('choose_duellist_sub')),
      el('div', { class: 'duel-dcards' }, cards),
    ]);
  }

  function weatherHint(st) {
    const w = st.weather;
    if (w === 'sun') return st.blind === me() ? t('hint_sun_blind') : t('hint_sun_hidden', { name: playerName(st.blind) });
    if (w === 'fog') return t('hint_fog');
    if (w === 'rain') return t('hint_rain');
    return null;
  }

  function stancePanel(st) {
    const opp = OTHER[me()];
    const buttons = legal()
      .filter((a) => a.type === 'stance')
      .map((a) =>
        el('button', {
          type: 'button',
          class: 'duel-choice big',
          'data-testid': `stance-${a.stance}`,
          'data-focus': `stance-${a.stance}`,
          onclick: () => send(a),
        }, [
          stanceGlyph(a.stance, 'duel-glyph big'),
          el('strong', {}, stanceName(a.stance)),
          el('small', {}, techniquesOf(a.stance).filter((k) => k !== 'wait').map((k) => TECHNIQUES[k].abbr).join(' · ')),
        ]),
      );
    return el('div', { class: 'duel-panel', role: 'group', 'aria-labelledby': 'duel-decide-title' }, [
      decideHead(t('choose_stance', { n: st.exchange }), t('choose_stance_sub', { slot: st.slot })),
      el('div', { class: 'duel-choices' }, buttons),
      el('p', { class: 'duel-note' }, [
        t('stance_opp_last', { name: playerName(opp), stance: stanceName(st.players[opp].stance) }),
        ' ',
        weatherHint(st) || '',
      ]),
    ]);
  }

  // -- the plan -----------------------------------------------------------------------------
  function draftFor(st) {
    const opening = st.players[me()].stance;
    const key = `${st.exchange}|${opening}`;
    if (!planDraft || planDraft.key !== key) {
      planDraft = { key, slots: [0, 1, 2].map(() => ({ stance: opening, technique: 'wait' })) };
    }
    return planDraft;
  }

  function setDraft(i, patch) {
    const sl = planDraft.slots[i];
    Object.assign(sl, patch);
    if (sl.technique !== 'wait' && TECHNIQUES[sl.technique].stance !== sl.stance) sl.technique = 'wait';
    render();
  }

  function warningText(w) {
    switch (w.key) {
      case 'warn_jump':
        return t('warn_jump', { from: stanceName(w.from), to: stanceName(w.to) });
      case 'warn_rest':
        return t('warn_rest', { stamina: w.stamina, cost: w.cost });
      case 'warn_locked':
        return t('warn_locked', { count: w.n });
      case 'warn_heavy':
        return t('warn_heavy', { slot: w.prevSlot });
      case 'warn_stiff':
        return t('warn_stiff', { slot: w.prevSlot });
      default:
        return t(w.key);
    }
  }

  function techMeta(k) {
    const info = TECHNIQUES[k];
    if (k === 'wait') return t('meta_wait');
    const range = info.range ? (info.range[0] === info.range[1] ? String(info.range[0]) : `${info.range[0]}–${info.range[1]}`) : t('meta_defensive');
    const step = info.step > 0 ? t('meta_step_fwd') : info.step < 0 ? t('meta_step_back') : '';
    const cost = info.kind === 'defense' ? t('meta_cost_works', { n: info.cost }) : t('meta_cost', { n: info.cost });
    return [t('meta_range', { r: range }), info.kind === 'defense' && k === 'block' ? null : t('meta_damage', { n: info.damage }), cost, step].filter(Boolean).join(' · ');
  }

  function planPanel(st) {
    const p = st.players[me()];
    const opp = OTHER[me()];
    const draft = draftFor(st);
    const warnings = checkPlan(draft.slots, { opening: p.stance, duellist: p.duellist, stamina: p.stamina, lock: p.lock });
    const cols = draft.slots.map((sl, i) => {
      const stanceBtns = STANCES.map((s) =>
        el('button', {
          type: 'button',
          class: `duel-seg${sl.stance === s ? ' on' : ''}`,
          'aria-pressed': sl.stance === s ? 'true' : 'false',
          disabled: i === 0 && s !== p.stance,
          title: i === 0 && s !== p.stance ? t('slot1_fixed', { stance: stanceName(p.stance) }) : null,
          'data-testid': `plan-${i + 1}-stance-${s}`,
          'data-focus': `plan-${i + 1}-stance-${s}`,
          onclick: () => setDraft(i, { stance: s }),
        }, [stanceGlyph(s, 'duel-glyph tiny'), el('span', {}, stanceName(s))]),
      );
      const techBtns = techniquesOf(sl.stance).map((k) =>
        el('button', {
          type: 'button',
          class: `duel-tech${sl.technique === k ? ' on' : ''}`,
          'aria-pressed': sl.technique === k ? 'true' : 'false',
          'data-testid': `plan-${i + 1}-tech-${k}`,
          'data-focus': `plan-${i + 1}-tech-${k}`,
          onclick: () => setDraft(i, { technique: k }),
        }, [
          el('span', { class: 'abbr' }, TECHNIQUES[k].abbr),
          el('span', { class: 'tname' }, [el('strong', {}, techName(k)), el('small', {}, techMeta(k))]),
        ]),
      );
      const ws = warnings[i];
      return el('fieldset', { class: `duel-plan-slot${ws.some((w) => w.level === 'misplay' || w.level === 'rest') ? ' warn' : ''}`, 'data-testid': `plan-slot-${i + 1}` }, [
        el('legend', {}, [el('strong', {}, t('plan_slot', { n: i + 1 })), el('span', { class: 'duel-muted duel-small' }, t('plan_slot_global', { slot: st.slot + i }))]),
        el('div', { class: 'duel-segs', role: 'group', 'aria-label': t('plan_stance_for', { n: i + 1 }) }, stanceBtns),
        i === 0 ? el('p', { class: 'duel-small duel-muted' }, t('slot1_fixed', { stance: stanceName(p.stance) })) : null,
        el('div', { class: 'duel-techs', role: 'group', 'aria-label': t('plan_tech_for', { n: i + 1 }) }, techBtns),
        ws.length
          ? el('ul', { class: 'duel-warns', 'data-testid': `plan-warnings-${i + 1}` }, ws.map((w) =>
              el('li', { class: `w-${w.level}` }, [el('span', { class: 'icon', 'aria-hidden': 'true' }, w.level === 'info' ? 'ℹ' : '⚠'), warningText(w)]),
            ))
          : null,
      ]);
    });
    const all = warnings.flat();
    const serious = all.filter((w) => w.level === 'misplay' || w.level === 'rest').length;
    const action = { type: 'plan', slots: draft.slots.map((x) => ({ stance: x.stance, technique: x.technique })) };
    const states = [];
    if (p.lock > 0) states.push(t('state_lock', { count: p.lock }));
    if (p.heavy_recovery) states.push(t('state_heavy'));
    if (p.thrust_stiffness) states.push(t('state_stiff'));
    const oppD = st.players[opp].duellist;
    return el('div', { class: 'duel-panel', role: 'group', 'aria-labelledby': 'duel-decide-title' }, [
      decideHead(t('plan_title', { n: st.exchange }), t('plan_sub', { name: playerName(opp), stance: stanceName(st.players[opp].stance) })),
      el('p', { class: 'duel-rule-line' }, [el('strong', {}, t('stance_rule_label')), ' ', t('stance_rule')]),
      states.length ? el('p', { class: 'duel-note warn' }, t('plan_states', { states: states.join(', ') })) : null,
      oppD === 'master' ? el('p', { class: 'duel-note' }, t('plan_vs_master')) : null,
      oppD === 'samurai' ? el('p', { class: 'duel-note' }, t('plan_vs_samurai')) : null,
      el('div', { class: 'duel-plan' }, cols),
      el('div', { class: 'duel-plan-foot' }, [
        el('p', { class: `duel-plan-summary${serious ? ' warn' : ''}`, 'data-testid': 'plan-summary', role: 'status' }, serious ? t('plan_warn_count', { count: serious }) : t('plan_ok')),
        el('button', {
          type: 'button',
          class: 'duel-btn duel-btn-primary',
          'data-testid': 'lock-plan',
          'data-focus': 'lock-plan',
          onclick: () => send(action),
        }, serious ? t('lock_plan_anyway') : t('lock_plan')),
      ]),
    ]);
  }

  // -- footwork and dodge -------------------------------------------------------------------
  function moveTarget(st, seat, move) {
    const p = st.players[seat];
    const o = st.players[OTHER[seat]];
    let m = MOVE_STEPS[move];
    if (m && st.weather === 'rain') m += m > 0 ? 1 : -1;
    const dir = seat === 'A' ? 1 : -1;
    let to = p.position + dir * m;
    if (o.position != null) {
      if (seat === 'A' && to >= o.position) to = o.position - 1;
      if (seat === 'B' && to <= o.position) to = o.position + 1;
    }
    return Math.max(1, Math.min(st.track_length, to));
  }

  function planNow(st) {
    const p = st.players[me()];
    if (!p.plan || !st.exchange_slot) return null;
    return p.plan[st.exchange_slot - 1];
  }

  function slotContext(st) {
    const p = st.players[me()];
    const opp = OTHER[me()];
    const now = planNow(st);
    const o = st.players[opp];
    const dist = p.position != null && o.position != null ? Math.abs(o.position - p.position) : null;
    return el('ul', { class: 'duel-context' }, [
      now ? el('li', {}, [el('span', { class: 'duel-k' }, t('ctx_your_slot')), ' ', stanceName(p.stance), ' · ', techName(now.technique)]) : null,
      el('li', {}, [el('span', { class: 'duel-k' }, t('ctx_their_stance', { name: playerName(opp) })), ' ', o.stance ? stanceName(o.stance) : t('hidden')]),
      el('li', {}, [el('span', { class: 'duel-k' }, t('ctx_distance')), ' ', dist == null ? t('hidden') : String(dist)]),
    ]);
  }

  function footworkPanel(st) {
    const mine = me();
    const p = st.players[mine];
    const moves = legal().filter((a) => a.type === 'footwork');
    const order = ['away2', 'away', 'stay', 'toward', 'toward2'];
    moves.sort((a, b) => order.indexOf(a.move) - order.indexOf(b.move));
    const buttons = moves.map((a) => {
      const to = p.position != null ? moveTarget(st, mine, a.move) : null;
      const show = () => {
        preview = to != null ? { seat: mine, to } : null;
        renderTrack(st);
      };
      const hide = () => {
        preview = null;
        renderTrack(st);
      };
      return el('button', {
        type: 'button',
        class: `duel-choice move-${a.move}`,
        'data-testid': `footwork-${a.move}`,
        'data-focus': `footwork-${a.move}`,
        onclick: () => send(a),
        onmouseenter: show,
        onfocus: show,
        onmouseleave: hide,
        onblur: hide,
      }, [
        el('span', { class: 'arrow', 'aria-hidden': 'true' }, t(`arrow_${a.move}`)),
        el('strong', {}, t(`move_${a.move}`)),
        to != null ? el('small', {}, a.move === 'stay' ? t('move_stay_on', { to }) : t('move_to', { to })) : null,
      ]);
    });
    return el('div', { class: 'duel-panel', role: 'group', 'aria-labelledby': 'duel-decide-title' }, [
      decideHead(t('footwork_title', { slot: st.slot }), t('footwork_sub')),
      slotContext(st),
      el('div', { class: 'duel-choices moves' }, buttons),
      st.weather === 'rain' ? el('p', { class: 'duel-note' }, t('hint_rain')) : null,
    ]);
  }

  function dodgePanel(st) {
    const mine = me();
    const p = st.players[mine];
    const yes = legal().find((a) => a.type === 'dodge' && a.dodge === true);
    const no = legal().find((a) => a.type === 'dodge' && a.dodge === false);
    const k = DODGE_DISTANCE + (st.weather === 'rain' ? 1 : 0);
    const to = p.position != null ? p.position + (mine === 'A' ? -k : k) : null;
    const now = planNow(st);
    return el('div', { class: 'duel-panel', role: 'group', 'aria-labelledby': 'duel-decide-title' }, [
      decideHead(t('dodge_title', { slot: st.slot }), t('dodge_sub', { n: k })),
      slotContext(st),
      el('div', { class: 'duel-choices' }, [
        el('button', {
          type: 'button',
          class: 'duel-choice dodge',
          'data-testid': 'dodge-yes',
          'data-focus': 'dodge-yes',
          disabled: !yes,
          title: yes ? null : t('dodge_no_room'),
          onclick: () => yes && send(yes),
        }, [
          el('span', { class: 'arrow', 'aria-hidden': 'true' }, t('arrow_away2')),
          el('strong', {}, t('dodge_yes')),
          el('small', {}, yes ? t('dodge_yes_detail', { to: to ?? '?' }) : t('dodge_no_room')),
        ]),
        el('button', {
          type: 'button',
          class: 'duel-choice',
          'data-testid': 'dodge-no',
          'data-focus': 'dodge-no',
          disabled: !no,
          onclick: () => no && send(no),
        }, [
          el('span', { class: 'arrow', 'aria-hidden': 'true' }, '⚔'),
          el('strong', {}, t('dodge_no')),
          el('small', {}, now ? t('dodge_no_detail', { tech: techName(now.technique) }) : ''),
        ]),
      ]),
      el('p', { class: 'duel-note' }, t('dodge_note')),
    ]);
  }

  // -- waiting, watching, the end --------------------------------------------------------------
  function lockedChoiceText(choice) {
    if (!choice) return null;
    switch (choice.type) {
      case 'duellist':
        return duellistName(choice.duellist);
      case 'stance':
        return stanceName(choice.stance);
      case 'footwork':
        return t(`move_${choice.move}`);
      case 'dodge':
        return choice.dodge ? t('dodge_yes') : t('dodge_no');
      case 'plan':
        return choice.slots.map((x) => `${stanceName(x.stance)} · ${TECHNIQUES[x.technique].abbr}`).join('  |  ');
      default:
        return null;
    }
  }

  function waitingPanel(st) {
    const mine = me();
    const pending = doc.pending || [];
    const names = pending.map(playerName);
    const phaseWords = t(`phase_${st.phase}`);
    const items = [];
    let title;
    if (!mine) {
      title = t('watching');
      items.push(el('p', {}, pending.length ? t('waiting_for', { names: names.join(t('and')), phase: phaseWords }) : t('resolving')));
    } else {
      const p = st.players[mine];
      if (busy) title = t('sending');
      else if (p.committed) title = t('you_sealed', { phase: phaseWords });
      else if (['footwork', 'dodge'].includes(st.phase) && !pending.includes(mine)) {
        const cur = dig.slots.get(st.slot);
        title = p.lock > 0 ? t('you_locked_now') : cur && cur.rest[mine] ? t('you_rest_now') : st.phase === 'dodge' ? t('you_no_dodge') : t('you_wait');
      } else title = t('you_wait');
      if (p.committed && p.locked_choice) {
        items.push(el('p', { class: 'duel-locked-choice' }, [
          svgFrom(SEAL_MARK, 'duel-mini-seal'),
          el('span', {}, [t('your_choice'), ' ', el('strong', {}, lockedChoiceText(p.locked_choice))]),
          p.commitment ? el('code', { class: 'duel-hash', title: p.commitment }, p.commitment.slice(0, 12) + '…') : null,
        ]));
      }
      const others = pending.filter((s) => s !== mine);
      if (others.length) items.push(el('p', { class: 'duel-muted' }, [el('span', { class: 'dots', 'aria-hidden': 'true' }), t('waiting_for', { names: others.map(playerName).join(t('and')), phase: phaseWords })]));
    }
    return el('div', { class: 'duel-panel waiting', 'data-testid': 'waiting' }, [decideHead(title, null, 'others'), ...items]);
  }

  function finalPanel(st) {
    const res = doc.result || st.result || {};
    const mine = me();
    let title;
    if (res.draw) title = t('final_draw');
    else if (res.winner && res.winner === mine) title = t('final_you_won');
    else if (res.winner) title = t('final_winner', { name: playerName(res.winner) });
    else title = t('final_over');
    const reason = res.reason ? t(`final_reason_${res.reason}`, { slot: res.slot ?? st.slot }) : '';
    return el('div', { class: 'duel-panel final', 'data-testid': 'final' }, [
      el('div', { class: 'duel-final-seal', 'aria-hidden': 'true' }, [svgFrom(SEAL_MARK, 'duel-big-seal')]),
      el('div', {}, [
        el('h3', {}, title),
        reason ? el('p', {}, reason) : null,
        el('p', { class: 'duel-muted' }, SEATS.map((s) => t('final_health', { name: playerName(s), n: st.players[s].health })).join(' · ')),
        el('p', { class: 'duel-small' }, t('final_seals')),
      ]),
    ]);
  }

  function renderMessage() {
    message.replaceChildren();
    if (error) message.append(el('span', {}, t('rejected', { message: error })));
  }

  // ---- the log -------------------------------------------------------------------------------
  function phraseText(p) {
    return t(p.key, {
      who: p.seat ? who(p.seat) : '',
      tech: p.tech ? techLabel(p.tech, p.mighty) : '',
      n: p.n,
      count: typeof p.n === 'number' && p.key === 'log_lock' ? p.n : undefined,
      to: p.to,
      planned: p.planned ? stanceName(p.planned) : '',
      move: p.move ? t(`move_${p.move}`) : '',
    });
  }

  function revealsOfExchange(n) {
    return dig.reveals.filter((r) => r.decision === 'plan' && dig.commits.get(r.commitment)?.exchange === n && !r.deferred);
  }

  function logEntries() {
    const out = [];
    let openings = null;
    for (const e of dig.entries) {
      if (e.kind === 'opening') {
        if (!openings) {
          openings = { kind: 'openings', list: [], version: e.version };
          out.push(openings);
        }
        openings.list.push(e);
        continue;
      }
      openings = null;
      out.push(e);
    }
    return out.slice(-LOG_MAX);
  }

  function entryNode(e) {
    switch (e.kind) {
      case 'slot': {
        const S = dig.slots.get(e.slot);
        const parts = slotPhrases(S).map(phraseText);
        const text = parts.length ? parts.join('; ') : S && S.end ? t('log_quiet') : t('log_in_progress');
        const hit = S && Object.keys(S.hits).length;
        return el('li', { class: `log-slot${hit ? ' log-hit' : ''}`, 'data-slot': e.slot }, [
          el('span', { class: 'log-tag' }, t('log_slot_tag', { n: e.slot })),
          el('span', {}, text + (parts.length ? '.' : '')),
          S && S.weather !== 'normal' ? el('span', { class: 'log-w' }, [weatherIcon(S.weather, 'duel-wicon tiny')]) : null,
        ]);
      }
      case 'duellists':
        return el('li', { class: 'log-major' }, t('log_duellists', { a: playerName('A'), ad: duellistName(e.a), b: playerName('B'), bd: duellistName(e.b) }));
      case 'exchange':
        return el('li', { class: 'log-exchange' }, t('log_exchange', { n: e.n, slot: e.slot }));
      case 'openings':
        return el('li', { class: 'log-minor' }, t('log_openings', {
          list: e.list.map((o) => `${who(o.seat)} ${o.stance ? stanceName(o.stance) : t('hidden')}`).join(', '),
        }));
      case 'exchange_end': {
        const rs = revealsOfExchange(e.n);
        return el('li', { class: 'log-minor' }, [t('log_exchange_end', { n: e.n }), ' ', ...rs.map((r) => checkMark(r, { 'data-testid': 'log-check' }))]);
      }
      case 'chance_sun':
        return el('li', { class: 'log-minor' }, t('log_chance_sun', { name: playerName(e.seat), from: e.slot, to: e.slot + 2 }));
      case 'chance_xy':
        return el('li', { class: 'log-minor' }, t('log_chance_xy', { first: weatherName(e.first), then: weatherName(e.then) }));
      case 'weather':
        return el('li', { class: 'log-weather' }, [weatherIcon(e.weather, 'duel-wicon tiny'), ' ', e.weather === 'sun' && e.blind ? t('log_weather_sun', { slot: e.slot, name: playerName(e.blind) }) : t('log_weather', { slot: e.slot, weather: weatherName(e.weather) })]);
      case 'timeout':
        return el('li', { class: 'log-minor' }, t('log_timeout', { name: playerName(e.seat) }));
      case 'forfeit':
        return el('li', { class: 'log-major' }, t(`log_forfeit_${e.reason === 'timeouts' ? 'timeouts' : 'resigned'}`, { name: playerName(e.seat) }));
      case 'match_end': {
        const r = e.result || {};
        return el('li', { class: 'log-major' }, r.draw ? t('log_end_draw') : r.winner ? t('log_end_win', { name: playerName(r.winner) }) : t('final_over'));
      }
      default:
        return null;
    }
  }

  function renderLog() {
    const nearBottom = logBox.scrollHeight - logBox.scrollTop - logBox.clientHeight < 40;
    const nodes = logEntries().map(entryNode).filter(Boolean);
    if (!nodes.length) nodes.push(el('li', { class: 'log-minor duel-muted' }, t('log_empty')));
    swap(logBox, ...nodes);
    if (nearBottom) logBox.scrollTop = logBox.scrollHeight;
  }

  // ---- seals: plans by exchange, sealed until opened; every opening checked --------------------
  function planChips(choice) {
    return el('span', { class: 'duel-plan-chips' }, (choice.slots || []).map((x, i) =>
      el('span', { class: 'duel-plan-chip', title: `${t('plan_slot', { n: i + 1 })}: ${stanceName(x.stance)} · ${techName(x.technique)}` }, [
        stanceGlyph(x.stance, 'duel-glyph tiny'),
        el('span', {}, TECHNIQUES[x.technique] ? TECHNIQUES[x.technique].abbr : '?'),
      ]),
    ));
  }

  function renderSeals() {
    const planCommits = [...dig.commits.entries()].filter(([, c]) => c.decision === 'plan');
    const byEx = new Map();
    for (const [hash, c] of planCommits) {
      if (!byEx.has(c.exchange)) byEx.set(c.exchange, {});
      byEx.get(c.exchange)[c.seat] = hash;
    }
    const revealByHash = new Map();
    for (const r of dig.reveals) if (!revealByHash.has(r.commitment) || r.deferred) revealByHash.set(r.commitment, r);
    const rows = [...byEx.keys()].sort((a, b) => b - a).slice(0, 4).map((ex) => {
      const seats = byEx.get(ex);
      return el('div', { class: 'duel-seal-ex' }, [
        el('div', { class: 'duel-seal-ex-title' }, t('exchange_n', { n: ex })),
        ...[leftSeat(), OTHER[leftSeat()]].map((seat) => {
          const hash = seats[seat];
          if (!hash) return null;
          const r = revealByHash.get(hash);
          return el('div', { class: 'duel-seal-row', 'data-testid': 'sealed-plan' }, [
            el('span', { class: 'duel-seal-who' }, playerName(seat)),
            r ? planChips(r.choice) : el('span', { class: 'duel-sealed' }, [svgFrom(SEAL_MARK, 'duel-mini-seal'), t('plan_sealed')]),
            r ? checkMark(r) : el('code', { class: 'duel-hash', title: hash }, hash.slice(0, 12) + '…'),
          ]);
        }),
      ]);
    });
    const results = dig.reveals.map(checkOf);
    const ok = results.filter((c) => c.state === 'ok').length;
    const bad = results.filter((c) => c.state === 'bad').length;
    const pending = results.length - ok - bad;
    const summary = el('p', { class: `duel-seal-summary${bad ? ' bad' : ''}`, 'data-testid': 'seal-summary' }, results.length
      ? bad
        ? t('seal_summary_bad', { bad, total: results.length })
        : t('seal_summary', { ok, total: results.length, pending })
      : t('seal_summary_none'));
    const details = el('details', { class: 'duel-seal-details' }, [
      el('summary', {}, t('seal_all')),
      el('ul', {}, dig.reveals.slice().reverse().slice(0, 60).map((r) =>
        el('li', {}, [
          checkMark(r, { 'data-testid': 'opening-check' }),
          ' ',
          el('span', {}, t('opening_line', { decision: t(`decision_${r.decision}`), name: playerName(r.seat), choice: lockedChoiceText(r.choice) || '' })),
          ' ',
          el('code', { class: 'duel-hash', title: r.commitment }, r.commitment.slice(0, 8) + '…'),
        ]),
      )),
    ]);
    const wasOpen = sealsBox.querySelector('details')?.open;
    if (wasOpen) details.open = true;
    swap(sealsBox, summary, ...rows, dig.reveals.length ? details : null);
  }

  // ---- rules panel ---------------------------------------------------------------------------
  function cellClass(c) {
    if (c === 'clash') return 'clash';
    if (c.includes(':')) return 'both';
    if (c.startsWith('+')) return 'deal';
    if (c.startsWith('-')) return 'take';
    return 'zero';
  }

  function buildRules() {
    const techRows = TECH_ORDER.map((k) => {
      const info = TECHNIQUES[k];
      const range = info.range ? (info.range[0] === info.range[1] ? String(info.range[0]) : `${info.range[0]}–${info.range[1]}`) : k === 'wait' ? '—' : t('meta_defensive');
      return el('tr', {}, [
        el('td', {}, info.stance ? stanceName(info.stance) : t('any_stance')),
        el('th', { scope: 'row' }, [el('span', { class: 'abbr' }, info.abbr), ' ', techName(k)]),
        el('td', {}, info.step > 0 ? t('meta_step_fwd') : info.step < 0 ? t('meta_step_back') : '—'),
        el('td', {}, range),
        el('td', {}, k === 'counterattack' ? t('rules_ca_damage') : String(info.damage)),
        el('td', {}, k === 'wait' ? t('rules_wait_cost') : info.kind === 'defense' ? t('meta_cost_works', { n: info.cost }) : String(info.cost)),
      ]);
    });
    const counter = el('table', { class: 'duel-counter', 'data-testid': 'counter-table' }, [
      el('caption', {}, t('rules_counter_caption')),
      el('thead', {}, el('tr', {}, [el('th', { scope: 'col' }, t('rules_yours_theirs')), ...COUNTER_COLUMNS.map((c) => el('th', { scope: 'col', title: techName(ABBR[c]) }, c))])),
      el('tbody', {}, Object.entries(COUNTER_ROWS).map(([row, cells]) =>
        el('tr', {}, [
          el('th', { scope: 'row', title: techName(ABBR[row]) }, [el('span', { class: 'abbr' }, row), ' ', el('span', { class: 'rname' }, techName(ABBR[row]))]),
          ...cells.map((c) => el('td', { class: `c-${cellClass(c)}` }, c === 'clash' ? t('clash_cell') : c.replace('-', '−'))),
        ]),
      )),
    ]);
    fill(rulesPanel,
      el('h3', { tabindex: '-1' }, t('rules_title')),
      el('div', { class: 'duel-rules-cols' }, [
        el('div', {}, [
          el('h4', {}, t('rules_flow_title')),
          el('ol', {}, [1, 2, 3, 4, 5, 6].map((i) => el('li', {}, t(`rules_flow_${i}`)))),
          el('h4', {}, t('rules_states_title')),
          el('dl', { class: 'duel-dl' }, ['heavy', 'stiff', 'lock', 'rest', 'misplay'].flatMap((k) => [el('dt', {}, t(`rules_state_${k}`)), el('dd', {}, t(`state_${k}_help`))])),
        ]),
        el('div', {}, [
          el('h4', {}, t('rules_duellists_title')),
          el('dl', { class: 'duel-dl' }, DUELLISTS.flatMap((d) => [el('dt', {}, `${duellistName(d)} · ${t('duellist_stats', { hp: 5 + HEALTH_BONUS[d], st: MAX_STAMINA })}`), el('dd', {}, t(`ability_${d}`))])),
          el('h4', {}, t('rules_weather_title')),
          el('ul', {}, ['schedule', 'sun', 'rain', 'fog'].map((k) => el('li', {}, t(`rules_weather_${k}`)))),
        ]),
      ]),
      el('h4', {}, t('rules_tech_title')),
      el('div', { class: 'duel-table-wrap' }, el('table', { class: 'duel-techtable' }, [
        el('thead', {}, el('tr', {}, ['rules_col_stance', 'rules_col_tech', 'rules_col_step', 'rules_col_range', 'rules_col_damage', 'rules_col_stamina'].map((k) => el('th', { scope: 'col' }, t(k))))),
        el('tbody', {}, techRows),
      ])),
      el('p', { class: 'duel-small' }, t('rules_reach')),
      el('div', { class: 'duel-table-wrap' }, counter),
      el('p', { class: 'duel-small' }, t('rules_counter_legend')),
      el('p', { class: 'duel-small duel-muted' }, t('rules_commitments')),
    );
  }

  function renderRules() {
    rulesPanel.hidden = !rulesOpen;
    rulesBtn.textContent = rulesOpen ? t('rules_hide') : t('rules_show');
    rulesBtn.setAttribute('aria-expanded', String(rulesOpen));
    if (rulesOpen && !rulesPanel.firstChild) buildRules();
  }

  // ---- keyboard: Escape closes the rules -----------------------------------------------------
  function onKey(ev) {
    if (ev.key === 'Escape' && rulesOpen) {
      rulesOpen = false;
      renderRules();
      rulesBtn.focus();
    }
  }
  board.addEventListener('keydown', onKey);

  renderRules();
  loadHistory();

  return {
    update(viewDoc) {
      if (destroyed || !viewDoc) return;
      const prevVersion = doc && doc.version;
      doc = viewDoc;
      if (doc.version !== prevVersion) error = null;
      ingest(doc.events);
      render();
    },
    destroy() {
      destroyed = true;
      clearInterval(clockTimer);
      board.removeEventListener('keydown', onKey);
      board.remove();
    },
  };
}

export { verifyCommitment } from './duel_commit.js';

// Tournament pages (loaded on demand by app.js):
//
//   #/tournaments            the public list (filters: status, game); organisers: "New tournament"
//   #/tournaments/<id>       the public page: bracket (SVG, tournament_bracket.js), pairings and
//                            standings per round with every tie-breaker, live-match links,
//                            exports; the organiser's controls (open registration, check-in,
//                            start, next round, override with a reason, disputes, drops, decks,
//                            computer players: a test event, bots marked with a robot badge)
//   #/tournaments/<id>/me    the player's own page: sign up (Párbaj: with a deck), check in,
//                            next opponent and match, deck, drop, dispute
//
// The event page updates without reload: it listens on /ws/tournaments/<id> (a notice with the
// new revision after every change) and reloads GET /api/tournaments/<id> when the revision is
// newer than the one shown; while the socket is down it polls every POLL_MS instead.
// Strings: static/i18n/<lang>/tournaments.json (ctx.t), falling back to core.json.

import { request, download, getToken } from './api.js';
import { hasKey } from './i18n.js';
import { bracketSvg } from './tournament_bracket.js';
import { botBadge, botLevels, botName, isBot, levelName } from './bots.js';
import { socketProtocols } from './ws.js';

const enc = encodeURIComponent;
const POLL_MS = 5000;
const FORMATS = ['swiss', 'single_elimination', 'double_elimination', 'round_robin'];
const STATUSES = ['registration', 'check_in', 'running', 'finished', 'cancelled', 'draft'];
const TOP_CUTS = [0, 2, 4, 8, 16, 32, 64];
// Engine options the tournament sets for each match (not the organiser's to fix).
const RESERVED = { parbaj: ['best_of', 'decks', 'open_deck_lists'] };

function ensureCss() {
  if (document.getElementById('tournaments-css')) return;
  const link = document.createElement('link');
  link.id = 'tournaments-css';
  link.rel = 'stylesheet';
  link.href = new URL('./tournaments.css', import.meta.url).href;
  document.head.append(link);
}

export function mount(main, ctx) {
  ensureCss();
  const route = ctx.route || {};
  if (route.id && route.me) return mePage(main, ctx, route.id);
  if (route.id) return eventPage(main, ctx, route.id);
  return listPage(main, ctx);
}

// ---------------------------------------------------------------------------------------------
// shared helpers
// ---------------------------------------------------------------------------------------------
function errText(ctx, err) {
  const code = err?.code;
  if (code && hasKey(`error.${code}`, { ns: 'tournaments' })) {
    const base = ctx.t(`error.${code}`);
    return err.message && err.message !== code ? `${base} (${err.message})` : base;
  }
  return ctx.errorText(err);
}

function alertBox(h) {
  return h('p', { class: 'error', role: 'alert', hidden: true, id: 'error-message' });
}

function setAlert(box, text) {
  box.textContent = text || '';
  box.hidden = !text;
}

function field(h, id, label, control, help) {
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label),
    control,
    help ? h('p', { class: 'help', id: `${id}-help` }, help) : null,
  );
}

function check(h, id, label, checked, help) {
  return h(
    'div',
    { class: 'field field-check' },
    h('input', { id, name: id, type: 'checkbox', checked }),
    h('label', { for: id }, label),
    help ? h('p', { class: 'help' }, help) : null,
  );
}

function select(h, id, options, value) {
  return h(
    'select',
    { id, name: id },
    options.map(([v, label]) => h('option', { value: String(v), selected: String(v) === String(value) }, label)),
  );
}

function numberInput(h, id, value, { min, max, placeholder } = {}) {
  const input = h('input', { id, name: id, type: 'number', inputmode: 'numeric', step: '1', min, max, placeholder });
  if (value !== null && value !== undefined) input.value = String(value);
  return input;
}

function readNumber(input) {
  const raw = input.value.trim();
  return raw === '' ? null : Math.trunc(Number(raw));
}

function statusPill(h, t, status) {
  return h('span', { class: `status-pill tstatus tstatus-${status}`, 'data-status': status }, t(`state.${status}`));
}

function fmtWhen(iso, lang) {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  try {
    return new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'short' }).format(d);
  } catch {
    return d.toISOString();
  }
}

function pct(v, lang) {
  if (v === null || v === undefined) return '—';
  try {
    return new Intl.NumberFormat(lang, { style: 'percent', maximumFractionDigits: 2 }).format(v);
  } catch {
    return String(v);
  }
}

function table(h, { id, caption, columns, rows }) {
  return h(
    'table',
    { class: 'matches data-table', id },
    h('caption', { class: 'sr-only' }, caption),
    h('thead', {}, h('tr', {}, columns.map((c) => h('th', { scope: 'col', class: c.num ? 'num' : null }, c.label)))),
    h('tbody', {}, rows),
  );
}

let cardNamesPromise = null;

/** Card id -> card name (the Párbaj pool), loaded once. */
function cardNames() {
  if (!cardNamesPromise) {
    cardNamesPromise = request('GET', '/api/parbaj/cards')
      .then((list) => Object.fromEntries((list || []).map((c) => [c.id, c.name])))
      .catch(() => {
        cardNamesPromise = null;
        return {};
      });
  }
  return cardNamesPromise;
}

/** A deck as "2× Ember Pup" lines, in the order of first appearance. */
function deckList(h, t, deck, names, id = null) {
  const counts = new Map();
  for (const c of deck) counts.set(c, (counts.get(c) || 0) + 1);
  return h('ul', { class: 'deck-list', id }, [...counts].map(([c, n]) => h('li', { 'data-card': c }, t('me.card_count', { n, name: names[c] || c }))));
}

function canOrganise(me) {
  return !!me && (me.role === 'organiser' || me.role === 'admin');
}

function isAccount(me) {
  return !!me && me.guest === false;
}

function focusHeading(main) {
  const heading = main.querySelector('h1');
  const active = document.activeElement;
  if (heading && (!active || active === document.body || !document.contains(active))) {
    heading.setAttribute('tabindex', '-1');
    heading.focus({ preventScroll: true });
  }
}

function resultText(t, p, nameOf) {
  if (p.bye) return t('pairing.bye');
  if (p.status === 'waiting') return t('pairing.waiting');
  if (p.status === 'skipped') return t('pairing.skipped');
  if (p.status === 'pending') return t('pairing.playing');
  const games = p.result?.games;
  const score = games ? `${games[0]}–${games[1]}${p.result.draws ? `–${p.result.draws}` : ''}` : '';
  if (p.winner === null || p.winner === undefined) return t('pairing.draw', { score });
  return t('pairing.won', { name: nameOf(p.winner), score });
}

function howText(t, how) {
  return how ? t(`how.${how}`, null, { fallback: how }) : '';
}

// ---------------------------------------------------------------------------------------------
// #/tournaments
// ---------------------------------------------------------------------------------------------
function listPage(main, ctx) {
  const { h, t } = ctx;
  const lang = ctx.lang();
  let gone = false;
  const error = alertBox(h);
  const statusSel = select(h, 'filter-status', [['', t('list.any_status')], ...STATUSES.map((s) => [s, t(`state.${s}`)])], '');
  const gameSel = select(h, 'filter-game', [['', t('list.any_game')]], '');
  const results = h('div', { id: 'tournament-list', 'aria-live': 'polite', 'aria-busy': 'true' });
  const filters = h(
    'form',
    { class: 'filters', id: 'tournament-filters', role: 'search', 'aria-label': t('list.filters') },
    field(h, 'filter-status', t('list.status'), statusSel),
    field(h, 'filter-game', t('list.game'), gameSel),
    h('div', { class: 'filters-actions' }, h('button', { type: 'submit', class: 'btn btn-primary btn-small', id: 'filter-apply' }, t('list.apply'))),
  );
  filters.addEventListener('submit', (ev) => {
    ev.preventDefault();
    load();
  });
  const page = h(
    'div',
    { class: 'page tournaments', 'data-testid': 'tournament-list-page' },
    h('div', { class: 'page-head' }, h('h1', { id: 'tournaments-title' }, t('list.title')), h('p', { class: 'lead' }, t('list.intro')), error),
    h('section', { class: 'panel', 'aria-labelledby': 'list-title' }, h('h2', { id: 'list-title' }, t('list.events')), filters, results),
  );
  main.append(page);
  let games = [];
  ctx.ensureGames().then((list) => {
    if (gone) return;
    games = (list || []).filter((g) => g.min_players === 2 && g.max_players === 2);
    for (const g of games) gameSel.append(h('option', { value: g.id }, g.name || g.id));
    if (canOrganise(ctx.me())) page.append(createPanel(ctx, games, error));
  });

  async function load() {
    results.setAttribute('aria-busy', 'true');
    const q = new URLSearchParams();
    if (statusSel.value) q.set('status', statusSel.value);
    if (gameSel.value) q.set('game', gameSel.value);
    try {
      const list = await request('GET', `/api/tournaments${q.toString() ? `?${q}` : ''}`);
      if (gone) return;
      setAlert(error, '');
      if (!list.length) {
        results.replaceChildren(h('p', { class: 'empty' }, t('list.none')));
      } else {
        results.replaceChildren(
          table(h, {
            id: 'tournaments-table',
            caption: t('list.events'),
            columns: [
              { label: t('list.col_name') },
              { label: t('list.col_game') },
              { label: t('list.col_format') },
              { label: t('list.col_status') },
              { label: t('list.col_players'), num: true },
              { label: t('list.col_created') },
            ],
            rows: list.map((ev) =>
              h(
                'tr',
                { 'data-id': ev.id },
                h('td', {}, h('a', { href: `#/tournaments/${enc(ev.id)}` }, ev.name),
                  ev.test ? h('span', { class: 'tag tag-test' }, t('event.test_tag')) : null),
                h('td', {}, ctx.gameName(ev.game)),
                h('td', {}, t(`format.${ev.format}`)),
                h('td', {}, statusPill(h, t, ev.status)),
                h('td', { class: 'num' }, ev.cap ? t('list.players_cap', { n: ev.players, cap: ev.cap }) : String(ev.players)),
                h('td', {}, fmtWhen(ev.created_at, lang)),
              ),
            ),
          }),
        );
      }
    } catch (err) {
      if (!gone) setAlert(error, errText(ctx, err));
    } finally {
      results.setAttribute('aria-busy', 'false');
    }
  }
  load();
  focusHeading(main);
  return { destroy() { gone = true; } };
}

function createPanel(ctx, games, error) {
  const { h, t } = ctx;
  const name = h('input', { id: 'new-name', name: 'name', type: 'text', maxlength: '80', required: true, autocomplete: 'off' });
  const gameSel = select(h, 'new-game', games.map((g) => [g.id, g.name || g.id]), games[0]?.id || '');
  const formatSel = select(h, 'new-format', FORMATS.map((f) => [f, t(`format.${f}`)]), 'swiss');
  const bestOf = select(h, 'new-best-of', [1, 3, 5, 7].map((n) => [n, t('create.best_of_n', { n })]), 1);
  const seeding = select(h, 'new-seeding', ['rating', 'manual', 'random'].map((s) => [s, t(`seeding.${s}`)]), 'rating');
  const rounds = numberInput(h, 'new-rounds', null, { min: 1, max: 64, placeholder: t('create.auto') });
  const topCut = select(h, 'new-top-cut', TOP_CUTS.map((n) => [n, n ? t('create.top_n', { n }) : t('create.no_cut')]), 0);
  const cutBestOf = select(h, 'new-cut-best-of', [['', t('create.same')], ...[1, 3, 5, 7].map((n) => [n, t('create.best_of_n', { n })])], '');
  const cap = numberInput(h, 'new-cap', null, { min: 2, max: 1024, placeholder: t('create.no_limit') });
  const pairing = select(h, 'new-pairing', [['auto', t('create.pairing_auto')], ['manual', t('create.pairing_manual')]], 'auto');
  const breakSecs = numberInput(h, 'new-break', 60, { min: 0, max: 3600 });
  const noshow = numberInput(h, 'new-noshow', 300, { min: 30, max: 3600, placeholder: t('create.off') });
  const roundMin = numberInput(h, 'new-round-minutes', null, { min: 1, max: 600, placeholder: t('create.off') });
  const description = h('textarea', { id: 'new-description', name: 'description', maxlength: '2000', rows: '3' });
  const swissOnly = h(
    'div',
    { class: 'option-fields', 'data-only': 'swiss' },
    field(h, 'new-rounds', t('create.rounds'), rounds, t('create.rounds_help')),
    field(h, 'new-top-cut', t('create.top_cut'), topCut),
    field(h, 'new-cut-best-of', t('create.top_cut_best_of'), cutBestOf),
    check(h, 'new-late-entry', t('create.late_entry'), true, t('create.late_entry_help')),
  );
  const doubleOnly = h('div', { class: 'option-fields', 'data-only': 'double_elimination' },
    check(h, 'new-reset', t('create.grand_final_reset'), true, t('create.grand_final_reset_help')));
  const listsBox = h('div', { class: 'option-fields', 'data-only': 'parbaj' },
    check(h, 'new-open-lists', t('create.open_lists'), false, t('create.open_lists_help')));
  const gameOpts = h('div', { id: 'new-game-options' });
  let readGameOptions = () => ({});
  const submit = h('button', { type: 'submit', class: 'btn btn-primary', id: 'new-submit' }, t('create.submit'));
  const form = h(
    'form',
    { id: 'new-tournament', class: 'stack', novalidate: true },
    h('div', { class: 'option-fields' },
      field(h, 'new-name', t('create.name'), name),
      field(h, 'new-game', t('create.game'), gameSel),
      field(h, 'new-format', t('create.format'), formatSel),
      field(h, 'new-best-of', t('create.best_of'), bestOf),
      field(h, 'new-seeding', t('create.seeding'), seeding),
      field(h, 'new-cap', t('create.cap'), cap, t('create.cap_help')),
      field(h, 'new-pairing', t('create.pairing'), pairing),
      field(h, 'new-break', t('create.round_break'), breakSecs, t('create.round_break_help')),
      field(h, 'new-noshow', t('create.noshow'), noshow, t('create.noshow_help')),
      field(h, 'new-round-minutes', t('create.round_minutes'), roundMin, t('create.round_minutes_help')),
    ),
    swissOnly,
    doubleOnly,
    listsBox,
    h('fieldset', { class: 'stack' }, h('legend', {}, t('create.game_options')), gameOpts),
    field(h, 'new-description', t('create.description'), description),
    submit,
  );

  function refresh() {
    const fmt = formatSel.value;
    swissOnly.hidden = fmt !== 'swiss';
    doubleOnly.hidden = fmt !== 'double_elimination';
    listsBox.hidden = gameSel.value !== 'parbaj';
    const game = games.find((g) => g.id === gameSel.value);
    const reserved = RESERVED[gameSel.value] || [];
    for (const opt of bestOf.options) opt.disabled = gameSel.value === 'parbaj' && opt.value === '7';
    if (!game) return;
    const props = Object.fromEntries(
      Object.entries(game.options_schema?.properties || {}).filter(([k]) => !reserved.includes(k)),
    );
    ctx.ensureNamespace(game.id).then(() => {
      const built = ctx.optionFields({ ...game, options_schema: { ...game.options_schema, properties: props } });
      gameOpts.replaceChildren(built.el);
      readGameOptions = built.read;
    });
  }
  formatSel.addEventListener('change', refresh);
  gameSel.addEventListener('change', refresh);
  refresh();

  let busy = false;
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    if (busy) return;
    if (!name.value.trim()) {
      setAlert(error, t('create.name_required'));
      name.focus();
      return;
    }
    const fmt = formatSel.value;
    const settings = {
      best_of: Number(bestOf.value),
      seeding: seeding.value,
      cap: readNumber(cap),
      pairing: pairing.value,
      round_break_seconds: readNumber(breakSecs) ?? 0,
      noshow_seconds: readNumber(noshow),
      round_minutes: readNumber(roundMin),
      game_options: readGameOptions(),
      description: description.value.trim(),
    };
    if (fmt === 'swiss') {
      settings.rounds = readNumber(rounds);
      settings.top_cut = Number(topCut.value);
      settings.top_cut_best_of = cutBestOf.value ? Number(cutBestOf.value) : null;
      settings.late_entry = form.querySelector('#new-late-entry').checked;
    }
    if (fmt === 'double_elimination') settings.grand_final_reset = form.querySelector('#new-reset').checked;
    if (gameSel.value === 'parbaj') settings.open_lists = form.querySelector('#new-open-lists').checked;
    busy = true;
    submit.disabled = true;
    try {
      const created = await request('POST', '/api/tournaments', { name: name.value.trim(), game: gameSel.value, format: fmt, settings });
      location.hash = `#/tournaments/${enc(created.id)}`;
    } catch (err) {
      setAlert(error, errText(ctx, err));
      error.scrollIntoView?.({ block: 'nearest' });
    } finally {
      busy = false;
      submit.disabled = false;
    }
  });
  return h(
    'section',
    { class: 'panel', 'aria-labelledby': 'new-title', id: 'new-tournament-panel' },
    h('h2', { id: 'new-title' }, t('create.title')),
    h('p', { class: 'help' }, t('create.intro')),
    form,
  );
}

// ---------------------------------------------------------------------------------------------
// live updates: the tournament socket, polling while it is down
// ---------------------------------------------------------------------------------------------
function liveUpdates(id, onRevision, onStatus) {
  let socket = null;
  let poll = null;
  let closed = false;
  let retry = 1000;

  function connect() {
    if (closed) return;
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    try {
      // The token (if any) in the subprotocols, as every socket of ours: never in the URL.
      socket = new WebSocket(`${proto}//${location.host}/ws/tournaments/${enc(id)}`,
        socketProtocols(getToken()));
    } catch {
      startPolling();
      return;
    }
    socket.addEventListener('open', () => {
      retry = 1000;
      stopPolling();
      onStatus('live');
    });
    socket.addEventListener('message', (ev) => {
      let msg = null;
      try {
        msg = JSON.parse(ev.data);
      } catch {
        return;
      }
      if (msg?.type === 'tournament' && Number.isInteger(msg.revision)) onRevision(msg.revision);
    });
    socket.addEventListener('close', () => {
      if (closed) return;
      onStatus('polling');
      startPolling();
      setTimeout(connect, retry);
      retry = Math.min(retry * 2, 30000);
    });
  }

  function startPolling() {
    if (poll || closed) return;
    poll = setInterval(() => onRevision(null), POLL_MS);
  }

  function stopPolling() {
    clearInterval(poll);
    poll = null;
  }

  connect();
  return {
    close() {
      closed = true;
      stopPolling();
      if (socket) socket.close();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// #/tournaments/<id>
// ---------------------------------------------------------------------------------------------
function eventPage(main, ctx, id) {
  const { h, t } = ctx;
  const lang = ctx.lang();
  let gone = false;
  let ev = null;
  let shownRound = null; // null: follow the current round
  let loading = null;
  let again = false;
  const error = alertBox(h);
  const title = h('h1', { id: 'tournament-title' }, t('common.loading'));
  const meta = h('div', { class: 'tournament-meta', id: 'tournament-meta' });
  const live = h('p', { class: 'muted small live-state', id: 'live-state', 'aria-live': 'polite' });
  const controls = h('div', { id: 'organiser-controls' });
  const bracketBox = h('div', { id: 'bracket', class: 'bracket-scroll' });
  const roundBox = h('div', { id: 'round-view', 'aria-live': 'polite' });
  const entrantsBox = h('div', { id: 'entrants' });
  const page = h(
    'div',
    { class: 'page tournament', 'data-testid': 'tournament-page', 'data-id': id },
    h(
      'div',
      { class: 'page-head' },
      h('a', { class: 'btn btn-ghost btn-small', href: '#/tournaments' }, t('event.back')),
      title,
      meta,
      live,
      error,
    ),
    controls,
    h('section', { class: 'panel', 'aria-labelledby': 'bracket-title', id: 'bracket-panel', hidden: true },
      h('h2', { id: 'bracket-title' }, t('event.bracket')), bracketBox),
    h('section', { class: 'panel', 'aria-labelledby': 'rounds-title' }, h('h2', { id: 'rounds-title' }, t('event.rounds')), roundBox),
    h('section', { class: 'panel', 'aria-labelledby': 'entrants-title' }, h('h2', { id: 'entrants-title' }, t('event.entrants')), entrantsBox),
  );
  main.append(page);

  const nameOf = (uid) => (uid === null || uid === undefined ? '—' : ev?.names?.[uid] || String(uid));

  async function reload(revision) {
    if (revision !== null && revision !== undefined && ev && revision <= ev.revision) return;
    if (loading) {
      again = true;
      return;
    }
    loading = (async () => {
      try {
        const fresh = await request('GET', `/api/tournaments/${enc(id)}`);
        if (gone) return;
        if (!ev || fresh.revision !== ev.revision) {
          ev = fresh;
          await renderAll();
        }
        setAlert(error, '');
      } catch (err) {
        if (!gone) setAlert(error, errText(ctx, err));
      } finally {
        loading = null;
        if (again && !gone) {
          again = false;
          reload(null);
        }
      }
    })();
  }

  async function renderAll() {
    title.textContent = ev.name;
    page.dataset.revision = String(ev.revision);
    page.dataset.status = ev.status;
    renderMeta();
    renderControls();
    renderBracket();
    await renderRound();
    renderEntrants();
  }

  function renderMeta() {
    const s = ev.settings;
    const parts = [
      statusPill(h, t, ev.status),
      h('span', {}, ctx.gameName(ev.game)),
      h('span', {}, t(`format.${ev.format}`)),
      h('span', {}, t('create.best_of_n', { n: s.best_of })),
    ];
    if (ev.format === 'swiss' && s.top_cut) parts.push(h('span', {}, t('create.top_n', { n: s.top_cut })));
    // Computer players take part: say so, their results say little about people.
    if (ev.test) parts.push(h('span', { class: 'tag tag-test', id: 'test-event', title: t('event.test_help') }, t('event.test_tag')));
    const timers = [];
    if (ev.timers.round_ends_at) timers.push(t('event.round_ends', { time: fmtWhen(ev.timers.round_ends_at, lang) }));
    if (ev.timers.next_round_at) timers.push(t('event.next_round_at', { time: fmtWhen(ev.timers.next_round_at, lang) }));
    const champ = ev.champion ? h('p', { class: 'champion', id: 'champion' }, t('event.champion', { name: nameOf(ev.champion) })) : null;
    const links = h(
      'div',
      { class: 'button-row' },
      h('a', { class: 'btn btn-small', href: `#/tournaments/${enc(id)}/me`, id: 'my-page-link' }, t('event.my_page')),
      exportButton('json'),
      exportButton('csv'),
    );
    const children = [
      h('p', { class: 'tournament-facts' }, ...parts.flatMap((p, i) => (i ? [' · ', p] : [p]))),
      h('p', { class: 'muted' }, t('event.organised_by', { name: ev.organiser.name }),
        ' · ', t('event.players', { n: ev.players }), ev.waitlisted ? ` · ${t('event.waitlisted', { n: ev.waitlisted })}` : ''),
      ev.description ? h('p', { class: 'description' }, ev.description) : null,
      timers.length ? h('p', { class: 'timers', id: 'timers' }, timers.join(' · ')) : null,
      ...(ev.notes || []).map((n) => h('p', { class: 'warn' }, t(`note.${n.code}`, n))),
      champ,
      links,
    ];
    meta.replaceChildren(...children.filter(Boolean));
  }

  function exportButton(kind) {
    return h('button', {
      type: 'button', class: 'btn btn-ghost btn-small', id: `export-${kind}`,
      onclick: () => download(`/api/tournaments/${enc(id)}/export.${kind}`, `${id}.${kind}`).catch((err) => setAlert(error, errText(ctx, err))),
    }, t(`event.export_${kind}`));
  }

  function renderBracket() {
    const panel = page.querySelector('#bracket-panel');
    const which = ev.brackets?.cut ? 'cut' : ev.brackets?.main ? 'main' : null;
    panel.hidden = !which;
    page.querySelector('#bracket-title').textContent = which === 'cut' ? t('event.top_cut') : t('event.bracket');
    if (!which) {
      bracketBox.replaceChildren();
      return;
    }
    const svg = bracketSvg(ev.brackets[which], {
      t,
      names: ev.names,
      matchHref: (m) => {
        if (m.status !== 'pending') return null;
        const pv = findPairing(m.id);
        const mid = pv?.matches?.[pv.matches.length - 1]?.id;
        return mid ? `#/match/${enc(mid)}` : null;
      },
    });
    bracketBox.replaceChildren(svg);
  }

  function findPairing(pid) {
    return (ev.current_round?.pairings || []).find((p) => p.id === pid) || null;
  }

  async function renderRound() {
    const current = ev.rounds || 0;
    if (!current) {
      roundBox.replaceChildren(h('p', { class: 'empty' }, t('event.no_rounds')));
      return;
    }
    const n = shownRound && shownRound <= current ? shownRound : current;
    let view = ev.current_round;
    if (n !== current) {
      try {
        view = await request('GET', `/api/tournaments/${enc(id)}/rounds/${n}`);
      } catch (err) {
        setAlert(error, errText(ctx, err));
        return;
      }
      if (gone) return;
    }
    const nav = h(
      'nav',
      { class: 'round-nav', 'aria-label': t('event.rounds') },
      Array.from({ length: current }, (_, i) => i + 1).map((r) =>
        h('button', {
          type: 'button', class: 'btn btn-small', id: `round-${r}`, 'aria-pressed': String(r === n),
          onclick: () => {
            shownRound = r === current ? null : r;
            renderRound();
          },
        }, t('event.round_n', { n: r })),
      ),
    );
    roundBox.replaceChildren(nav, h('h3', { id: 'round-heading' }, t('event.round_n', { n })), pairingsTable(view), standingsTable(view));
  }

  function pairingsTable(view) {
    const rows = (view.pairings || []).map((p) => {
      const last = p.matches?.[p.matches.length - 1];
      const watch = p.status === 'pending' && last
        ? h('a', { class: 'btn btn-small', href: `#/match/${enc(last.id)}`, 'aria-label': t('event.watch_aria', { a: nameOf(p.players[0]), b: nameOf(p.players[1]) }) }, t('event.watch'))
        : null;
      return h(
        'tr',
        { 'data-pairing': p.id, 'data-status': p.status },
        h('td', {}, p.table ?? '—'),
        h('td', {}, nameOf(p.players[0])),
        h('td', {}, p.players[1] === null ? t('pairing.bye') : nameOf(p.players[1])),
        h('td', { class: 'pairing-result' }, resultText(t, p, nameOf), p.how && p.how !== 'played' ? h('span', { class: 'tag' }, howText(t, p.how)) : null),
        h('td', { class: 'actions' }, watch),
      );
    });
    return table(h, {
      id: 'pairings-table',
      caption: t('event.pairings'),
      columns: [{ label: t('event.col_table') }, { label: t('event.col_player_a') }, { label: t('event.col_player_b') },
        { label: t('event.col_result') }, { label: t('event.col_watch') }],
      rows,
    });
  }

  function standingsTable(view) {
    const rows = view.standings || [];
    if (!rows.length) return h('p', { class: 'empty' }, t('event.no_standings'));
    const swiss = ev.format === 'swiss';
    const rr = ev.format === 'round_robin';
    const cols = [{ label: t('standings.rank'), num: true }, { label: t('standings.player') }];
    if (swiss || rr) cols.push({ label: t('standings.points'), num: true }, { label: t('standings.record') });
    if (swiss) cols.push({ label: t('standings.omw'), num: true }, { label: t('standings.gw'), num: true }, { label: t('standings.ogw'), num: true });
    if (rr) cols.push({ label: t('standings.h2h'), num: true }, { label: t('standings.game_wins'), num: true });
    if (!rr && rows.some((r) => 'place' in r)) cols.push({ label: t('standings.place'), num: true });
    const body = rows.map((r) => {
      const cells = [h('td', { class: 'num' }, r.rank), h('td', {}, nameOf(r.player), r.dropped ? h('span', { class: 'tag' }, t('standings.dropped')) : null)];
      if (swiss || rr) cells.push(h('td', { class: 'num' }, r.points), h('td', {}, `${r.wins}–${r.losses}–${r.draws ?? 0}`));
      if (swiss) cells.push(h('td', { class: 'num' }, pct(r.omw, lang)), h('td', { class: 'num' }, pct(r.gw, lang)), h('td', { class: 'num' }, pct(r.ogw, lang)));
      if (rr) cells.push(h('td', { class: 'num' }, r.h2h), h('td', { class: 'num' }, r.game_wins));
      if (!rr && rows.some((x) => 'place' in x)) {
        cells.push(h('td', { class: 'num' }, r.place === null || r.place === undefined ? '—' : r.place_to && r.place_to !== r.place ? `${r.place}–${r.place_to}` : r.place));
      }
      return h('tr', { 'data-player': r.player }, cells);
    });
    return h(
      'div',
      { class: 'standings' },
      h('h3', {}, view.final ? t('event.standings_after', { n: view.round }) : t('event.standings_now')),
      swiss ? h('p', { class: 'help' }, t('standings.swiss_help')) : rr ? h('p', { class: 'help' }, t('standings.rr_help')) : null,
      table(h, { id: 'standings-table', caption: t('event.standings_now'), columns: cols, rows: body }),
    );
  }

  function renderEntrants() {
    const rows = ev.entrants.map((e) =>
      h(
        'tr',
        { 'data-user': e.user.id },
        h('td', { class: 'num' }, e.seed ?? '—'),
        h('td', {}, isBot(e.user) ? [botName(t, e.user), ' ', botBadge(h, t)] : e.user.name,
          e.late ? h('span', { class: 'tag' }, t('entrant.late')) : null),
        h('td', {}, t(`entrant.${e.status}`, null, { fallback: e.status }),
          e.waitlist_position ? ` (${e.waitlist_position})` : '', e.dropped ? h('span', { class: 'tag' }, t('standings.dropped')) : null),
        h('td', {}, e.checked_in ? t('entrant.yes') : t('entrant.no')),
        ev.game === 'parbaj' ? h('td', {}, e.has_deck ? t('entrant.yes') : t('entrant.no')) : null,
      ),
    );
    if (!rows.length) {
      entrantsBox.replaceChildren(h('p', { class: 'empty' }, t('event.no_entrants')));
      return;
    }
    const cols = [{ label: t('entrant.seed'), num: true }, { label: t('entrant.name') }, { label: t('entrant.status') }, { label: t('entrant.checked_in') }];
    if (ev.game === 'parbaj') cols.push({ label: t('entrant.deck') });
    entrantsBox.replaceChildren(table(h, { id: 'entrants-table', caption: t('event.entrants'), columns: cols, rows }));
  }

  // ---- organiser controls ---------------------------------------------------------------------
  function renderControls() {
    if (!ev.viewer?.can_manage) {
      controls.replaceChildren();
      return;
    }
    const alert = alertBox(h);
    alert.id = 'organiser-error';
    const act = (what, body) => async () => {
      setAlert(alert, '');
      try {
        ev = await request('POST', `/api/tournaments/${enc(id)}/${what}`, body);
        await renderAll();
        ctx.toast(t(`organiser.done_${what.replace(/-/g, '_')}`, null, { fallback: t('organiser.done') }));
      } catch (err) {
        setAlert(alert, errText(ctx, err));
      }
    };
    const buttons = [];
    const btn = (what, label, primary = false) =>
      h('button', { type: 'button', class: `btn ${primary ? 'btn-primary' : ''} btn-small`, id: `org-${what}`, onclick: act(what) }, label);
    if (ev.status === 'draft') buttons.push(btn('open-registration', t('organiser.open_registration'), true));
    if (ev.status === 'registration') buttons.push(btn('open-check-in', t('organiser.open_check_in'), true));
    if (ev.status === 'check_in') buttons.push(btn('start', t('organiser.start'), true));
    if (ev.status === 'running') buttons.push(btn('next-round', t('organiser.next_round')));
    if (!['finished', 'cancelled'].includes(ev.status)) {
      buttons.push(h('button', {
        type: 'button', class: 'btn btn-ghost btn-small', id: 'org-cancel',
        onclick: () => { if (confirm(t('organiser.cancel_confirm'))) act('cancel', { reason: null })(); },
      }, t('organiser.cancel')));
    }
    const parts = [h('div', { class: 'button-row' }, buttons)];
    // The rarer tools fold away (details/summary: keyboard-operable without script).
    if (ev.status === 'running' || ev.status === 'finished') parts.push(overrideForm(alert));
    if (ev.disputes?.some((d) => d.status === 'open')) parts.push(disputesBox(alert));
    if (ev.status === 'registration' || ev.status === 'check_in') parts.push(botsForm(alert));
    if (ev.status !== 'finished' && ev.status !== 'cancelled' && ev.entrants.length) parts.push(dropForm(alert));
    if (ev.game === 'parbaj') parts.push(decksBox(alert));
    controls.replaceChildren(
      h('section', { class: 'panel organiser', 'aria-labelledby': 'organiser-title' },
        h('h2', { id: 'organiser-title' }, t('organiser.title')), alert, ...parts),
    );
  }

  function resultFields(prefix, p) {
    const [a, b] = p ? p.players : [null, null];
    const winner = select(h, `${prefix}-winner`, [[a ?? '', nameOf(a)], [b ?? '', nameOf(b)], ['__draw', t('organiser.draw')]], a ?? '');
    const ga = numberInput(h, `${prefix}-games-a`, null, { min: 0, max: 7, placeholder: t('create.auto') });
    const gb = numberInput(h, `${prefix}-games-b`, null, { min: 0, max: 7, placeholder: t('create.auto') });
    const read = () => {
      const out = { winner: winner.value === '__draw' ? null : winner.value };
      const x = readNumber(ga);
      const y = readNumber(gb);
      if (x !== null && y !== null) out.games = [x, y];
      return out;
    };
    const el = h('div', { class: 'option-fields' },
      field(h, `${prefix}-winner`, t('organiser.winner'), winner),
      field(h, `${prefix}-games-a`, t('organiser.games_of', { name: nameOf(a) }), ga),
      field(h, `${prefix}-games-b`, t('organiser.games_of', { name: nameOf(b) }), gb));
    return { el, read };
  }

  function overrideForm(alert) {
    const candidates = (ev.current_round?.pairings || []).filter((p) => !p.bye && (p.status === 'pending' || p.status === 'done'));
    if (!candidates.length) return null;
    const pick = select(h, 'override-pairing', candidates.map((p) => [p.id, `${p.id}: ${nameOf(p.players[0])} – ${nameOf(p.players[1])}`]), candidates[0].id);
    const holder = h('div');
    let fields = null;
    const showFields = () => {
      fields = resultFields('override', candidates.find((p) => p.id === pick.value));
      holder.replaceChildren(fields.el);
    };
    pick.addEventListener('change', showFields);
    showFields();
    const reason = h('input', { id: 'override-reason', name: 'reason', type: 'text', maxlength: '500', required: true });
    const form = h('form', { id: 'override-form', class: 'stack', novalidate: true },
      h('p', { class: 'help' }, t('organiser.override_help')),
      field(h, 'override-pairing', t('organiser.pairing'), pick), holder,
      field(h, 'override-reason', t('organiser.reason'), reason),
      h('button', { type: 'submit', class: 'btn btn-small', id: 'override-submit' }, t('organiser.override_submit')));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      if (reason.value.trim().length < 3) {
        setAlert(alert, t('organiser.reason_required'));
        reason.focus();
        return;
      }
      try {
        ev = await request('POST', `/api/tournaments/${enc(id)}/pairings/${enc(pick.value)}/override`, { result: fields.read(), reason: reason.value.trim() });
        await renderAll();
        ctx.toast(t('organiser.done'));
      } catch (err) {
        setAlert(alert, errText(ctx, err));
      }
    });
    return h('details', { class: 'organiser-part', id: 'override-details' }, h('summary', {}, t('organiser.override')), form);
  }

  function disputesBox(alert) {
    const items = ev.disputes.filter((d) => d.status === 'open').map((d) => {
      const p = findPairing(d.pairing);
      const fields = resultFields(`dispute-${d.id}`, p);
      const reason = h('input', { id: `dispute-${d.id}-reason`, type: 'text', maxlength: '500' });
      const send = (decision) => async () => {
        if (reason.value.trim().length < 3) {
          setAlert(alert, t('organiser.reason_required'));
          reason.focus();
          return;
        }
        const body = { decision, reason: reason.value.trim() };
        if (decision === 'override') body.result = fields.read();
        try {
          ev = await request('POST', `/api/tournaments/${enc(id)}/disputes/${d.id}/resolve`, body);
          await renderAll();
          ctx.toast(t('organiser.done'));
        } catch (err) {
          setAlert(alert, errText(ctx, err));
        }
      };
      return h('li', { class: 'dispute', 'data-dispute': d.id },
        h('p', {}, t('organiser.dispute_by', { name: nameOf(d.by), pairing: d.pairing })), h('blockquote', {}, d.reason),
        fields.el, field(h, `dispute-${d.id}-reason`, t('organiser.reason'), reason),
        h('div', { class: 'button-row' },
          h('button', { type: 'button', class: 'btn btn-small', id: `dispute-${d.id}-uphold`, onclick: send('uphold') }, t('organiser.uphold')),
          h('button', { type: 'button', class: 'btn btn-primary btn-small', id: `dispute-${d.id}-override`, onclick: send('override') }, t('organiser.override_submit'))));
    });
    return h('div', { id: 'disputes', class: 'organiser-part' }, h('h3', {}, t('organiser.disputes')), h('ul', { class: 'plain-list' }, items));
  }

  // Computer players for a test event (POST /api/tournaments/<id>/bots): checked in at once.
  function botsForm(alert) {
    const level = h('select', { id: 'bots-level', name: 'level' });
    const count = numberInput(h, 'bots-count', 1, { min: 1, max: 64 });
    const submit = h('button', { type: 'submit', class: 'btn btn-small', id: 'bots-submit' }, t('organiser.add_bots'));
    botLevels()
      .then((all) => {
        const levels = all[ev.game] || [];
        level.replaceChildren(...levels.map((lv) => h('option', { value: lv }, levelName(t, lv))));
        submit.disabled = !levels.length;
      })
      .catch((err) => setAlert(alert, errText(ctx, err)));
    const form = h('form', { id: 'bots-form', class: 'stack' },
      h('p', { class: 'help' }, t('organiser.bots_help')),
      field(h, 'bots-level', t('organiser.bots_level'), level),
      field(h, 'bots-count', t('organiser.bots_count'), count),
      submit);
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      setAlert(alert, '');
      try {
        ev = await request('POST', `/api/tournaments/${enc(id)}/bots`, { level: level.value, count: readNumber(count) ?? 1 });
        await renderAll();
        ctx.toast(t('organiser.done_bots'));
      } catch (err) {
        setAlert(alert, errText(ctx, err));
      }
    });
    return h('details', { class: 'organiser-part', id: 'bots-details' }, h('summary', {}, t('organiser.add_bots')), form);
  }

  function dropForm(alert) {
    const people = ev.entrants.filter((e) => ['registered', 'checked_in', 'waitlisted', 'playing'].includes(e.status) && !e.dropped);
    if (!people.length) return null;
    const pick = select(h, 'drop-player', people.map((e) => [e.user.id, e.user.name]), people[0].user.id);
    const form = h('form', { id: 'drop-form', class: 'stack' },
      field(h, 'drop-player', t('organiser.drop_player'), pick),
      h('button', { type: 'submit', class: 'btn btn-small', id: 'drop-submit' }, t('organiser.drop')));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      if (!confirm(t('organiser.drop_confirm', { name: pick.selectedOptions[0]?.textContent || '' }))) return;
      try {
        ev = await request('POST', `/api/tournaments/${enc(id)}/players/${enc(pick.value)}/drop`, { reason: null });
        await renderAll();
      } catch (err) {
        setAlert(alert, errText(ctx, err));
      }
    });
    return h('details', { class: 'organiser-part', id: 'drop-details' }, h('summary', {}, t('organiser.drop')), form);
  }

  function decksBox(alert) {
    const box = h('div', { id: 'deck-lists' });
    const show = h('button', {
      type: 'button', class: 'btn btn-ghost btn-small', id: 'show-decks',
      onclick: async () => {
        try {
          const [lists, names] = await Promise.all([request('GET', `/api/tournaments/${enc(id)}/decks`), cardNames()]);
          box.replaceChildren(lists.length
            ? h('ul', { class: 'plain-list' }, lists.map((d) => h('li', { 'data-user': d.user.id },
              h('strong', {}, d.user.name), ` — ${d.deck_name || t('me.custom_deck')}`, deckList(h, t, d.deck, names))))
            : h('p', { class: 'empty' }, t('organiser.no_decks')));
        } catch (err) {
          setAlert(alert, errText(ctx, err));
        }
      },
    }, t('organiser.show_decks'));
    return h('details', { class: 'organiser-part', id: 'decks-details' }, h('summary', {}, t('organiser.decks')), show, box);
  }

  // ---- start ----------------------------------------------------------------------------------
  const updates = liveUpdates(id, (rev) => reload(rev), (state) => {
    live.textContent = state === 'live' ? t('event.live') : t('event.polling');
    page.dataset.live = state;
  });
  // Game names come with the games list; load it before the first render.
  ctx.ensureGames().then(() => reload(null)).then(() => focusHeading(main));
  window.duelhallTournament = { reload: () => reload(null), revision: () => ev?.revision };
  return {
    destroy() {
      gone = true;
      updates.close();
      if (window.duelhallTournament) delete window.duelhallTournament;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// #/tournaments/<id>/me
// ---------------------------------------------------------------------------------------------
function mePage(main, ctx, id) {
  const { h, t } = ctx;
  let gone = false;
  const error = alertBox(h);
  const body = h('div', { id: 'me-body', 'aria-live': 'polite' });
  main.append(
    h(
      'div',
      { class: 'page tournament-me', 'data-testid': 'tournament-me' },
      h('div', { class: 'page-head' },
        h('a', { class: 'btn btn-ghost btn-small', href: `#/tournaments/${enc(id)}` }, t('me.back')),
        h('h1', { id: 'me-title' }, t('me.title')), error),
      body,
    ),
  );
  if (!isAccount(ctx.me())) {
    body.append(h('p', { class: 'panel', id: 'me-account-needed' }, t('me.account_needed')));
    focusHeading(main);
    return { destroy() {} };
  }
  let me = null;
  let savedDecks = null;
  let starters = null;
  let cards = {};
  const updates = liveUpdates(id, () => load(), () => {});

  async function load() {
    try {
      me = await request('GET', `/api/tournaments/${enc(id)}/me`);
      if (gone) return;
      if (me.tournament.game === 'parbaj' && savedDecks === null) {
        [savedDecks, starters, cards] = await Promise.all([
          request('GET', '/api/decks'), request('GET', '/api/parbaj/starter-decks'), cardNames()]);
      }
      if (!gone) render();
    } catch (err) {
      if (!gone) setAlert(error, errText(ctx, err));
    }
  }

  const post = (path, payload, method = 'POST') => async () => {
    setAlert(error, '');
    try {
      me = await request(method, `/api/tournaments/${enc(id)}/${path}`, payload);
      render();
      ctx.toast(t('me.saved'));
    } catch (err) {
      setAlert(error, errText(ctx, err));
    }
  };

  function deckPicker() {
    const options = [
      ...(savedDecks || []).filter((d) => d.ok).map((d) => [`saved:${d.id}`, t('me.saved_deck', { name: d.name })]),
      ...(starters || []).map((d) => [`starter:${d.id}`, t('me.starter_deck', { name: d.name })]),
    ];
    const pick = select(h, 'deck-choice', options, options[0]?.[0] || '');
    const choice = () => {
      const [kind, key] = pick.value.split(':');
      if (kind === 'saved') return { deck_id: key };
      return { starter: key };
    };
    return { el: field(h, 'deck-choice', t('me.deck'), pick, t('me.deck_help')), choice };
  }

  function render() {
    const tour = me.tournament;
    const e = me.entrant;
    const can = me.can;
    const parts = [];
    const nameOf = (uid) => (uid === null || uid === undefined ? '—' : me.names?.[uid] || String(uid));
    parts.push(h('p', { class: 'lead' }, h('a', { href: `#/tournaments/${enc(id)}` }, tour.name), ' · ', statusPill(h, t, tour.status)));
    parts.push(h('p', { id: 'my-status' }, e ? t(`entrant.${e.status}`, null, { fallback: e.status }) : t('me.not_entered'),
      e?.waitlist_position ? ` · ${t('me.waitlist_position', { n: e.waitlist_position })}` : ''));
    const actions = [];
    let picker = null;
    if (can.register) {
      if (tour.game === 'parbaj') {
        picker = deckPicker();
        parts.push(picker.el);
      }
      actions.push(h('button', {
        type: 'button', class: 'btn btn-primary', id: 'me-register',
        onclick: () => post('register', picker ? { deck: picker.choice() } : undefined)(),
      }, t('me.register')));
    }
    if (can.change_deck) {
      picker = picker || deckPicker();
      if (!can.register) parts.push(picker.el);
      actions.push(h('button', { type: 'button', class: 'btn', id: 'me-deck', onclick: () => post('deck', picker.choice(), 'PUT')() }, t('me.set_deck')));
    }
    if (can.check_in) actions.push(h('button', { type: 'button', class: 'btn btn-primary', id: 'me-check-in', onclick: post('check-in') }, t('me.check_in')));
    if (can.withdraw) actions.push(h('button', { type: 'button', class: 'btn btn-ghost', id: 'me-withdraw', onclick: post('withdraw') }, t('me.withdraw')));
    if (can.drop) {
      actions.push(h('button', {
        type: 'button', class: 'btn btn-ghost', id: 'me-drop',
        onclick: () => { if (confirm(t('me.drop_confirm'))) post('drop')(); },
      }, t('me.drop')));
    }
    if (actions.length) parts.push(h('div', { class: 'button-row' }, actions));
    if (me.current) {
      const p = me.current;
      parts.push(h('section', { class: 'panel', 'aria-labelledby': 'now-title', id: 'my-pairing' },
        h('h2', { id: 'now-title' }, t('me.this_round', { n: p.round })),
        h('p', {}, me.opponent ? t('me.opponent', { name: me.opponent.name }) : t('pairing.bye')),
        h('p', {}, resultText(t, p, nameOf)),
        me.match ? h('a', { class: 'btn btn-primary', id: 'play-match', href: `#/match/${enc(me.match)}` }, t('me.play')) : null));
    }
    if (can.dispute) {
      const reason = h('input', { id: 'dispute-reason', type: 'text', maxlength: '500' });
      const form = h('form', { id: 'dispute-form', class: 'stack' },
        h('h3', {}, t('me.dispute')), h('p', { class: 'help' }, t('me.dispute_help')),
        field(h, 'dispute-reason', t('organiser.reason'), reason),
        h('button', { type: 'submit', class: 'btn btn-small', id: 'dispute-submit' }, t('me.dispute_submit')));
      form.addEventListener('submit', (ev) => {
        ev.preventDefault();
        if (reason.value.trim().length < 3) {
          setAlert(error, t('organiser.reason_required'));
          return;
        }
        post(`pairings/${enc(can.dispute)}/dispute`, { reason: reason.value.trim() })();
      });
      parts.push(form);
    }
    if (e?.deck) {
      parts.push(h('section', { class: 'panel', 'aria-labelledby': 'deck-title' },
        h('h2', { id: 'deck-title' }, t('me.my_deck', { name: e.deck_name || t('me.custom_deck') })),
        h('p', { class: 'help' }, e.deck_locked ? t('me.deck_locked') : t('me.deck_open')),
        deckList(h, t, e.deck, cards, 'my-deck')));
    }
    if (me.pairings.length) {
      parts.push(h('section', { class: 'panel', 'aria-labelledby': 'mine-title' },
        h('h2', { id: 'mine-title' }, t('me.results')),
        table(h, {
          id: 'my-pairings', caption: t('me.results'),
          columns: [{ label: t('event.col_round') }, { label: t('event.col_player_a') }, { label: t('event.col_player_b') }, { label: t('event.col_result') }],
          rows: me.pairings.map((p) => h('tr', { 'data-pairing': p.id }, h('td', {}, p.round), h('td', {}, nameOf(p.players[0])),
            h('td', {}, p.players[1] === null ? t('pairing.bye') : nameOf(p.players[1])), h('td', {}, resultText(t, p, nameOf)))),
        })));
    }
    if (me.disputes.length) {
      parts.push(h('ul', { class: 'plain-list', id: 'my-disputes' }, me.disputes.map((d) =>
        h('li', {}, t('me.dispute_status', { pairing: d.pairing, status: t(`dispute.${d.status}`) })))));
    }
    body.replaceChildren(...parts);
  }

  load().then(() => focusHeading(main));
  return {
    destroy() {
      gone = true;
      updates.close();
    },
  };
}

// Duelhall browser client: hash router and screens (name, lobby, match).
//
// Routes:  #/            lobby (asks for a name first when there is no valid token)
//          #/match/<id>  match screen: waiting room while open, then the game's board
//          #/match/<id>/fair  the match's fair-deal check (static/fair_deal.js, docs/fairness.md)
//          #/decks       Párbaj deck builder (static/parbaj_decks.js)
//          #/tournaments, #/tournaments/<id>, #/tournaments/<id>/me  tournaments (static/tournaments.js)
//          #/lab         balance lab for organisers and admins (static/lab.js)
//          #/users/<id>  player profile; #/leaderboard/<game>  leaderboards (static/profile.js)
//          #/admin, #/admin/match/<id>, #/admin/reports|users|audit  admin pages (static/admin.js)
// Accounts (log in, register, account menu, rematch/report after a match): static/account.js.
// Every user-facing string goes through t() (static/i18n/<lang>/core.json).

import { h } from './dom.js';
import { api, getToken, setToken, clearToken, onUnauthorized } from './api.js';
import {
  t,
  hasKey,
  setLanguage,
  getLanguage,
  LANGUAGES,
  ensureNamespace,
  onLanguageChange,
  translatorFor,
} from './i18n.js';
import { MatchSocket } from './ws.js';
import { loadBoard } from './games/index.js';
import { signInPanel, headerLinks, accountMenu, postMatch, isGuest } from './account.js';
import { profileScreen, leaderboardScreen } from './profile.js';
import { adminScreen } from './admin.js';
import { isBot, botName, botBadge, withBotNames, playComputerPanel, addComputerControl } from './bots.js';
import { fairMark, fairScreen } from './fair_deal.js';
import { noteFairness } from './fairness.js';

const NAME_KEY = 'duelhall.name';
const GAME_KEY = 'duelhall.lastGame';
const LOBBY_REFRESH_MS = 3000;
const WAITING_REFRESH_MS = 2000;
const OFFLINE_VIEW_REFRESH_MS = 5000;

const app = {
  me: null,
  games: null, // GET /api/games: [{id, name, min_players, max_players, options_schema, board, ...}]
  booted: false,
  screen: null, // {destroy(), relabel?()}
};

// ---------------------------------------------------------------------------------------------
// DOM helpers
// ---------------------------------------------------------------------------------------------
export { h };

// The red seal: two crossed blades in a square stamp (drawn, so no font is needed).
const SEAL_SVG =
  '<svg viewBox="0 0 40 40" width="100%" height="100%" focusable="false" aria-hidden="true">' +
  '<rect x="5" y="5" width="30" height="30" rx="1.5" fill="none" stroke="currentColor" stroke-opacity=".45" stroke-width="1.2"/>' +
  '<g stroke="currentColor" stroke-linecap="round" fill="none">' +
  '<path d="M11.5 28.5 L28 12" stroke-width="3"/><path d="M28.5 28.5 L12 12" stroke-width="3"/>' +
  '<path d="M13.5 22.5 L17.5 26.5 M26.5 22.5 L22.5 26.5" stroke-width="2.2"/>' +
  '</g></svg>';

function seal(cls) {
  const el = h('span', { class: cls, 'aria-hidden': 'true' });
  el.innerHTML = SEAL_SVG;
  return el;
}
const root = () => document.getElementById('app');

function store(key, value) {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch {
    /* storage disabled */
  }
}

function load(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

/** Translated text for an API/socket error {code, message}. */
export function errorText(err) {
  const code = err?.code || 'error';
  const detail = err?.message && err.message !== code ? err.message : '';
  const key = `error.${code}`;
  if (hasKey(key)) {
    const base = t(key);
    const same = (a, b) => a.trim().replace(/[.!]+$/, '').toLowerCase() === b.trim().replace(/[.!]+$/, '').toLowerCase();
    return detail && !same(base, detail) ? t('error.with_detail', { error: base, detail }) : base;
  }
  return detail || t('error.generic');
}

function showError(text) {
  const el = document.getElementById('error-message');
  if (!el) return;
  el.textContent = text || '';
  el.hidden = !text;
}

function clearError() {
  showError('');
}

let toastTimer = null;
function toast(text) {
  const el = document.getElementById('toast');
  if (!el) return;
  el.textContent = text;
  el.classList.add('show');
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => el.classList.remove('show'), 2600);
}

function inviteLink(id) {
  return `${location.origin}/#/match/${encodeURIComponent(id)}`;
}

async function copyInvite(id) {
  const link = inviteLink(id);
  try {
    if (!navigator.clipboard?.writeText) throw new Error('no clipboard');
    await navigator.clipboard.writeText(link);
    toast(t('invite.copied'));
  } catch {
    // Fallback: a hidden textarea and execCommand; else show the link to copy by hand.
    const ta = h('textarea', { class: 'sr-only', 'aria-hidden': 'true' });
    ta.value = link;
    document.body.append(ta);
    ta.select();
    let ok = false;
    try {
      ok = document.execCommand('copy');
    } catch {
      ok = false;
    }
    ta.remove();
    toast(ok ? t('invite.copied') : t('invite.copy_manually', { link }));
  }
}

function humanize(name) {
  const s = String(name).replace(/[_-]+/g, ' ').trim();
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function userName(user) {
  if (!user) return null;
  if (typeof user === 'string') return user;
  if (isBot(user)) return botName(t, user); // in the reader's language (static/bots.js)
  return user.name || user.id || null;
}

/** The host's user id of a match summary (host may be a user object or an id). */
function hostOf(summary) {
  const hst = summary?.host;
  const seats = summary?.seats || [];
  if (hst && typeof hst === 'object') return { id: hst.id, name: hst.name || userName(hst) };
  if (typeof hst === 'string') {
    const seat = seats.find((s) => s.user && (s.user.id === hst || s.user.name === hst));
    return { id: hst, name: seat ? seat.user.name : hst };
  }
  const first = seats.find((s) => s.user);
  return first ? { id: first.user.id, name: first.user.name } : null;
}

function mySeat(summary) {
  if (!app.me) return null;
  const s = (summary?.seats || []).find((x) => x.user && x.user.id === app.me.id);
  return s ? s.seat : null;
}

/** {filled, total}: a summary may list only taken seats (then max_players is the table size)
 *  or every seat with user null for free ones. */
function seatsFilled(summary) {
  const seats = summary?.seats || [];
  const filled = seats.filter((s) => s.user).length;
  const total = Math.max(seats.length, Number(summary?.max_players) || 0, filled);
  return { filled, total };
}

const SEAT_LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** Every seat of the table, free ones as {seat, user: null}. */
function allSeats(summary) {
  const seats = (summary?.seats || []).slice();
  const { total } = seatsFilled(summary);
  const taken = new Set(seats.map((s) => s.seat));
  for (let i = 0; seats.length < total && i < SEAT_LETTERS.length; i++) {
    if (!taken.has(SEAT_LETTERS[i])) seats.push({ seat: SEAT_LETTERS[i], user: null });
  }
  return seats.sort((a, b) => String(a.seat).localeCompare(String(b.seat)));
}

function gameInfo(id, summary) {
  const g = (app.games || []).find((x) => x.id === id);
  if (g) return g;
  if (summary && summary.game === id && summary.min_players) {
    return {
      id,
      name: summary.game_name || id,
      min_players: summary.min_players,
      max_players: summary.max_players,
    };
  }
  return null;
}

/** The game's message catalogue: its board module's (GET /api/games `board`); null when it has
 *  none or the list is not loaded yet. */
function catalogueOf(id) {
  return gameInfo(id)?.board || null;
}

function gameName(id, summary) {
  return gameInfo(id)?.name || (summary && summary.game === id && summary.game_name) || id;
}

function statusText(status) {
  return t(`status.${status}`, null, { fallback: status });
}

async function ensureGames() {
  if (!app.games) {
    try {
      const list = await api.games();
      app.games = Array.isArray(list) ? list : [];
    } catch (err) {
      if (err?.status === 401) throw err;
      return [];
    }
  }
  return app.games;
}

// What the account, profile and admin screens (account.js, profile.js, admin.js) get from here.
const shell = {
  h,
  t,
  errorText,
  toast,
  me: () => app.me,
  lang: () => getLanguage(),
  ensureGames: () => ensureGames().catch(() => []),
  gameName: (id) => gameName(id),
  render: () => render(),
  signIn(token, user) {
    setToken(token);
    app.me = user;
    render();
  },
  signOut() {
    clearToken();
    app.me = null;
    render();
  },
};

// ---------------------------------------------------------------------------------------------
// Header (brand, user, language picker)
// ---------------------------------------------------------------------------------------------
function renderHeader() {
  const header = document.getElementById('site-header');
  if (!header) return;
  const langSelect = h(
    'select',
    { id: 'lang-select', name: 'lang' },
    LANGUAGES.map((l) =>
      h('option', { value: l.code, selected: l.code === getLanguage(), lang: l.code }, l.name),
    ),
  );
  langSelect.addEventListener('change', () => setLanguage(langSelect.value));
  const user = app.me
    ? h(
        'div',
        { class: 'user-chip' },
        h('span', { class: 'user-name', id: 'user-name' }, t('header.signed_in', { name: app.me.name })),
        h('a', { class: 'btn btn-link', id: 'decks-link', href: '#/decks' }, t('header.decks')),
        h('a', { class: 'btn btn-link', id: 'tournaments-link', href: '#/tournaments' }, t('header.tournaments')),
        ...headerLinks(shell),
        ['admin', 'organiser'].includes(app.me.role)
          ? h('a', { class: 'btn btn-link', id: 'lab-link', href: '#/lab' }, t('header.lab'))
          : null,
        isGuest(app.me)
          ? h(
              'button',
              { type: 'button', class: 'btn btn-link', id: 'change-name', onclick: changeName },
              t('header.change_name'),
            )
          : accountMenu(shell),
      )
    : null;
  header.replaceChildren(
    h(
      'a',
      { class: 'brand', href: '#/', 'aria-label': t('header.home') },
      seal('seal'),
      h(
        'span',
        { class: 'brand-text' },
        h('span', { class: 'brand-name' }, 'Duelhall'),
        h('span', { class: 'brand-tag' }, t('header.tagline')),
      ),
    ),
    h(
      'div',
      { class: 'header-tools' },
      user,
      h(
        'div',
        { class: 'lang-picker' },
        h('label', { for: 'lang-select' }, t('header.language')),
        langSelect,
      ),
    ),
  );
  document.title = t('app.title');
  const skip = document.querySelector('.skip-link');
  if (skip) skip.textContent = t('app.skip');
  const foot = document.querySelector('.site-footer p');
  if (foot) foot.textContent = t('footer.text');
}

function changeName() {
  clearToken();
  app.me = null;
  render();
}

// ---------------------------------------------------------------------------------------------
// Router
// ---------------------------------------------------------------------------------------------
function parseHash() {
  const raw = (location.hash || '').replace(/^#/, '');
  const path = raw.split('?')[0];
  const m = path.match(/^\/?match\/([^/]+)\/?$/);
  if (m) return { name: 'match', id: decodeURIComponent(m[1]) };
  const fair = path.match(/^\/?match\/([^/]+)\/fair\/?$/);
  if (fair) return { name: 'fair', id: decodeURIComponent(fair[1]) };
  if (/^\/?decks\/?$/.test(path)) return { name: 'decks' };
  if (/^\/?lab\/?$/.test(path)) return { name: 'lab' };
  const tour = path.match(/^\/?tournaments(?:\/([^/]+)(\/me)?)?\/?$/);
  if (tour) return { name: 'tournaments', id: tour[1] ? decodeURIComponent(tour[1]) : null, me: !!tour[2] };
  const u = path.match(/^\/?users\/([^/]+)\/?$/);
  if (u) return { name: 'profile', id: decodeURIComponent(u[1]) };
  const lb = path.match(/^\/?leaderboard(?:\/([^/]+))?\/?$/);
  if (lb) return { name: 'leaderboard', game: lb[1] ? decodeURIComponent(lb[1]) : null };
  const adm = path.match(/^\/?admin(?:\/(reports|users|audit|match\/([^/]+)))?\/?$/);
  if (adm) {
    const section = adm[2] ? 'match' : adm[1] || 'matches';
    return { name: 'admin', section, id: adm[2] ? decodeURIComponent(adm[2]) : null };
  }
  return { name: 'lobby' };
}

function destroyScreen() {
  if (app.screen) {
    try {
      app.screen.destroy();
    } catch (err) {
      console.error(err);
    }
  }
  app.screen = null;
}

function render({ focus = true } = {}) {
  destroyScreen();
  renderHeader();
  const main = root();
  main.replaceChildren();
  const route = parseHash();
  if (!app.me) {
    app.screen = nameScreen(main);
    signInPanel(main, shell);
  } else if (route.name === 'profile') {
    app.screen = profileScreen(main, shell, route.id);
  } else if (route.name === 'leaderboard') {
    app.screen = leaderboardScreen(main, shell, route.game);
  } else if (route.name === 'admin') {
    app.screen = adminScreen(main, shell, route);
  } else if (route.name === 'match') {
    app.screen = matchScreen(main, route.id);
  } else if (route.name === 'fair') {
    app.screen = fairScreen(main, shell, route.id);
  } else if (route.name === 'tournaments') {
    app.screen = tournamentsScreen(main, route);
  } else if (route.name === 'decks') {
    app.screen = decksScreen(main);
  } else if (route.name === 'lab') {
    app.screen = labPage(main);
  } else {
    app.screen = lobbyScreen(main);
  }
  if (focus) {
    // After navigation, move focus to the new page's heading (screen readers announce it).
    const active = document.activeElement;
    const heading = main.querySelector('h1');
    if (heading && (!active || active === document.body || !document.contains(active))) {
      heading.setAttribute('tabindex', '-1');
      heading.focus({ preventScroll: true });
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Screen 1: pick a name
// ---------------------------------------------------------------------------------------------
function nameScreen(main) {
  const input = h('input', {
    id: 'name-input',
    name: 'name',
    type: 'text',
    autocomplete: 'nickname',
    maxlength: '24',
    required: true,
    spellcheck: 'false',
    'aria-describedby': 'name-help',
  });
  input.value = load(NAME_KEY) || '';
  const submit = h(
    'button',
    { id: 'name-submit', type: 'submit', class: 'btn btn-primary' },
    t('name.submit'),
  );
  const form = h(
    'form',
    { id: 'name-form', class: 'stack', novalidate: true },
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'name-input' }, t('name.label')),
      input,
      h('p', { id: 'name-help', class: 'help' }, t('name.help')),
    ),
    submit,
  );
  let busy = false;
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    if (busy) return;
    const name = input.value.trim();
    if (!name) {
      showError(t('name.required'));
      input.focus();
      return;
    }
    busy = true;
    submit.disabled = true;
    clearError();
    try {
      const res = await api.guest(name);
      setToken(res.token);
      app.me = res.user;
      store(NAME_KEY, name);
      render();
    } catch (err) {
      // A refused name comes back as a validation error; say what a name may hold.
      const refused = err?.status === 422 || err?.code === 'invalid_message';
      showError(refused ? t('name.invalid') : errorText(err));
      submit.disabled = false;
      busy = false;
      input.focus();
    }
  });
  main.append(
    h(
      'section',
      { class: 'panel panel-welcome', 'aria-labelledby': 'welcome-title' },
      h('div', { class: 'enso', 'aria-hidden': 'true' }),
      h('h1', { id: 'welcome-title' }, t('name.title')),
      h('p', { class: 'lead' }, t('name.intro')),
      form,
      h('p', { id: 'error-message', class: 'error', role: 'alert', hidden: true }),
    ),
  );
  input.focus();
  return { destroy() {} };
}

// ---------------------------------------------------------------------------------------------
// Screen 2: lobby
// ---------------------------------------------------------------------------------------------
function schemaType(prop) {
  const types = Array.isArray(prop?.type) ? prop.type : [prop?.type];
  const nullable = types.includes('null') || (Array.isArray(prop?.enum) && prop.enum.includes(null));
  const main = types.find((x) => x && x !== 'null') || (prop?.enum ? 'enum' : 'string');
  return { type: main, nullable };
}

function optionLabel(game, name) {
  return t(`options.${name}`, null, {
    ns: catalogueOf(game),
    fallback: t(`option.${name}`, null, { fallback: humanize(name) }),
  });
}

function optionHelp(game, name, prop) {
  return t(`options.${name}_help`, null, {
    ns: catalogueOf(game),
    fallback: t(`option.${name}_help`, null, { fallback: prop?.description || '' }),
  });
}

function enumLabel(game, name, value) {
  if (value === null) return t('create.none');
  return t(`options.${name}.${value}`, null, { ns: catalogueOf(game), fallback: String(value) });
}

/** Build the inputs for one game's options_schema; returns {el, read()}. */
function optionFields(game) {
  const schema = game?.options_schema || {};
  const props = schema.properties || {};
  const fields = [];
  const wrap = h('div', { class: 'option-fields' });
  for (const [name, prop] of Object.entries(props)) {
    const { type, nullable } = schemaType(prop);
    const id = `opt-${name}`;
    const helpText = optionHelp(game.id, name, prop);
    const helpId = helpText ? `${id}-help` : null;
    const label = optionLabel(game.id, name);
    let input;
    let read;
    if (Array.isArray(prop.enum)) {
      const values = prop.enum.slice();
      if (nullable && !values.includes(null)) values.unshift(null);
      input = h(
        'select',
        { id, name, 'aria-describedby': helpId },
        values.map((v, i) =>
          h('option', { value: String(i), selected: v === prop.default }, enumLabel(game.id, name, v)),
        ),
      );
      read = () => values[Number(input.value)];
      fields.push({ name, read });
      wrap.append(
        h('div', { class: 'field' }, h('label', { for: id }, label), input, helpText && h('p', { id: helpId, class: 'help' }, helpText)),
      );
      continue;
    }
    if (type === 'boolean') {
      input = h('input', { id, name, type: 'checkbox', checked: prop.default === true, 'aria-describedby': helpId });
      read = () => input.checked;
      fields.push({ name, read });
      wrap.append(
        h(
          'div',
          { class: 'field field-check' },
          input,
          h('label', { for: id }, label),
          helpText && h('p', { id: helpId, class: 'help' }, helpText),
        ),
      );
      continue;
    }
    if (type === 'integer' || type === 'number') {
      input = h('input', {
        id,
        name,
        type: 'number',
        inputmode: type === 'integer' ? 'numeric' : 'decimal',
        step: type === 'integer' ? '1' : 'any',
        min: prop.minimum,
        max: prop.maximum,
        required: !nullable,
        placeholder: nullable ? t('create.none') : null,
        'aria-describedby': helpId,
      });
      if (prop.default !== null && prop.default !== undefined) input.value = String(prop.default);
      read = () => {
        const raw = input.value.trim();
        if (raw === '') return nullable ? null : undefined;
        const n = Number(raw);
        return type === 'integer' ? Math.trunc(n) : n;
      };
    } else {
      input = h('input', {
        id,
        name,
        type: 'text',
        required: !nullable && prop.default === undefined,
        maxlength: prop.maxLength,
        placeholder: nullable ? t('create.none') : null,
        'aria-describedby': helpId,
      });
      if (typeof prop.default === 'string') input.value = prop.default;
      read = () => {
        const raw = input.value;
        if (raw === '') return nullable ? null : undefined;
        return raw;
      };
    }
    fields.push({ name, read });
    wrap.append(
      h(
        'div',
        { class: 'field' },
        h('label', { for: id }, label),
        input,
        helpText && h('p', { id: helpId, class: 'help' }, helpText),
      ),
    );
  }
  if (!fields.length) wrap.append(h('p', { class: 'muted small' }, t('create.no_options')));
  return {
    el: wrap,
    read() {
      const out = {};
      for (const f of fields) {
        const v = f.read();
        if (v !== undefined) out[f.name] = v;
      }
      return out;
    },
  };
}

/** A robot badge with how many computer players sit at a listed table (null: none). */
function botsAt(summary) {
  const count = (summary?.seats || []).filter((s) => isBot(s.user)).length;
  if (!count) return null;
  const badge = botBadge(h, t);
  badge.lastChild.textContent = t('bots.seated', { count });
  return badge;
}

function playersText(g) {
  if (!g) return '';
  if (g.min_players === g.max_players) return t('game.players_exact', { count: g.min_players });
  return t('game.players_range', { min: g.min_players, max: g.max_players });
}

function lobbyScreen(main) {
  let destroyed = false;
  let timer = null;
  let inflight = false;
  let lastOpen = null;
  let lastLive = null;

  const gameSelect = h('select', { id: 'create-game', 'aria-describedby': 'create-game-meta' });
  const gameMeta = h('p', { id: 'create-game-meta', class: 'help' });
  const optionsBox = h('div', { id: 'create-options' });
  const submit = h(
    'button',
    { id: 'create-submit', type: 'submit', class: 'btn btn-primary', disabled: true },
    t('create.submit'),
  );
  let fields = null;
  const form = h(
    'form',
    { id: 'create-form', class: 'stack' },
    h('div', { class: 'field' }, h('label', { for: 'create-game' }, t('create.game')), gameSelect, gameMeta),
    h('fieldset', { class: 'options' }, h('legend', {}, t('create.options')), optionsBox),
    submit,
  );
  // "Play the computer": the same game and options, a bot level, and it starts at once.
  const computer = playComputerPanel({
    h,
    t,
    errorText,
    showError,
    clearError,
    options: () => (form.reportValidity() ? (fields ? fields.read() : {}) : null),
    onCreated: (summary) => {
      if (!destroyed) location.hash = `#/match/${encodeURIComponent(summary.id)}`;
    },
  });

  const openBox = h('div', { id: 'open-matches', 'aria-live': 'polite', 'aria-busy': 'true' }, h('p', { class: 'muted' }, t('common.loading')));
  const liveBox = h('div', { id: 'live-matches', 'aria-busy': 'true' }, h('p', { class: 'muted' }, t('common.loading')));

  main.append(
    h(
      'div',
      { class: 'lobby' },
      h(
        'div',
        { class: 'lobby-head' },
        h('h1', { id: 'lobby-title' }, t('lobby.title')),
        h('p', { class: 'lead' }, t('lobby.intro')),
        h('p', {}, h('a', { href: '#/decks', id: 'lobby-decks-link' }, t('lobby.decks_link'))),
        h('p', { id: 'error-message', class: 'error', role: 'alert', hidden: true }),
      ),
      h(
        'div',
        { class: 'lobby-grid' },
        h(
          'section',
          { class: 'panel panel-create', 'aria-labelledby': 'create-title' },
          h('h2', { id: 'create-title' }, t('create.title')),
          h('div', { class: 'stack' }, form, computer.el),
        ),
        h(
          'div',
          { class: 'lobby-lists' },
          h(
            'section',
            { class: 'panel', 'aria-labelledby': 'open-title' },
            h('h2', { id: 'open-title' }, t('lobby.open_matches')),
            openBox,
          ),
          h(
            'section',
            { class: 'panel', 'aria-labelledby': 'live-title' },
            h('h2', { id: 'live-title' }, t('lobby.live_matches')),
            liveBox,
          ),
        ),
      ),
    ),
  );

  let touched = false;
  function selectGame(id) {
    const g = gameInfo(id);
    gameMeta.textContent = playersText(g);
    store(GAME_KEY, id);
    const build = () => {
      if (destroyed || gameSelect.value !== id) return;
      fields = optionFields(g);
      optionsBox.replaceChildren(fields.el);
    };
    build();
    computer.update(g);
    touched = false;
    // The game's own catalogue may name its options: rebuild once it is in, unless the
    // player has already started filling the form.
    const ns = catalogueOf(id);
    if (!ns) return;
    ensureNamespace(ns).then(() => {
      const named = Object.keys(g?.options_schema?.properties || {}).some((n) =>
        hasKey(`${ns}:options.${n}`),
      );
      if (named && !destroyed && !touched && gameSelect.value === id) build();
    });
  }

  optionsBox.addEventListener('input', () => (touched = true));
  optionsBox.addEventListener('change', () => (touched = true));

  gameSelect.addEventListener('change', () => selectGame(gameSelect.value));

  ensureGames().then((games) => {
    if (destroyed) return;
    if (!games.length) {
      gameSelect.append(h('option', { value: '' }, t('create.no_games')));
      gameSelect.disabled = true;
      return;
    }
    const last = load(GAME_KEY);
    for (const g of games) {
      gameSelect.append(h('option', { value: g.id, selected: g.id === last }, g.name || g.id));
    }
    submit.disabled = false;
    selectGame(gameSelect.value);
    // Game names in the lists may now be known.
    if (lastOpen) renderOpen(JSON.parse(lastOpen), true);
    if (lastLive) renderLive(JSON.parse(lastLive), true);
  });

  let creating = false;
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    if (creating || !gameSelect.value) return;
    if (!form.reportValidity()) return;
    creating = true;
    submit.disabled = true;
    clearError();
    try {
      const summary = await api.createMatch(gameSelect.value, fields ? fields.read() : {});
      location.hash = `#/match/${encodeURIComponent(summary.id)}`;
    } catch (err) {
      if (!destroyed) {
        showError(errorText(err));
        submit.disabled = false;
      }
    } finally {
      creating = false;
    }
  });

  // Keep keyboard focus on the same row button across list refreshes.
  function focusKey() {
    const a = document.activeElement;
    const row = a?.closest?.('[data-match-id]');
    if (!row) return null;
    return { id: row.dataset.matchId, testid: a.dataset.testid };
  }
  function restoreFocus(box, key) {
    if (!key) return;
    const row = [...box.querySelectorAll('[data-match-id]')].find((r) => r.dataset.matchId === key.id);
    const target = row?.querySelector(`[data-testid="${key.testid}"]`);
    if (target) target.focus();
  }

  function table(caption, headers, rows) {
    return h(
      'table',
      { class: 'matches' },
      h('caption', { class: 'sr-only' }, caption),
      h('thead', {}, h('tr', {}, headers.map((x) => h('th', { scope: 'col' }, x)))),
      h('tbody', {}, rows),
    );
  }

  async function join(id, btn) {
    btn.disabled = true;
    clearError();
    try {
      await api.join(id);
      location.hash = `#/match/${encodeURIComponent(id)}`;
    } catch (err) {
      if (destroyed) return;
      btn.disabled = false;
      showError(errorText(err));
      refresh();
    }
  }

  function renderOpen(list, force = false) {
    const key = JSON.stringify(list);
    if (!force && key === lastOpen) return;
    lastOpen = key;
    const focus = focusKey();
    openBox.removeAttribute('aria-busy');
    if (!list.length) {
      openBox.replaceChildren(h('p', { class: 'empty' }, t('lobby.no_open')));
      return;
    }
    const rows = list.map((m) => {
      const { filled, total } = seatsFilled(m);
      const mine = mySeat(m) !== null;
      const free = filled < total;
      const host = hostOf(m);
      const go = mine
        ? h('a', { class: 'btn btn-small', href: `#/match/${encodeURIComponent(m.id)}`, 'data-testid': 'enter' }, t('lobby.enter'))
        : h(
            'button',
            {
              type: 'button',
              class: 'btn btn-small btn-primary',
              'data-testid': 'join',
              disabled: !free,
              'aria-label': t('lobby.join_aria', { game: gameName(m.game, m), host: host?.name || '?' }),
            },
            t('lobby.join'),
          );
      if (!mine) go.addEventListener('click', () => join(m.id, go));
      const invite = h(
        'button',
        {
          type: 'button',
          class: 'btn btn-small btn-ghost',
          'data-testid': 'invite',
          'aria-label': t('invite.copy_aria', { game: gameName(m.game, m) }),
          onclick: () => copyInvite(m.id),
        },
        t('invite.copy'),
      );
      return h(
        'tr',
        { 'data-testid': 'open-match', 'data-match-id': m.id, class: mine ? 'mine' : null },
        h('td', { 'data-label': t('lobby.col_game') }, h('span', { class: 'game-name' }, gameName(m.game, m))),
        h('td', { 'data-label': t('lobby.col_host') }, host?.name || '—'),
        h(
          'td',
          { 'data-label': t('lobby.col_seats') },
          h('span', { class: 'seats-count', 'data-testid': 'seats' }, t('lobby.seats_filled', { filled, total })),
          botsAt(m),
        ),
        h('td', { class: 'actions' }, go, invite),
      );
    });
    openBox.replaceChildren(
      table(t('lobby.open_matches'), [t('lobby.col_game'), t('lobby.col_host'), t('lobby.col_seats'), h('span', { class: 'sr-only' }, t('lobby.col_actions'))], rows),
    );
    restoreFocus(openBox, focus);
  }

  function renderLive(list, force = false) {
    const key = JSON.stringify(list);
    if (!force && key === lastLive) return;
    lastLive = key;
    const focus = focusKey();
    liveBox.removeAttribute('aria-busy');
    if (!list.length) {
      liveBox.replaceChildren(h('p', { class: 'empty' }, t('lobby.no_live')));
      return;
    }
    const rows = list.map((m) => {
      const mine = mySeat(m) !== null;
      const names = (m.seats || []).map((s) => userName(s.user) || t('match.free_seat')).join(' · ');
      const nameNodes = (m.seats || []).flatMap((s, i) => [
        i ? ' · ' : '',
        userName(s.user) || t('match.free_seat'),
        isBot(s.user) ? botBadge(h, t) : '',
      ]);
      const href = `#/match/${encodeURIComponent(m.id)}`;
      const go = mine
        ? h('a', { class: 'btn btn-small btn-primary', href, 'data-testid': 'enter' }, t('lobby.return'))
        : h(
            'button',
            {
              type: 'button',
              class: 'btn btn-small',
              'data-testid': 'spectate',
              'aria-label': t('lobby.spectate_aria', { game: gameName(m.game, m), players: names }),
              onclick: () => {
                location.hash = href;
              },
            },
            t('lobby.spectate'),
          );
      return h(
        'tr',
        { 'data-testid': 'live-match', 'data-match-id': m.id, class: mine ? 'mine' : null },
        h('td', { 'data-label': t('lobby.col_game') }, h('span', { class: 'game-name' }, gameName(m.game, m))),
        h('td', { 'data-label': t('lobby.col_players') }, nameNodes),
        h('td', { class: 'actions' }, go),
      );
    });
    liveBox.replaceChildren(
      table(t('lobby.live_matches'), [t('lobby.col_game'), t('lobby.col_players'), h('span', { class: 'sr-only' }, t('lobby.col_actions'))], rows),
    );
    restoreFocus(liveBox, focus);
  }

  async function refresh() {
    if (destroyed || inflight) return;
    inflight = true;
    try {
      const [open, live] = await Promise.allSettled([api.matches('open'), api.matches('live')]);
      if (destroyed) return;
      if (open.status === 'fulfilled') renderOpen(Array.isArray(open.value) ? open.value : []);
      if (live.status === 'fulfilled') renderLive(Array.isArray(live.value) ? live.value : []);
      const failed = [open, live].find((r) => r.status === 'rejected');
      if (failed && failed.reason?.status !== 401) {
        const box = document.getElementById('lobby-offline');
        if (!box) {
          openBox.before(h('p', { id: 'lobby-offline', class: 'warn', role: 'status' }, t('lobby.offline')));
        }
      } else {
        document.getElementById('lobby-offline')?.remove();
      }
    } finally {
      inflight = false;
    }
  }

  refresh();
  timer = setInterval(() => {
    if (!document.hidden) refresh();
  }, LOBBY_REFRESH_MS);
  const onVisible = () => {
    if (!document.hidden) refresh();
  };
  document.addEventListener('visibilitychange', onVisible);

  return {
    destroy() {
      destroyed = true;
      clearInterval(timer);
      document.removeEventListener('visibilitychange', onVisible);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Screen: Párbaj deck builder (its own module, loaded on first visit)
// ---------------------------------------------------------------------------------------------
// Tournaments (static/tournaments.js, loaded on first use with its message catalogue).
function tournamentsScreen(main, route) {
  let page = null;
  let gone = false;
  main.append(h('p', { class: 'muted loading' }, t('common.loading')));
  Promise.all([import('./tournaments.js'), ensureNamespace('tournaments')])
    .then(([mod]) => {
      if (gone) return;
      main.replaceChildren();
      page = mod.mount(main, { ...shell, t: translatorFor('tournaments'), route, optionFields, ensureNamespace });
    })
    .catch((err) => {
      console.error(err);
      if (!gone) showError(errorText(err));
    });
  return {
    destroy() {
      gone = true;
      page?.destroy();
    },
  };
}

// The balance lab (organisers and admins), loaded on first visit: static/lab.js.
function labPage(main) {
  let screen = null;
  let gone = false;
  import('./lab.js').then((mod) => {
    if (!gone) screen = mod.labScreen(main, shell);
  });
  return {
    destroy() {
      gone = true;
      screen?.destroy();
    },
  };
}

function decksScreen(main) {
  let page = null;
  let gone = false;
  main.append(h('p', { class: 'muted loading' }, t('common.loading')));
  Promise.all([import('./parbaj_decks.js'), ensureNamespace('parbaj')])
    .then(([mod]) => {
      if (gone) return;
      main.replaceChildren();
      page = mod.mount(main, { t: translatorFor('parbaj'), lang: getLanguage() });
      const heading = main.querySelector('h1');
      const active = document.activeElement;
      if (heading && (!active || active === document.body || !document.contains(active))) {
        heading.setAttribute('tabindex', '-1');
        heading.focus({ preventScroll: true });
      }
    })
    .catch((err) => {
      console.error(err);
      if (!gone) main.replaceChildren(h('p', { class: 'error', role: 'alert' }, t('error.generic')));
    });
  return {
    destroy() {
      gone = true;
      page?.destroy();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Screen 3: match
// ---------------------------------------------------------------------------------------------
function formatClock(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const m = Math.floor(s / 60);
  const r = String(s % 60).padStart(2, '0');
  if (m >= 60) return `${Math.floor(m / 60)}:${String(m % 60).padStart(2, '0')}:${r}`;
  return `${m}:${r}`;
}

function resultInfo(result, seat, nameOfSeat) {
  if (!result) return null;
  const places = result.places || {};
  let winner = result.winner ?? null;
  if (!winner && !result.draw) {
    const firsts = Object.keys(places).filter((s) => places[s] === 1);
    if (firsts.length === 1) winner = firsts[0];
  }
  if (result.draw) return { kind: 'draw', text: t('result.draw') };
  if (winner && seat && winner === seat) return { kind: 'win', text: t('result.you_won') };
  if (winner) return { kind: seat ? 'loss' : 'other', text: t('result.player_won', { name: nameOfSeat(winner) }) };
  if (seat && places[seat]) return { kind: places[seat] === 1 ? 'win' : 'loss', text: t('result.your_place', { place: places[seat] }) };
  return { kind: 'other', text: t('result.over') };
}

function matchScreen(main, matchId) {
  const m = {
    id: matchId,
    summary: null,
    view: null,
    version: -1,
    socket: null,
    connStatus: null,
    board: null,
    boardSeat: undefined,
    boardLoading: null,
    boardToken: 0,
    destroyed: false,
    pollTimer: null,
    clockTimer: null,
    offlineTimer: null,
    joining: false,
    starting: false,
    resignConfirm: false,
    unsubs: [],
    post: postMatch(shell, matchId), // rematch / play again / report, once finished
  };

  // ---- skeleton -----------------------------------------------------------------------------
  const els = {};
  function buildSkeleton() {
    els.title = h('h1', { id: 'match-title' }, t('common.loading'));
    els.status = h('p', { id: 'match-status', class: 'match-status', role: 'status' });
    els.turn = h('p', { id: 'turn-indicator', class: 'turn', 'aria-live': 'polite' });
    els.conn = h('div', { id: 'conn-banner', class: 'conn-banner', role: 'status', hidden: true });
    els.result = h('div', { id: 'result-banner', class: 'result-banner', hidden: true, 'aria-live': 'polite' });
    els.error = h('p', { id: 'error-message', class: 'error', role: 'alert', hidden: true });
    els.players = h('ul', { id: 'players-list', class: 'players' });
    els.sideActions = h('div', { class: 'side-actions' });
    els.boardHost = h('section', { id: 'board', class: 'panel board-panel', 'aria-labelledby': 'match-title' });
    const back = h('a', { id: 'back-to-lobby', class: 'btn btn-ghost btn-small', href: '#/' }, t('match.back'));
    main.replaceChildren(
      h(
        'div',
        { class: 'match' },
        h(
          'div',
          { class: 'match-head' },
          h('div', { class: 'match-head-row' }, back, els.status),
          els.title,
          els.conn,
          els.result,
          m.post.el,
          els.error,
          els.turn,
        ),
        h(
          'div',
          { class: 'match-grid' },
          els.boardHost,
          h(
            'aside',
            { class: 'panel match-side', 'aria-labelledby': 'players-title' },
            h('h2', { id: 'players-title' }, t('match.players')),
            els.players,
            els.sideActions,
          ),
        ),
      ),
    );
  }
  buildSkeleton();

  const seatName = (seat) => {
    const p = players().find((x) => x.seat === seat);
    return userName(p?.user) || t('match.seat', { seat });
  };

  function players() {
    if (status() === 'open' || !m.view) return allSeats(m.summary);
    if (Array.isArray(m.view?.players) && m.view.players.length) return m.view.players;
    return m.summary?.seats || [];
  }

  function status() {
    return m.view?.status || m.summary?.status || null;
  }

  function game() {
    return m.view?.game || m.summary?.game || null;
  }

  function seat() {
    if (m.view && 'seat' in m.view) return m.view.seat ?? null;
    return mySeat(m.summary);
  }

  function isOver() {
    const s = status();
    return s === 'finished' || s === 'aborted' || !!m.view?.result;
  }

  // ---- rendering ----------------------------------------------------------------------------
  function renderTitle() {
    const g = game();
    els.title.replaceChildren(
      g ? gameName(g, m.summary) : t('common.loading'),
      h('span', { class: 'match-id', title: m.id }, ` · ${String(m.id).slice(0, 8)}`),
    );
  }

  function renderStatus() {
    const s = status();
    els.status.dataset.status = s || '';
    els.status.replaceChildren(
      s ? h('span', { class: `status-pill status-${s}` }, statusText(s)) : t('common.loading'),
    );
  }

  function deadlines() {
    const out = {};
    const v = m.view;
    if (!v || isOver()) return out;
    if (v.deadlines && typeof v.deadlines === 'object') Object.assign(out, v.deadlines);
    if (v.deadline && !Object.keys(out).length) {
      for (const p of v.pending || []) out[p] = v.deadline;
    }
    return out;
  }

  function renderPlayers() {
    const me = seat();
    const pending = isOver() ? [] : m.view?.pending || [];
    const host = hostOf(m.summary);
    const dls = deadlines();
    const list = players();
    els.players.replaceChildren(
      ...list.map((p) => {
        const name = userName(p.user);
        const isHost = host && p.user && p.user.id === host.id;
        const dl = dls[p.seat];
        return h(
          'li',
          {
            class: `player${pending.includes(p.seat) ? ' pending' : ''}${p.seat === me ? ' me' : ''}${name ? '' : ' empty'}`,
            'data-seat': p.seat,
            'data-testid': 'player',
          },
          h('span', { class: 'seat-badge', 'aria-label': t('match.seat', { seat: p.seat }) }, p.seat),
          h(
            'span',
            { class: 'player-name' },
            name || t('match.free_seat'),
            p.seat === me ? h('span', { class: 'tag' }, t('match.you')) : null,
            isHost ? h('span', { class: 'tag tag-host' }, t('match.host')) : null,
            isBot(p.user) ? botBadge(h, t) : null,
          ),
          pending.includes(p.seat)
            ? h('span', { class: 'to-move', title: t('match.to_move') }, h('span', { class: 'sr-only' }, t('match.to_move')))
            : null,
          dl ? h('span', { class: 'clock', 'data-deadline': dl }, formatClock(Date.parse(dl) - Date.now())) : null,
        );
      }),
    );
    if (!list.length) els.players.append(h('li', { class: 'muted' }, t('common.loading')));
  }

  function tickClocks() {
    for (const el of els.players.querySelectorAll('[data-deadline]')) {
      const left = Date.parse(el.dataset.deadline) - Date.now();
      el.textContent = formatClock(left);
      el.classList.toggle('low', left < 10000);
    }
  }

  function renderTurn() {
    const me = seat();
    const s = status();
    let text = '';
    let cls = 'turn';
    if (s === 'live' && m.view && !isOver()) {
      const pending = m.view.pending || [];
      if (me && pending.includes(me)) {
        text = t('match.your_move');
        cls += ' turn-mine';
      } else if (pending.length) {
        text = t('match.waiting_for', { seats: pending.map(seatName).join(', ') });
      }
      if (!me) text = [t('match.spectating'), text].filter(Boolean).join(' — ');
    } else if (s === 'open' && !me) {
      text = t('match.spectating');
    }
    els.turn.className = cls;
    els.turn.textContent = text;
    els.turn.hidden = !text;
  }

  function renderResult() {
    const s = status();
    const r = m.view?.result || m.summary?.result || null;
    m.post.update({ view: m.view, summary: m.summary, seat: seat() });
    if (s === 'aborted' && !r) {
      els.result.hidden = false;
      els.result.className = 'result-banner result-other';
      const why = m.view?.abort_reason;
      els.result.replaceChildren(h('strong', {}, t(why === 'tournament_cancelled' ? 'result.aborted_tournament_cancelled' : 'result.aborted')));
      return;
    }
    if (!r) {
      els.result.hidden = true;
      els.result.replaceChildren();
      return;
    }
    const info = resultInfo(r, seat(), seatName);
    els.result.hidden = false;
    els.result.className = `result-banner result-${info.kind}`;
    els.result.dataset.result = info.kind;
    // Reasons are shown only when a catalogue (core or the game's) has words for them.
    const reason = r.reason ? t(`reason.${r.reason}`, null, { ns: catalogueOf(game()), fallback: '' }) : '';
    els.result.replaceChildren(
      seal('result-seal'),
      h(
        'span',
        { class: 'result-text' },
        h('strong', {}, info.text),
        reason ? h('span', { class: 'result-reason' }, reason) : null,
        // Checked in this browser: the revealed server seed against its commitment and the
        // deal's derivation (static/fair_deal.js).
        fairMark(shell, { matchId: m.id, fairness: m.view?.fairness || m.summary?.fairness, seat: seat() }),
      ),
      h('a', { class: 'btn btn-small', href: '#/' }, t('match.back')),
    );
  }

  function renderConn() {
    const st = m.connStatus;
    const el = els.conn;
    el.dataset.state = st || 'idle';
    if (st === 'reconnecting') {
      el.hidden = false;
      el.className = 'conn-banner conn-reconnecting';
      el.replaceChildren(
        h('span', {}, t('conn.reconnecting')),
        h(
          'button',
          { type: 'button', id: 'conn-retry', class: 'btn btn-small btn-ghost', onclick: () => m.socket?.reconnectNow() },
          t('conn.retry'),
        ),
      );
    } else if (st === 'fatal') {
      el.hidden = false;
      el.className = 'conn-banner conn-fatal';
      el.textContent = t('conn.lost');
    } else if (st === 'connecting' && m.slowConnect) {
      el.hidden = false;
      el.className = 'conn-banner conn-reconnecting';
      el.textContent = t('conn.connecting');
    } else {
      el.hidden = true;
      el.textContent = st === 'connected' ? t('conn.connected') : '';
    }
  }

  function renderSideActions() {
    const box = els.sideActions;
    const focusId = box.contains(document.activeElement) ? document.activeElement.id : null;
    box.replaceChildren();
    const me = seat();
    const s = status();
    if (s === 'live' && me && !isOver() && m.socket) {
      if (!m.resignConfirm) {
        box.append(
          h(
            'button',
            {
              type: 'button',
              id: 'resign-button',
              class: 'btn btn-ghost btn-small',
              onclick: () => {
                m.resignConfirm = true;
                renderSideActions();
                document.getElementById('resign-confirm')?.focus();
              },
            },
            t('match.resign'),
          ),
        );
      } else {
        box.append(
          h(
            'div',
            { class: 'confirm', role: 'group', 'aria-labelledby': 'resign-q' },
            h('p', { id: 'resign-q' }, t('match.resign_confirm')),
            h(
              'button',
              {
                type: 'button',
                id: 'resign-confirm',
                class: 'btn btn-primary btn-small',
                onclick: () => {
                  m.resignConfirm = false;
                  renderSideActions();
                  ctxAct({ type: 'resign' }).catch(() => {});
                },
              },
              t('match.resign_yes'),
            ),
            h(
              'button',
              {
                type: 'button',
                class: 'btn btn-ghost btn-small',
                onclick: () => {
                  m.resignConfirm = false;
                  renderSideActions();
                  document.getElementById('resign-button')?.focus();
                },
              },
              t('common.cancel'),
            ),
          ),
        );
      }
    }
    box.append(
      h(
        'button',
        { type: 'button', id: 'invite-button', class: 'btn btn-ghost btn-small', onclick: () => copyInvite(m.id) },
        t('invite.copy'),
      ),
    );
    if (focusId) document.getElementById(focusId)?.focus();
  }

  // The host's "Add computer" (static/bots.js): made once per screen, so the chosen level and
  // the focus survive the waiting room's redraws.
  function addComputer(sm) {
    if (!m.addComputer) {
      m.addComputer = addComputerControl({
        h,
        t,
        matchId: m.id,
        game: sm.game,
        onAdded: (summary) => {
          if (m.destroyed) return;
          clearError();
          if (summary && summary.id) applySummary(summary);
        },
        onError: (err) => {
          if (m.destroyed) return;
          showError(errorText(err));
          pollSummary();
        },
      });
    }
    return m.addComputer;
  }

  function renderWaiting() {
    const sm = m.summary;
    if (!sm) return;
    const me = mySeat(sm);
    const { filled, total } = seatsFilled(sm);
    const info = gameInfo(sm.game, sm);
    const host = hostOf(sm);
    const isHost = !!(host && app.me && host.id === app.me.id);
    const canJoin = sm.status === 'open' && !me && filled < total;
    // A table whose size was chosen (options.seats) starts by itself when full: no Start.
    const fixedTable = Number.isInteger(sm.options?.seats);
    const rangeGame = info ? info.min_players < info.max_players && !fixedTable : false;
    const minPlayers = info ? info.min_players : total;

    const linkId = 'invite-link';
    const linkInput = h('input', { id: linkId, type: 'text', readonly: true, class: 'invite-input' });
    linkInput.value = inviteLink(m.id);
    linkInput.addEventListener('focus', () => linkInput.select());

    const buttons = [];
    if (canJoin) {
      const b = h(
        'button',
        { type: 'button', id: 'join-button', class: 'btn btn-primary', disabled: m.joining },
        t('match.join'),
      );
      b.addEventListener('click', doJoin);
      buttons.push(b);
    }
    if (me && sm.status === 'open') {
      const b = h(
        'button',
        { type: 'button', id: 'leave-button', class: 'btn btn-ghost', disabled: m.leaving },
        t('match.leave'),
      );
      b.addEventListener('click', doLeave);
      buttons.push(b);
    }
    if (isHost && rangeGame && sm.status === 'open') {
      const enough = filled >= minPlayers;
      const b = h(
        'button',
        {
          type: 'button',
          id: 'start-button',
          class: 'btn btn-primary',
          disabled: !enough || m.starting,
          'aria-describedby': enough ? null : 'start-help',
        },
        t('match.start'),
      );
      b.addEventListener('click', doStart);
      buttons.push(b);
      if (!enough) buttons.push(h('p', { id: 'start-help', class: 'help' }, t('match.start_needs', { count: minPlayers })));
    }

    const focusId = document.activeElement?.id;
    els.boardHost.replaceChildren(
      h(
        'div',
        { class: 'waiting', 'data-testid': 'waiting-room' },
        h('div', { class: 'enso enso-small', 'aria-hidden': 'true' }),
        h('h2', {}, t('match.waiting_title')),
        h('p', { class: 'lead' }, t('match.waiting_count', { filled, total })),
        playersText(info) ? h('p', { class: 'muted' }, playersText(info)) : null,
        me ? h('p', {}, t(rangeGame ? 'match.waiting_seated_range' : 'match.waiting_seated', { seat: me })) : null,
        buttons.length ? h('div', { class: 'button-row' }, buttons) : null,
        isHost && sm.status === 'open' && filled < total ? addComputer(sm).el : null,
        h(
          'div',
          { class: 'field invite-field' },
          h('label', { for: linkId }, t('invite.label')),
          h(
            'div',
            { class: 'input-row' },
            linkInput,
            h('button', { type: 'button', class: 'btn btn-small', id: 'invite-copy', onclick: () => copyInvite(m.id) }, t('invite.copy')),
          ),
        ),
      ),
    );
    if (focusId) document.getElementById(focusId)?.focus();
  }

  function renderAll() {
    renderTitle();
    renderStatus();
    renderPlayers();
    renderTurn();
    renderResult();
    renderConn();
    renderSideActions();
  }

  // ---- actions ------------------------------------------------------------------------------
  async function doJoin() {
    if (m.joining) return;
    m.joining = true;
    clearError();
    renderWaiting();
    try {
      const sm = await api.join(m.id);
      m.joining = false;
      if (sm && sm.id) applySummary(sm);
      else await pollSummary();
    } catch (err) {
      m.joining = false;
      if (m.destroyed) return;
      showError(errorText(err));
      await pollSummary();
    }
    if (!m.destroyed && status() === 'open') {
      renderWaiting();
      document.getElementById('start-button')?.focus();
    }
  }

  async function doLeave() {
    if (m.leaving) return;
    m.leaving = true;
    clearError();
    try {
      await api.leave(m.id);
      location.hash = '#/';
    } catch (err) {
      m.leaving = false;
      if (m.destroyed) return;
      showError(errorText(err));
      await pollSummary();
      if (status() === 'open') renderWaiting();
    }
  }

  async function doStart() {
    if (m.starting) return;
    m.starting = true;
    clearError();
    renderWaiting();
    try {
      const sm = await api.start(m.id);
      m.starting = false;
      if (sm && sm.id) applySummary(sm);
      else await pollSummary();
    } catch (err) {
      m.starting = false;
      if (m.destroyed) return;
      showError(errorText(err));
      if (status() === 'open') renderWaiting();
    }
  }

  function ctxAct(action) {
    clearError();
    if (!m.socket) {
      const err = { code: 'not_connected', message: t('error.not_connected') };
      showError(t('match.rejected', { reason: errorText(err) }));
      return Promise.reject(err);
    }
    return m.socket.act(action).catch((err) => {
      if (!m.destroyed && err?.code !== 'closed') {
        showError(t('match.rejected', { reason: errorText(err) }));
      }
      throw err;
    });
  }

  // ---- data flow ----------------------------------------------------------------------------
  async function pollSummary() {
    try {
      const sm = await api.match(m.id);
      if (!m.destroyed) applySummary(sm);
    } catch (err) {
      if (m.destroyed) return;
      if (err?.status === 404) notFound();
      else if (err?.status !== 401) showError(errorText(err));
    }
  }

  function notFound() {
    stopPolling();
    els.title.textContent = t('match.not_found_title');
    els.status.textContent = '';
    els.boardHost.replaceChildren(
      h('div', { class: 'waiting' }, h('p', { class: 'lead' }, t('match.not_found')), h('a', { class: 'btn btn-primary', href: '#/' }, t('match.back'))),
    );
  }

  function applySummary(sm) {
    const first = !m.summary;
    const key = JSON.stringify(sm);
    if (!first && key === m.summaryKey && !m.view) return; // nothing new while waiting
    m.summaryKey = key;
    m.summary = sm;
    noteFairness(m.id, sm.fairness); // the commitment, remembered while the match is live
    if (first && sm.game) {
      ensureGames()
        .then(() => catalogueOf(sm.game) && ensureNamespace(catalogueOf(sm.game)))
        .then(() => {
          // The result's reason may be worded by the game's catalogue (e.g. combat's
          // reason.cards_out): say it now that the strings are in.
          if (!m.destroyed) renderResult();
          if (!m.destroyed && m.view && m.board) {
            // Strings of the game's namespace just arrived: redraw the board with them.
            m.board.update(m.view);
          }
        })
        .catch(() => {}); // a 401 signs the player out through the shell (onUnauthorized)
    }
    if (!m.view) {
      renderAll();
      if (sm.status === 'open') {
        renderWaiting();
        startPolling();
      }
    }
    if (sm.status !== 'open') {
      stopPolling();
      startLive();
    }
  }

  function startPolling() {
    if (m.pollTimer) return;
    m.pollTimer = setInterval(() => {
      if (!document.hidden) pollSummary();
    }, WAITING_REFRESH_MS);
  }

  function stopPolling() {
    clearInterval(m.pollTimer);
    m.pollTimer = null;
  }

  function startLive() {
    if (m.socket || m.destroyed) return;
    if (!m.view) {
      els.boardHost.replaceChildren(h('p', { class: 'muted loading' }, t('match.loading_board')));
    }
    // A first picture over HTTP (also covers finished matches and a missing websocket).
    fetchView();
    const sock = new MatchSocket(m.id, { token: getToken() });
    m.socket = sock;
    m.unsubs.push(
      sock.on('view', (doc) => applyView(doc, true)),
      sock.on('status', (st) => {
        m.connStatus = st;
        if (st === 'connected') m.slowConnect = false;
        renderConn();
        if (st === 'reconnecting' && !m.offlineTimer) {
          m.offlineTimer = setInterval(fetchView, OFFLINE_VIEW_REFRESH_MS);
        } else if (st !== 'reconnecting' && m.offlineTimer) {
          clearInterval(m.offlineTimer);
          m.offlineTimer = null;
        }
      }),
      sock.on('error', (err) => {
        if (!m.destroyed) showError(errorText(err));
      }),
      sock.on('fatal', (err) => {
        if (m.destroyed) return;
        if (err.code === 'unauthorized') {
          clearToken();
          app.me = null;
          render();
          return;
        }
        if (err.code === 'not_found' && m.summary && m.summary.status !== 'live') {
          archived();
          return;
        }
        showError(errorText(err));
        renderSideActions();
      }),
    );
    setTimeout(() => {
      if (!m.destroyed && m.connStatus === 'connecting') {
        m.slowConnect = true;
        renderConn();
      }
    }, 1500);
    sock.connect();
  }

  async function fetchView() {
    try {
      const doc = await api.view(m.id);
      if (!m.destroyed && doc) applyView(doc, false);
    } catch (err) {
      if (m.destroyed) return;
      if (err?.status === 404) {
        if (m.summary && m.summary.status !== 'live' && m.summary.status !== 'open') archived();
        else notFound();
      }
    }
  }

  /** A finished match whose live document is gone: the summary (from history) is all. */
  function archived() {
    if (m.view) return;
    if (m.socket) {
      m.socket.close();
      m.socket = null;
    }
    renderAll();
    els.boardHost.replaceChildren(
      h('div', { class: 'waiting' }, h('p', { class: 'lead' }, t('match.archived'))),
    );
  }

  function applyView(doc, fromSocket) {
    if (m.destroyed || !doc || typeof doc !== 'object') return;
    doc = withBotNames(t, doc); // boards show computer players' names in the reader's language
    const version = typeof doc.version === 'number' ? doc.version : null;
    if (version !== null) {
      if (version < m.version) return;
      if (!fromSocket && version === m.version) return;
      m.version = version;
    }
    m.view = doc;
    noteFairness(m.id, doc.fairness);
    if (m.summary && doc.status) m.summary = { ...m.summary, status: doc.status };
    if (isOver() && m.socket) m.socket.settle();
    if (doc.status === 'open') {
      // Not started yet (a server may send views while open): keep the waiting room.
      renderAll();
      renderWaiting();
      startPolling();
      return;
    }
    renderAll();
    if (doc.state === null || doc.state === undefined) {
      // Ended before it began (everyone left): nothing to draw.
      if (!m.board) {
        els.boardHost.replaceChildren(
          h('div', { class: 'waiting' }, h('p', { class: 'lead' }, t('match.no_board'))),
        );
      }
      return;
    }
    mountOrUpdateBoard(doc);
  }

  function mountOrUpdateBoard(doc) {
    const viewSeat = doc.seat ?? null;
    if (m.board && m.boardSeat === viewSeat) {
      try {
        m.board.update(doc);
      } catch (err) {
        console.error('board update failed', err);
      }
      return;
    }
    if (m.boardLoading) return; // the mount in flight picks up m.view when done
    const token = ++m.boardToken;
    const gameId = doc.game || game();
    const loading = loadBoard(gameId)
      .then((board) => {
        if (m.destroyed || token !== m.boardToken) return;
        destroyBoard();
        els.boardHost.replaceChildren();
        const host = h('div', { class: 'board-host', 'data-game': gameId });
        els.boardHost.append(host);
        const current = m.view;
        const ctx = {
          t: translatorFor(board.ns),
          act: ctxAct,
          seat: current.seat ?? null,
          matchId: m.id,
          lang: getLanguage(),
          game: gameId,
        };
        try {
          m.board = board.mount(host, ctx);
          m.boardSeat = ctx.seat;
          m.board.update(current);
        } catch (err) {
          console.error('board mount failed', err);
          showError(t('error.board'));
        }
      })
      .finally(() => {
        if (m.boardLoading !== loading) return;
        m.boardLoading = null;
        if (!m.destroyed && m.view && m.board && m.view.seat !== undefined && (m.view.seat ?? null) !== m.boardSeat) {
          mountOrUpdateBoard(m.view);
        }
      });
    m.boardLoading = loading;
  }

  function destroyBoard() {
    if (m.board) {
      try {
        m.board.destroy();
      } catch (err) {
        console.error('board destroy failed', err);
      }
    }
    m.board = null;
    m.boardSeat = undefined;
  }

  // ---- start --------------------------------------------------------------------------------
  ensureGames().then(() => {
    if (!m.destroyed) renderTitle();
  });
  pollSummary();
  // A small handle for browser tests and the console: the same act() the board gets.
  window.duelhall = {
    matchId: m.id,
    act: ctxAct,
    view: () => m.view,
    connection: () => m.connStatus,
    reconnect: () => m.socket?.reconnectNow(),
  };
  m.clockTimer = setInterval(tickClocks, 1000);

  return {
    relabel() {
      // Language changed: rebuild the chrome and remount the board with the new strings.
      destroyBoard();
      m.boardToken++;
      m.boardLoading = null;
      m.addComputer = null; // rebuilt with the new language's labels
      if (m.view) m.view = withBotNames(t, m.view);
      buildSkeleton();
      renderAll();
      if (m.view && status() !== 'open') mountOrUpdateBoard(m.view);
      else if (m.summary) renderWaiting();
    },
    destroy() {
      m.destroyed = true;
      m.post.destroy();
      if (window.duelhall?.matchId === m.id) delete window.duelhall;
      stopPolling();
      clearInterval(m.clockTimer);
      clearInterval(m.offlineTimer);
      for (const u of m.unsubs) u();
      if (m.socket) m.socket.close();
      m.socket = null;
      destroyBoard();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Boot
// ---------------------------------------------------------------------------------------------
async function boot() {
  const main = root();
  await ensureNamespace('core');
  onUnauthorized(() => {
    if (!app.booted) return;
    const had = !!app.me;
    app.me = null;
    if (had) render();
  });
  if (getToken()) {
    for (;;) {
      try {
        app.me = await api.me();
        break;
      } catch (err) {
        if (err?.status === 401 || err?.code === 'suspended') {
          // A suspended account's token is dropped too: the sign-in screen then says why.
          if (err?.code === 'suspended') clearToken();
          app.me = null;
          break;
        }
        // Server unreachable: say so and retry.
        renderHeader();
        main.replaceChildren(
          h(
            'section',
            { class: 'panel panel-welcome' },
            h('h1', {}, t('boot.offline_title')),
            h('p', { id: 'error-message', class: 'error', role: 'alert' }, errorText(err)),
            h('p', { class: 'muted' }, t('boot.retrying')),
          ),
        );
        await new Promise((r) => setTimeout(r, 3000));
      }
    }
  }
  app.booted = true;
  window.addEventListener('hashchange', () => render());
  onLanguageChange(() => {
    renderHeader();
    if (app.screen?.relabel) {
      app.screen.relabel();
    } else {
      render({ focus: false });
    }
    document.getElementById('lang-select')?.focus();
  });
  render();
}

boot();

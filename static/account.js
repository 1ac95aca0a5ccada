// Accounts in the browser client.
//
//   signInPanel(main, shell)      "Log in / Register" next to the guest name form
//   headerLinks(shell)            header links: My profile, Leaderboards, Admin (admins only)
//   accountMenu(shell)            the account menu of a registered player: change password, log out
//   postMatch(shell, matchId)     under a finished match: Rematch (and the opponent's offer),
//                                 Play again, Report this match
//
// `shell` comes from app.js: {h, t, errorText, toast, me(), signIn(token, user), signOut(),
// render(), ensureGames(), gameName(id), lang()}. The token stays where api.js keeps it
// (localStorage). Every user-facing string goes through shell.t (static/i18n/<lang>/core.json).

import { request, getToken, setToken, getDeviceToken, setDeviceToken, withSeed } from './api.js';

const enc = encodeURIComponent;
// The server's rule (app/api/schemas.py): \w, then \w, space, . ' - _; 1-24 characters.
const NAME_RE = /^[\p{L}\p{M}\p{N}\p{Pc}][\p{L}\p{M}\p{N}\p{Pc} .'-]*$/u;
const PASSWORD_MIN = 8;
const OFFER_POLL_MS = 5000; // a rematch offer also arrives by polling, should the socket be gone
const PASSWORD_MAX = 128;

export function isGuest(user) {
  return !user || user.guest !== false;
}

export function isAdmin(user) {
  return !!user && user.role === 'admin';
}

/** Fold runs of spaces like the server does. */
export function foldName(raw) {
  return String(raw || '').trim().split(/\s+/).filter(Boolean).join(' ');
}

/**
 * POST without api.js's "401 = signed out" handling: on these routes a 401 means a wrong
 * name or password, not an expired session. Throws {status, code, message}.
 */
async function send(path, body, { auth = false } = {}) {
  const headers = { Accept: 'application/json', 'Content-Type': 'application/json' };
  const token = getToken();
  if (auth && token) headers.Authorization = `Bearer ${token}`;
  let res;
  try {
    res = await fetch(path, { method: 'POST', headers, body: JSON.stringify(body) });
  } catch (err) {
    throw { status: 0, code: 'network_error', message: err?.message || '' };
  }
  let data = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  if (!res.ok) {
    const e = data && data.error;
    throw { status: res.status, code: (e && e.code) || `http_${res.status}`, message: (e && e.message) || '' };
  }
  return data;
}

/**
 * The words for a failed account call: our translation of the server's sentence when the
 * catalogue has one for this code (per context first), else the server's own error.message.
 */
export function accountErrorText(shell, err, context) {
  const code = err?.code || 'error';
  if (code === 'network_error') return shell.errorText(err);
  const own =
    shell.t(`account.error.${context}_${code}`, null, { fallback: '' }) ||
    shell.t(`account.error.${code}`, null, { fallback: '' });
  return own || err?.message || shell.errorText(err);
}

function checkName(shell, name) {
  if (!name) return shell.t('account.name_required');
  if (name.length > 24 || !NAME_RE.test(name)) return shell.t('account.name_invalid');
  return null;
}

function checkPassword(shell, pw) {
  if (pw.length < PASSWORD_MIN || pw.length > PASSWORD_MAX) {
    return shell.t('account.password_length', { min: PASSWORD_MIN, max: PASSWORD_MAX });
  }
  return null;
}

function setAlert(el, text) {
  el.textContent = text || '';
  el.hidden = !text;
}

// ---------------------------------------------------------------------------------------------
// Sign in / register (under the guest form of the name screen)
// ---------------------------------------------------------------------------------------------
export function signInPanel(main, shell) {
  const { h, t } = shell;
  let mode = 'login';
  let busy = false;

  const name = h('input', {
    id: 'account-name',
    name: 'username',
    type: 'text',
    autocomplete: 'username',
    maxlength: '24',
    required: true,
    spellcheck: 'false',
  });
  const pw = h('input', {
    id: 'account-password',
    name: 'password',
    type: 'password',
    autocomplete: 'current-password',
    maxlength: String(PASSWORD_MAX),
    required: true,
    'aria-describedby': 'account-password-help',
  });
  const pw2 = h('input', {
    id: 'account-password2',
    name: 'password2',
    type: 'password',
    autocomplete: 'new-password',
    maxlength: String(PASSWORD_MAX),
  });
  const pwHelp = h('p', { id: 'account-password-help', class: 'help' });
  const confirmField = h(
    'div',
    { class: 'field', id: 'account-confirm-field' },
    h('label', { for: 'account-password2' }, t('account.password_confirm')),
    pw2,
  );
  const error = h('p', { id: 'account-error', class: 'error', role: 'alert', hidden: true });
  const submit = h('button', { id: 'account-submit', type: 'submit', class: 'btn btn-primary' });
  const modeLogin = h('button', { type: 'button', id: 'account-mode-login', class: 'seg-btn' }, t('account.login_tab'));
  const modeRegister = h(
    'button',
    { type: 'button', id: 'account-mode-register', class: 'seg-btn' },
    t('account.register_tab'),
  );
  const intro = h('p', { class: 'muted small', id: 'account-intro' });

  function setMode(next) {
    mode = next;
    modeLogin.setAttribute('aria-pressed', String(mode === 'login'));
    modeRegister.setAttribute('aria-pressed', String(mode === 'register'));
    confirmField.hidden = mode !== 'register';
    pw2.required = mode === 'register';
    pw.setAttribute('autocomplete', mode === 'register' ? 'new-password' : 'current-password');
    submit.textContent = mode === 'register' ? t('account.register_submit') : t('account.login_submit');
    intro.textContent = mode === 'register' ? t('account.register_intro') : t('account.login_intro');
    pwHelp.textContent = mode === 'register' ? t('account.password_help', { min: PASSWORD_MIN }) : '';
    pwHelp.hidden = mode !== 'register';
    setAlert(error, '');
  }
  modeLogin.addEventListener('click', () => setMode('login'));
  modeRegister.addEventListener('click', () => setMode('register'));

  const form = h(
    'form',
    { id: 'account-form', class: 'stack', novalidate: true },
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'account-name' }, t('account.name')),
      name,
    ),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'account-password' }, t('account.password')),
      pw,
      pwHelp,
    ),
    confirmField,
    submit,
  );

  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    if (busy) return;
    const n = foldName(name.value);
    const problem = checkName(shell, n) || (mode === 'register' || pw.value ? checkPassword(shell, pw.value) : t('account.password_required'));
    if (problem) {
      setAlert(error, problem);
      (checkName(shell, n) ? name : pw).focus();
      return;
    }
    if (mode === 'register' && pw.value !== pw2.value) {
      setAlert(error, t('account.password_mismatch'));
      pw2.focus();
      return;
    }
    busy = true;
    submit.disabled = true;
    setAlert(error, '');
    try {
      const path = mode === 'register' ? '/api/auth/register' : '/api/auth/login';
      const body = { name: n, password: pw.value };
      const device = mode === 'login' ? getDeviceToken(n) : null;
      if (device) body.device_token = device;
      const res = await send(path, body);
      setDeviceToken(res.user?.name || n, res.device_token);
      shell.signIn(res.token, { ...res.user, guest: false });
    } catch (err) {
      busy = false;
      submit.disabled = false;
      setAlert(error, accountErrorText(shell, err, mode));
      (err?.code === 'name_taken' ? name : pw).focus();
    }
  });

  main.append(
    h(
      'section',
      { class: 'panel panel-account', 'aria-labelledby': 'account-title', 'data-testid': 'account-panel' },
      h('h2', { id: 'account-title' }, t('account.title')),
      h('div', { class: 'seg', role: 'group', 'aria-label': t('account.mode_label') }, modeLogin, modeRegister),
      intro,
      form,
      error,
    ),
  );
  setMode('login');
  return {
    destroy() {},
  };
}

// ---------------------------------------------------------------------------------------------
// Header: links and the account menu
// ---------------------------------------------------------------------------------------------
export function headerLinks(shell) {
  const { h, t } = shell;
  const me = shell.me();
  if (!me) return [];
  return [
    h('a', { class: 'btn btn-link', id: 'profile-link', href: `#/users/${enc(me.id)}` }, t('header.my_profile')),
    h('a', { class: 'btn btn-link', id: 'leaderboards-link', href: '#/leaderboard' }, t('header.leaderboards')),
    isAdmin(me) ? h('a', { class: 'btn btn-link', id: 'admin-link', href: '#/admin' }, t('header.admin')) : null,
  ].filter(Boolean);
}

export function accountMenu(shell) {
  const { h, t } = shell;
  const button = h(
    'button',
    {
      type: 'button',
      id: 'account-menu-button',
      class: 'btn btn-link',
      'aria-expanded': 'false',
      'aria-controls': 'account-menu',
    },
    t('account.menu'),
  );
  const changePw = h(
    'button',
    { type: 'button', id: 'change-password-button', class: 'menu-item' },
    t('account.change_password'),
  );
  const logout = h('button', { type: 'button', id: 'logout-button', class: 'menu-item' }, t('account.logout'));
  const menu = h(
    'ul',
    { id: 'account-menu', class: 'account-menu', hidden: true },
    h('li', {}, changePw),
    h('li', {}, logout),
  );
  const wrap = h('div', { class: 'account-menu-wrap' }, button, menu);

  function open(yes) {
    menu.hidden = !yes;
    button.setAttribute('aria-expanded', String(yes));
    if (yes) {
      changePw.focus();
      document.addEventListener('click', outside, true);
    } else {
      document.removeEventListener('click', outside, true);
    }
  }
  function outside(ev) {
    if (!wrap.contains(ev.target)) open(false);
  }
  button.addEventListener('click', () => open(menu.hidden));
  wrap.addEventListener('focusout', (ev) => {
    if (!menu.hidden && ev.relatedTarget && !wrap.contains(ev.relatedTarget)) open(false);
  });
  wrap.addEventListener('keydown', (ev) => {
    if (ev.key === 'Escape' && !menu.hidden) {
      ev.preventDefault();
      open(false);
      button.focus();
    } else if ((ev.key === 'ArrowDown' || ev.key === 'ArrowUp') && !menu.hidden) {
      ev.preventDefault();
      const items = [changePw, logout];
      const i = items.indexOf(document.activeElement);
      const next = ev.key === 'ArrowDown' ? (i + 1) % items.length : (i - 1 + items.length) % items.length;
      items[next].focus();
    }
  });
  changePw.addEventListener('click', () => {
    open(false);
    passwordDialog(shell, button);
  });
  logout.addEventListener('click', async () => {
    open(false);
    logout.disabled = true;
    try {
      await request('POST', '/api/auth/logout');
    } catch {
      /* signed out here either way */
    }
    shell.signOut();
    shell.toast(t('account.logged_out'));
  });
  return wrap;
}

/** A modal <dialog> (focus stays inside, Escape closes); removed from the page when closed. */
export function modal(shell, { id, title, body, submitText, onSubmit, returnFocus }) {
  const { h, t } = shell;
  const error = h('p', { class: 'error', role: 'alert', hidden: true, id: `${id}-error` });
  const submit = h('button', { type: 'submit', class: 'btn btn-primary', id: `${id}-submit` }, submitText);
  const cancel = h('button', { type: 'button', class: 'btn btn-ghost', id: `${id}-cancel` }, t('common.cancel'));
  const form = h(
    'form',
    { class: 'stack', method: 'dialog', novalidate: true },
    h('h2', { id: `${id}-title` }, title),
    ...body,
    error,
    h('div', { class: 'button-row' }, submit, cancel),
  );
  const dialog = h('dialog', { id, class: 'dh-dialog', 'aria-labelledby': `${id}-title` }, form);
  let busy = false;
  const close = () => {
    if (dialog.open) dialog.close();
  };
  dialog.addEventListener('close', () => {
    dialog.remove();
    if (returnFocus && document.contains(returnFocus)) returnFocus.focus();
  });
  cancel.addEventListener('click', close);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    if (busy) return;
    busy = true;
    submit.disabled = true;
    setAlert(error, '');
    try {
      const problem = await onSubmit();
      if (problem) setAlert(error, problem);
      else close();
    } catch (err) {
      setAlert(error, typeof err === 'string' ? err : shell.errorText(err));
    } finally {
      busy = false;
      submit.disabled = false;
    }
  });
  document.body.append(dialog);
  dialog.showModal();
  dialog.querySelector('input, textarea, select')?.focus();
  return { dialog, close };
}

function passwordDialog(shell, returnFocus) {
  const { h, t } = shell;
  const field = (id, label, autocomplete, help) =>
    h(
      'div',
      { class: 'field' },
      h('label', { for: id }, label),
      h('input', { id, type: 'password', autocomplete, maxlength: String(PASSWORD_MAX), required: true }),
      help ? h('p', { class: 'help' }, help) : null,
    );
  const body = [
    field('password-old', t('account.password_current'), 'current-password'),
    field('password-new', t('account.password_new'), 'new-password', t('account.password_help', { min: PASSWORD_MIN })),
    field('password-new2', t('account.password_confirm'), 'new-password'),
  ];
  modal(shell, {
    id: 'password-dialog',
    title: t('account.change_password'),
    body,
    submitText: t('account.change_password_submit'),
    returnFocus,
    async onSubmit() {
      const old = document.getElementById('password-old').value;
      const pw = document.getElementById('password-new').value;
      const pw2 = document.getElementById('password-new2').value;
      if (!old) return t('account.password_required');
      const bad = checkPassword(shell, pw);
      if (bad) return bad;
      if (pw !== pw2) return t('account.password_mismatch');
      try {
        const res = await send('/api/auth/password', { old_password: old, new_password: pw }, { auth: true });
        setToken(res.token);
        setDeviceToken(res.user?.name, res.device_token);
      } catch (err) {
        return accountErrorText(shell, err, 'password');
      }
      shell.toast(t('account.password_changed'));
      return null;
    },
  });
}

// ---------------------------------------------------------------------------------------------
// Under a finished match: rematch, play again, report
// ---------------------------------------------------------------------------------------------
export function postMatch(shell, matchId) {
  const { h, t } = shell;
  const box = h('div', { class: 'post-match', id: 'post-match', 'data-testid': 'post-match' });
  const s = {
    view: null,
    summary: null,
    seat: null,
    busy: false,
    reported: false,
    offerId: null,
    offer: null, // summary of the offered rematch
    error: '',
    destroyed: false,
    poll: null,
  };

  const me = () => shell.me();
  const go = (id) => {
    location.hash = `#/match/${enc(id)}`;
  };
  const seatedIn = (summary) => !!(summary && me() && (summary.seats || []).some((x) => x.user && x.user.id === me().id));

  function game() {
    return s.view?.game || s.summary?.game || null;
  }
  function options() {
    return s.view?.options || s.summary?.options || {};
  }
  function finished() {
    const st = s.view?.status || s.summary?.status;
    return st === 'finished' || !!(s.view?.result || s.summary?.result);
  }

  function setOffer(offerId) {
    if (!offerId || offerId === s.offerId) return;
    s.offerId = offerId;
    s.offer = null;
    loadOffer(offerId);
  }

  /** The match's summary names the rematch too: look now and then while none is known. */
  function watchForOffer() {
    const want = finished() && s.seat && !s.offerId && !s.destroyed;
    if (want && !s.poll) {
      s.poll = setInterval(async () => {
        if (document.hidden || s.busy) return;
        try {
          const sm = await request('GET', `/api/matches/${enc(matchId)}`);
          if (!s.destroyed && sm?.rematch) {
            setOffer(sm.rematch);
            render();
            watchForOffer();
          }
        } catch {
          /* try again later */
        }
      }, OFFER_POLL_MS);
    } else if (!want && s.poll) {
      clearInterval(s.poll);
      s.poll = null;
    }
  }

  async function loadOffer(id) {
    try {
      const sm = await request('GET', `/api/matches/${enc(id)}`);
      if (s.destroyed || s.offerId !== id) return;
      s.offer = sm;
      render();
    } catch {
      /* the offer link still works */
    }
  }

  async function run(fn) {
    if (s.busy) return;
    s.busy = true;
    s.error = '';
    render();
    try {
      await fn();
    } catch (err) {
      s.error = shell.errorText(err);
    } finally {
      s.busy = false;
      if (!s.destroyed) render();
    }
  }

  const rematch = () =>
    run(async () => {
      const sm = await withSeed((seed) => request('POST', `/api/matches/${enc(matchId)}/rematch`, { seed }));
      // Someone else's offer may have won the race: then take a seat in theirs.
      if (!seatedIn(sm) && sm.status === 'open') {
        await withSeed((seed) => request('POST', `/api/matches/${enc(sm.id)}/join`, { seed }));
      }
      go(sm.id);
    });

  const joinOffer = () =>
    run(async () => {
      try {
        await withSeed((seed) => request('POST', `/api/matches/${enc(s.offerId)}/join`, { seed }));
      } catch (err) {
        if (err?.code !== 'already_seated') throw err;
      }
      go(s.offerId);
    });

  const playAgain = () =>
    run(async () => {
      const sm = await withSeed((seed) => request('POST', '/api/matches', { game: game(), options: options(), seed }));
      go(sm.id);
    });

  function report(btn) {
    const reason = h('textarea', {
      id: 'report-reason',
      rows: '4',
      minlength: '3',
      maxlength: '500',
      required: true,
      'aria-describedby': 'report-help',
    });
    modal(shell, {
      id: 'report-dialog',
      title: t('postmatch.report_title'),
      body: [
        h('p', { class: 'muted', id: 'report-help' }, t('postmatch.report_help')),
        h('div', { class: 'field' }, h('label', { for: 'report-reason' }, t('postmatch.report_reason')), reason),
      ],
      submitText: t('postmatch.report_submit'),
      returnFocus: btn,
      async onSubmit() {
        const text = reason.value.trim();
        if (text.length < 3) return t('postmatch.report_too_short', { min: 3 });
        try {
          await request('POST', `/api/matches/${enc(matchId)}/report`, { reason: text });
        } catch (err) {
          return accountErrorText(shell, err, 'report');
        }
        s.reported = true;
        render();
        shell.toast(t('postmatch.reported_toast'));
        return null;
      },
    });
  }

  function offerBlock() {
    if (!s.offerId) return null;
    const offer = s.offer;
    const host = offer ? (offer.seats || []).find((x) => x.user && x.user.id === (offer.host?.id || offer.host)) : null;
    const hostName = host?.user?.name || (offer?.seats || []).find((x) => x.user)?.user?.name || '?';
    const mine = !!(offer && me() && host && host.user.id === me().id);
    const seated = seatedIn(offer);
    let text;
    let control;
    if (mine) {
      text = t('postmatch.you_offered');
      control = h('a', { class: 'btn btn-small', id: 'rematch-open', href: `#/match/${enc(s.offerId)}` }, t('postmatch.open_rematch'));
    } else if (seated) {
      text = t('postmatch.rematch_ready');
      control = h('a', { class: 'btn btn-small btn-primary', id: 'rematch-open', href: `#/match/${enc(s.offerId)}` }, t('postmatch.open_rematch'));
    } else if (!s.seat) {
      text = t('postmatch.rematch_offered_watch', { name: hostName });
      control = h('a', { class: 'btn btn-small', id: 'rematch-open', href: `#/match/${enc(s.offerId)}` }, t('postmatch.watch_rematch'));
    } else {
      text = t('postmatch.offers_rematch', { name: hostName });
      control = h(
        'button',
        { type: 'button', class: 'btn btn-small btn-primary', id: 'rematch-join', disabled: s.busy, onclick: joinOffer },
        t('postmatch.join_rematch'),
      );
    }
    return h('p', { class: 'rematch-offer', id: 'rematch-offer', 'data-testid': 'rematch-offer', role: 'status' }, h('span', {}, text), ' ', control);
  }

  function render() {
    if (s.destroyed) return;
    const focusId = box.contains(document.activeElement) ? document.activeElement.id : null;
    box.replaceChildren();
    if (!finished() || !me()) return;
    const items = [];
    const offer = offerBlock();
    if (offer) items.push(offer);
    const buttons = [];
    if (s.seat && !s.offerId) {
      buttons.push(
        h('button', { type: 'button', id: 'rematch-button', class: 'btn btn-small btn-primary', disabled: s.busy, onclick: rematch }, t('postmatch.rematch')),
      );
    }
    if (game()) {
      buttons.push(
        h('button', { type: 'button', id: 'play-again-button', class: 'btn btn-small', disabled: s.busy, onclick: playAgain }, t('postmatch.play_again')),
      );
    }
    if (s.seat) {
      const rep = h(
        'button',
        { type: 'button', id: 'report-button', class: 'btn btn-small btn-ghost', disabled: s.reported || s.busy },
        s.reported ? t('postmatch.reported') : t('postmatch.report'),
      );
      rep.addEventListener('click', () => report(rep));
      buttons.push(rep);
    }
    if (buttons.length) items.push(h('div', { class: 'button-row' }, buttons));
    if (s.error) items.push(h('p', { class: 'error', role: 'alert', id: 'post-match-error' }, s.error));
    box.append(...items);
    if (focusId) document.getElementById(focusId)?.focus();
  }

  return {
    el: box,
    update({ view, summary, seat }) {
      s.view = view || null;
      s.summary = summary || null;
      s.seat = seat || null;
      setOffer(view?.rematch || summary?.rematch || null);
      render();
      watchForOffer();
    },
    destroy() {
      s.destroyed = true;
      clearInterval(s.poll);
      document.getElementById('report-dialog')?.close();
    },
  };
}

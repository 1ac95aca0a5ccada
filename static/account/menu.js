// The header's account parts: the links (My profile, Leaderboards, Admin for admins) and the
// menu of a registered player (change password, log out), a menu button that works by keyboard
// (arrows, Escape) as well as by pointer.

import { request, setDeviceToken, setToken } from '../api.js';
import { h } from '../dom.js';
import { modal } from '../ui.js';
import { PASSWORD_MAX, PASSWORD_MIN, accountErrorText, checkPassword, isAdmin, send } from './common.js';

const enc = encodeURIComponent;

export function headerLinks(shell) {
  const { t } = shell;
  const me = shell.me();
  if (!me) return [];
  return [
    h('a', { class: 'btn btn-link', id: 'profile-link', href: `#/users/${enc(me.id)}` }, t('header.my_profile')),
    h('a', { class: 'btn btn-link', id: 'leaderboards-link', href: '#/leaderboard' }, t('header.leaderboards')),
    isAdmin(me) ? h('a', { class: 'btn btn-link', id: 'admin-link', href: '#/admin' }, t('header.admin')) : null,
  ].filter(Boolean);
}

export function accountMenu(shell) {
  const { t } = shell;
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

function passwordDialog(shell, returnFocus) {
  const { t } = shell;
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

// #/admin/users: user search; grant a role, suspend (with a reason), restore.

import { request } from '../api.js';
import { h } from '../dom.js';
import { alertBox, dataTable, fmtDate, hashQuery, modal, setHashQuery } from '../ui.js';
import { enc } from './common.js';

export function usersPage(root, shell) {
  const { t } = shell;
  const lang = shell.lang();
  let gone = false;
  let query = hashQuery().get('q') || '';
  const input = h('input', { id: 'user-search-q', type: 'search', maxlength: '40', autocomplete: 'off' });
  input.value = query;
  const form = h(
    'form',
    { id: 'user-search', class: 'filters', role: 'search', 'aria-label': t('admin.users_title') },
    h('div', { class: 'field' }, h('label', { for: 'user-search-q' }, t('admin.user_query')), input, h('p', { class: 'help' }, t('admin.user_query_help'))),
    h('div', { class: 'filters-actions' }, h('button', { type: 'submit', class: 'btn btn-primary btn-small', id: 'user-search-submit' }, t('admin.search'))),
  );
  const box = h('div', { id: 'users', 'aria-live': 'polite', 'aria-busy': 'true' });
  const error = alertBox();
  root.append(
    h('h1', { id: 'admin-title' }, t('admin.users_title')),
    error,
    h('section', { class: 'panel', 'aria-labelledby': 'admin-title' }, form, box),
  );
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    query = input.value.trim();
    setHashQuery({ q: query });
    load();
  });

  const showError = (err) => {
    error.textContent = shell.errorText(err);
    error.hidden = false;
  };

  async function load(focusSel) {
    box.setAttribute('aria-busy', 'true');
    error.hidden = true;
    try {
      const list = await request('GET', `/api/admin/users${query ? `?q=${enc(query)}` : ''}`);
      if (gone) return;
      render(list || []);
      if (focusSel) box.querySelector(focusSel)?.focus();
    } catch (err) {
      if (!gone) showError(err);
    }
  }

  function render(list) {
    box.removeAttribute('aria-busy');
    if (!list.length) {
      box.replaceChildren(h('p', { class: 'empty', id: 'users-empty' }, t('admin.no_users')));
      return;
    }
    const me = shell.me();
    const rows = list.map((u) => {
      const roleSel = h(
        'select',
        { id: `role-${u.id}`, 'aria-label': t('admin.role_for', { name: u.name }), class: 'select-small' },
        ['player', 'organiser', 'admin'].map((role) => h('option', { value: role, selected: role === u.role }, t(`role.${role}`))),
      );
      const grant = h('button', { type: 'button', class: 'btn btn-small', 'data-testid': 'grant' }, t('admin.grant'));
      grant.addEventListener('click', async () => {
        grant.disabled = true;
        try {
          await request('POST', `/api/admin/users/${enc(u.id)}/role`, { role: roleSel.value });
          shell.toast(t('admin.role_granted', { name: u.name, role: t(`role.${roleSel.value}`) }));
          await load(`#${CSS.escape(`role-${u.id}`)}`);
        } catch (err) {
          grant.disabled = false;
          showError(err);
        }
      });
      let toggle;
      if (u.suspended) {
        toggle = h('button', { type: 'button', class: 'btn btn-small', 'data-testid': 'restore' }, t('admin.restore'));
        toggle.addEventListener('click', async () => {
          toggle.disabled = true;
          try {
            await request('POST', `/api/admin/users/${enc(u.id)}/restore`);
            shell.toast(t('admin.restored_toast', { name: u.name }));
            await load();
          } catch (err) {
            toggle.disabled = false;
            showError(err);
          }
        });
      } else {
        toggle = h('button', { type: 'button', class: 'btn btn-small btn-ghost', 'data-testid': 'suspend', disabled: me && me.id === u.id }, t('admin.suspend'));
        toggle.addEventListener('click', () => suspend(u, toggle));
      }
      const kind = u.bot ? t('profile.bot') : u.guest ? t('profile.guest') : t('admin.account');
      return h(
        'tr',
        { 'data-testid': 'user-row', 'data-user-id': u.id, 'data-suspended': String(!!u.suspended), 'data-role': u.role },
        h('td', { 'data-label': t('admin.col_name') }, h('a', { href: `#/users/${enc(u.id)}` }, u.name), h('br'), h('code', { class: 'small' }, u.id)),
        h('td', { 'data-label': t('admin.col_kind_user') }, kind),
        h('td', { 'data-label': t('admin.col_role') }, h('div', { class: 'input-row' }, roleSel, grant)),
        h('td', { 'data-label': t('admin.col_state') }, u.suspended ? h('span', { class: 'tag tag-flag' }, t('admin.suspended')) : t('admin.active')),
        h('td', { 'data-label': t('admin.col_created') }, fmtDate(u.created_at, lang)),
        h('td', { class: 'actions' }, toggle),
      );
    });
    box.replaceChildren(
      dataTable({
        id: 'users-table',
        caption: t('admin.users_title'),
        columns: [t('admin.col_name'), t('admin.col_kind_user'), t('admin.col_role'), t('admin.col_state'), t('admin.col_created'), h('span', { class: 'sr-only' }, t('lobby.col_actions'))],
        rows,
      }),
    );
  }

  function suspend(u, btn) {
    const reason = h('textarea', { id: 'suspend-reason', rows: '3', minlength: '3', maxlength: '500', required: true });
    modal(shell, {
      id: 'suspend-dialog',
      title: t('admin.suspend_title', { name: u.name }),
      body: [h('div', { class: 'field' }, h('label', { for: 'suspend-reason' }, t('admin.suspend_reason')), reason)],
      submitText: t('admin.suspend'),
      returnFocus: btn,
      async onSubmit() {
        const text = reason.value.trim();
        if (text.length < 3) return t('postmatch.report_too_short', { min: 3 });
        try {
          await request('POST', `/api/admin/users/${enc(u.id)}/suspend`, { reason: text });
        } catch (err) {
          return err?.message || shell.errorText(err);
        }
        shell.toast(t('admin.suspended_toast', { name: u.name }));
        load();
        return null;
      },
    });
  }

  load();
  return {
    destroy() {
      gone = true;
    },
  };
}

// Admin pages (only for the admin role; the server checks it on every call too), one module
// each under static/admin/; this entry draws the sub-navigation and routes between them:
//
//   #/admin                 search.js: match search with a results table
//   #/admin/match/<id>      review.js: a step-by-step review of one match as each viewer saw it,
//                           its action log, moderation (moderation.js) and exports
//   #/admin/reports         reports.js: the report queue
//   #/admin/users           users.js: user search: grant a role, suspend, restore
//   #/admin/audit           audit.js: every admin action
//
// Filters and the review position live in the hash's query (static/ui.js hashQuery), written
// with history.replaceState.

import { isAdmin } from './account.js';
import { auditPage } from './admin/audit.js';
import { reportsPage } from './admin/reports.js';
import { reviewPage } from './admin/review.js';
import { searchPage } from './admin/search.js';
import { usersPage } from './admin/users.js';
import { h } from './dom.js';
import { focusHeading } from './ui.js';

export function adminScreen(main, shell, route) {
  const { t } = shell;
  if (!isAdmin(shell.me())) {
    main.append(
      h(
        'section',
        { class: 'panel panel-welcome', 'data-testid': 'admin-forbidden' },
        h('h1', {}, t('admin.forbidden_title')),
        h('p', {}, t('admin.forbidden')),
        h('a', { class: 'btn btn-primary', href: '#/' }, t('match.back')),
      ),
    );
    return { destroy() {} };
  }
  const section = route.section || 'matches';
  const tabs = [
    ['matches', '#/admin', t('admin.nav_matches')],
    ['reports', '#/admin/reports', t('admin.nav_reports')],
    ['users', '#/admin/users', t('admin.nav_users')],
    ['audit', '#/admin/audit', t('admin.nav_audit')],
  ];
  const current = section === 'match' ? 'matches' : section;
  const nav = h(
    'nav',
    { class: 'admin-nav', 'aria-label': t('admin.nav_label') },
    h(
      'ul',
      {},
      tabs.map(([key, href, label]) =>
        h('li', {}, h('a', { href, id: `admin-nav-${key}`, 'aria-current': key === current ? 'page' : null }, label)),
      ),
    ),
  );
  const body = h('div', { class: 'admin-body' });
  main.append(h('div', { class: 'page admin', 'data-testid': `admin-${section}` }, nav, body));
  const screens = { matches: searchPage, match: reviewPage, reports: reportsPage, users: usersPage, audit: auditPage };
  const page = (screens[section] || searchPage)(body, shell, route);
  focusHeading(main);
  return page;
}

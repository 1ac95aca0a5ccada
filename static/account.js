// Accounts in the browser client, one module per part under static/account/:
//
//   signInPanel(main, shell)      sign_in.js: "Log in / Register" next to the guest name form
//   headerLinks(shell)            menu.js: header links: My profile, Leaderboards, Admin (admins only)
//   accountMenu(shell)            menu.js: the account menu of a registered player: change
//                                 password, log out
//   postMatch(shell, matchId)     post_match.js: under a finished match: Rematch (and the
//                                 opponent's offer), Play again, Report this match
//
// `shell` comes from app.js: {t, errorText, toast, me(), signIn(token, user), signOut(),
// render(), ensureGames(), gameName(id), lang()}. The token stays where api.js keeps it
// (localStorage). Every user-facing string goes through shell.t (static/i18n/<lang>/core.json).
// The modal dialog is static/ui.js's (re-exported here, where admin pages found it).

export { accountErrorText, foldName, isAdmin, isGuest } from './account/common.js';
export { accountMenu, headerLinks } from './account/menu.js';
export { postMatch } from './account/post_match.js';
export { signInPanel } from './account/sign_in.js';
export { modal } from './ui.js';

// Game id -> board module. A board module exports
//   mount(el, ctx) -> {update(viewDoc), destroy()}
// with ctx = {t(key, params), act(action) -> Promise, seat, matchId, lang}.
// The admins' review (static/admin.js) mounts the same modules read-only with ctx.review = true,
// ctx.matchId = null (a board must not fetch anything of the match itself then) and
// ctx.act rejecting with {code: "read_only"}; its view documents carry the viewer's events of
// the steps up to the one shown (the last 64 at most), each tagged with its step's version.
// A game without a module here, or whose module fails to load or has no mount(), gets the
// generic board (generic.js): the JSON state and one button per legal action.
//
// Styles: when the board module has a sibling stylesheet (duell.js -> duell.css), the shell
// adds it to the page once, before mounting.

export const BOARDS = {
  duell: './duell.js',
  duel: './duel.js',
  combat: './combat.js',
  parbaj: './parbaj.js',
};

const cache = new Map();
const styles = new Map();

/** Resolve the board module for a game id: {mount, generic: bool}. Never throws. */
export function loadBoard(gameId) {
  if (!cache.has(gameId)) cache.set(gameId, resolveBoard(gameId));
  return cache.get(gameId);
}

function boardPath(gameId) {
  return Object.prototype.hasOwnProperty.call(BOARDS, gameId) ? BOARDS[gameId] : null;
}

async function resolveBoard(gameId) {
  const path = boardPath(gameId);
  if (path) {
    try {
      const [mod] = await Promise.all([import(path), loadBoardStyle(gameId)]);
      if (typeof mod.mount === 'function') return { mount: mod.mount, generic: false };
      console.warn(`Board module for ${gameId} has no mount(); using the generic board.`);
    } catch (err) {
      console.warn(`Board module for ${gameId} could not be loaded; using the generic board.`, err);
    }
  }
  const generic = await import('./generic.js');
  return { mount: generic.mount, generic: true };
}

/** Add the board's stylesheet (if it has one) to the page; resolves when it is applied. */
export function loadBoardStyle(gameId) {
  if (styles.has(gameId)) return styles.get(gameId);
  const path = boardPath(gameId);
  const p = (async () => {
    if (!path || typeof document === 'undefined') return false;
    const href = new URL(path.replace(/\.js$/, '.css'), import.meta.url).href;
    try {
      const res = await fetch(href, { method: 'HEAD' });
      if (!res.ok) return false;
    } catch {
      return false;
    }
    return new Promise((resolve) => {
      const link = document.createElement('link');
      link.rel = 'stylesheet';
      link.href = href;
      link.dataset.board = gameId;
      link.onload = () => resolve(true);
      link.onerror = () => resolve(false);
      document.head.append(link);
    });
  })();
  styles.set(gameId, p);
  return p;
}

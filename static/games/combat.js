// Combat board (plain ES module, no build step).
//
//   import { mount } from "/static/games/combat.js";
//   const board = mount(element, { t, act, seat, matchId, lang });
//   board.update(viewDoc);  ...  board.destroy();
//
// A table for 2-6 players drawn in SVG: every seat round the table with its draw pile and
// prisoner pile, whose "fight" is still pending, the attacks face up with their value and
// formula, face-down war cards as card backs, and a war animation when a tie sends everyone
// to war. Below it: the Fight button, concede (with a confirmation), the standings and the
// battle log in words.
//
// ctx.t(key, params) translates "combat.*" keys (static/i18n/<lang>/combat.json); ctx.act(action)
// returns a Promise that resolves on ack and rejects with {code, message}. The view document's
// `state` is the engine view of games/combat (docs/rules/combat.md). The board sends only
// {"type": "fight"} (when `legal` lists it) and {"type": "concede"} (allowed to a seat still in).

import { el, fmtClock, showClock, submitAction, svg } from "./board.js";
const LOG_MAX = 80;
const WAR_MS = 1600; // the war stamp and the shake
const CAPTURE_MS = 1400; // "+N" rising over the winner's prisoners
const REVEAL_MS = 520; // attack cards turning face up

// Two table layouts in SVG units: a wide one, and a tall one for narrow screens.
// Seats sit on the ellipse (RX, RY) round (CX, CY); attacks lie at `stake` of the way in.
const LAYOUTS = {
  wide: { name: "wide", W: 640, H: 500, CX: 320, CY: 252, RX: 256, RY: 186, stake: 0.52 },
  tall: { name: "tall", W: 440 },
};
const NARROW_PX = 470;

let uid = 0;

function clip(text, max) {
  const s = String(text ?? "");
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** The attack's formula as people write it: "7 × 6 = 42", "9 − 4 = 5", "3 + 8 + 2 = 13". A
 *  lone card (or the basic variant) is just its value. */
export function formula(entry) {
  const cards = (entry && entry.cards) || [];
  const value = entry ? entry.value : "";
  if (cards.length <= 1 || entry.op === "card") return String(value);
  if (entry.op === "sum") return `${cards.join(" + ")} = ${value}`;
  if (entry.op === "subtract") {
    return `${Math.max(...cards)} − ${Math.min(...cards)} = ${value}`;
  }
  if (entry.op === "multiply") return `${cards.join(" × ")} = ${value}`;
  return String(entry.text || value);
}

export function mount(root, ctx) {
  const t = (key, params) => ctx.t(`combat.${key}`, params ?? {});
  const id = `cb${++uid}`;
  let doc = null;
  let busy = false;
  let error = null;
  let confirming = false;
  let destroyed = false;
  let layout = LAYOUTS.wide;
  let fightWasShown = false;
  const seen = new Set();
  const log = [];
  // Animation clocks: {key, at}. A re-render in the middle of an animation continues it (a
  // negative animation-delay) instead of starting it over.
  const fx = { war: { key: null, at: 0 }, capture: { key: null, at: 0 }, reveal: { key: null, at: 0 } };
  let first = true;
  let shakeTimer = null;

  const board = el("section", { class: "combat", "aria-label": t("title") });
  const head = el("div", { class: "combat-head" });
  const status = el("p", { class: "combat-status", role: "status", "aria-live": "polite" });
  // The table; on wide screens the controls lie on it (Fight! by your seat, bottom right;
  // Concede bottom left), on narrow ones they come before it.
  const svgHost = el("div", { class: "combat-svg-host" });
  const controls = el("div", { class: "combat-controls", role: "group", "aria-label": t("actions") });
  const tableWrap = el("div", { class: "combat-table-wrap" }, [svgHost, controls]);
  const message = el("div", { class: "combat-message", role: "alert" });
  const standingsBox = el("section", { class: "combat-standings-box", "aria-labelledby": `${id}-st` });
  const logList = el("ol", { class: "combat-log", "aria-live": "polite", "aria-relevant": "additions", tabindex: "0", "aria-labelledby": `${id}-log` });
  const logBox = el("section", { class: "combat-log-box", "aria-labelledby": `${id}-log` }, [
    el("h3", { id: `${id}-log` }, t("log")),
    logList,
  ]);
  board.append(head, status, tableWrap, message,
    el("div", { class: "combat-lower" }, [standingsBox, logBox]));
  root.append(board);

  const clockTimer = setInterval(renderClock, 250);
  let resizeObs = null;
  if (typeof ResizeObserver === "function") {
    resizeObs = new ResizeObserver(() => {
      const next = board.clientWidth && board.clientWidth < NARROW_PX ? LAYOUTS.tall : LAYOUTS.wide;
      if (next !== layout) {
        layout = next;
        if (doc && doc.state) render();
      }
    });
    resizeObs.observe(board);
  }

  // ---------------------------------------------------------------------------------------
  // helpers over the current document
  // ---------------------------------------------------------------------------------------
  const me = () => (doc && "seat" in doc ? doc.seat : ctx.seat) || null;
  const S = () => doc && doc.state;
  const over = () => !!(doc && (doc.result || doc.status === "finished" || doc.status === "aborted"));
  const legal = () => (doc && doc.legal) || [];

  function seatOrder(st) {
    const seats = Object.keys(st.seats || {}).sort();
    const mine = me();
    const i = mine ? seats.indexOf(mine) : -1;
    return i > 0 ? seats.slice(i).concat(seats.slice(0, i)) : seats;
  }

  function rawName(seat) {
    const p = ((doc && doc.players) || []).find((x) => x.seat === seat);
    return (p && p.user && p.user.name) || t("seat", { seat });
  }

  function nameOf(seat) {
    const name = rawName(seat);
    return seat && seat === me() ? t("you_suffix", { name }) : name;
  }

  function listOf(items) {
    try {
      return new Intl.ListFormat(ctx.lang || "en", { style: "long", type: "conjunction" }).format(items);
    } catch {
      return items.join(", ");
    }
  }

  const names = (seats) => listOf((seats || []).map(nameOf));

  function canFight() {
    const mine = me();
    return !busy && !over() && !!mine && (doc.pending || []).includes(mine)
      && legal().some((a) => a.type === "fight");
  }

  function canConcede(st) {
    const mine = me();
    return !!mine && !over() && doc.status === "live" && st.seats[mine] && !st.seats[mine].out;
  }

  /** The round shown on the table: the current battle's latest round, or else the deciding
   *  round of the previous battle. */
  function shownRound(st) {
    const rounds = (st.table && st.table.rounds) || [];
    if (rounds.length) {
      return { rounds, index: rounds.length - 1, current: true, key: `t${st.battle}:${rounds.length}` };
    }
    const last = st.last_battle;
    if (last && last.rounds && last.rounds.length) {
      return { rounds: last.rounds, index: last.rounds.length - 1, current: false, key: `l${last.battle}`, last };
    }
    return null;
  }

  function bestOf(round) {
    const values = Object.values(round || {}).map((e) => e.value);
    return values.length ? Math.max(...values) : null;
  }

  // ---------------------------------------------------------------------------------------
  // sending
  // ---------------------------------------------------------------------------------------
  function send(action) {
    if (busy || destroyed) return;
    busy = true;
    error = null;
    render();
    submitAction(ctx, action, () => !destroyed, (refused) => {
      busy = false;
      error = refused;
      render();
    });
  }

  function fight() {
    if (!canFight()) return;
    send({ type: "fight" });
  }

  function concede() {
    confirming = false;
    if (!doc || !S() || !canConcede(S())) return;
    send({ type: "concede" });
  }

  // ---------------------------------------------------------------------------------------
  // rendering
  // ---------------------------------------------------------------------------------------
  function keepFocus(fn) {
    const active = document.activeElement;
    const key = active && board.contains(active) ? active.getAttribute("data-focus") : null;
    fn();
    if (key) {
      const again = board.querySelector(`[data-focus="${CSS.escape(key)}"]`);
      if (again && again !== document.activeElement) again.focus();
    }
    return key;
  }

  function render() {
    if (destroyed) return;
    const st = S();
    let kept = null;
    kept = keepFocus(() => {
      if (!st) {
        head.replaceChildren();
        svgHost.replaceChildren();
        controls.replaceChildren();
        controlsKey = null;
        standingsBox.replaceChildren();
        status.textContent = t("waiting");
        renderMessage();
        return;
      }
      board.dataset.war = st.clash && st.clash.kind === "war" ? "1" : "0";
      board.dataset.layout = layout.name;
      board.dataset.over = over() ? "1" : "0";
      renderHead(st);
      renderStatus(st);
      renderTable(st);
      renderControls(st);
      renderStandings(st);
      renderMessage();
      renderClock();
    });
    renderLog();
    // Keyboard players land on the Fight button when it appears (unless they are elsewhere).
    const fightBtn = controls.querySelector(".combat-fight");
    if (fightBtn && !fightWasShown && !kept) {
      const active = document.activeElement;
      if (!active || active === document.body || board.contains(active)) fightBtn.focus({ preventScroll: true });
    }
    fightWasShown = !!fightBtn;
  }

  function chip(text, cls) {
    return el("span", { class: `combat-chip${cls ? ` ${cls}` : ""}` }, text);
  }

  function renderHead(st) {
    let title;
    if (over()) title = t("game_over");
    else if (st.clash && st.clash.kind === "war") title = t("battle_war", { n: st.battle, war: st.clash.war });
    else if (st.battle) title = t("battle_n", { n: st.battle });
    else title = t("title");
    const chips = [
      chip(t(`variant_${st.variant}`), "combat-chip-strong"),
      chip(t(`variant_${st.variant}_desc`, { count: st.attack_cards })),
      chip(t(`ending_${st.ending}`)),
      chip(t("deck_info", { count: st.deck_size })),
    ];
    if (st.ending === "surrender" && st.max_battles) {
      chips.push(chip(t("battles_of", { n: st.battles_done, max: st.max_battles })));
    }
    if (st.set_aside) chips.push(chip(t("set_aside", { count: st.set_aside }), "combat-chip-muted"));
    head.replaceChildren(
      el("h3", { class: "combat-title" }, [
        el("span", { class: "combat-title-mark", "aria-hidden": "true" }, "⚔"),
        title,
      ]),
      el("div", { class: "combat-chips" }, chips),
      el("div", { class: "combat-clock", "data-clock": "1", "aria-live": "off" }),
    );
  }

  function renderClock() {
    const node = board.querySelector("[data-clock]");
    if (!node) return;
    const mine = me();
    const deadline = doc && !over() && doc.deadlines ? (mine && doc.deadlines[mine]) || null : null;
    showClock(node, deadline, (left) => t("clock", { time: fmtClock(left) }));
  }

  function statusText(st) {
    const mine = me();
    const pending = doc.pending || [];
    if (over()) {
      const res = doc.result || st.result || {};
      const firsts = Object.keys(res.places || {}).filter((s) => res.places[s] === 1).sort();
      if (res.winner) return t("status_winner", { name: nameOf(res.winner) });
      if (firsts.length) return t("status_shared", { names: names(firsts) });
      return t("game_over");
    }
    const parts = [];
    const shown = shownRound(st);
    if (st.clash && st.clash.kind === "war" && shown && shown.current) {
      const round = shown.rounds[shown.index];
      const best = bestOf(round);
      const tied = Object.keys(round).filter((s) => round[s].value === best).sort();
      parts.push(t("status_tie", { names: names(tied), value: best }));
    }
    const seat = mine && st.seats[mine];
    if (!mine) {
      parts.push(pending.length ? t("status_watching", { names: names(pending) }) : t("spectating"));
    } else if (seat && seat.out) {
      parts.push(t("status_out"));
    } else if (pending.includes(mine)) {
      parts.push(st.clash && st.clash.kind === "war" ? t("status_you_war") : t("status_you_fight"));
    } else if (seat && seat.ready) {
      parts.push(pending.length ? t("status_ready", { names: names(pending) }) : t("status_resolving"));
    } else if (seat && !seat.draw && st.ending === "prisoners") {
      parts.push(t("status_no_cards"));
    } else if (pending.length) {
      parts.push(t("status_watching", { names: names(pending) }));
    }
    return parts.join(" ");
  }

  function renderStatus(st) {
    const text = statusText(st);
    if (status.textContent !== text) status.textContent = text;
    const mine = me();
    status.classList.toggle("mine", !!mine && (doc.pending || []).includes(mine) && !over());
  }

  // ---- the table (SVG) ------------------------------------------------------------------
  function anim(node, cls, clock, dur) {
    const age = Date.now() - clock.at;
    if (clock.at && age < dur) {
      node.classList.add(cls);
      node.style.animationDelay = `-${age}ms`;
    }
    return node;
  }

  function cardBack(x, y, w, h, extra) {
    return svg("g", { class: `cb-back${extra ? ` ${extra}` : ""}` }, [
      svg("rect", { x, y, width: w, height: h, rx: Math.max(2, w * 0.1), fill: `url(#${id}-hatch)` }),
      svg("rect", { x: x + w * 0.12, y: y + w * 0.12, width: w * 0.76, height: h - w * 0.24, rx: 1.5, class: "cb-back-inner" }),
    ]);
  }

  function cardFace(x, y, w, h, value, extra) {
    const g = svg("g", { class: `cb-face${extra ? ` ${extra}` : ""}` });
    g.append(svg("rect", { x, y, width: w, height: h, rx: Math.max(2, w * 0.1) }));
    g.append(svg("text", { x: x + w / 2, y: y + h / 2 + w * 0.2, "text-anchor": "middle", class: "cb-face-num", "font-size": w * 0.6 }, value));
    if (w >= 26) {
      g.append(svg("text", { x: x + w * 0.12, y: y + w * 0.32, class: "cb-face-corner", "font-size": w * 0.26 }, value));
      g.append(svg("text", { x: x + w * 0.88, y: y + h - w * 0.12, "text-anchor": "end", class: "cb-face-corner", "font-size": w * 0.26 }, value));
    }
    return g;
  }

  function defs() {
    return svg("defs", {}, [
      svg("pattern", { id: `${id}-hatch`, width: 6, height: 6, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" }, [
        svg("rect", { width: 6, height: 6, fill: "#b3261e" }),
        svg("rect", { width: 3, height: 6, fill: "#8e1c16" }),
      ]),
      svg("radialGradient", { id: `${id}-felt`, cx: "50%", cy: "45%", r: "65%" }, [
        svg("stop", { offset: "0%", "stop-color": "#fbf8f2" }),
        svg("stop", { offset: "70%", "stop-color": "#efe7d8" }),
        svg("stop", { offset: "100%", "stop-color": "#e4d9c5" }),
      ]),
    ]);
  }

  /** Seat i of n round the table (i = 0 at the bottom, then clockwise), at fraction f of the
   *  way out from the centre. A table of two is flatter. */
  function ry(n) {
    return n === 2 ? layout.RY * 0.78 : layout.RY;
  }

  function seatPoint(i, n, f) {
    const L = layout;
    const a = (Math.PI / 2) + (2 * Math.PI * i) / n;
    return { x: L.CX + L.RX * f * Math.cos(a), y: L.CY + ry(n) * f * Math.sin(a), cos: Math.cos(a), sin: Math.sin(a) };
  }

  /** Where everything goes. Wide: seats round an oval table, attacks part of the way in.
   *  Tall (narrow screens): a long table, you at the foot, the others down both sides
   *  (staggered, so their attacks can reach past the middle), the centre above your attack.
   *  Returns {W, top, bottom, table: {kind, ...}, center: {x, y, scale}, seats: {seat:
   *  {pod: {x, y, shape}, stake: {x, y, scale}}}}. */
  function placements(order) {
    const n = order.length;
    const L = layout;
    const out = { W: L.W, seats: {} };
    if (L.name === "wide") {
      const TX = L.RX * 0.95, TY = ry(n) * 0.86;
      out.table = { kind: "oval", cx: L.CX, cy: L.CY, rx: TX, ry: TY };
      // a table of three has its attacks high on the sides: the middle sits a little lower
      out.center = { x: L.CX, y: L.CY + (n === 3 ? 22 : 0), scale: n >= 5 ? 0.8 : n === 4 ? 0.9 : 1 };
      const scale = n >= 5 ? 0.76 : n === 4 ? 0.9 : 1;
      let top = L.CY - TY - 8, bottom = L.CY + TY + 8;
      order.forEach((seat, i) => {
        const p = seatPoint(i, n, 1);
        const s = seatPoint(i, n, n === 2 ? 0.62 : L.stake);
        // Seats at the top and bottom have their piles beside the nameplate; seats at the
        // sides under it (upper half) or over it (lower half), towards the middle.
        const shape = Math.abs(p.cos) < 0.5 ? "row" : p.sin > 0.2 ? "up" : "down";
        out.seats[seat] = { pod: { x: p.x, y: p.y, shape }, stake: { x: s.x, y: s.y, scale } };
        const ext = shape === "row" ? [-34, 44] : shape === "down" ? [-34, 100] : [-96, 38];
        top = Math.min(top, p.y + ext[0]);
        bottom = Math.max(bottom, p.y + ext[1]);
      });
      // Crop to what is drawn (a table of 3 has no seat at the top).
      out.top = Math.max(0, Math.floor(top));
      out.bottom = Math.min(L.H, Math.ceil(bottom));
      return out;
    }
    // tall
    const cx = L.W / 2;
    const others = order.slice(1);
    const P = 124; // row pitch on one side
    const y0 = 48;
    let lastY;
    if (others.length === 1) {
      out.seats[others[0]] = { pod: { x: cx, y: y0, shape: "row" }, stake: { x: cx, y: y0 + 110, scale: 0.9 } };
      lastY = y0 + 110;
    } else {
      const left = others.slice(0, Math.ceil(others.length / 2)); // clockwise: up the left side
      const right = others.slice(left.length); // then down the right side
      left.forEach((seat, j) => {
        const y = y0 + (left.length - 1 - j) * P;
        out.seats[seat] = { pod: { x: 64, y, shape: "down" }, stake: { x: 176, y: y + 4, scale: 0.8 } };
      });
      right.forEach((seat, j) => {
        const y = y0 + P / 2 + j * P;
        out.seats[seat] = { pod: { x: L.W - 64, y, shape: "down" }, stake: { x: L.W - 176, y: y + 4, scale: 0.8 } };
      });
      lastY = Math.max(...others.map((s) => out.seats[s].pod.y)) + 60;
    }
    const cy = lastY + 86;
    out.center = { x: cx, y: cy, scale: 0.85 };
    const meStake = cy + 96;
    const mePod = meStake + 104;
    if (order.length) out.seats[order[0]] = { pod: { x: cx, y: mePod, shape: "row" }, stake: { x: cx, y: meStake, scale: 0.9 } };
    out.table = { kind: "long", x: 22, y: 28, w: L.W - 44, h: mePod - 28 - 8 };
    out.top = 0;
    out.bottom = mePod + 44;
    return out;
  }

  function renderTable(st) {
    const order = seatOrder(st);
    const shown = shownRound(st);
    const war = st.clash && st.clash.kind === "war";
    const P = placements(order);
    const root = svg("svg", {
      viewBox: `0 ${P.top} ${P.W} ${P.bottom - P.top}`, class: "cb-svg", role: "img",
      "aria-label": tableLabel(st, order),
      "data-layout": layout.name,
    });
    root.append(defs());
    // the table itself: paper with an inked rim and a red inner line
    const T = P.table;
    const shape = (inset, cls, extra) => (T.kind === "oval"
      ? svg("ellipse", { cx: T.cx, cy: T.cy, rx: T.rx - inset, ry: T.ry - inset, class: cls, ...extra })
      : svg("rect", { x: T.x + inset, y: T.y + inset, width: T.w - 2 * inset, height: T.h - 2 * inset, rx: 60 - inset, class: cls, ...extra }));
    const shadow = shape(0, "cb-table-shadow");
    shadow.setAttribute("transform", "translate(4 6)");
    root.append(shadow);
    root.append(shape(0, "cb-table", { fill: `url(#${id}-felt)` }));
    root.append(shape(10, "cb-table-line"));
    // war: a red wash over the table
    if (war) root.append(anim(shape(0, "cb-war-wash"), "cb-anim", fx.war, WAR_MS));
    root.append(renderCenter(st, shown, P.center));
    for (const seat of order) {
      const s = P.seats[seat].stake;
      const stake = renderStake(st, seat, shown);
      if (stake) {
        stake.setAttribute("transform", `translate(${s.x.toFixed(1)} ${s.y.toFixed(1)}) scale(${s.scale})`);
        root.append(stake);
      }
    }
    for (const seat of order) {
      const p = P.seats[seat].pod;
      const pod = renderPod(st, seat, shown, p.shape);
      pod.setAttribute("transform", `translate(${p.x.toFixed(1)} ${p.y.toFixed(1)})`);
      root.append(pod);
    }
    svgHost.replaceChildren(root);
  }

  function tableLabel(st, order) {
    const parts = order.map((s) => {
      const x = st.seats[s];
      return t("seat_summary", { name: nameOf(s), draw: x.draw, prisoners: x.prisoners });
    });
    return `${t("table")}: ${parts.join("; ")}`;
  }

  function renderCenter(st, shown, at) {
    const g = svg("g", { class: "cb-center", transform: `translate(${at.x} ${at.y}) scale(${at.scale})` });
    const war = st.clash && st.clash.kind === "war";
    if (over()) {
      g.append(svg("text", { y: -6, "text-anchor": "middle", class: "cb-center-big" }, t("game_over")));
      const res = doc.result || st.result || {};
      const line = res.winner ? t("center_winner", { name: nameOf(res.winner) }) : t("center_shared");
      g.append(svg("text", { y: 20, "text-anchor": "middle", class: "cb-center-small" }, clip(line, 40)));
      return g;
    }
    if (war) {
      // the stamp fits its word ("WAR!", "GUERRA!", "HÁBORÚ!") into at most 190 units
      const word = t("war_stamp");
      const sw = Math.min(190, 56 + 27 * word.length);
      const stamp = svg("g", { class: "cb-war-stamp" }, [
        svg("rect", { x: -sw / 2, y: -34, width: sw, height: 56, rx: 4 }),
        svg("text", {
          y: 8, "text-anchor": "middle",
          textLength: 56 + 27 * word.length > 190 ? sw - 34 : null,
          lengthAdjust: 56 + 27 * word.length > 190 ? "spacingAndGlyphs" : null,
        }, word),
      ]);
      g.append(anim(stamp, "cb-anim", fx.war, WAR_MS));
      g.append(svg("text", { y: 44, "text-anchor": "middle", class: "cb-center-small" },
        t("at_stake", { count: st.table.cards })));
      return g;
    }
    if (st.battle) {
      g.append(svg("text", { y: -4, "text-anchor": "middle", class: "cb-center-label" }, t("battle_n", { n: st.battle })));
    }
    if (shown && !shown.current && shown.last) {
      const last = shown.last;
      const line = last.winner
        ? t("center_last", { name: nameOf(last.winner), count: last.cards, n: last.battle })
        : t("center_last_aside", { count: last.cards, n: last.battle });
      g.append(svg("text", { y: 18, "text-anchor": "middle", class: "cb-center-small" }, clip(line, 44)));
    } else if (!shown) {
      g.append(svg("text", { y: 18, "text-anchor": "middle", class: "cb-center-small" }, t("center_first")));
    }
    return g;
  }

  function renderStake(st, seat, shown) {
    if (!shown) return null;
    const round = shown.rounds[shown.index];
    const entry = round && round[seat];
    if (!entry) return null;
    const best = bestOf(round);
    const winner = !shown.current && shown.last && shown.last.winner === seat;
    const tied = shown.current && entry.value === best;
    const g = svg("g", {
      class: `cb-stake${winner ? " winner" : ""}${tied ? " tied" : ""}${shown.current ? "" : " previous"}`,
      "data-seat": seat,
    });
    // The trail: what this seat staked before this attack (earlier attacks face up, war cards
    // face down), drawn small above it.
    const trail = [];
    for (let r = 0; r < shown.index; r++) {
      const e = shown.rounds[r][seat];
      if (!e) continue;
      for (let i = 0; i < e.down; i++) trail.push(null);
      for (const c of e.cards) trail.push(c);
    }
    for (let i = 0; i < entry.down; i++) trail.push(null);
    const MAXT = 12;
    const more = trail.length > MAXT ? trail.length - MAXT : 0;
    const items = trail.slice(-MAXT);
    if (items.length) {
      // mini cards: backs overlap, faces sit side by side so their values show
      const mw = 15, mh = 21;
      const xs = [];
      let x = 0;
      items.forEach((v, i) => {
        if (i) x += v === null && items[i - 1] === null ? 5 : mw + 2;
        xs.push(x);
      });
      const width = x + mw;
      const x0 = -width / 2;
      const tg = svg("g", { class: "cb-trail" });
      items.forEach((v, i) => {
        tg.append(v === null ? cardBack(x0 + xs[i], -56, mw, mh, "mini") : cardFace(x0 + xs[i], -56, mw, mh, v, "mini"));
      });
      if (more) tg.append(svg("text", { x: x0 - 4, y: -41, "text-anchor": "end", class: "cb-trail-more" }, `+${more}`));
      const downs = trail.filter((v) => v === null).length;
      tg.append(svg("title", {}, t("trail", { count: trail.length, down: downs })));
      g.append(tg);
    }
    // The attack, face up.
    const k = entry.cards.length;
    const cw = 36, ch = 50;
    const step = k > 2 ? 28 : cw + 6;
    const width = cw + step * (k - 1);
    const cards = svg("g", { class: "cb-attack" });
    entry.cards.forEach((v, i) => {
      const x = -width / 2 + i * step;
      const face = cardFace(x, -30, cw, ch, v, winner ? "win" : "");
      // cards turn up one after the other
      const age = Date.now() - fx.reveal.at;
      if (fx.reveal.at && age < REVEAL_MS + i * 90) {
        face.classList.add("cb-reveal");
        face.style.animationDelay = `${i * 90 - age}ms`;
      }
      cards.append(face);
    });
    g.append(cards);
    // The formula plate.
    const text = formula(entry);
    const plateW = Math.max(44, text.length * 9.4 + 18);
    const plate = svg("g", { class: "cb-plate" }, [
      svg("rect", { x: -plateW / 2, y: 26, width: plateW, height: 24, rx: 12 }),
    ]);
    const tx = svg("text", { y: 43, "text-anchor": "middle", class: "cb-formula" });
    const eq = text.lastIndexOf(" = ");
    if (eq >= 0) {
      tx.append(svg("tspan", {}, text.slice(0, eq + 3)));
      tx.append(svg("tspan", { class: "cb-value" }, text.slice(eq + 3)));
    } else {
      tx.append(svg("tspan", { class: "cb-value" }, text));
    }
    plate.append(tx);
    g.append(plate);
    if (winner) {
      const rw = Math.max(width, plateW) + 16;
      const ring = svg("rect", { x: -rw / 2, y: -38, width: rw, height: 94, rx: 14, class: "cb-win-ring" });
      g.insertBefore(anim(ring, "cb-anim", fx.capture, CAPTURE_MS), g.firstChild);
    }
    g.append(svg("title", {}, t(winner ? "stake_title_win" : "stake_title", { name: nameOf(seat), formula: text })));
    return g;
  }

  function podStatus(st, seat) {
    const x = st.seats[seat];
    if (x.out) return { cls: "out", text: t(`out_${x.out}`) };
    if (over()) {
      const place = placeOf(st, seat);
      return { cls: place === 1 ? "first" : "done", text: place ? t("place_label", { place }) : "" };
    }
    if (x.pending) return { cls: "pending", text: t("pod_pending") };
    if (x.ready) return { cls: "ready", text: t("pod_ready") };
    if (!x.draw && st.ending === "prisoners") return { cls: "empty", text: t("pod_no_cards") };
    return { cls: "idle", text: "" };
  }

  function placeOf(st, seat) {
    const row = (st.standings || []).find((r) => r.seat === seat);
    return row ? row.place : null;
  }

  function pile(kind, count, at, title, seat) {
    // A pile of cards: draw = face down, prisoners = captured cards face up (only the count is
    // known). W x H card, a few layers by size, the count, a caption underneath.
    const W = 28, H = 38;
    const g = svg("g", { class: `cb-pile cb-${kind}`, transform: `translate(${at.x} ${at.y})` });
    const layers = count ? Math.min(4, 1 + Math.floor(count / 6)) : 0;
    if (!layers) g.append(svg("rect", { x: -W / 2, y: -H / 2, width: W, height: H, rx: 3, class: "cb-slot" }));
    for (let i = layers - 1; i >= 0; i--) {
      const x = -W / 2 + i * 1.8, y = -H / 2 - i * 1.8;
      if (kind === "draw") g.append(cardBack(x, y, W, H));
      else g.append(svg("rect", { x, y, width: W, height: H, rx: 3, class: "cb-prisoner-card", transform: `rotate(${i % 2 ? 5 : -4} ${x + W / 2} ${y + H / 2})` }));
    }
    if (kind === "prisoners" && layers) g.append(svg("path", { d: "M-7 -12 L7 2 M7 -12 L-7 2", class: "cb-prisoner-mark" }));
    g.append(svg("text", { y: kind === "prisoners" && layers ? 14 : 5, "text-anchor": "middle", class: `cb-pile-count${kind === "draw" && layers ? " on-back" : ""}` }, count));
    g.append(svg("text", { y: H / 2 + 12, "text-anchor": "middle", class: "cb-pile-cap" }, t(kind === "draw" ? "draw_short" : "prisoners_short")));
    g.append(svg("title", {}, t(title, { name: nameOf(seat), count })));
    return g;
  }

  function renderPod(st, seat, shown, dir /* row | down | up */) {
    const x = st.seats[seat];
    const mine = seat === me();
    const ps = podStatus(st, seat);
    const lastWin = shown && !shown.current && shown.last && shown.last.winner === seat;
    const g = svg("g", { class: `cb-pod ${ps.cls}${mine ? " me" : ""}${lastWin ? " won" : ""}`, "data-seat": seat });
    const pw = 116, ph = 50;
    const px = -pw / 2, py = -ph / 2;
    let drawAt, prisAt;
    if (dir === "row") {
      drawAt = { x: px - 26, y: -5 };
      prisAt = { x: -px + 26, y: -5 };
    } else {
      const dy = dir === "down" ? ph / 2 + 30 : -(ph / 2 + 36);
      drawAt = { x: -30, y: dy };
      prisAt = { x: 30, y: dy };
    }
    const dp = pile("draw", x.draw, drawAt, "draw_title", seat);
    const pp = pile("prisoners", x.prisoners, prisAt, "prisoners_title", seat);
    if (lastWin && shown.last.cards) {
      pp.append(anim(svg("text", { y: -26, "text-anchor": "middle", class: "cb-gain" }, `+${shown.last.cards}`), "cb-anim", fx.capture, CAPTURE_MS));
    }
    // nameplate
    const plate = svg("g", { class: "cb-nameplate" });
    if (ps.cls === "pending") {
      plate.append(svg("rect", { x: px - 4, y: py - 4, width: pw + 8, height: ph + 8, rx: 8, class: "cb-pending-ring" }));
    }
    plate.append(svg("rect", { x: px, y: py, width: pw, height: ph, rx: 5, class: "cb-plate-bg" }));
    plate.append(svg("circle", { cx: px + 1, cy: py + 1, r: 10, class: "cb-seat-badge" }));
    plate.append(svg("text", { x: px + 1, y: py + 5, "text-anchor": "middle", class: "cb-seat-letter" }, seat));
    const shortName = clip(rawName(seat), 16);
    plate.append(svg("text", {
      x: 0, y: -2, "text-anchor": "middle", class: "cb-name",
      // long names are squeezed to fit the plate
      textLength: shortName.length > 10 ? pw - 14 : null,
      lengthAdjust: shortName.length > 10 ? "spacingAndGlyphs" : null,
    }, shortName));
    const icon = { pending: "⚔ ", ready: "✓ ", out: "✕ ", first: "★ " }[ps.cls] || "";
    const statusText = ps.text ? icon + ps.text : "";
    plate.append(svg("text", {
      x: 0, y: 15, "text-anchor": "middle", class: "cb-pod-status",
      textLength: statusText.length > 15 ? pw - 12 : null,
      lengthAdjust: statusText.length > 15 ? "spacingAndGlyphs" : null,
    }, statusText));
    if (mine) {
      plate.append(svg("rect", { x: -17, y: py + ph - 5, width: 34, height: 11, rx: 5.5, class: "cb-you-tag" }));
      plate.append(svg("text", { x: 0, y: py + ph + 3.5, "text-anchor": "middle", class: "cb-you" }, t("you")));
    }
    if (x.out) plate.append(svg("line", { x1: px + 12, y1: -7, x2: -px - 12, y2: -7, class: "cb-strike" }));
    g.append(plate, dp, pp);
    g.append(svg("title", {}, t("pod_title", { name: nameOf(seat), draw: x.draw, prisoners: x.prisoners, status: ps.text || "—" })));
    return g;
  }

  // ---- controls: Fight!, waiting, concede -----------------------------------------------
  let controlsKey = null;
  function renderControls(st) {
    const mine = me();
    const war = st.clash && st.clash.kind === "war";
    // Rebuilt only when something in it changes (others getting ready does not replay the
    // button's entrance or move the keyboard focus).
    const key = JSON.stringify([canFight(), war, busy, confirming, canConcede(st), st.attack_cards,
      !!(mine && st.seats[mine] && st.seats[mine].ready && !over())]);
    if (key === controlsKey) return;
    controlsKey = key;
    controls.replaceChildren();
    const act = el("div", { class: "combat-act" });
    if (canFight()) {
      act.append(el("button", {
        type: "button",
        class: `combat-fight${war ? " war" : ""}`,
        "data-focus": "fight",
        "data-testid": "fight",
        "aria-describedby": `${id}-fight-help`,
        onclick: fight,
      }, [
        el("span", { class: "combat-fight-icon", "aria-hidden": "true" }, "⚔"),
        el("span", { class: "combat-fight-label" }, war ? t("to_war") : t("fight")),
      ]));
      act.append(el("p", { class: "combat-fight-help", id: `${id}-fight-help` },
        war ? t("fight_help_war", { count: st.attack_cards }) : t("fight_help", { count: st.attack_cards })));
    } else if (busy && !confirming) {
      act.append(el("p", { class: "combat-pill" }, t("sending")));
    } else if (mine && st.seats[mine] && st.seats[mine].ready && !over()) {
      act.append(el("p", { class: "combat-pill ready" }, [
        el("span", { class: "combat-ready-mark", "aria-hidden": "true" }, "✓"),
        t("ready_pill"),
      ]));
    }
    if (act.childNodes.length) controls.append(act);
    if (canConcede(st)) {
      const slot = el("div", { class: "combat-concede-slot" });
      if (!confirming) {
        slot.append(el("button", {
          type: "button", class: "combat-concede", "data-focus": "concede", "data-testid": "concede",
          disabled: busy ? true : null,
          onclick: () => {
            confirming = true;
            error = null;
            render();
            board.querySelector("[data-focus=concede-no]")?.focus();
          },
        }, t("concede")));
      } else {
        slot.append(el("div", { class: "combat-confirm", role: "group", "aria-labelledby": `${id}-cq` }, [
          el("p", { id: `${id}-cq` }, t("concede_confirm")),
          el("div", { class: "combat-confirm-buttons" }, [
            el("button", {
              type: "button", class: "combat-confirm-yes", "data-focus": "concede-yes", "data-testid": "concede-yes",
              onclick: concede,
            }, t("concede_yes")),
            el("button", {
              type: "button", class: "combat-confirm-no", "data-focus": "concede-no",
              onclick: () => {
                confirming = false;
                render();
                board.querySelector("[data-focus=concede]")?.focus();
              },
            }, t("concede_no")),
          ]),
        ]));
      }
      controls.append(slot);
    } else {
      confirming = false;
    }
  }

  function renderMessage() {
    message.replaceChildren();
    if (error) message.append(el("span", {}, t("rejected", { message: error })));
  }

  // ---- standings ------------------------------------------------------------------------
  function renderStandings(st) {
    const rows = (st.standings || []).slice().sort((a, b) => a.place - b.place || (a.seat < b.seat ? -1 : 1));
    const counts = {};
    for (const r of rows) counts[r.place] = (counts[r.place] || 0) + 1;
    const scoreHead = st.ending === "surrender" ? t("col_cards") : t("col_prisoners");
    const body = rows.map((r) => {
      const x = st.seats[r.seat] || {};
      const shared = counts[r.place] > 1;
      const place = shared ? t("place_shared", { place: r.place }) : t("place", { place: r.place });
      const mine = r.seat === me();
      return el("tr", { class: `${mine ? "me" : ""}${x.out ? " out" : ""}${r.place === 1 ? " first" : ""}`, "data-seat": r.seat, "data-place": r.place }, [
        el("td", { class: "cb-st-place" }, place),
        el("th", { scope: "row", class: "cb-st-name" }, [
          el("span", { class: "cb-st-seat", "aria-hidden": "true" }, r.seat),
          nameOf(r.seat),
          x.out ? el("span", { class: "cb-st-tag" }, t(`out_${x.out}`)) : null,
        ]),
        el("td", { class: "cb-st-num" }, r.score),
        el("td", { class: "cb-st-num cb-st-draw" }, x.draw ?? ""),
      ]);
    });
    standingsBox.replaceChildren(
      el("h3", { id: `${id}-st` }, over() ? t("final_standings") : t("standings")),
      el("table", { class: "combat-standings" }, [
        el("thead", {}, el("tr", {}, [
          el("th", { scope: "col" }, t("col_place")),
          el("th", { scope: "col" }, t("col_player")),
          el("th", { scope: "col", class: "cb-st-num" }, scoreHead),
          el("th", { scope: "col", class: "cb-st-num cb-st-draw" }, t("col_draw")),
        ])),
        el("tbody", {}, body),
      ]),
      el("p", { class: "combat-standings-note" }, st.ending === "surrender" ? t("standings_note_surrender") : t("standings_note_prisoners")),
    );
  }

  // ---- the battle log, in words ---------------------------------------------------------
  function attackList(attacks) {
    return Object.keys(attacks || {}).sort().map((s) => {
      const e = attacks[s];
      return e.down
        ? t("log_entry_down", { name: nameOf(s), formula: formula(e), count: e.down })
        : t("log_entry", { name: nameOf(s), formula: formula(e) });
    }).join("; ");
  }

  function eventText(e) {
    switch (e.type) {
      case "battle": return { text: t("log_battle", { n: e.battle }), kind: "sep" };
      case "attack":
        return e.war
          ? { text: t("log_war_attacks", { war: e.war, list: attackList(e.attacks) }) }
          : { text: t("log_attacks", { list: attackList(e.attacks) }) };
      case "capture":
        return { text: t("log_capture", { name: nameOf(e.seat), value: e.value, count: e.cards, n: e.battle }), kind: "capture" };
      case "war":
        return { text: t("log_war", { names: names(e.tied), value: e.value, war: e.war, count: (e.seats || []).length }), kind: "war" };
      case "set_aside": return { text: t("log_set_aside", { count: e.cards }), kind: "war" };
      case "reshuffle": return { text: t("log_reshuffle", { name: nameOf(e.seat), count: e.cards }) };
      case "out": return { text: t("log_out", { names: names(e.seats), count: (e.seats || []).length }), kind: "out" };
      case "forfeit":
        return { text: t(e.reason === "timeouts" ? "log_forfeit_timeouts" : "log_concede", { name: nameOf(e.seat), count: e.set_aside ?? 0 }), kind: "out" };
      case "timeout": return { text: t("log_timeout", { name: nameOf(e.seat) }) };
      case "match_end": {
        const res = e.result || {};
        const firsts = Object.keys(res.places || {}).filter((s) => res.places[s] === 1).sort();
        const text = res.winner
          ? t("log_end_winner", { name: nameOf(res.winner), count: res.battles ?? 0 })
          : t("log_end_shared", { names: names(firsts), count: res.battles ?? 0 });
        return { text, kind: "end" };
      }
      default: return null;
    }
  }

  function ingest(events) {
    for (const e of events || []) {
      const key = `${e.version ?? ""}|${JSON.stringify(e)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const item = eventText(e);
      if (item) log.push({ text: item.text, kind: item.kind || e.type });
    }
    while (log.length > LOG_MAX) log.shift();
    if (seen.size > 4000) seen.clear();
  }

  /** On a first look at a match already under way the document only carries the latest
   *  events: start the log with the previous battle, told from the table. */
  function seedLog(st, events) {
    const last = st && st.last_battle;
    if (!last || !last.rounds || !last.rounds.length) return;
    const told = (events || []).some((e) => (e.type === "capture" || e.type === "set_aside") && e.battle === last.battle);
    if (told) return;
    const push = (item) => log.push({ text: item.text, kind: item.kind || "attack" });
    push(eventText({ type: "battle", battle: last.battle }));
    last.rounds.forEach((round, r) => {
      push(eventText({ type: "attack", battle: last.battle, war: r, attacks: round }));
      const best = bestOf(round);
      const tied = Object.keys(round).filter((s) => round[s].value === best).sort();
      if (r < last.rounds.length - 1) {
        push(eventText({ type: "war", battle: last.battle, war: r + 1, tied, value: best, seats: [] }));
      } else if (last.winner) {
        push(eventText({ type: "capture", battle: last.battle, seat: last.winner, value: best, cards: last.cards }));
      } else {
        push(eventText({ type: "set_aside", battle: last.battle, cards: last.cards }));
      }
    });
  }

  /** Only new lines are added (and the oldest dropped), so a screen reader announces each
   *  line of the log once. */
  function renderLog() {
    const stick = logList.scrollHeight - logList.scrollTop - logList.clientHeight < 24;
    const keep = new Set(log);
    for (const li of [...logList.children]) {
      if (!li.logItem || !keep.has(li.logItem)) li.remove();
    }
    const shown = new Set([...logList.children].map((li) => li.logItem));
    for (const item of log) {
      if (shown.has(item)) continue;
      const li = el("li", { class: `log-${item.kind}` }, item.text);
      li.logItem = item;
      logList.append(li);
    }
    if (!log.length) logList.append(el("li", { class: "log-empty" }, t("log_empty")));
    if (stick || first) logList.scrollTop = logList.scrollHeight;
  }

  // ---- animations keyed on what changed -------------------------------------------------
  function noteChanges(st) {
    if (!st) return;
    const now = Date.now();
    const warKey = st.clash && st.clash.kind === "war" ? `${st.battle}:${st.clash.war}` : null;
    if (warKey !== fx.war.key) {
      fx.war = { key: warKey, at: warKey && !first ? now : 0 };
      if (warKey && !first) shake();
    }
    const capKey = st.last_battle ? `${st.last_battle.battle}` : null;
    if (capKey !== fx.capture.key) fx.capture = { key: capKey, at: capKey && !first ? now : 0 };
    const shown = shownRound(st);
    const revKey = shown ? shown.key : null;
    if (revKey !== fx.reveal.key) fx.reveal = { key: revKey, at: revKey && !first ? now : 0 };
  }

  function shake() {
    tableWrap.classList.remove("shake");
    void tableWrap.offsetWidth; // restart the animation
    tableWrap.classList.add("shake");
    clearTimeout(shakeTimer);
    shakeTimer = setTimeout(() => tableWrap.classList.remove("shake"), WAR_MS);
  }

  function onKey(ev) {
    if (ev.key === "Escape" && confirming) {
      confirming = false;
      render();
      board.querySelector("[data-focus=concede]")?.focus();
    }
  }
  board.addEventListener("keydown", onKey);

  return {
    update(viewDoc) {
      if (destroyed || !viewDoc) return;
      const prevVersion = doc && doc.version;
      doc = viewDoc;
      if (doc.version !== prevVersion) error = null;
      if (board.clientWidth && board.clientWidth < NARROW_PX) layout = LAYOUTS.tall;
      noteChanges(S());
      if (first) seedLog(S(), doc.events);
      ingest(doc.events);
      render();
      first = false;
    },
    destroy() {
      destroyed = true;
      clearInterval(clockTimer);
      clearTimeout(shakeTimer);
      if (resizeObs) resizeObs.disconnect();
      board.removeEventListener("keydown", onKey);
      board.remove();
    },
  };
}

// The seats' badges around the trick: each player's initial, name, tricks of their call, total,
// what they are doing and their turn clock, all within a badge's fixed size. Also the replay's.

import { backElement, el, levelLabel, score } from "./common.js";
import { num, t } from "./i18n.js";

/** @typedef {import("./table.js").TablePage} TablePage */
/** @typedef {import("./table.js").TableState} TableState */

/**
 * Where a seat sits, from the person's side: 0 bottom, 1 right, 2 top, 3 left.
 * @param {{seat: number | null, rules: {clockwise?: boolean}}} state the table's (or a replay's)
 * @param {number} seat
 * @returns {number}
 */
export function positionOf(state, seat) {
  // Anticlockwise puts the next player on the right, clockwise on the left. A spectator sees
  // the table from seat 0's side.
  const offset = (seat - (state.seat ?? 0) + 4) % 4;
  return state.rules.clockwise ? [0, 3, 2, 1][offset] : offset;
}

/** Cards still held by `seat` (counted from what is public). */
function cardsLeft(state, seat) {
  const played = state.trick.cards.length > ((seat - state.trick.leader + 4) % 4) ? 1 : 0;
  return Math.max(0, 13 - state.tricks_played - played);
}

const AVATAR = /^[a-z]{1,20}$/;

function initial(name) {
  return [...String(name || "?").trim()][0] || "?";
}

/**
 * A badge's round initial, or the person's picture at a table of strangers (one of the set
 * drawn in static/avatar-*.svg), with the dealer's mark on it (the table and the replay).
 * @param {string} name
 * @param {boolean} dealer
 * @param {string | null} [picture] the avatar's name
 * @returns {HTMLElement}
 */
export function avatarOf(name, dealer, picture = null) {
  const face = picture && AVATAR.test(picture)
    ? el("img", { class: "picture", src: `/static/avatar-${picture}.svg`, alt: "" })
    : el("span", { text: initial(name) });
  const avatar = el("div", { class: picture ? "avatar has-picture" : "avatar", "aria-hidden": "true" }, face);
  if (dealer) avatar.append(el("b", { class: "mark dealer", text: t("table.dealerMark") }));
  return avatar;
}

/**
 * A badge's line: tricks taken of the call, as a pill, and a total (`totalTitle` says which);
 * in words for a screen reader.
 * @param {number} won
 * @param {number | null} call
 * @param {string} total the total as shown
 * @param {string | null} [totalTitle]
 * @returns {HTMLElement}
 */
export function tricksLine(won, call, total, totalTitle = null) {
  const words = call === null ? t("table.lineNoCall", { won }) : t("table.line", { won, call });
  return el("div", { class: "line" }, el("span", { class: "sr-only", text: words }),
    el("span", { class: "pill", title: t("table.pillTitle"), "aria-hidden": "true", text: `${num(won)}/${call === null ? "–" : num(call)}` }),
    el("span", { class: "total", title: totalTitle, text: total }));
}

/** The default name of a person who gave none, in any language ("You"): no "you" tag then. */
function isDefaultName(name) {
  return ["You", "तपाईं", "आप"].includes(name);
}

/**
 * @param {TablePage} page
 * @param {TableState} s the state whose turn is shown
 */
export function drawSeats(page, s) {
  for (let seat = 0; seat < 4; seat++) {
    const position = positionOf(s, seat);
    const box = page.seats[position];
    const call = s.calls[seat];
    const mine = seat === s.seat;
    const name = s.names[seat];
    const turn = s.turn === seat && !s.match_over;
    const presence = presenceOf(s, seat);
    box.className = `seat pos-${position}` + (turn ? " turn" : "") + (mine ? " mine" : "") +
      (presence ? ` ${presence.kind}` : "");
    box.setAttribute("aria-label", name);
    box.dataset.seat = String(seat);
    // Everything a badge says fits its fixed size: one short line each, the rest as marks on
    // the initial (the dealer, a computer playing the seat) and words for a screen reader.
    const clocked = turn && !s.paused && s.clock && s.clock.seat === seat;
    const avatar = avatarOf(name, seat === s.dealer, s.avatars ? s.avatars[seat] : null);
    if (clocked) {
      avatar.classList.add("clocked");
      avatar.dataset.deadline = String(s.clock.deadline);
    }
    if (presence && presence.kind !== "away") avatar.append(el("b", { class: "mark stand-in", text: "⚙" }));
    const tags = [];
    if (mine && !isDefaultName(name)) tags.push(el("span", { class: "you", text: t("table.you") }));
    if (!mine && s.levels[seat]) tags.push(el("span", { class: "level", text: levelLabel(s.levels[seat]) }));
    if (seat === s.dealer) tags.push(el("span", { class: "sr-only dealer", text: t("table.dealer") }));
    const who = el("div", { class: "who" }, el("strong", { text: name }), ...tags);
    const line = tricksLine(s.won[seat], call, score(s.totals[seat]));
    let doing = "";
    let kind = "";
    if (turn && s.paused) [doing, kind] = [t("table.pausedShort"), "paused"];
    // A person the computer plays for: said on the badge on their turn too (lit, clocked).
    else if (presence && presence.kind === "stood-in" && presence.long) [doing, kind] = [presence.short, "stood-in"];
    else if (s.thinking === seat && turn) [doing, kind] = [t("table.thinking"), "thinking"];
    else if (turn && mine) [doing, kind] = [t("table.yourTurn"), "turn"];
    else if (turn) [doing, kind] = [t(s.phase === "calling" ? "table.toCall" : "table.toPlay"), "turn"];
    else if (presence) [doing, kind] = [presence.short, presence.kind];
    const clock = clocked
      ? el("span", { class: "clock", "data-deadline": String(s.clock.deadline), title: t("table.clockTitle") })
      : null;
    const doingLine = el("div", { class: `doing ${kind}` }, el("span", { class: "what", text: doing }), clock);
    const told = presence && presence.long ? el("span", { class: "covered sr-only", text: presence.long }) : null;
    const left = mine ? 0 : cardsLeft(s, seat);
    const fan = mine ? null : el("div", { class: "fan", "aria-hidden": "true" },
      ...Array.from({ length: left }, (_, index) => {
        const back = backElement();
        back.style.setProperty("--i", String(index - (left - 1) / 2));
        return back;
      }));
    box.replaceChildren(...[avatar, el("div", { class: "badge-text" }, who, line, doingLine, told), fan]
      .filter(Boolean));
  }
}

/**
 * In a room: a computer playing for someone (left or away), an open seat, someone away;
 * {kind, short, long} or null.
 * @param {TableState} s
 * @param {number} seat
 * @returns {{kind: string, short: string, long?: string} | null}
 */
function presenceOf(s, seat) {
  if (!s.seats || s.match_over) return null;
  const info = s.seats[seat];
  const name = s.names[seat];
  if ((s.covered || []).includes(seat)) {
    return { kind: "stood-in", short: t("table.coveredShort"),
      long: info.left ? t("table.coveredLeft", { name }) : t("table.coveredAway", { name }) };
  }
  if (info.kind === "open") return { kind: "stood-in", short: t("table.openShort"), long: t("table.openSeat") };
  if (info.kind === "person" && !info.connected && seat !== s.seat) return { kind: "away", short: t("table.away") };
  return null;
}

/**
 * The turn clock: seconds left for the seat to act, counted here from its deadline.
 * @param {TablePage} page
 */
export function tick(page) {
  const s = page.live;
  const cap = page.options.turnSeconds ? page.options.turnSeconds() : null;
  const left = (deadline) => {
    let ms = Number(deadline) - Date.now();
    // The deadline is the server's time; a browser clock set ahead would show more than the
    // whole clock, so it is never shown as more than the room's clock.
    if (cap) ms = Math.min(ms, cap * 1000);
    return Math.max(0, ms);
  };
  for (const clock of /** @type {NodeListOf<HTMLElement>} */ (page.view.querySelectorAll(".seat .clock"))) {
    const seconds = Math.ceil(left(clock.dataset.deadline) / 1000);
    clock.textContent = t("table.seconds", { seconds });
    clock.classList.toggle("low", seconds <= 5);
  }
  const clocked = /** @type {NodeListOf<HTMLElement>} */ (page.view.querySelectorAll(".seat .avatar.clocked"));
  for (const avatar of clocked) {
    const share = cap ? left(avatar.dataset.deadline) / (cap * 1000) : 1;
    avatar.style.setProperty("--left", String(Math.max(0, Math.min(1, share))));
    avatar.classList.toggle("low", left(avatar.dataset.deadline) <= 5000);
  }
  const mine = s && !s.paused && s.clock && s.seat !== null && s.clock.seat === s.seat && s.turn === s.seat &&
    !s.match_over;
  page.clockLine.hidden = !mine;
  if (mine) {
    const seconds = Math.ceil(left(s.clock.deadline) / 1000);
    // The whole sentence where there is room for it, else the seconds alone.
    page.clockLine.replaceChildren(el("span", { class: "long", text: t("table.clockLine", { seconds }) }),
      el("span", { class: "short", text: t("table.clockShort", { seconds }) }));
    page.clockLine.classList.toggle("low", seconds <= 5);
  }
}

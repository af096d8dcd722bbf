// The status line under the board, and the words of the notices and hints that come over it.

import { cardText, placeText, score } from "./common.js";
import { num, t, tn } from "./i18n.js";

/** @typedef {import("./table.js").TablePage} TablePage */
/** @typedef {import("./table.js").TableState} TableState */

/**
 * What the status line says of `s`: whose turn, what to do, the match over, a room paused.
 * @param {TablePage} page
 * @param {TableState} s
 */
export function drawStatus(page, s) {
  let text;
  const watching = s.seat === null;
  const name = (seat) => s.names[seat];
  if (s.paused && !s.match_over) {
    // Nobody from the room is here, so nobody plays: not a clock run out.
    const names = s.paused.seats.map((seat) => name(seat)).join(t("listSeparator"));
    text = s.paused.reason === "left" ? t("status.pausedLeft")
      : tn("status.pausedAway", s.paused.seats.length, { names });
  } else if (s.match_over && watching) {
    const first = s.names.filter((_, seat) => s.places[seat] === 1);
    text = t("status.overWatching", { names: first.join(t("and")) });
  } else if (s.match_over) {
    text = t("status.over", { place: placeText(s.places, s.seat), total: score(s.totals[s.seat]) });
  } else if (watching) {
    text = s.turn === null ? t("status.watching")
      : t(s.phase === "calling" ? "status.watchingCall" : "status.watchingPlay", { name: name(s.turn) });
  } else if (s.turn === s.seat && s.legal_calls.length) {
    text = t("status.yourCall", { low: s.rules.calls[0], high: s.rules.calls[1] });
  } else if (s.turn === s.seat) {
    text = t(s.trick.cards.length === 0 ? "status.yourLead" : "status.yourTurn");
    if (s.legal.length === 1) text += " " + t("status.onlyOne", { card: cardText(s.legal[0]) });
  } else if (s.turn !== null && (s.covered || []).includes(s.turn) && s.seats && s.seats[s.turn]) {
    // A person dropped out: the computer decides for them, and the status line says so.
    text = t(s.seats[s.turn].left ? "status.coveredLeft" : "status.coveredAway", { name: name(s.turn) });
  } else if (s.thinking !== null) {
    // On a first start a simpler level plays for a computer whose search still compiles.
    text = t(s.preparing ? "status.preparing" : "status.thinking", { name: name(s.thinking) });
  } else if (s.turn !== null) {
    text = t(s.phase === "calling" ? "status.toCall" : "status.toPlay", { name: name(s.turn) });
  } else {
    text = "";
  }
  page.status.textContent = text;
}

/**
 * A notice's words: a computer played for a seat (away, out of time, a bot's fault).
 * @param {TablePage} page
 * @param {{cover?: any, fault?: any, message: string}} message
 * @returns {string}
 */
export function noticeText(page, message) {
  const names = (page.latest || {}).names || [];
  const what = (kind, action) => kind === "play" ? t("notice.theCard", { card: cardText(action) })
    : action === "redeal" ? t("notice.aRedeal") : t("notice.aCall", { call: Number(action) });
  if (message.cover) {
    const c = message.cover;
    const key = c.reason === "timeout" ? "notice.coverTimeout" : "notice.coverAway";
    return t(key, { name: names[c.seat] || "", what: what(c.kind, c.action) });
  }
  if (message.fault) {
    const f = message.fault;
    return t("notice.botFault", { name: names[f.seat] || "", what: what(f.action, f.substitute) });
  }
  return t("notice.other", { detail: message.message });
}

/**
 * A hint's words: the call or the card the advisor would choose.
 * @param {{kind: string, options: {action: any, tricks: number | null}[]}} message
 * @returns {string}
 */
export function hintText(message) {
  const best = message.options[0];
  if (!best) return t("hint.none");
  if (message.kind === "call") {
    return t("hint.call", { call: best.action, tricks: best.tricks === null ? null : num(best.tricks.toFixed(1)) });
  }
  return t("hint.play", { card: cardText(best.action) });
}

// Reactions at a room's table (docs/rooms.md, "Reactions"): a preset set of emoji (drawn here)
// and short phrases, no free text. A seated person picks one from the table's React button; the server
// shows it to everyone at the table, and each page puts it on the sender's badge for a few
// seconds (in the page's language). Mute hides the others' reactions at this table, kept per
// room in this browser.

import { el } from "./common.js";
import { t } from "./i18n.js";

// The emoji, drawn here (a phone without a colour emoji font would show empty boxes): faces
// and hands at 24×24, filled.
const FACE = '<circle cx="12" cy="12" r="10" fill="#f6c744" stroke="#c98a0b"/>';
const INK = 'fill="none" stroke="#5b3a00" stroke-width="1.6" stroke-linecap="round"';
const EMOJI = {
  thumbs: '<path d="M2.5 10.5h4v10h-4z" fill="#f6c744" stroke="#c98a0b"/>' +
    '<path d="M7.5 10.5l4-7c1.6 0 2.6 1.1 2.3 2.8l-.7 3.7h5.4c1.3 0 2.2 1.2 1.9 2.4l-1.8 6.4c-.3 1-1.1 1.7-2.1 1.7H7.5z"' +
    ' fill="#f6c744" stroke="#c98a0b" stroke-linejoin="round"/>',
  heart: '<path d="M12 21s-7.5-4.6-9.5-9.3C1.2 8.4 3.3 5 6.6 5c2.1 0 3.6 1.2 5.4 3.2C13.8 6.2 15.3 5 17.4 5' +
    'c3.3 0 5.4 3.4 4.1 6.7C19.5 16.4 12 21 12 21z" fill="#e0314b"/>',
  laugh: `${FACE}<path d="M7.5 10q1.5-2 3 0M13.5 10q1.5-2 3 0" ${INK}/><path d="M7 13.5h10a5 5 0 0 1-10 0z" fill="#7a2e0e"/>`,
  wow: `${FACE}<circle cx="8.5" cy="10" r="1.3" fill="#5b3a00"/><circle cx="15.5" cy="10" r="1.3" fill="#5b3a00"/>` +
    `<path d="M6.5 7.2l3-1M17.5 7.2l-3-1" ${INK}/><ellipse cx="12" cy="16" rx="2.2" ry="2.8" fill="#7a2e0e"/>`,
  sad: `${FACE}<circle cx="8.5" cy="10" r="1.3" fill="#5b3a00"/><circle cx="15.5" cy="10" r="1.3" fill="#5b3a00"/>` +
    `<path d="M8 17.5q4-3.5 8 0" ${INK}/><path d="M16.8 12q1.6 2.6 0 3.7q-1.6-1.1 0-3.7z" fill="#4aa3df"/>`,
};

/** Each reaction the server takes (web/reactions.py): the emoji first, then the phrases
 * (worded as reaction.NAME in the page's language). */
export const REACTIONS = [
  ["thumbs", "emoji"],
  ["heart", "emoji"],
  ["laugh", "emoji"],
  ["wow", "emoji"],
  ["sad", "emoji"],
  ["good_luck", "phrase"],
  ["well_played", "phrase"],
  ["nice_call", "phrase"],
  ["thanks", "phrase"],
  ["oops", "phrase"],
];

const SHOWN_MS = 3500; // how long a reaction stays on a badge

/**
 * A reaction as a page shows it: its emoji drawn (with its words for a screen reader), or its
 * phrase in the page's language.
 * @param {string} name
 * @returns {HTMLElement}
 */
export function reactionNode(name) {
  if (!(name in EMOJI)) return el("span", { class: "phrase", text: t(`reaction.${name}`) });
  const node = el("span", { class: "emoji" }, el("span", { class: "sr-only", text: t(`reaction.${name}`) }));
  node.insertAdjacentHTML("afterbegin",
    `<svg viewBox="0 0 24 24" aria-hidden="true" focusable="false">${EMOJI[name]}</svg>`);
  return node;
}

/**
 * Whether this browser muted the reactions at table `key`.
 * @param {string} key
 * @returns {boolean}
 */
function muted(key) {
  try {
    return localStorage.getItem(`callbreak:mute:${key}`) === "1";
  } catch {
    return false;
  }
}

/**
 * The table's reactions: the panel the React button opens (the presets and the mute), and the
 * bubbles on the badges. `page` is the TablePage; `key` names the table (its room's code).
 */
export class Reactions {
  /**
   * @param {any} page
   * @param {string} key
   */
  constructor(page, key) {
    this.page = page;
    this.key = key;
    /** @type {Map<number, {bubble: HTMLElement, timer: number}>} the bubble shown on each seat */
    this.shown = new Map();
    this.mute = el("input", { type: "checkbox", class: "mute" });
    this.mute.checked = muted(key);
    this.mute.addEventListener("change", () => {
      localStorage.setItem(`callbreak:mute:${key}`, this.mute.checked ? "1" : "0");
      if (this.mute.checked) this.clear();
    });
    this.panel = el("div", { class: "reactions", role: "group", hidden: true });
  }

  /** The panel's words and buttons, in the page's language. */
  draw() {
    const choices = REACTIONS.map(([name, kind]) => el("button", {
      type: "button", class: `reaction ${kind}`, "data-reaction": name, onclick: () => this.send(name),
    }, reactionNode(name)));
    this.panel.setAttribute("aria-label", t("reaction.title"));
    this.panel.replaceChildren(
      el("div", { class: "emoji-row" }, ...choices.slice(0, 5)),
      el("div", { class: "phrase-row" }, ...choices.slice(5)),
      el("label", { class: "check mute-line" }, this.mute, t("reaction.mute")));
  }

  toggle() {
    if (this.panel.hidden) this.draw();
    this.panel.hidden = !this.panel.hidden;
    if (!this.panel.hidden) /** @type {HTMLElement | null} */ (this.panel.querySelector("button"))?.focus();
  }

  close() {
    this.panel.hidden = true;
  }

  /** @param {string} name */
  send(name) {
    this.close();
    this.page.send({ type: "react", reaction: name });
  }

  /**
   * A reaction the server sent: on the sender's badge for a while (the others' not at all
   * while muted; the person's own always, so that they see it went).
   * @param {{seat: number, reaction: string}} message
   */
  heard(message) {
    const state = this.page.live || this.page.state;
    if (!state || !REACTIONS.some(([name]) => name === message.reaction)) return;
    if (this.mute.checked && message.seat !== state.seat) return;
    const before = this.shown.get(message.seat);
    if (before) clearTimeout(before.timer);
    const bubble = el("span", { class: "reaction-bubble", role: "status", "data-reaction": message.reaction },
      reactionNode(message.reaction));
    const timer = window.setTimeout(() => {
      bubble.remove();
      this.shown.delete(message.seat);
    }, SHOWN_MS);
    this.shown.set(message.seat, { bubble, timer });
    this.place();
  }

  /** Put each bubble on its seat's badge (again after the badges are drawn anew). */
  place() {
    for (const [seat, { bubble }] of this.shown) {
      const badge = this.page.seats.find((box) => box.dataset.seat === String(seat));
      if (badge && bubble.parentNode !== badge) badge.append(bubble);
    }
  }

  clear() {
    for (const { bubble, timer } of this.shown.values()) {
      clearTimeout(timer);
      bubble.remove();
    }
    this.shown.clear();
  }
}

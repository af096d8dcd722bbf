// The person's hand along the bottom edge, and the calls above it: a card played leaves its
// place empty for the rest of the deal, so that a finger never finds another card where it
// aimed. On a touch screen a tap lifts a card and a second tap (or a drag upwards) plays it;
// a key or a mouse plays at once. Functions of the table page (table.js), which owns the state.

import { cardElement, cardName, cardText, dutyText, el } from "./common.js";
import { num, t } from "./i18n.js";
import { coarse, oneTap } from "./prefs.js";
import { motion, travel } from "./motion.js";

/** @typedef {import("./table.js").TablePage} TablePage */
/** @typedef {import("./table.js").TableState} TableState */

/** Where this tab keeps the hand's places of the deal it shows (sessionStorage). */
const LAYOUT_KEY = "callbreak:layout";

/** How far up (px) a card is dragged to play it. */
const DRAG_PX = 28;

/** What each card of the hand shows of itself at least, each way (px): a fingertip. */
const TOUCH_PX = 44;

/**
 * Lay the hand out along the bottom: one overlapped row, or two where a row would show less
 * of each card than `px` and a `share` of its width, centred. At the table every card shows its
 * corner and at least TOUCH_PX × TOUCH_PX of itself (a fingertip); the replay's hand, which
 * nobody taps, asks less (its corner index). The hand's box is as tall as a full hand needs,
 * so it never changes size during a deal.
 * @param {HTMLElement} hand
 * @param {{px?: number, share?: number}} [options]
 */
export function layHand(hand, { px = TOUCH_PX, share = 0.5 } = {}) {
  const cards = /** @type {HTMLElement[]} */ ([...hand.children]);
  const width = hand.clientWidth;
  if (!width || !cards.length) return;
  const cardWidth = cards[0].offsetWidth;
  const cardHeight = cards[0].offsetHeight;
  if (!cardWidth) return;
  const style = getComputedStyle(hand);
  const rem = parseFloat(getComputedStyle(document.documentElement).fontSize) || 16;
  const length = (name) => (parseFloat(style.getPropertyValue(name)) || 0) * rem;
  const above = length("--lifted"); // room above the cards for one lifted or hovered
  const raise = length("--raise"); // playable cards rise this much on the person's turn
  const least = Math.max(px, cardWidth * share);
  const perRowMost = Math.max(1, Math.floor((width - cardWidth) / least) + 1);
  const rowsFor = (count) => (count <= perRowMost ? 1 : 2);
  const fullRows = rowsFor(13);
  // The upper row shows `px` of each card even under a lifted card of the lower row.
  const rowGap = Math.max(cardHeight * 0.6, px + Math.max(raise, above) + 2);
  hand.style.height = `${Math.round(above + cardHeight + (fullRows - 1) * rowGap + 2)}px`;
  const rows = Math.min(rowsFor(cards.length), fullRows);
  const perRow = Math.ceil(cards.length / rows);
  // A hand of one row in a box of two sits in the lower row, along the bottom edge.
  const firstRow = fullRows - rows;
  cards.forEach((card, index) => {
    const row = Math.floor(index / perRow);
    const inRow = row === rows - 1 ? cards.length - perRow * (rows - 1) : perRow;
    const column = index - row * perRow;
    const step = inRow > 1 ? Math.min(cardWidth * 0.92, (width - cardWidth) / (inRow - 1)) : 0;
    const rowWidth = cardWidth + step * (inRow - 1);
    card.style.left = `${Math.round((width - rowWidth) / 2 + column * step)}px`;
    card.style.top = `${Math.round(above + (firstRow + row) * rowGap)}px`;
  });
}

/** The hand's places of the deal `key` as this tab last laid them out, or null. */
function keptLayout(key) {
  try {
    const kept = JSON.parse(sessionStorage.getItem(LAYOUT_KEY) || "null");
    return kept && kept.key === key && Array.isArray(kept.codes) ? kept : null;
  } catch {
    return null;
  }
}

function keepLayout(layout) {
  try {
    sessionStorage.setItem(LAYOUT_KEY, JSON.stringify(layout));
  } catch {
    // not kept: a reload lays the cards held then out afresh
  }
}

function rectsOf(cards) {
  const rects = new Map();
  for (const [code, card] of cards) if (card.isConnected) rects.set(code, card.getBoundingClientRect());
  return rects;
}

/**
 * @param {TablePage} page
 */
export function drawCalling(page) {
  const s = page.state;
  if (!s.legal_calls.length || page.latest !== s) {
    page.calling.hidden = true;
    page.calling.replaceChildren();
    return;
  }
  page.calling.hidden = false;
  // Drawn again (a hint came, someone joined): the keyboard keeps its place.
  const active = /** @type {HTMLElement | null} */ (document.activeElement);
  const focused = page.calling.contains(active) ? active : null;
  const refocus = focused && (focused.dataset.call || focused.className.split(" ")[0]);
  const suggested = page.hint && page.hint.kind === "call" && page.hint.version === s.version
    ? page.hint.options[0].action : null;
  const buttons = s.legal_calls.map((value, index) => el("button", {
    type: "button", class: "call" + (value === suggested ? " suggested" : ""), text: num(value),
    "aria-label": t("table.callButton", { call: value }), tabindex: index === 0 ? "0" : "-1",
    "data-call": String(value), onclick: () => page.call(value),
  }));
  // No hints in the daily challenge (its server refuses them).
  const hint = s.settings && s.settings.challenge ? null
    : el("button", { type: "button", class: "hint-call", text: t("table.hint"), onclick: () => page.askHint() });
  page.calling.replaceChildren(
    el("p", { class: "label", text: t("table.callPrompt", { low: s.rules.calls[0], high: s.rules.calls[1] }) }),
    el("div", { class: "calls" }, ...buttons),
    el("div", { class: "call-extra" }, hint, s.may_claim_redeal ? el("button", {
      type: "button", class: "redeal", text: t("table.redeal"), onclick: () => page.act({ type: "redeal" }),
    }) : null));
  if (refocus) {
    const again = page.calling.querySelector(`[data-call="${refocus}"]`) || page.calling.querySelector(`.${refocus}`);
    if (again) {
      for (const button of buttons) button.setAttribute("tabindex", button === again ? "0" : "-1");
      again.focus();
    }
  }
}

/**
 * @param {TablePage} page
 * @param {TableState} [s] the state drawn (the state shown unless said)
 */
export function drawHand(page, s = page.state) {
  const active = /** @type {HTMLElement | null} */ (document.activeElement);
  const focused = active && page.hand.contains(active) ? active.dataset.card : null;
  const legal = new Set(s.legal);
  const myTurnToPlay = s.seat !== null && s.turn === s.seat && s.phase === "playing" && !s.match_over;
  const suggested = page.hint && page.hint.kind === "play" && page.hint.version === s.version
    ? page.hint.options[0].action : null;
  // The hand is laid out once a deal: a card played leaves its place empty and no other card
  // moves until the next deal, so that a finger never finds another card where it aimed.
  const key = `${s.match}:${s.seat}:${s.deal_number}`;
  const relayout = !page.layout || page.layout.key !== key || s.hand.some((code) => !page.layout.codes.includes(code));
  const before = relayout ? rectsOf(page.handCards) : null;
  if (relayout) {
    // A page loaded again mid-deal (a reload, a reconnect) lays the hand out as it was.
    const kept = keptLayout(key);
    page.layout = kept && s.hand.every((code) => kept.codes.includes(code)) ? kept : { key, codes: [...s.hand] };
    keepLayout(page.layout);
  }
  // A lifted card stays up only on the decision it was lifted for.
  if (page.lifted && (page.lifted.version !== s.version || !legal.has(page.lifted.code))) {
    page.lifted = null;
    if (page.noteState && page.noteState.kind === "lift") page.clearNote();
  }
  const held = new Set(s.hand);
  const cards = page.layout.codes.map((code) => {
    let card = page.handCards.get(code);
    if (!card) {
      card = cardElement(code, { button: true });
      card.addEventListener("click", (event) => tapped(page, code, event));
      card.addEventListener("pointerdown", (event) => pressed(page, code, event));
      page.handCards.set(code, card);
    }
    const gone = !held.has(code);
    const playable = myTurnToPlay && legal.has(code);
    const lifted = Boolean(page.lifted && page.lifted.code === code && playable);
    card.className = card.className.replace(/ (illegal|playable|suggested|gone|chosen|lifted)/g, "");
    card.classList.toggle("gone", gone);
    card.classList.toggle("playable", playable && !gone);
    card.classList.toggle("lifted", lifted);
    card.classList.toggle("illegal", myTurnToPlay && !playable && !gone);
    card.classList.toggle("suggested", code === suggested);
    card.setAttribute("aria-label", cardName(code) + (myTurnToPlay && !playable ? t("table.notPlayable") : "") +
      (lifted ? t("table.liftedLabel") : ""));
    if (myTurnToPlay && !playable) card.setAttribute("aria-disabled", "true");
    else card.removeAttribute("aria-disabled");
    card.title = myTurnToPlay && !playable && s.duties ? dutyText(s.duties[code]) : "";
    card.hidden = false;
    return card;
  });
  for (const code of page.handCards.keys()) if (!page.layout.codes.includes(code)) page.handCards.delete(code);
  // One tab stop for the hand: the focused card, else the first playable one.
  const live = cards.filter((card) => !card.classList.contains("gone"));
  let start = live.findIndex((card) => card.dataset.card === focused);
  if (start < 0) start = Math.max(0, live.findIndex((card) => !card.classList.contains("illegal")));
  cards.forEach((card) => card.setAttribute("tabindex", "-1"));
  if (live[start]) live[start].setAttribute("tabindex", "0");
  page.hand.replaceChildren(...cards);
  page.hand.classList.toggle("active", myTurnToPlay);
  placeHand(page);
  if (before && motion() && !page.hurried()) {
    for (const card of cards) {
      const old = before.get(card.dataset.card);
      if (old) travel(card, old, null, 220);
    }
  }
  if (focused) {
    const again = page.handCards.get(focused);
    if (again && again.isConnected && !again.classList.contains("gone")) again.focus();
  }
}

/**
 * @param {TablePage} page
 */
export function placeHand(page) {
  layHand(page.hand);
}

/**
 * The person's own card left the hand: its place stays, empty, for the rest of the deal.
 * @param {TablePage} page
 * @param {string} code the card, such as "TH"
 */
export function markPlayed(page, code) {
  const card = page.handCards.get(code);
  // Nothing in the hand is playable until the next state says so.
  page.hand.classList.remove("active");
  if (card) {
    const focused = document.activeElement === card;
    card.classList.add("gone");
    card.classList.remove("chosen", "playable", "lifted");
    // The keyboard stays in the hand: on the next card still held (or the one before).
    if (focused) {
      const live = [...page.hand.querySelectorAll("button.card:not(.gone)")];
      const next = live.find((other) => other.compareDocumentPosition(card) & Node.DOCUMENT_POSITION_PRECEDING) ||
        live[live.length - 1];
      if (next) {
        for (const other of live) other.setAttribute("tabindex", other === next ? "0" : "-1");
        next.focus();
      }
    }
  }
}

/**
 * @param {TablePage} page
 */
export function unchoose(page) {
  for (const card of page.handCards.values()) card.classList.remove("chosen");
}

/**
 * A click, a tap or a key on a card of the hand.
 * @param {TablePage} page
 * @param {string} code
 * @param {MouseEvent} event
 */
function tapped(page, code, event) {
  if (page.dragged === code) {
    page.dragged = null; // the drag that ended here played it already
    return;
  }
  // A key (Enter, Space) or a mouse plays at once, as does a tap under the one-tap setting.
  if (event.detail === 0 || !coarse() || oneTap()) return page.play(code);
  if (page.lifted && page.lifted.code === code) return page.play(code);
  // A card that cannot be played now is not lifted: play() says why.
  if (!playableNow(page, code)) return page.play(code);
  lift(page, code);
}

/**
 * A press on a card: dragged upwards far enough, it is played (a touch screen's swipe).
 * @param {TablePage} page
 * @param {string} code
 * @param {PointerEvent} event
 */
function pressed(page, code, event) {
  if (event.pointerType === "mouse" || !playableNow(page, code)) return;
  const card = event.currentTarget;
  const start = { x: event.clientX, y: event.clientY };
  const move = (moved) => {
    if (moved.pointerId !== event.pointerId) return;
    const up = start.y - moved.clientY;
    if (up >= DRAG_PX && up > Math.abs(moved.clientX - start.x)) {
      done();
      page.dragged = code;
      setTimeout(() => { if (page.dragged === code) page.dragged = null; }, 600);
      page.play(code);
    }
  };
  const done = () => {
    card.removeEventListener("pointermove", move);
    card.removeEventListener("pointerup", done);
    card.removeEventListener("pointercancel", done);
  };
  card.addEventListener("pointermove", move);
  card.addEventListener("pointerup", done);
  card.addEventListener("pointercancel", done);
}

/**
 * @param {TablePage} page
 * @param {string} code
 * @returns {boolean}
 */
function playableNow(page, code) {
  const s = page.latest;
  return Boolean(s && !page.pending && s.seat !== null && !s.match_over && s.turn === s.seat &&
    s.phase === "playing" && s.legal.includes(code));
}

/**
 * The first tap on a touch screen: the card rises, and a second tap plays it.
 * @param {TablePage} page
 * @param {string} code
 */
function lift(page, code) {
  drop(page);
  const card = page.handCards.get(code);
  if (!card) return;
  page.lifted = { code, version: page.latest.version };
  card.classList.add("lifted");
  card.setAttribute("aria-label", cardName(code) + t("table.liftedLabel"));
  // Said where the eye is, over the status line, until it is played or put back.
  page.note(t("table.liftedNote", { card: cardText(code) }), "lift");
}

/**
 * @param {TablePage} page
 */
export function drop(page) {
  if (!page.lifted) return;
  const card = page.handCards.get(page.lifted.code);
  page.lifted = null;
  if (page.noteState && page.noteState.kind === "lift") page.clearNote();
  if (card) {
    card.classList.remove("lifted");
    card.setAttribute("aria-label", cardName(card.dataset.card));
  }
}

// What opens over the table: the last trick (a peek), the deal summaries between deals, the
// settings, and the scores and rules (beside the table on a wide screen, else a sheet over it).
// Each sheet closes with a tap outside it. Functions of the table page (table.js).

import {
  cardElement, cardName, downloadLink, el, placeText, rulesName, rulesSummary, score,
} from "./common.js";
import { num, t } from "./i18n.js";
import {
  PAUSES, PAUSE_KEY, coarse, keepStored, oneTap, pauseSetting, readStored, setOneTap,
} from "./prefs.js";
import { drop } from "./hand.js";
import * as sound from "./sound.js";
import { canVibrate, setVibrates, vibrates } from "./device.js";
import { reviewPanel } from "./review.js";

/** @typedef {import("./table.js").TablePage} TablePage */
/** @typedef {import("./table.js").TableState} TableState */

/**
 * A sheet over the table (a modal dialog) that a tap outside it closes.
 * @param {string} className
 * @param {string} labelledBy the id of its title
 * @returns {HTMLDialogElement}
 */
export function sheet(className, labelledBy) {
  const dialog = el("dialog", { class: `sheet ${className}`, "aria-labelledby": labelledBy },
    el("div", { class: "sheet-body" }));
  // The backdrop's clicks land on the dialog itself, never on what it holds (the sheet's body
  // fills it): a click there is a tap outside.
  dialog.addEventListener("click", (event) => {
    if (event.target === dialog) dialog.close();
  });
  return dialog;
}

/** Whether `seat` made its call in a deal's `result`, under `rules` (exact scoring: the call
 * or one more). */
function madeCall(rules, result, seat) {
  const call = result.calls[seat];
  const won = result.won[seat];
  return (rules.options || {}).exact_scoring ? won === call || won === call + 1 : won >= call;
}

/**
 * The score table: per deal each player's points and tricks won/call (the badges' order), and the
 * totals.
 * @param {TableState} state
 * @param {number | null} [highlight] the number of a deal to mark
 * @returns {HTMLElement}
 */
export function scoreTable(state, highlight = null) {
  const s = state;
  const head = el("tr", {}, el("th", { scope: "col", text: t("scores.deal") }),
    ...s.names.map((name) => el("th", { scope: "col", title: name }, el("span", { class: "name", text: name }))));
  const made = (result, seat) => madeCall(s.rules, result, seat);
  const rows = s.results.map((result) => el("tr", { class: result.number === highlight ? "latest" : null },
    el("th", { scope: "row", text: num(result.number) }),
    ...result.scores.map((points, seat) => el("td", {
      class: made(result, seat) ? "made" : "broken",
      title: t("scores.cellTitle", { call: result.calls[seat], won: result.won[seat] }),
    }, el("span", { class: "points", text: score(points) }),
    el("span", { class: "detail", text: `${num(result.won[seat])}/${num(result.calls[seat])}` })))));
  const total = el("tr", { class: "total" }, el("th", { scope: "row", text: t("scores.total") }),
    ...s.totals.map((value) => el("td", { text: score(value) })));
  return el("table", { class: "score-table" }, el("caption", { text: t("scores.caption") }),
    el("thead", {}, head), el("tbody", {}, ...rows, total));
}

function placesList(state) {
  const order = [0, 1, 2, 3].sort((a, b) => state.places[a] - state.places[b]);
  return el("ol", { class: "places" }, ...order.map((seat) => el("li", { class: state.places[seat] === 1 ? "first" : null },
    el("span", { class: "place", text: placeText(state.places, seat) }),
    el("span", { class: "who", text: state.names[seat] }),
    el("span", { class: "total", text: score(state.totals[seat]) }))));
}

/**
 * Press and hold to see the last trick; a tap or a key shows it for a few seconds. It is
 * drawn apart from the trick being played, which stays in view.
 * @param {TablePage} page
 * @param {HTMLButtonElement} button
 */
export function bindPeek(page, button) {
  let held = null;
  button.addEventListener("pointerdown", (event) => {
    if (button.disabled) return;
    held = performance.now();
    button.setPointerCapture?.(event.pointerId);
    showPeek(page, 0);
  });
  const release = () => {
    if (held === null) return;
    const long = performance.now() - held > 350;
    held = null;
    if (long) hidePeek(page);
    else showPeek(page, 3000);
  };
  button.addEventListener("pointerup", release);
  button.addEventListener("pointercancel", release);
  button.addEventListener("click", (event) => {
    if (event.detail === 0) showPeek(page, 3000); // a key, not a pointer
  });
}

/**
 * @param {TablePage} page
 * @param {number} ms how long (0: until released)
 */
function showPeek(page, ms) {
  if (!page.state || !page.state.last_trick) return;
  clearTimeout(page.peekTimer);
  drawPeek(page);
  page.peek.hidden = false;
  page.lastButton.setAttribute("aria-expanded", "true");
  if (ms) page.peekTimer = setTimeout(() => hidePeek(page), ms);
}

/**
 * @param {TablePage} page
 */
export function hidePeek(page) {
  clearTimeout(page.peekTimer);
  page.peek.hidden = true;
  page.lastButton.setAttribute("aria-expanded", "false");
}

/**
 * @param {TablePage} page
 */
export function drawPeek(page) {
  const s = page.state;
  const last = s.last_trick;
  if (!last) {
    page.peek.replaceChildren();
    return;
  }
  // In the order played, each card with its player's name under it.
  const items = last.cards.map((code, index) => {
    const seat = (last.leader + index) % 4;
    const card = cardElement(code, { label: t("table.playedBy", { card: cardName(code), name: s.names[seat] }) });
    if (seat === last.winner) card.classList.add("winner");
    return el("figure", { class: "peek-item" }, card, el("figcaption", { text: s.names[seat] }));
  });
  page.peek.replaceChildren(
    el("p", { class: "caption", text: t("table.lastTrickWon", { name: s.names[last.winner] }) }),
    el("div", { class: "peek-cards" }, ...items));
}

/**
 * @param {TablePage} page
 */
export function drawScores(page) {
  const s = page.state;
  page.scores.replaceChildren(el("h2", { id: "scores-title", text: t("table.scores") }),
    ...(s.match_over && s.places ? [placesList(s)] : []),
    el("div", { class: "table-scroll" }, scoreTable(s)),
    el("h3", { text: t("table.rules") }),
    el("p", { class: "hint" }, el("strong", { text: rulesName(s.rules) }), " ", rulesSummary(s.rules.options)));
}

/**
 * After the match, in the hand's place: the places, and a new game or the replay.
 * @param {TablePage} page
 */
export function drawAfter(page) {
  const s = page.state;
  // The review's panel is made once: it keeps its progress while the state is drawn again.
  const target = s.seat !== null && page.options.review ? page.options.review() : null;
  if (target && !page.reviewBox) page.reviewBox = reviewPanel(target);
  const places = s.places ? placesList(s) : null;
  const links = el("p", { class: "after-links" },
    el("a", { class: "button primary", href: page.options.againHash || "#/", text: t("result.again") }),
    el("a", { class: "button", href: page.options.replayHash, text: t("result.replay") }));
  // With a review, the places (which the status line and the scores say too) come last.
  page.after.replaceChildren(...(target ? [links, page.reviewBox, places] : [places, links]).filter(Boolean));
}

/**
 * @param {TablePage} page
 * @returns {number}
 */
export function seenDeals(page) {
  return Number(readStored(page.seenKey) || "0");
}

/**
 * @param {TablePage} page
 */
export function maybeShowResult(page) {
  const s = page.state;
  const count = s.results.length;
  const seen = seenDeals(page);
  if (page.dialog.open || page.showing) return;
  if (s.match_over && seen <= count) {
    showResult(page, count, true);
  } else if (count > seen) {
    showResult(page, count, false);
  }
}

/**
 * @param {TablePage} page
 * @param {number} count the deals scored
 * @param {boolean} final
 */
function showResult(page, count, final) {
  const s = page.state;
  page.showing = { count, final };
  const result = s.results[count - 1];
  if (result && s.seat !== null) {
    const made = madeCall(s.rules, result, s.seat);
    sound.play(made ? "made" : "broken");
  }
  const title = final ? t("result.over") : t("result.deal", { deal: count });
  const close = el("button", { type: "button", class: "primary", text: final ? t("result.close") : t("result.continue"),
    onclick: () => page.dialog.close() });
  const extra = final
    ? el("p", { class: "links" }, el("a", { href: page.options.againHash || "#/", text: t("result.again") }), " · ",
      el("a", { href: page.options.replayHash, text: t("result.replay") }))
    : null;
  // A null given to replaceChildren would show as the text "null": only what there is.
  page.dialog.replaceChildren(...[
    el("h2", { id: "result-title", text: title }),
    final && s.places ? placesList(s) : null,
    el("div", { class: "table-scroll" }, scoreTable(s, count)),
    extra, close].filter(Boolean));
  if (!page.dialog.open) page.dialog.showModal();
  close.focus();
}

/**
 * The summary was closed: say so, and the computers go on with the next deal.
 * @param {TablePage} page
 */
export function closedResult(page) {
  const showing = page.showing;
  page.showing = null;
  if (!showing) return;
  const seen = showing.final ? showing.count + 1 : showing.count;
  keepStored(page.seenKey, String(Math.max(seenDeals(page), seen)));
  page.send({ type: "seen", deals: showing.count });
  if (page.state) maybeShowResult(page);
}

/**
 * @param {TablePage} page
 */
export function openSettings(page) {
  const s = page.latest;
  const settles = s && page.settles(s);
  const heading = el("h2", { id: "settings-title", text: t("settings.title") });
  const rows = [];
  if (settles) {
    const speed = el("select", { id: "set-speed" },
      ...["slow", "normal", "fast", "instant"].map((value) => el("option", { value, text: t(`speed.${value}`) })));
    speed.value = s.settings.speed;
    speed.addEventListener("change", () => page.send({ type: "settings", speed: speed.value }));
    const auto = el("input", { type: "checkbox", id: "set-auto" });
    auto.checked = s.settings.auto_forced;
    auto.addEventListener("change", () => page.send({ type: "settings", auto_forced: auto.checked }));
    rows.push(el("label", { for: "set-speed", text: t("settings.speed") }), speed,
      el("label", { class: "check" }, auto, t("settings.auto")));
  }
  const pause = el("select", { id: "set-pause" },
    ...Object.keys(PAUSES).map((value) => el("option", { value, text: t(`pause.${value}`) })));
  pause.value = pauseSetting();
  pause.addEventListener("change", () => keepStored(PAUSE_KEY, pause.value));
  const noise = el("input", { type: "checkbox", id: "set-sound" });
  noise.checked = sound.enabled();
  noise.addEventListener("change", () => sound.setEnabled(noise.checked));
  rows.push(el("label", { for: "set-pause", text: t("settings.pause") }), pause,
    el("label", { class: "check" }, noise, t("settings.sound")));
  if (canVibrate()) {
    const buzz = el("input", { type: "checkbox", id: "set-vibrate" });
    buzz.checked = vibrates();
    buzz.addEventListener("change", () => setVibrates(buzz.checked));
    rows.push(el("label", { class: "check" }, buzz, t("settings.vibrate")));
  }
  if (coarse()) {
    // Only a touch screen lifts a card before playing it.
    const tap = el("input", { type: "checkbox", id: "set-onetap" });
    tap.checked = oneTap();
    tap.addEventListener("change", () => { setOneTap(tap.checked); drop(page); });
    rows.push(el("label", { class: "check" }, tap, t("settings.oneTap")),
      el("p", { class: "hint", text: t("settings.oneTapHow") }));
  }
  rows.push(el("p", { class: "hint", text: t("settings.motion") }),
    el("p", {}, downloadLink(page.options.recordHref, page.options.recordToken, t("table.download"))));
  const done = el("button", { type: "button", class: "primary", text: t("result.close"),
    onclick: () => page.settingsDialog.close() });
  page.settingsDialog.firstElementChild.replaceChildren(heading, el("div", { class: "form-grid" }, ...rows), done);
  page.settingsDialog.showModal();
}

/**
 * The scores, the rules (and a room's seats): beside the table on a wide screen, else a
 * sheet over it.
 * @param {TablePage} page
 */
export function openScores(page) {
  const done = el("button", { type: "button", class: "primary", text: t("result.close"),
    onclick: () => page.scoresDialog.close() });
  page.scoresDialog.firstElementChild.replaceChildren(page.side, done);
  page.scoresDialog.showModal();
}

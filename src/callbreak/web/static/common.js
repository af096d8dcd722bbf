// Cards and small helpers shared by the pages.

import { cardName, formatDate, has, lang, num, t } from "./i18n.js";

export { cardName, formatDate };

export const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };

/** "TH" -> "10♥": a card as written in text, the same in every language. */
export function cardText(code) {
  return `${code[0] === "T" ? "10" : code[0]}${SUITS[code[1]]}`;
}

/** A card drawn with CSS: corner indices at two corners and a large pip. As a button when
 * options.button is set. */
export function cardElement(code, options = {}) {
  const element = document.createElement(options.button ? "button" : "div");
  element.className = "card" + (code[1] === "H" || code[1] === "D" ? " red" : "");
  element.dataset.card = code;
  if (options.button) element.type = "button";
  else element.setAttribute("role", "img");
  element.setAttribute("aria-label", options.label || cardName(code));
  const rank = code[0] === "T" ? "10" : code[0];
  const suit = SUITS[code[1]];
  element.innerHTML =
    `<span class="corner" aria-hidden="true"><b>${rank}</b><i>${suit}</i></span>` +
    `<span class="pip" aria-hidden="true">${suit}</span>` +
    `<span class="corner far" aria-hidden="true"><b>${rank}</b><i>${suit}</i></span>`;
  return element;
}

export function backElement() {
  const element = document.createElement("div");
  element.className = "card back";
  element.setAttribute("aria-hidden", "true");
  return element;
}

export function el(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") element.className = value;
    else if (key === "text") element.textContent = value;
    else if (key.startsWith("on")) element.addEventListener(key.slice(2), value);
    else element.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

export async function api(path, options = {}) {
  const response = await fetch(path, {
    headers: { "Content-Type": "application/json" },
    ...options,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) throw new Error((data && data.error) || `${response.status} ${response.statusText}`);
  return data;
}

export function ordinal(place) {
  return t("place", { place });
}

/** Places as words, saying when a place is shared. */
export function placeText(places, seat) {
  const shared = places.filter((p) => p === places[seat]).length > 1;
  return t(shared ? "placeShared" : "place", { place: places[seat] });
}

/** A score sent as text ("-4.1"), in the language's digits. */
export function score(text) {
  return num(text);
}

/** Arrow keys move the focus among buttons of a group (one tab stop for the group). */
export function rovingFocus(group, selector) {
  group.addEventListener("keydown", (event) => {
    if (!["ArrowLeft", "ArrowRight", "Home", "End"].includes(event.key)) return;
    const items = [...group.querySelectorAll(selector)];
    const index = items.indexOf(document.activeElement);
    if (index < 0) return;
    event.preventDefault();
    let next = index;
    if (event.key === "ArrowLeft") next = (index - 1 + items.length) % items.length;
    if (event.key === "ArrowRight") next = (index + 1) % items.length;
    if (event.key === "Home") next = 0;
    if (event.key === "End") next = items.length - 1;
    items.forEach((item, i) => item.setAttribute("tabindex", i === next ? "0" : "-1"));
    items[next].focus();
  });
}

// --- rooms this browser holds a seat in --------------------------------------------------------
// Each is kept as callbreak:room:CODE -> {token, seat, since}: the token resumes the seat from a
// reload or a new tab; token null once the person left (the room stays in their history).

const ROOM_KEY = "callbreak:room:";
export const ROOM_CODE = /^[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{6}$/;

/** What this browser holds in room `code`, or null. */
export function roomEntry(code) {
  try {
    const entry = JSON.parse(localStorage.getItem(ROOM_KEY + code) || "null");
    return entry && typeof entry === "object" ? entry : null;
  } catch {
    return null;
  }
}

export function keepRoomEntry(code, entry) {
  localStorage.setItem(ROOM_KEY + code, JSON.stringify({ since: Date.now(), ...entry }));
}

/** Every room this browser has held a seat in: [{code, token, seat, since}], newest first. */
export function roomEntries() {
  const entries = [];
  for (let index = 0; index < localStorage.length; index++) {
    const key = localStorage.key(index);
    if (!key || !key.startsWith(ROOM_KEY)) continue;
    const code = key.slice(ROOM_KEY.length);
    const entry = roomEntry(code);
    if (entry && ROOM_CODE.test(code)) entries.push({ ...entry, code });
  }
  return entries.sort((a, b) => (b.since || 0) - (a.since || 0));
}

/** The name this browser last played under. */
export function savedName() {
  try {
    return localStorage.getItem("callbreak:name") || JSON.parse(localStorage.getItem("callbreak:new") || "{}").name || "";
  } catch {
    return "";
  }
}

export function saveName(name) {
  localStorage.setItem("callbreak:name", name);
}

/** Copy `text`, or at least select it in `input` for the person to copy. True when copied. */
export async function copyText(text, input) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    input.focus();
    input.select();
    try {
      return document.execCommand("copy");
    } catch {
      return false;
    }
  }
}

/** A computer level as a menu shows it (long: with a word on how it plays). */
export function levelLabel(level, long = false) {
  if (!level) return "";
  if (long && has(`level.${level}.long`)) return t(`level.${level}.long`);
  return has(`level.${level}`) ? t(`level.${level}`) : level;
}

/** A rules profile's name as the language says it. */
export function profileLabel(name) {
  return has(`profile.${name}`) ? t(`profile.${name}`) : name;
}

/** The rules menu (each profile under its name in the language) and its summary below. */
export function profileChooser(id, profiles, chosen) {
  const summary = el("p", { id: `${id}-summary`, class: "hint" });
  const select = el("select", { id, name: "rules" },
    ...profiles.map((p) => el("option", {
      value: p.name, text: profileLabel(p.name) + (p.name === "strict" ? t("home.default") : ""),
    })));
  select.value = chosen || "strict";
  if (!select.value) select.value = "strict";
  const show = () => {
    const found = profiles.find((p) => p.name === select.value);
    summary.textContent = found ? rulesSummary(found.options) : "";
    select.dispatchEvent(new CustomEvent("summary"));
  };
  select.addEventListener("change", show);
  show();
  return { select, summary };
}

/** The rules in words, from their fields (`options` of the server's views). */
export function rulesSummary(options) {
  if (!options) return "";
  const o = options;
  const parts = [t("rule.calls", { low: o.min_call, high: o.max_call })];
  if (o.no_spade_first_lead) parts.push(t("rule.noSpadeLead"));
  parts.push(t(o.free_following ? "rule.freeFollowing" : "rule.mustBeat"));
  parts.push(t("rule.mustTrump"));
  parts.push(t(o.forced_low_spade ? "rule.lowSpade" : "rule.freeDiscard"));
  parts.push(t(o.exact_scoring ? "rule.exact" : "rule.overtricks"));
  if (o.bonus_call !== null && o.bonus_call !== undefined) {
    parts.push(t("rule.bonus", { call: o.bonus_call, score: o.bonus_score }));
  }
  if (o.min_total_calls) parts.push(t("rule.minTotal", { total: o.min_total_calls }));
  if (o.spadeless_redeal) parts.push(t("rule.spadeless"));
  if (o.eight_wins) parts.push(t("rule.eightWins"));
  parts.push(o.deals ? t("rule.deals", { deals: o.deals }) : t("rule.openEnded"));
  if (o.clockwise) parts.push(t("rule.clockwise"));
  return parts.join(t("listSeparator"));
}

/** The rules' short name: the profile's name, with "changed" when options differ. */
export function rulesName(rules) {
  const text = typeof rules === "string" ? rules : rules.text;
  const profile = typeof rules === "string" ? text.split("(")[0] : rules.profile;
  return profileLabel(profile) + (text.includes("(") ? t("rulesChanged") : "");
}

/** The duty that forbids a card, in words, from the server's data ({duty, card, suit}). */
export function dutyText(duty) {
  if (!duty) return t("duty.unknown");
  return t(`duty.${duty.duty}`, {
    card: duty.card ? cardText(duty.card) : "",
    suit: duty.suit ? t(`suit.${duty.suit}.plural`) : "",
  });
}

/** A server's message in the chosen language when it is one the page knows, else a general
 * line with the server's words. */
export function serverText(message) {
  const text = String(message || "");
  for (const [pattern, key] of SERVER_MESSAGES) {
    const found = text.match(pattern);
    if (found) return t(key, found.groups || {});
  }
  // The server words everything else in English: as it is on an English page.
  return lang() === "en" ? text : t("server.refused", { detail: text });
}

const SERVER_MESSAGES = [
  [/^that was made on an earlier state|^the table moved on/, "server.stale"],
  [/^no such match/, "server.noMatch"],
  [/^no such room/, "server.noRoom"],
  [/^too many messages/, "server.tooMany"],
  [/^the server is busy/, "server.busy"],
  [/^a hint is for your own turn/, "server.hintTurn"],
  [/^it is (?<name>.+)'s turn, not yours/, "server.notYourTurn"],
  [/^the match is over/, "server.matchOver"],
  [/^this room has no open seat/, "server.noOpenSeat"],
  [/^too many requests from this address/, "server.tooManyRequests"],
  [/^too many connections from this address/, "server.tooManyConnections"],
  [/^the server could not save that/, "server.unsaved"],
  [/^the server could not do that/, "server.internal"],
  [/^the match in this room is over/, "server.roomOver"],
  [/^a name has at most/, "server.nameLong"],
  [/^a name needs at least one/, "server.nameEmpty"],
  [/^seat (?<seat>\d) is still open/, "server.seatOpen"],
  [/^the room is changing too fast/, "server.tooFast"],
];

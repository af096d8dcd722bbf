// Cards and small helpers shared by the pages.

import { cardName, formatDate, has, lang, num, t, tn } from "./i18n.js";

export { cardName, formatDate };

/** Each suit's symbol, by its letter. @type {Record<string, string>} */
export const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };

/**
 * "TH" -> "10♥": a card as written in text, the same in every language.
 * @param {string} code
 * @returns {string}
 */
export function cardText(code) {
  return `${code[0] === "T" ? "10" : code[0]}${SUITS[code[1]]}`;
}

/**
 * A card drawn with CSS: corner indices at two corners and a large pip. As a button when
 * options.button is set.
 * @param {string} code
 * @param {{button?: boolean, label?: string}} [options]
 * @returns {HTMLElement}
 */
export function cardElement(code, options = {}) {
  const element = document.createElement(options.button ? "button" : "div");
  element.className = "card" + (code[1] === "H" || code[1] === "D" ? " red" : "");
  element.dataset.card = code;
  if (options.button) /** @type {HTMLButtonElement} */ (element).type = "button";
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

/**
 * @returns {HTMLElement}
 */
export function backElement() {
  const element = document.createElement("div");
  element.className = "card back";
  element.setAttribute("aria-hidden", "true");
  return element;
}

/**
 * @param {string} tag
 * @param {Record<string, any>} [attributes] class, text, on* listeners, other attributes
 * @param {...(Node | string | number | null | undefined)} children
 * @returns {any} the element (typed loosely: its tag decides what it is)
 */
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

/**
 * A JSON request; options.token (a match's or a sheet's) goes as `Authorization: Bearer`.
 * A refusal (not 2xx) is thrown as a Refused.
 * @param {string} path
 * @param {{method?: string, body?: any, token?: string | null, headers?: Record<string, string>}} [options]
 * @returns {Promise<any>} the answer's JSON
 */
export async function api(path, options = {}) {
  const { token, ...rest } = options;
  const response = await fetch(path, {
    headers: { "Content-Type": "application/json", ...bearer(token) },
    ...rest,
    body: rest.body === undefined ? undefined : JSON.stringify(rest.body),
  });
  let data;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) throw new Refused(data, response);
  return data;
}

function bearer(token) {
  return token ? { Authorization: `Bearer ${token}` } : {};
}

/**
 * Save `blob` as the file `name` (a download the browser asks no server for).
 * @param {Blob} blob
 * @param {string} name
 */
export function saveFile(blob, name) {
  const url = URL.createObjectURL(blob);
  const link = el("a", { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/**
 * A link that downloads `path`. With a token the file is fetched with it (a plain link could
 * not carry it) and saved under the server's file name; a refusal is said beside the link.
 * @param {string} path
 * @param {string | null | undefined} token
 * @param {string} text
 * @returns {HTMLAnchorElement}
 */
export function downloadLink(path, token, text) {
  const link = el("a", { href: path, download: "", text });
  if (!token) return link;
  link.addEventListener("click", async (event) => {
    event.preventDefault();
    link.parentElement?.querySelector(".download-error")?.remove();
    try {
      const response = await fetch(path, { headers: bearer(token) });
      if (!response.ok) {
        throw new Refused(await response.json().catch(() => null), response);
      }
      const named = /filename="([^"]+)"/.exec(response.headers.get("Content-Disposition") || "");
      saveFile(await response.blob(), named ? named[1] : "callbreak.json");
    } catch (error) {
      link.after(el("span", { class: "error download-error", role: "alert", text: ` ${serverText(error)}` }));
    }
  });
  return link;
}

/**
 * @param {number} place
 * @returns {string}
 */
export function ordinal(place) {
  return t("place", { place });
}

/**
 * Places as words, saying when a place is shared.
 * @param {number[]} places
 * @param {number} seat
 * @returns {string}
 */
export function placeText(places, seat) {
  const shared = places.filter((p) => p === places[seat]).length > 1;
  return t(shared ? "placeShared" : "place", { place: places[seat] });
}

/**
 * A score sent as text ("-4.1"), in the language's digits.
 * @param {string} text
 * @returns {string}
 */
export function score(text) {
  return num(text);
}

/**
 * Arrow keys move the focus among buttons of a group (one tab stop for the group).
 * @param {HTMLElement} group
 * @param {string} selector
 */
export function rovingFocus(group, selector) {
  group.addEventListener("keydown", (event) => {
    if (!["ArrowLeft", "ArrowRight", "Home", "End"].includes(event.key)) return;
    const items = /** @type {HTMLElement[]} */ ([...group.querySelectorAll(selector)]);
    const index = items.indexOf(/** @type {HTMLElement} */ (document.activeElement));
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

// --- what this browser holds: its matches, scoresheets and room seats ----------------------------
// The server opens a match or a sheet only with the token it answered when it was made, and lists
// only what a browser names with its tokens: they are kept here, callbreak:match:ID and
// callbreak:sheet:ID -> {token, since}, and callbreak:room:CODE -> {token, seat, since}, where the
// token resumes the seat from a reload or a new tab (null once the person left: the room stays in
// their history). The History page moves them to another device (an export and an import).

const HELD_KEYS = { match: "callbreak:match:", sheet: "callbreak:sheet:", room: "callbreak:room:" };
/** A room's code, as the server makes them (no look-alike characters). */
export const ROOM_CODE = /^[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{6}$/;
/** A match's or a sheet's id, and a token, as the server makes them. */
export const HELD_ID = /^[\w-]{1,64}$/;
/** A token, as the server makes them. */
export const TOKEN = /^[\w-]{1,128}$/;

/**
 * What this browser holds of `kind` ("match", "sheet", "room") `id`, or null.
 * @param {"match" | "sheet" | "room"} kind
 * @param {string} id
 * @returns {Record<string, any> | null}
 */
export function heldEntry(kind, id) {
  try {
    const entry = JSON.parse(localStorage.getItem(HELD_KEYS[kind] + id) || "null");
    return entry && typeof entry === "object" ? entry : null;
  } catch {
    return null;
  }
}

/**
 * The token this browser holds for match or sheet `id`, or null.
 * @param {"match" | "sheet" | "room"} kind
 * @param {string} id
 * @returns {string | null}
 */
export function heldToken(kind, id) {
  const entry = heldEntry(kind, id);
  return entry && typeof entry.token === "string" ? entry.token : null;
}

/**
 * @param {"match" | "sheet" | "room"} kind
 * @param {string} id
 * @param {Record<string, any>} entry
 */
export function keepEntry(kind, id, entry) {
  localStorage.setItem(HELD_KEYS[kind] + id, JSON.stringify({ since: Date.now(), ...entry }));
}

/**
 * Everything of `kind` this browser holds: [{id, token, since, ...}], newest first.
 * @param {"match" | "sheet" | "room"} kind
 * @returns {Record<string, any>[]}
 */
export function heldEntries(kind) {
  const prefix = HELD_KEYS[kind];
  const valid = kind === "room" ? ROOM_CODE : HELD_ID;
  /** @type {Record<string, any>[]} */
  const entries = [];
  for (let index = 0; index < localStorage.length; index++) {
    const key = localStorage.key(index);
    if (!key || !key.startsWith(prefix)) continue;
    const id = key.slice(prefix.length);
    const entry = heldEntry(kind, id);
    if (entry && valid.test(id)) entries.push({ ...entry, id });
  }
  return entries.sort((a, b) => (b.since || 0) - (a.since || 0));
}

/**
 * The newest `count` of `kind` with a token, as the server's lists take them ({id, token}).
 * @param {"match" | "sheet" | "room"} kind
 * @param {number} [count]
 * @returns {{id: string, token: string}[]}
 */
export function heldTokens(kind, count = 500) {
  return heldEntries(kind).filter((entry) => typeof entry.token === "string")
    .slice(0, count).map(({ id, token }) => ({ id, token }));
}

/**
 * What a page says of a match or a sheet (`kind`) this browser holds no token for.
 * @param {"match" | "sheet"} kind
 * @returns {HTMLElement}
 */
export function notHeld(kind) {
  return el("div", { class: "panel not-held" },
    el("p", { class: "error", text: t(`held.${kind}`) }),
    el("p", {}, t("held.how"), " ", el("a", { href: "#/history", text: t("nav.history") })));
}

/**
 * What this browser holds in room `code`, or null.
 * @param {string} code
 * @returns {Record<string, any> | null}
 */
export function roomEntry(code) {
  return heldEntry("room", code);
}

/**
 * @param {string} code
 * @param {Record<string, any>} entry
 */
export function keepRoomEntry(code, entry) {
  keepEntry("room", code, entry);
}

/**
 * Every room this browser has held a seat in: [{code, token, seat, since}], newest first.
 * @returns {Record<string, any>[]}
 */
export function roomEntries() {
  return heldEntries("room").map((entry) => ({ ...entry, code: entry.id }));
}

/**
 * The name this browser last played under.
 * @returns {string}
 */
export function savedName() {
  try {
    return localStorage.getItem("callbreak:name") || JSON.parse(localStorage.getItem("callbreak:new") || "{}").name || "";
  } catch {
    return "";
  }
}

/**
 * @param {string} name
 */
export function saveName(name) {
  localStorage.setItem("callbreak:name", name);
}

/**
 * Copy `text`, or at least select it in `input` for the person to copy. True when copied.
 * @param {string} text
 * @param {HTMLInputElement} input
 * @returns {Promise<boolean>}
 */
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

/**
 * A computer level as a menu shows it (long: with a word on how it plays).
 * @param {string | null} level
 * @param {boolean} [long]
 * @returns {string}
 */
export function levelLabel(level, long = false) {
  if (!level) return "";
  if (long && has(`level.${level}.long`)) return t(`level.${level}.long`);
  return has(`level.${level}`) ? t(`level.${level}`) : level;
}

/**
 * What the computer levels chosen in `selects` do, in full (a menu shows only a level's name, so
 * that no description is ever cut): one line for each level chosen, updated as they change; each
 * select is described by it. `levelOf` reads a select's level (null: no computer).
 * @param {string} id
 * @param {HTMLSelectElement[]} selects
 * @param {(select: HTMLSelectElement) => (string | null)} [levelOf]
 * @returns {HTMLElement}
 */
export function levelAbout(id, selects, levelOf = (select) => select.value) {
  const about = el("p", { id, class: "hint level-about", "aria-live": "polite" });
  const draw = () => {
    const chosen = [...new Set(selects.map(levelOf).filter(Boolean))];
    about.replaceChildren(...chosen.map((level) => el("span", { "data-level": level, text: levelLabel(level, true) })));
    about.hidden = !chosen.length;
  };
  for (const select of selects) {
    select.setAttribute("aria-describedby", id);
    select.addEventListener("change", draw);
  }
  draw();
  return about;
}

/**
 * A rules profile's name as the language says it.
 * @param {string} name
 * @returns {string}
 */
export function profileLabel(name) {
  return has(`profile.${name}`) ? t(`profile.${name}`) : name;
}

/**
 * The rules menu (each profile under its name in the language) and its summary below.
 * @param {string} id
 * @param {{name: string, options: object}[]} profiles
 * @param {string | null} [chosen]
 * @returns {{select: HTMLSelectElement, summary: HTMLElement}}
 */
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

/**
 * The rules in words, from their fields (`options` of the server's views).
 * @param {Record<string, any> | null | undefined} options
 * @returns {string}
 */
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
  parts.push(o.deals ? tn("rule.deals", o.deals) : t("rule.openEnded"));
  if (o.clockwise) parts.push(t("rule.clockwise"));
  return parts.join(t("listSeparator"));
}

/**
 * The rules' short name: the profile's name, with "changed" when options differ.
 * @param {string | {text: string, profile: string}} rules
 * @returns {string}
 */
export function rulesName(rules) {
  const text = typeof rules === "string" ? rules : rules.text;
  const profile = typeof rules === "string" ? text.split("(")[0] : rules.profile;
  return profileLabel(profile) + (text.includes("(") ? t("rulesChanged") : "");
}

/**
 * The duty that forbids a card, in words, from the server's data ({duty, card, suit}).
 * @param {{duty: string, card?: string | null, suit?: string | null} | null | undefined} duty
 * @returns {string}
 */
export function dutyText(duty) {
  if (!duty) return t("duty.unknown");
  return t(`duty.${duty.duty}`, {
    card: duty.card ? cardText(duty.card) : "",
    suit: duty.suit ? t(`suit.${duty.suit}.plural`) : "",
  });
}

/**
 * A refusal of the server in the chosen language: an error api() threw, or a socket's `error`
 * message ({message, code, args}). It is worded from its code and arguments by the catalogues
 * (`refusal.CODE`), never from the server's English; `seatName` words the seat a refusal names
 * (`args.seat`) as the page shows it. Anything else (the network failed) is said as it is on an
 * English page, and as the general line elsewhere.
 * @param {any} refusal a Refused, a socket's error message, or any other error
 * @param {((seat: number) => string) | null} [seatName]
 * @returns {string}
 */
export function serverText(refusal, seatName = null) {
  const code = refusal && refusal.code;
  if (code && has(`refusal.${code}`)) return t(`refusal.${code}`, refusalValues(refusal.args || {}, seatName));
  const text = String((refusal && refusal.message) || refusal || "");
  return lang() === "en" ? text : t("server.refused", { detail: text });
}

/** The values a refusal's words are made of: its arguments, with the duty that forbids a card in
 * words (`rule`) and a seat's name as the page shows it. */
function refusalValues(args, seatName) {
  const values = { ...args };
  if ("duty" in args) values.rule = args.duty ? dutyText(args.duty) : t("duty.unknown");
  if (seatName && typeof args.seat === "number" && "name" in args) values.name = seatName(args.seat) || args.name;
  return values;
}

/** An answer of the server that refused (not 2xx): its English words as the message, its code
 * and arguments (`{"error", "code", "args"}`, docs/web.md) for serverText to word. */
export class Refused extends Error {
  constructor(data, response) {
    super((data && data.error) || `${response.status} ${response.statusText}`);
    this.code = data && typeof data.code === "string" ? data.code : null;
    this.args = (data && data.args) || {};
    this.status = response.status;
  }
}

// Cards and small helpers shared by the pages.

export const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
const SUIT_NAMES = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
const RANK_NAMES = {
  A: "Ace", K: "King", Q: "Queen", J: "Jack", T: "Ten", 9: "Nine", 8: "Eight",
  7: "Seven", 6: "Six", 5: "Five", 4: "Four", 3: "Three", 2: "Two",
};

/** "QS" -> "Queen of spades" */
export function cardName(code) {
  return `${RANK_NAMES[code[0]]} of ${SUIT_NAMES[code[1]]}`;
}

/** "TH" -> "10♥" */
export function cardText(code) {
  return `${code[0] === "T" ? "10" : code[0]}${SUITS[code[1]]}`;
}

/** A card drawn with CSS. As a button when options.button is set. */
export function cardElement(code, options = {}) {
  const element = document.createElement(options.button ? "button" : "div");
  element.className = "card" + (code[1] === "H" || code[1] === "D" ? " red" : "");
  element.dataset.card = code;
  if (options.button) element.type = "button";
  else element.setAttribute("role", "img");
  element.setAttribute("aria-label", options.label || cardName(code));
  const rank = code[0] === "T" ? "10" : code[0];
  element.innerHTML =
    `<span class="corner" aria-hidden="true">${rank}<br>${SUITS[code[1]]}</span>` +
    `<span class="pip" aria-hidden="true">${SUITS[code[1]]}</span>`;
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
  return place + (place === 1 ? "st" : place === 2 ? "nd" : place === 3 ? "rd" : "th");
}

/** Places as words, saying when a place is shared. */
export function placeText(places, seat) {
  const shared = places.filter((p) => p === places[seat]).length > 1;
  return ordinal(places[seat]) + (shared ? " (shared)" : "");
}

export function formatDate(seconds) {
  return new Date(seconds * 1000).toLocaleString();
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

export const LEVEL_LABELS = {
  random: "Random",
  beginner: "Beginner",
  intermediate: "Intermediate",
  advanced: "Advanced",
  expert: "Expert",
};

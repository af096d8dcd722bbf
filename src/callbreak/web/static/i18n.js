// Languages: every text a page shows comes from one catalogue per language (lang-en.js,
// lang-ne.js, lang-hi.js), chosen in the page and remembered in the browser. A catalogue's
// entries are text with {blanks}, or functions of the values (for plurals and word order).
// Numbers are written as players of the language write them: Nepali and Hindi with Devanagari
// digits, English with the international ones. Card ranks stay as printed on the cards.

import en from "./lang-en.js";
import ne from "./lang-ne.js";
import hi from "./lang-hi.js";

export const CATALOGUES = { en, ne, hi };
export const LANGUAGES = [["en", "English"], ["ne", "नेपाली"], ["hi", "हिन्दी"]];
const KEY = "callbreak:lang";
const LOCALES = { en: "en-GB", ne: "ne-NP", hi: "hi-IN" };

let current = pick();

function pick() {
  try {
    const saved = localStorage.getItem(KEY);
    if (saved && CATALOGUES[saved]) return saved;
  } catch {
    // storage refused: the browser's language, below
  }
  const wanted = (navigator.language || "en").slice(0, 2).toLowerCase();
  return CATALOGUES[wanted] ? wanted : "en";
}

export function lang() {
  return current;
}

export function locale() {
  return LOCALES[current];
}

export function setLang(code) {
  if (!CATALOGUES[code]) return;
  current = code;
  try {
    localStorage.setItem(KEY, code);
  } catch {
    // not remembered, still used
  }
  document.documentElement.lang = code;
}

/** Whether the catalogues know `key`. */
export function has(key) {
  return en[key] !== undefined;
}

/** The text of `key` in the chosen language, its {blanks} filled from `values`. */
export function t(key, values = {}) {
  let entry = CATALOGUES[current][key];
  if (entry === undefined) entry = en[key];
  if (entry === undefined) return key;
  if (typeof entry === "function") return entry(values, helpers);
  return fill(entry, values);
}

function fill(text, values) {
  return text.replace(/\{(\w+)\}/g, (_, name) => {
    const value = values[name];
    if (value === undefined || value === null) return "";
    return typeof value === "number" ? num(value) : String(value);
  });
}

const DEVANAGARI = "०१२३४५६७८९";

/** A number, or a text of digits such as a score "-4.1", in the language's digits. */
export function num(value) {
  const text = String(value).replace(/^-/, "−");
  if (current === "en") return text;
  return text.replace(/[0-9]/g, (digit) => DEVANAGARI[digit]);
}

/** A date and time (seconds since the epoch) as the language writes it. */
export function formatDate(seconds) {
  const text = new Date(seconds * 1000).toLocaleString(locale(), { dateStyle: "medium", timeStyle: "short", hourCycle: "h23" });
  return num(text);
}

export function suitName(letter, form = "plural") {
  return t(`suit.${letter}.${form}`);
}

/** "QS" -> "Queen of spades" in the chosen language. */
export function cardName(code) {
  return t("card.name", { rank: code[0], suit: code[1] });
}

const helpers = { num, fill: (text, values) => fill(text, values), suitName };

// Languages: every text a page shows comes from one catalogue per language (lang-en.js,
// lang-ne.js, lang-hi.js), chosen in the page and remembered in the browser. A catalogue's
// entries are text with {blanks}, functions of the values (for word order), or plural forms:
// { one: "...", other: "..." }, chosen by the language's rules (Intl.PluralRules) through tn().
// Numbers and dates come from Intl in the language's locale (en, ne-NP, hi-IN), written as
// players of the language write them: Nepali and Hindi with Devanagari digits, English with the
// international ones; num() and formatDate() are the only ways a page writes them. Card ranks
// stay as printed on the cards.

import en from "./lang-en.js";
import ne from "./lang-ne.js";
import hi from "./lang-hi.js";

/** Each language's catalogue, by its code. @type {Record<string, Record<string, any>>} */
export const CATALOGUES = { en, ne, hi };
/** The languages the pages offer: [code, name in the language itself]. */
export const LANGUAGES = [["en", "English"], ["ne", "नेपाली"], ["hi", "हिन्दी"]];
const KEY = "callbreak:lang";
const LOCALES = { en: "en", ne: "ne-NP", hi: "hi-IN" };
/** The digits each language is written with (Hindi's locale defaults to the Latin ones). */
const DIGITS = { en: "latn", ne: "deva", hi: "deva" };

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

/**
 * @returns {string} "en", "ne" or "hi"
 */
export function lang() {
  return current;
}

/**
 * @returns {string}
 */
export function locale() {
  return LOCALES[current];
}

/**
 * @param {string} code
 */
export function setLang(code) {
  if (!CATALOGUES[code]) return;
  current = code;
  try {
    localStorage.setItem(KEY, code);
  } catch {
    // not remembered, still used
  }
  document.documentElement.lang = code;
  formats.clear();
}

// The Intl objects of the chosen language, made once (a history page formats hundreds of dates).
const formats = new Map();
function cached(name, make) {
  const key = `${current}:${name}`;
  if (!formats.has(key)) formats.set(key, make());
  return formats.get(key);
}

/**
 * Whether the catalogues know `key`.
 * @param {string} key
 * @returns {boolean}
 */
export function has(key) {
  return en[key] !== undefined;
}

/**
 * The text of `key` in the chosen language, its {blanks} filled from `values`.
 * @param {string} key
 * @param {Record<string, any>} [values]
 * @returns {string}
 */
export function t(key, values = {}) {
  let entry = CATALOGUES[current][key];
  if (entry === undefined) entry = en[key];
  if (entry === undefined) return key;
  if (typeof entry === "object") entry = pluralForm(entry, values.count);
  if (typeof entry === "function") return entry(values, helpers);
  return fill(entry, values);
}

/**
 * The text of a counted `key` ({ one, other, ... } in each catalogue) for `count`, in the form
 * the chosen language's plural rules ask for; {count} and the other {blanks} filled.
 * @param {string} key
 * @param {number} count
 * @param {Record<string, any>} [values]
 * @returns {string}
 */
export function tn(key, count, values = {}) {
  return t(key, { ...values, count });
}

/** The form of `forms` ({ one, few, other, ... }) the language's rules choose for `count`. */
function pluralForm(forms, count) {
  if (typeof count !== "number" || !Number.isFinite(count)) return forms.other;
  return forms[cached("plural", () => new Intl.PluralRules(locale())).select(count)] ?? forms.other;
}

/**
 * The language's name for seat `seat` of a table: the name a person gave, or, for a name the
 * server left to the page (`keys[seat]`: "you" for a person who gave none, "computer.N" for a
 * computer player), the language's own word for it.
 * @param {string[]} names
 * @param {(string | null)[] | null | undefined} keys
 * @param {number} seat
 * @returns {string}
 */
export function seatName(names, keys, seat) {
  const key = keys && keys[seat];
  return key && has(`name.${key}`) ? t(`name.${key}`) : names[seat];
}

/**
 * Every seat's name in the language (seatName, for a whole list).
 * @param {string[]} names
 * @param {(string | null)[] | null | undefined} keys
 * @returns {string[]}
 */
export function seatNames(names, keys) {
  return names.map((_, seat) => seatName(names, keys, seat));
}
function fill(text, values) {
  return text.replace(/\{(\w+)\}/g, (_, name) => {
    const value = values[name];
    if (value === undefined || value === null) return "";
    return typeof value === "number" ? num(value) : String(value);
  });
}

/**
 * A number (counted, a score, a share with { style: "percent" }...) as the language writes
 * it, from Intl; or a text of digits the server wrote (a score "-4.1", a seed), kept as it is
 * but in the language's digits. A minus is a minus sign.
 * @param {number | string} value
 * @param {Intl.NumberFormatOptions | null} [options]
 * @returns {string}
 */
export function num(value, options = null) {
  if (typeof value === "number" && Number.isFinite(value)) {
    const format = options
      ? new Intl.NumberFormat(locale(), { numberingSystem: DIGITS[current], ...options })
      : cached("number", () => new Intl.NumberFormat(locale(), { numberingSystem: DIGITS[current], maximumFractionDigits: 3 }));
    return minus(format.format(value));
  }
  const digits = cached("digits", () => {
    const format = new Intl.NumberFormat(locale(), { numberingSystem: DIGITS[current], useGrouping: false });
    return [...Array(10).keys()].map((digit) => format.format(digit));
  });
  return minus(String(value)).replace(/[0-9]/g, (digit) => digits[digit]);
}

function minus(text) {
  return text.replace(/^(\u200e?)[-\u2212]/, "$1\u2212");
}

/**
 * A date and time (seconds since the epoch) as the language writes it, from Intl. A browser
 * without the language's calendar words (Chromium carries no Nepali ones: it would write
 * "Dec २, २०२६") still gives the numbers; the month and the order come from the catalogue.
 * @param {number} seconds since the epoch
 * @returns {string}
 */
export function formatDate(seconds) {
  const date = new Date(seconds * 1000);
  const full = cached("date", () => new Intl.DateTimeFormat(locale(), {
    dateStyle: "medium", timeStyle: "short", hourCycle: "h23", numberingSystem: DIGITS[current],
  }));
  if (knows(full)) return full.format(date);
  const parts = {};
  const numbers = cached("dateParts", () => new Intl.DateTimeFormat(locale(), {
    year: "numeric", month: "numeric", day: "numeric", hour: "2-digit", minute: "2-digit", hourCycle: "h23",
    numberingSystem: DIGITS[current],
  }));
  for (const { type, value } of numbers.formatToParts(date)) parts[type] = value;
  return t("date.medium", { ...parts, month: t("date.months").split(",")[date.getMonth()] });
}

/** Whether this browser's Intl holds the chosen language's own words (not another's). */
function knows(format) {
  return format.resolvedOptions().locale.split("-")[0] === current;
}

/**
 * @param {string} letter S, H, D or C
 * @param {string} [form] "plural" or another form of the catalogue
 * @returns {string}
 */
export function suitName(letter, form = "plural") {
  return t(`suit.${letter}.${form}`);
}

/**
 * "QS" -> "Queen of spades" in the chosen language.
 * @param {string} code
 * @returns {string}
 */
export function cardName(code) {
  return t("card.name", { rank: code[0], suit: code[1] });
}

const helpers = { num, fill: (text, values) => fill(text, values), suitName };

// What this browser keeps of the person's table settings (the finished trick's pause, one tap
// to play) and what it says of itself (a finger for a pointer), for the table and its sheets.

/** How long a finished trick stays up, by the person's setting (milliseconds). */
export const PAUSES = { off: 0, short: 600, normal: 1200, long: 2400 };

/** Where the pause setting is kept. */
export const PAUSE_KEY = "callbreak:pause";

/** "on": a tap plays a card at once on a touch screen too (else a tap lifts it first). */
const ONE_TAP_KEY = "callbreak:onetap";

/**
 * What this browser keeps under `key`, or null (a browser that keeps nothing: null too).
 * @param {string} key
 * @returns {string | null}
 */
export function readStored(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

/**
 * Keep `value` under `key`; where the browser keeps nothing, it holds until the page is left.
 * @param {string} key
 * @param {string} value
 */
export function keepStored(key, value) {
  try {
    localStorage.setItem(key, value);
  } catch {
    // not remembered
  }
}

/**
 * The finished trick's pause the person chose (a key of PAUSES).
 * @returns {string}
 */
export function pauseSetting() {
  const value = readStored(PAUSE_KEY);
  return value in PAUSES ? value : "normal";
}

/**
 * Whether this device's main pointer is a finger: a tap then lifts a card before it plays.
 * @returns {boolean}
 */
export function coarse() {
  return window.matchMedia("(pointer: coarse)").matches;
}

/**
 * Whether a tap plays a card at once on a touch screen too (the person's setting).
 * @returns {boolean}
 */
export function oneTap() {
  return readStored(ONE_TAP_KEY) === "on";
}

/**
 * Keep the one-tap setting.
 * @param {boolean} on
 */
export function setOneTap(on) {
  keepStored(ONE_TAP_KEY, on ? "on" : "off");
}

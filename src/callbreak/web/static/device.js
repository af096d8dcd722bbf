// What a phone lends the table: its share sheet for a room's link (the Web Share API; the page's
// Copy where there is none), a screen kept awake while a room's match is on (Screen Wake Lock:
// a phone that sleeps would leave its seat "away"), and a short vibration on the person's turn
// (a setting, on by default on a touch screen). Each does nothing where the browser lacks it.

import { coarse, keepStored, readStored } from "./prefs.js";

/** Where the vibration setting is kept ("on" or "off"; none: on for a touch screen). */
const VIBRATE_KEY = "callbreak:vibrate";

/** How long the turn's buzz lasts (ms): noticed, not startling. */
const BUZZ_MS = 120;

/**
 * Whether the browser has a share sheet (the Web Share API).
 * @returns {boolean}
 */
export function canShare() {
  return typeof navigator.share === "function";
}

/**
 * Open the share sheet for `url`; false when it could not be shared (or the person closed it).
 * @param {string} url
 * @param {string} title
 * @param {string} text
 * @returns {Promise<boolean>}
 */
export async function share(url, title, text) {
  if (!canShare()) return false;
  try {
    await navigator.share({ title, text, url });
    return true;
  } catch {
    return false; // closed by the person, or refused by the browser
  }
}

/** @type {{wanted: boolean, sentinel: any, listening: boolean}} */
const awake = { wanted: false, sentinel: null, listening: false };

async function requestLock() {
  const lock = /** @type {any} */ (navigator).wakeLock;
  if (!awake.wanted || awake.sentinel || !lock || document.visibilityState !== "visible") return;
  try {
    awake.sentinel = await lock.request("screen");
    awake.sentinel.addEventListener?.("release", () => { awake.sentinel = null; });
    if (!awake.wanted) releaseLock(); // let go meanwhile
  } catch {
    awake.sentinel = null; // refused (a low battery, a hidden page): asked again when shown
  }
}

function releaseLock() {
  const sentinel = awake.sentinel;
  awake.sentinel = null;
  if (sentinel) sentinel.release().catch(() => {});
}

/**
 * Keep the screen awake (on) or let it sleep again (off). A browser lets go of the lock when
 * the page is hidden: it is asked for again when the page is shown.
 * @param {boolean} on
 */
export function keepAwake(on) {
  awake.wanted = on;
  if (!awake.listening) {
    awake.listening = true;
    document.addEventListener("visibilitychange", () => { requestLock(); });
  }
  if (on) requestLock();
  else releaseLock();
}

/**
 * Whether the browser can vibrate.
 * @returns {boolean}
 */
export function canVibrate() {
  return typeof navigator.vibrate === "function";
}

/**
 * Whether the person's turn vibrates (the setting; none kept: on for a touch screen).
 * @returns {boolean}
 */
export function vibrates() {
  const kept = readStored(VIBRATE_KEY);
  return kept === null ? coarse() : kept === "on";
}

/**
 * Keep the vibration setting.
 * @param {boolean} on
 */
export function setVibrates(on) {
  keepStored(VIBRATE_KEY, on ? "on" : "off");
}

/** A short buzz for the person's turn, when the setting is on and the browser can. */
export function buzz() {
  if (vibrates() && canVibrate()) {
    try {
      navigator.vibrate(BUZZ_MS);
    } catch {
      // a browser that refuses it: the turn is still said and sounded
    }
  }
}

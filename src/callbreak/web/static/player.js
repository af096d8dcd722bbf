// This browser's player in public play (docs/public.md, "Profiles"): a profile without an
// account, made by the server the first time the person plays with strangers. The server gives
// its token once; this browser keeps it (callbreak:player -> {id, token, name, avatar}) and
// sends it with every request of public play. The History page moves it to another device with
// the rest of what this browser holds (history.js, the tokens file).

import { api, HELD_ID, TOKEN } from "./common.js";

const KEY = "callbreak:player";
/** The avatars drawn in static/avatar-NAME.svg (web/profiles.py's AVATARS). */
export const AVATARS = ["sun", "moon", "mountain", "lotus", "kite", "drum"];

/**
 * @typedef {{id: string, token: string, name?: string, avatar?: string}} Player
 */

/**
 * Whether `item` is a player this browser can keep, every field checked: a public id and a
 * token as the server makes them, a name (1-24 characters, as the server allows) and an avatar
 * of the set, each absent or so.
 * @param {any} item
 * @returns {boolean}
 */
export function goodPlayer(item) {
  const absent = (value) => value === undefined || value === null;
  return Boolean(item) && typeof item === "object" && typeof item.id === "string" && HELD_ID.test(item.id)
    && typeof item.token === "string" && TOKEN.test(item.token)
    && (absent(item.name) || (typeof item.name === "string" && item.name.length >= 1 && [...item.name].length <= 24))
    && (absent(item.avatar) || AVATARS.includes(item.avatar));
}

/**
 * This browser's player, or null (none made yet, or one stored wrongly).
 * @returns {Player | null}
 */
export function player() {
  try {
    const found = JSON.parse(localStorage.getItem(KEY) || "null");
    return goodPlayer(found) ? found : null;
  } catch {
    return null;
  }
}

/**
 * Keep `found` as this browser's player (only its own fields).
 * @param {Player} found
 */
export function keepPlayer(found) {
  const { id, token, name, avatar } = found;
  localStorage.setItem(KEY, JSON.stringify({ id, token, name, avatar }));
}

/** Forget this browser's player (the server no longer knows its token). */
export function forgetPlayer() {
  localStorage.removeItem(KEY);
}

/**
 * Make this browser's player on the server and keep it.
 * @param {string} name
 * @param {string} avatar
 * @returns {Promise<Player>}
 */
export async function makePlayer(name, avatar) {
  const made = await api("/api/players", { method: "POST", body: { name, avatar } });
  keepPlayer(made);
  return made;
}

/**
 * An avatar for a new player: one of the set, drawn at random.
 * @returns {string}
 */
export function someAvatar() {
  return AVATARS[Math.floor(Math.random() * AVATARS.length)];
}

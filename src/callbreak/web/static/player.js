// This browser's player in public play (docs/public.md, *Profiles*): a profile without an
// account. The one place that keeps it (callbreak:player -> {id, token, name, avatar}: the
// token is the profile's only key, the server keeps its hash), makes it (the form and
// POST /api/players) and sends its token (`asPlayer`). Play now (now.js), the daily challenge,
// the leaderboards and a profile's page (career.js) use it; the History page moves it to
// another device with the rest of what this browser holds (history.js, the tokens file).

import { api, el, HELD_ID, savedName, saveName, serverText, TOKEN } from "./common.js";
import { t } from "./i18n.js";

const KEY = "callbreak:player";
/** The avatars a profile may have (web.profiles.AVATARS), each drawn in avatar-NAME.svg. */
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
export function myPlayer() {
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
 * A request with this browser's player's token (none without a player: the server answers
 * `token_needed` where one is needed). A token the server no longer knows (the profile expired,
 * its data was reset, another server) is forgotten, and the refusal thrown for the page to say
 * or to make a player anew.
 * @param {string} path
 * @param {{method?: string, body?: any}} [options]
 * @returns {Promise<any>}
 */
export async function asPlayer(path, options = {}) {
  const me = myPlayer();
  try {
    return await api(path, { ...options, token: me ? me.token : null });
  } catch (error) {
    if (error && error.code === "not_a_player") forgetPlayer();
    throw error;
  }
}

/**
 * Make this browser's player on the server and keep it, with its name as the one this browser
 * plays under (common.js's savedName).
 * @param {string} name
 * @param {string} avatar
 * @returns {Promise<Player>}
 */
export async function makePlayer(name, avatar) {
  const made = await api("/api/players", { method: "POST", body: { name, avatar } });
  keepPlayer(made);
  saveName(made.name);
  return made;
}

/**
 * An avatar for a new player: one of the set, drawn at random.
 * @returns {string}
 */
export function someAvatar() {
  return AVATARS[Math.floor(Math.random() * AVATARS.length)];
}

/**
 * An avatar's picture (one not of the set is drawn as the first).
 * @param {string | undefined} avatar
 * @param {string} [size] a CSS class: "small" or "large"
 * @returns {HTMLElement}
 */
export function avatarImage(avatar, size = "small") {
  const name = avatar && AVATARS.includes(avatar) ? avatar : AVATARS[0];
  return el("img", { class: `avatar-picture ${size}`, src: `/static/avatar-${name}.svg`, alt: "", width: "64", height: "64" });
}

/**
 * The form that makes this browser's player: a name (the one this browser last played under, if
 * any) and an avatar. Calls `made` with the player once the server made it and this browser
 * keeps it.
 * @param {(player: Player) => void} made
 * @param {{submit?: string, refused?: string}} [options] the button's words (Make my player);
 *   a refusal to show at once (a name the server refused without the form)
 * @returns {HTMLElement}
 */
export function playerForm(made, options = {}) {
  const name = el("input", { id: "player-name", name: "name", maxlength: "24", autocomplete: "nickname", value: savedName() });
  const chosen = someAvatar();
  const choices = el("div", { class: "avatars", role: "radiogroup", "aria-label": t("public.avatar") },
    ...AVATARS.map((avatar) => el("label", { class: "avatar-choice" },
      el("input", { type: "radio", name: "avatar", value: avatar, checked: avatar === chosen }),
      avatarImage(avatar, "large"),
      el("span", { class: "sr-only", text: t(`avatar.${avatar}`) }))));
  const problem = el("p", { class: "error", role: "alert", text: options.refused || "" });
  const form = el("form", { class: "player-form", "aria-labelledby": "player-form-title" },
    el("h2", { id: "player-form-title", text: t("public.makeTitle") }),
    el("p", { class: "hint", text: t("public.makeHint") }),
    el("label", { for: "player-name", text: t("public.name") }), name,
    el("p", { class: "label", text: t("public.avatar") }), choices,
    problem,
    el("button", { type: "submit", class: "primary", text: options.submit || t("public.make") }));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    problem.textContent = "";
    // Said in the page's language, rather than the browser's bubble of a required field.
    const typed = name.value.trim();
    if (!typed) {
      problem.textContent = t("room.nameNeeded");
      name.focus();
      return;
    }
    const avatar = /** @type {HTMLInputElement | null} */ (form.querySelector("input[name=avatar]:checked"));
    try {
      made(await makePlayer(typed, avatar ? avatar.value : chosen));
    } catch (error) {
      problem.textContent = serverText(error);
    }
  });
  return form;
}

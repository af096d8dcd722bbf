// Public play's shared parts (docs/public.md): the profile this browser keeps (its token, the
// profile's only key: the server keeps its hash), the form that makes one, the avatars, a
// standings' or a leaderboard's row of a person, and the start page's links to the daily
// challenge, the leaderboards and the person's own page.

import { api, el, serverText } from "./common.js";
import { t } from "./i18n.js";

const KEY = "callbreak:player";
/** The avatars a profile may have (web.profiles.AVATARS), each drawn in avatar-NAME.svg. */
export const AVATARS = ["sun", "moon", "mountain", "lotus", "kite", "drum"];

/**
 * The profile this browser keeps ({id, token, name, avatar}), or null.
 * @returns {{id: string, token: string, name: string, avatar: string} | null}
 */
export function myPlayer() {
  try {
    const kept = JSON.parse(localStorage.getItem(KEY) || "null");
    return kept && typeof kept.token === "string" && typeof kept.id === "string" ? kept : null;
  } catch {
    return null;
  }
}

/** @param {{id: string, token: string, name: string, avatar: string} | null} player */
export function keepPlayer(player) {
  if (player) localStorage.setItem(KEY, JSON.stringify(player));
  else localStorage.removeItem(KEY);
}

/**
 * A request with this browser's profile token; a token the server no longer knows (the profile
 * expired, another server) is forgotten, and the refusal thrown for the page to say.
 * @param {string} path
 * @param {{method?: string, body?: any}} [options]
 * @returns {Promise<any>}
 */
export async function asPlayer(path, options = {}) {
  const player = myPlayer();
  try {
    return await api(path, { ...options, token: player ? player.token : null });
  } catch (error) {
    if (error && error.code === "not_a_player") keepPlayer(null);
    throw error;
  }
}

/**
 * An avatar's picture.
 * @param {string} avatar
 * @param {string} [size] a CSS class: "small" or "large"
 * @returns {HTMLElement}
 */
export function avatarImage(avatar, size = "small") {
  const name = AVATARS.includes(avatar) ? avatar : AVATARS[0];
  return el("img", { class: `avatar-picture ${size}`, src: `/static/avatar-${name}.svg`, alt: "", width: "64", height: "64" });
}

/**
 * A person as a list shows them: their avatar and name, a link to their page.
 * @param {{id: string, name: string, avatar: string}} person
 * @returns {HTMLElement}
 */
export function personLink(person) {
  return el("a", { class: "person", href: `#/player/${person.id}` }, avatarImage(person.avatar), el("span", { text: person.name }));
}

/**
 * The form that makes this browser's profile: a name and an avatar. Calls `made` with the
 * profile once the server made it.
 * @param {(player: {id: string, token: string, name: string, avatar: string}) => void} made
 * @returns {HTMLElement}
 */
export function playerForm(made) {
  const name = el("input", { id: "player-name", name: "name", maxlength: "24", autocomplete: "nickname", required: true });
  const choices = el("div", { class: "avatars", role: "radiogroup", "aria-label": t("public.avatar") },
    ...AVATARS.map((avatar, index) => el("label", { class: "avatar-choice" },
      el("input", { type: "radio", name: "avatar", value: avatar, checked: index === 0 }),
      avatarImage(avatar, "large"),
      el("span", { class: "sr-only", text: t(`avatar.${avatar}`) }))));
  const problem = el("p", { class: "error", role: "alert" });
  const form = el("form", { class: "player-form", "aria-labelledby": "player-form-title" },
    el("h2", { id: "player-form-title", text: t("public.makeTitle") }),
    el("p", { class: "hint", text: t("public.makeHint") }),
    el("label", { for: "player-name", text: t("public.name") }), name,
    el("p", { class: "label", text: t("public.avatar") }), choices,
    problem,
    el("button", { type: "submit", class: "primary", text: t("public.make") }));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    problem.textContent = "";
    const avatar = /** @type {HTMLInputElement | null} */ (form.querySelector("input[name=avatar]:checked"));
    try {
      const player = await api("/api/players", { method: "POST", body: { name: name.value, avatar: avatar ? avatar.value : AVATARS[0] } });
      const kept = { id: player.id, token: player.token, name: player.name, avatar: player.avatar };
      keepPlayer(kept);
      made(kept);
    } catch (error) {
      problem.textContent = serverText(error);
    }
  });
  return form;
}

/**
 * The start page's links to public play.
 * @returns {HTMLElement}
 */
export function publicLinks() {
  const player = myPlayer();
  return el("nav", { class: "panel public-links wide", "aria-label": t("public.links") },
    el("a", { href: "#/challenge", class: "public-link" }, el("b", { text: t("challenge.title") }), el("span", { text: t("public.challengeHint") })),
    el("a", { href: "#/leaderboard", class: "public-link" }, el("b", { text: t("leaderboard.title") }), el("span", { text: t("public.leaderboardHint") })),
    el("a", { href: player ? `#/player/${player.id}` : "#/player", class: "public-link" },
      el("b", { text: t("player.mine") }), el("span", { text: t("public.playerHint") })));
}

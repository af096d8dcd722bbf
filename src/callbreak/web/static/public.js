// Public play's shared parts (docs/public.md): a standings' or a leaderboard's row of a person,
// and the start page's links to the daily challenge, the leaderboards and the person's own page.
// The player this browser keeps, and the form that makes it, are player.js's.

import { el } from "./common.js";
import { t } from "./i18n.js";
import { avatarImage, myPlayer } from "./player.js";

/**
 * A person as a list shows them: their avatar and name, a link to their page.
 * @param {{id: string, name: string, avatar: string}} person
 * @returns {HTMLElement}
 */
export function personLink(person) {
  return el("a", { class: "person", href: `#/player/${person.id}` }, avatarImage(person.avatar), el("span", { text: person.name }));
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

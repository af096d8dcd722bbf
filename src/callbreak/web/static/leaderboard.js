// The leaderboards (#/leaderboard/POOL): a pool's best ratings, provisional ones hidden (a
// rating rests on 10 matches first), and this browser's person's own place. docs/public.md,
// *Leaderboards*.

import { api, el, profileLabel, serverText } from "./common.js";
import { num, t, tn } from "./i18n.js";
import { asPlayer, myPlayer } from "./player.js";
import { personLink } from "./public.js";

/** Rated matches before a rating leaves its provisional time (ratings.PROVISIONAL_MATCHES). */
const PROVISIONAL = 10;

/**
 * @param {HTMLElement} view the page's box
 * @param {string[]} params the address's parts: the pool
 * @returns {Promise<(() => void) | null | void>} what closes the page, if anything
 */
export async function render(view, [chosen]) {
  let pools;
  try {
    pools = await api("/api/pools");
  } catch (error) {
    view.append(el("p", { class: "error", text: t("leaderboard.cannotLoad", { detail: serverText(error) }) }));
    return;
  }
  const page = el("div", { class: "public-page leaderboard-page" });
  view.append(page);
  if (!pools.length) {
    page.append(el("section", { class: "panel" }, el("h1", { text: t("leaderboard.title") }), el("p", { text: t("leaderboard.noPools") })));
    return;
  }
  const pool = pools.find((p) => p.name === chosen) || pools[0];
  page.append(el("nav", { class: "choice wide", "aria-label": t("leaderboard.pools") },
    ...pools.map((p) => el("a", { href: `#/leaderboard/${p.name}`, text: profileLabel(p.name), "aria-current": p.name === pool.name ? "page" : null }))));
  let board;
  try {
    board = await asPlayer(`/api/pools/${pool.name}/leaderboard`);
  } catch (error) {
    page.append(el("p", { class: "error", text: t("leaderboard.cannotLoad", { detail: serverText(error) }) }));
    return;
  }
  const panel = el("section", { class: "panel", "aria-labelledby": "leaderboard-title" },
    el("h1", { id: "leaderboard-title", text: t("leaderboard.of", { pool: profileLabel(pool.name) }) }),
    el("p", { class: "hint", text: t("leaderboard.intro") }));
  page.append(panel);
  panel.append(yourPlace(board.you));
  if (!board.ratings.length) {
    panel.append(el("p", { text: t("leaderboard.empty") }));
    return;
  }
  const head = el("tr", {}, ...[t("leaderboard.place"), t("leaderboard.player"), t("leaderboard.rating"),
    t("leaderboard.matches")].map((text) => el("th", { scope: "col", text })));
  const mine = myPlayer();
  const rows = board.ratings.map((row) => el("tr", { class: mine && mine.id === row.id ? "mine" : null },
    el("td", { text: num(row.rank) }),
    el("td", {}, personLink(row)),
    el("td", { text: num(row.rating, { minimumFractionDigits: 1, maximumFractionDigits: 1 }) }),
    el("td", { text: num(row.matches) })));
  panel.append(el("div", { class: "table-scroll" },
    el("table", { class: "record-table standings" }, el("thead", {}, head), el("tbody", {}, ...rows))));
}

/** This browser's person's place: theirs, provisional, or none yet. */
function yourPlace(you) {
  if (!myPlayer()) return el("p", { class: "your-place", text: t("leaderboard.noPlayer") });
  if (!you) return el("p", { class: "your-place", text: t("leaderboard.notRated") });
  if (you.provisional) {
    return el("p", { class: "your-place", text: tn("leaderboard.provisional", PROVISIONAL - you.matches, { matches: you.matches }) });
  }
  return el("p", { class: "your-place", text: t("leaderboard.yourPlace", {
    place: you.rank, rating: num(you.rating, { minimumFractionDigits: 1, maximumFractionDigits: 1 }) }) });
}

// A profile's page (#/player/ID; #/player is this browser's own): the name and avatar, each
// pool's rating with its history drawn as a chart (an SVG drawn here, from the rating after each
// rated match), the matches played and left, calls made, and the review's accuracy of the daily
// challenges (each counted once its day has closed). docs/public.md, *A profile's career*.

import { api, el, profileLabel, serverText } from "./common.js";
import { num, t, tn } from "./i18n.js";
import { avatarImage, myPlayer, playerForm } from "./player.js";

const SVG = "http://www.w3.org/2000/svg";

/**
 * @param {HTMLElement} view the page's box
 * @param {string[]} params the address's parts: the profile's public id
 * @returns {Promise<(() => void) | null | void>} what closes the page, if anything
 */
export async function render(view, [id]) {
  const mine = myPlayer();
  if (!id) {
    if (mine) {
      location.replace(`#/player/${mine.id}`);
      return;
    }
    // No profile yet: made here, then shown.
    view.append(el("section", { class: "panel" }, el("h1", { text: t("player.mine") }),
      playerForm((player) => { location.hash = `#/player/${player.id}`; })));
    return;
  }
  let career;
  try {
    career = await api(`/api/players/${id}/career`);
  } catch (error) {
    view.append(el("p", { class: "error", text: t("player.cannotLoad", { detail: serverText(error) }) }));
    return;
  }
  const page = el("div", { class: "public-page player-page" });
  view.append(page);
  const ratings = Object.entries(career.ratings);
  const matches = ratings.reduce((sum, [, rating]) => sum + rating.matches, 0);
  const left = ratings.reduce((sum, [, rating]) => sum + rating.left, 0);
  const figures = career.figures;
  page.append(el("section", { class: "panel", "aria-labelledby": "player-title" },
    el("div", { class: "player-head" }, avatarImage(career.avatar, "large"),
      el("div", {}, el("h1", { id: "player-title", text: career.name }),
        el("p", { class: "hint", text: mine && mine.id === id ? t("player.you") : t("player.since", { when: num(new Date(career.created * 1000).toISOString().slice(0, 10)) }) }))),
    el("div", { class: "figures" },
      figure(num(matches), tn("player.matches", matches)),
      figure(num(left), tn("player.left", left)),
      figure(made(figures), t("player.made")),
      figure(figures.accuracy === null ? "–" : num(figures.accuracy), tn("player.accuracy", figures.reviewed)))));
  if (!ratings.length) {
    page.append(el("section", { class: "panel" }, el("p", { text: t("player.noRating") }),
      el("p", {}, el("a", { href: "#/leaderboard", text: t("leaderboard.title") }), " · ", el("a", { href: "#/challenge", text: t("challenge.title") }))));
    return;
  }
  for (const [pool, rating] of ratings) page.append(poolPanel(pool, rating));
}

function figure(value, label) {
  return el("div", { class: "figure" }, el("b", { text: value }), el("span", { text: label }));
}

function made(figures) {
  if (!figures.deals) return "–";
  return num(figures.calls_made / figures.deals, { style: "percent" });
}

/** A pool's rating: its figures and its history as a chart. */
function poolPanel(pool, rating) {
  const id = `pool-${pool}`;
  const standing = rating.provisional ? tn("player.provisional", rating.matches) : t("player.rank", { rank: rating.rank });
  return el("section", { class: "panel", "aria-labelledby": id },
    el("h2", { id, text: t("player.pool", { pool: profileLabel(pool) }) }),
    el("p", {}, el("b", { text: num(rating.rating, { minimumFractionDigits: 1, maximumFractionDigits: 1 }) }), " · ", standing),
    chart(rating.history, t("player.chart", { pool: profileLabel(pool) })),
    el("p", { class: "hint chart-caption", text: t("player.chartCaption") }));
}

/**
 * The rating after each rated match as a line: a point per match, the axis from the lowest to
 * the highest rating shown, written at its ends.
 * @param {{rating: number, matches: number}[]} history
 * @param {string} label
 * @returns {Element}
 */
function chart(history, label) {
  const width = 320;
  const height = 120;
  const pad = { left: 34, right: 8, top: 8, bottom: 18 };
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("class", "rating-chart");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", label);
  const add = (tag, attributes, text = null) => {
    const node = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
    if (text !== null) node.textContent = text;
    svg.append(node);
    return node;
  };
  if (!history.length) return svg;
  const values = history.map((point) => point.rating);
  let low = Math.min(...values);
  let high = Math.max(...values);
  if (high - low < 1) {
    low -= 0.5;
    high += 0.5;
  }
  const x = (index) => pad.left + (history.length === 1 ? 0.5 : index / (history.length - 1)) * (width - pad.left - pad.right);
  const y = (value) => pad.top + (1 - (value - low) / (high - low)) * (height - pad.top - pad.bottom);
  add("line", { x1: pad.left, y1: pad.top, x2: pad.left, y2: height - pad.bottom, class: "axis" });
  add("line", { x1: pad.left, y1: height - pad.bottom, x2: width - pad.right, y2: height - pad.bottom, class: "axis" });
  add("text", { x: pad.left - 4, y: pad.top + 8, "text-anchor": "end", class: "tick" }, num(Math.round(high)));
  add("text", { x: pad.left - 4, y: height - pad.bottom, "text-anchor": "end", class: "tick" }, num(Math.round(low)));
  add("text", { x: pad.left, y: height - 4, class: "tick" }, num(history[0].matches));
  add("text", { x: width - pad.right, y: height - 4, "text-anchor": "end", class: "tick" }, num(history[history.length - 1].matches));
  const points = history.map((point, index) => `${x(index).toFixed(1)},${y(point.rating).toFixed(1)}`).join(" ");
  add("polyline", { points, class: "line" });
  const last = history[history.length - 1];
  add("circle", { cx: x(history.length - 1), cy: y(last.rating), r: 3.5, class: "dot" });
  return svg;
}

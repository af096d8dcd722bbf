// Your record (#/record): the person's own figures across the matches against the computer
// and the rooms where this browser holds a token (it keeps them, common.js): matches, first
// places, calls made, average score per deal, by rules and by the opponents' level. The server
// counts a room at the seat its token holds, and nothing this browser holds no token for.

import { api, el, heldTokens, levelLabel, profileLabel, score, serverText } from "./common.js";
import { num, t, tn } from "./i18n.js";

/**
 * @param {HTMLElement} view the page's box
 * @returns {Promise<(() => void) | null | void>} what closes the page, if anything
 */
export async function render(view) {
  // The newest 500 of each: as many as the server counts in one request.
  const held = { matches: heldTokens("match"), rooms: heldTokens("room") };
  let figures;
  try {
    figures = await api("/api/stats", { method: "POST", body: held });
  } catch (error) {
    view.append(el("p", { class: "error", text: t("record.cannotLoad", { detail: serverText(error) }) }));
    return;
  }
  const total = figures.total;
  const page = el("div", { class: "record-page" });
  view.append(page);
  const head = el("section", { class: "panel", "aria-labelledby": "record-title" },
    el("h1", { id: "record-title", text: t("nav.record") }),
    el("p", { class: "hint", text: t("record.intro") }));
  page.append(head);
  if (!total.deals && !total.matches) {
    head.append(el("p", {}, t("record.none"), " ", el("a", { href: "#/", text: t("history.startOne") })));
    return;
  }
  head.append(el("div", { class: "figures" },
    figure(num(total.matches), tn("record.matches", total.matches)),
    figure(num(total.first), tn("record.first", total.first)),
    figure(made(total), t("record.made")),
    figure(total.average === null ? "–" : score(total.average), t("record.average"))));
  if (total.unfinished) head.append(el("p", { class: "hint", text: tn("record.unfinished", total.unfinished) }));
  page.append(
    group("record-rules", t("record.byRules"), figures.by_rules, (key) => profileLabel(key)),
    group("record-level", t("record.byLevel"), figures.by_level, levelText));
}

function levelText(key) {
  if (key === "people") return t("record.friends");
  if (key === "mixed") return t("record.mixed");
  return levelLabel(key);
}

function figure(value, label) {
  return el("div", { class: "figure" }, el("b", { text: value }), el("span", { text: label }));
}

function made(line) {
  if (!line.deals) return "–";
  return t("record.madeOf", { made: line.made, deals: line.deals, share: num(line.made / line.deals, { style: "percent" }) });
}

function group(id, title, lines, label) {
  const head = el("tr", {}, ...[t("record.group"), t("record.matchesShort"), t("record.firstShort"),
    t("record.madeShort"), t("record.averageShort")].map((text) => el("th", { scope: "col", text })));
  const rows = lines.map((line) => el("tr", { "data-key": line.key },
    el("th", { scope: "row", text: label(line.key) }),
    el("td", { text: num(line.matches) }),
    el("td", { text: num(line.first) }),
    el("td", { text: made(line) }),
    el("td", { text: line.average === null ? "–" : score(line.average) })));
  return el("section", { class: "panel", "aria-labelledby": id },
    el("h2", { id, text: title }),
    el("div", { class: "table-scroll" },
      el("table", { class: "record-table" }, el("thead", {}, head), el("tbody", {}, ...rows))));
}

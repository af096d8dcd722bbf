// Finished and unfinished matches, with links to resume, replay and download.

import { api, el, formatDate, placeText } from "./common.js";

export async function render(view) {
  let matches;
  try {
    matches = await api("/api/matches");
  } catch (error) {
    view.append(el("p", { class: "error", text: `Cannot load the history: ${error.message}` }));
    return;
  }
  const heading = el("h1", { text: "History" });
  if (!matches.length) {
    view.append(el("div", { class: "panel" }, heading,
      el("p", {}, "No match yet. ", el("a", { href: "#/", text: "Start one" }), ".")));
    return;
  }
  const rows = matches.map((match) => {
    const players = match.names.map((name, seat) =>
      `${name}${match.levels[seat] ? ` (${match.levels[seat]})` : ""}` +
      (match.totals ? `: ${match.totals[seat]}` : "") +
      (match.places ? `, ${placeText(match.places, seat)}` : "")).join("; ") +
      (match.seed !== null && match.seed !== undefined ? ` (seed ${match.seed})` : "");
    const actions = el("td", { class: "actions" },
      match.status === "playing" ? el("a", { href: `#/play/${match.id}`, text: "Resume" }) : null,
      el("a", { href: `#/replay/${match.id}`, text: "Replay" }),
      el("a", { href: `/api/matches/${match.id}/record`, download: "", text: "Record" }));
    return el("tr", { "data-match": match.id },
      el("td", { text: formatDate(match.updated) }),
      el("td", { text: match.rules }),
      el("td", { text: match.status === "playing" ? `playing, ${match.deals_played} deals done` : match.status }),
      el("td", { text: players }),
      actions);
  });
  view.append(el("div", { class: "panel wide" }, heading,
    el("table", { class: "history" },
      el("thead", {}, el("tr", {}, ...["Last played", "Rules", "Status", "Players and totals", ""].map((t) => el("th", { scope: "col", text: t })))),
      el("tbody", {}, ...rows))));
}

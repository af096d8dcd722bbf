// The rooms this browser held a seat in (remembered in its local storage) and every match
// against the computer, with links to resume, replay and download.

import { api, el, formatDate, levelLabel, placeText, roomEntries, rulesName, score, serverText } from "./common.js";
import { t } from "./i18n.js";

export async function render(view) {
  const rooms = roomEntries();
  let matches;
  try {
    matches = await api("/api/matches");
  } catch (error) {
    view.append(el("p", { class: "error", text: t("history.cannotLoad", { detail: serverText(error.message) }) }));
    return;
  }
  const heading = el("h1", { text: t("nav.history") });
  if (!matches.length && !rooms.length) {
    view.append(el("div", { class: "panel" }, heading,
      el("p", {}, t("history.none"), " ", el("a", { href: "#/", text: t("history.startOne") }), " · ",
        el("a", { href: "#/friends", text: t("home.withFriends") }))));
    return;
  }
  const panel = el("div", { class: "panel wide" }, heading);
  view.append(panel);
  if (rooms.length) panel.append(el("h2", { text: t("history.rooms") }), await roomTable(rooms));
  if (matches.length) {
    if (rooms.length) panel.append(el("h2", { text: t("history.matches") }));
    panel.append(matchTable(matches));
  }
}

const STATUS = { lobby: "history.waiting", playing: "history.playing", finished: "history.finished", stopped: "history.stopped", damaged: "history.damaged" };

async function roomTable(entries) {
  // Each room's lobby as it is now; a room the server no longer has is said to be gone.
  const lobbies = await Promise.all(entries.map((entry) => api(`/api/rooms/${entry.code}`).catch(() => null)));
  const rows = entries.map((entry, index) => {
    const lobby = lobbies[index];
    const code = entry.code;
    if (!lobby) {
      return el("tr", { "data-room": code },
        el("td", { text: entry.since ? formatDate(entry.since / 1000) : "" }), el("td", { text: code }),
        el("td", { text: "" }), el("td", { text: t("history.gone") }), el("td", {}), el("td", {}));
    }
    const over = lobby.status === "finished" || lobby.status === "stopped";
    const players = lobby.seats.map((seat, n) =>
      (seat.kind === "open" ? t("room.openSeat") : seat.name) +
      (seat.kind === "computer" ? ` (${levelLabel(seat.level)})` : "") +
      (n === entry.seat && !entry.left ? ` (${t("table.you")})` : "")).join("; ");
    const status = t(STATUS[lobby.status] || "history.playing");
    const actions = el("td", { class: "actions" },
      over ? null : el("a", { href: `#/room/${code}`, text: lobby.status === "lobby" ? t("history.open") : t("history.resume") }),
      lobby.status === "lobby" ? null : el("a", { href: `#/replay/room/${code}`, text: t("history.replay") }),
      lobby.status === "lobby" ? null : el("a", { href: `/api/rooms/${code}/record`, download: "", text: t("history.record") }));
    return el("tr", { "data-room": code },
      el("td", { text: entry.since ? formatDate(entry.since / 1000) : "" }),
      el("td", {}, el("a", { href: `#/room/${code}`, text: code })),
      el("td", { text: rulesName(lobby.rules) }),
      el("td", { text: status + (entry.left ? ` (${t("history.youLeft")})` : "") }),
      el("td", { text: players }),
      actions);
  });
  return el("table", { class: "history rooms" },
    el("thead", {}, el("tr", {}, ...[t("history.joined"), t("history.room"), t("home.rules"), t("history.status"),
      t("history.players"), ""].map((text) => el("th", { scope: "col", text })))),
    el("tbody", {}, ...rows));
}

function matchTable(matches) {
  const rows = matches.map((match) => {
    const players = match.names.map((name, seat) =>
      `${name}${match.levels[seat] ? ` (${levelLabel(match.levels[seat])})` : ""}` +
      (match.totals ? `: ${score(match.totals[seat])}` : "") +
      (match.places ? `, ${placeText(match.places, seat)}` : "")).join("; ") +
      (match.seed !== null && match.seed !== undefined ? ` (${t("history.seed", { seed: match.seed })})` : "");
    const actions = el("td", { class: "actions" },
      match.status === "playing" ? el("a", { href: `#/play/${match.id}`, text: t("history.resume") }) : null,
      el("a", { href: `#/replay/${match.id}`, text: t("history.replay") }),
      el("a", { href: `/api/matches/${match.id}/record`, download: "", text: t("history.record") }));
    const status = match.status === "playing"
      ? t("history.playingDeals", { deals: match.deals_played }) : t(STATUS[match.status] || "history.finished");
    return el("tr", { "data-match": match.id },
      el("td", { text: formatDate(match.updated) }),
      el("td", { text: rulesName(match.rules) }),
      el("td", { text: status }),
      el("td", { text: players }),
      actions);
  });
  return el("table", { class: "history" },
    el("thead", {}, el("tr", {}, ...[t("history.lastPlayed"), t("home.rules"), t("history.status"),
      t("history.playersTotals"), ""].map((text) => el("th", { scope: "col", text })))),
    el("tbody", {}, ...rows));
}


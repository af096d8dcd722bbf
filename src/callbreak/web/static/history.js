// The rooms this browser held a seat in (remembered in its local storage) and every match
// against the computer, with links to resume, replay and download.

import { api, el, formatDate, placeText, roomEntries } from "./common.js";

export async function render(view) {
  const rooms = roomEntries();
  let matches;
  try {
    matches = await api("/api/matches");
  } catch (error) {
    view.append(el("p", { class: "error", text: `Cannot load the history: ${error.message}` }));
    return;
  }
  const heading = el("h1", { text: "History" });
  if (!matches.length && !rooms.length) {
    view.append(el("div", { class: "panel" }, heading,
      el("p", {}, "No match yet. ", el("a", { href: "#/", text: "Start one" }), ", or ",
        el("a", { href: "#/friends", text: "play with friends" }), ".")));
    return;
  }
  const panel = el("div", { class: "panel wide" }, heading);
  view.append(panel);
  if (rooms.length) panel.append(el("h2", { text: "Rooms with friends" }), await roomTable(rooms));
  if (matches.length) {
    if (rooms.length) panel.append(el("h2", { text: "Matches against the computer" }));
    panel.append(matchTable(matches));
  }
}

async function roomTable(entries) {
  // Each room's lobby as it is now; a room the server no longer has is said to be gone.
  const lobbies = await Promise.all(entries.map((entry) => api(`/api/rooms/${entry.code}`).catch(() => null)));
  const rows = entries.map((entry, index) => {
    const lobby = lobbies[index];
    const code = entry.code;
    if (!lobby) {
      return el("tr", { "data-room": code },
        el("td", { text: entry.since ? formatDate(entry.since / 1000) : "" }), el("td", { text: code }),
        el("td", { text: "" }), el("td", { text: "not on this server any more" }), el("td", {}), el("td", {}));
    }
    const over = lobby.status === "finished" || lobby.status === "stopped";
    const players = lobby.seats.map((seat, n) =>
      (seat.kind === "open" ? "open seat" : seat.name) +
      (seat.kind === "computer" ? ` (${seat.level})` : "") +
      (n === entry.seat && !entry.left ? " (you)" : "")).join("; ");
    const status = lobby.status === "lobby" ? "waiting to start"
      : lobby.status === "playing" ? "playing" : lobby.status;
    const actions = el("td", { class: "actions" },
      over ? null : el("a", { href: `#/room/${code}`, text: lobby.status === "lobby" ? "Open" : "Resume" }),
      lobby.status === "lobby" ? null : el("a", { href: `#/replay/room/${code}`, text: "Replay" }),
      lobby.status === "lobby" ? null : el("a", { href: `/api/rooms/${code}/record`, download: "", text: "Record" }));
    return el("tr", { "data-room": code },
      el("td", { text: entry.since ? formatDate(entry.since / 1000) : "" }),
      el("td", {}, el("a", { href: `#/room/${code}`, text: code })),
      el("td", { text: lobby.rules }),
      el("td", { text: status + (entry.left ? " (you left)" : "") }),
      el("td", { text: players }),
      actions);
  });
  return el("table", { class: "history rooms" },
    el("thead", {}, el("tr", {}, ...["Joined", "Room", "Rules", "Status", "Players", ""].map((t) => el("th", { scope: "col", text: t })))),
    el("tbody", {}, ...rows));
}

function matchTable(matches) {
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
  return el("table", { class: "history" },
    el("thead", {}, el("tr", {}, ...["Last played", "Rules", "Status", "Players and totals", ""].map((t) => el("th", { scope: "col", text: t })))),
    el("tbody", {}, ...rows));
}

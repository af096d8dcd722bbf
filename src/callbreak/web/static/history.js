// The rooms this browser held a seat in and the matches against the computer it holds a token
// for (both kept in its local storage, common.js), with links to resume, replay and download;
// and the move of all it holds, scoresheets too, to another device: an export of its tokens as
// a file, and an import that merges such a file in (docs/web.md, "the tokens file").

import {
  api, downloadLink, el, formatDate, HELD_ID, heldEntries, heldEntry, keepEntry, levelLabel, placeText,
  ROOM_CODE, roomEntries, rulesName, saveFile, score, serverText, TOKEN,
} from "./common.js";
import { seatNames, t, tn } from "./i18n.js";
import { goodPlayer, keepPlayer, myPlayer } from "./player.js";

const PER_REQUEST = 500; // the most ids the server lists in one request
const FORMAT = "callbreak-tokens";
const MAX_IMPORT = 20_000; // entries of one kind in a file: far past any person's history
const LAST_TIME = 8.64e15; // the last moment a Date can hold (ms): any later "since" is no time

/**
 * @param {HTMLElement} view the page's box
 * @param {string[]} _params the address's parts (none)
 * @param {{text: string, error?: boolean} | null} [said] what the last import did
 * @returns {Promise<(() => void) | null | void>} what closes the page, if anything
 */
export async function render(view, _params, said = null) {
  // One entry that this browser keeps wrongly (an old import, a hand-edited storage) is left out
  // and said to be, never allowed to stop the page: the Export and Import buttons are here.
  const all = roomEntries();
  const rooms = all.filter((entry) => goodEntry("room", entry));
  const matchesHeld = heldEntries("match").filter((entry) => typeof entry.token === "string");
  const held = matchesHeld.filter((entry) => goodEntry("match", entry));
  const skipped = all.length - rooms.length + matchesHeld.length - held.length;
  const move = movePanel(view, said);
  if (skipped) move.prepend(el("p", { class: "error skipped", text: tn("history.skipped", skipped) }));
  let matches;
  try {
    matches = await heldMatches(held);
  } catch (error) {
    view.append(el("p", { class: "error", text: t("history.cannotLoad", { detail: serverText(error) }) }), move);
    return;
  }
  const heading = el("h1", { text: t("nav.history") });
  if (!matches.length && !rooms.length) {
    view.append(el("div", { class: "panel" }, heading,
      el("p", {}, t("history.none"), " ", el("a", { href: "#/", text: t("history.startOne") }), " · ",
        el("a", { href: "#/friends", text: t("home.withFriends") }))), move);
    return;
  }
  // The page appears whole, once every table is built: nothing moves under a finger, and the
  // move panel's arrival means the history is all there (tests/e2e/test_history waits on it).
  const panel = el("div", { class: "panel wide" }, heading);
  if (rooms.length) panel.append(el("h2", { text: t("history.rooms") }), await roomTable(rooms));
  if (matches.length) {
    if (rooms.length) panel.append(el("h2", { text: t("history.matches") }));
    panel.append(matchTable(matches));
  }
  view.append(panel, move);
}

/** The server's summary of every match of `held` (this browser's entries with a token), each
 * with its token, the most recently played first. */
async function heldMatches(held) {
  const tokens = new Map(held.map((entry) => [entry.id, entry.token]));
  const found = [];
  for (let start = 0; start < held.length; start += PER_REQUEST) {
    const matches = held.slice(start, start + PER_REQUEST).map(({ id, token }) => ({ id, token }));
    found.push(...await api("/api/matches/mine", { method: "POST", body: { matches } }));
  }
  return found.sort((a, b) => b.updated - a.updated).map((match) => ({ ...match, token: tokens.get(match.id) }));
}

// --- moving the history: the tokens file ------------------------------------------------------

function movePanel(view, said) {
  const message = el("p", { class: "move-message", role: "status", text: said ? said.text : "" });
  if (said && said.error) message.classList.add("error");
  const file = el("input", { type: "file", id: "import-file", accept: ".json,application/json", hidden: true });
  file.addEventListener("change", async () => {
    const chosen = file.files[0];
    file.value = "";
    if (!chosen) return;
    let told;
    try {
      const { added, kept, otherPlayer } = importTokens(JSON.parse(await chosen.text()));
      const text = t("history.imported", { added: tn("history.importedNew", added), kept: tn("history.importedKept", kept) });
      told = { text: otherPlayer ? `${text} ${t("history.otherPlayer", { name: otherPlayer })}` : text };
    } catch (error) {
      told = error instanceof NoRoom
        ? { text: tn("history.noRoom", error.added), error: true }
        : { text: t("history.badFile"), error: true };
    }
    // Drawn again with what was imported, and what the import did said.
    view.replaceChildren();
    await render(view, [], told);
    view.querySelector(".move-message")?.focus();
  });
  const day = new Date().toISOString().slice(0, 10);
  return el("section", { class: "panel wide move", "aria-labelledby": "move-title" },
    el("h2", { id: "move-title", text: t("history.move") }),
    el("p", { class: "hint", text: t("history.moveHint") }),
    el("p", { class: "move-actions" },
      el("button", {
        type: "button", class: "export", text: t("history.export"),
        onclick: () => saveFile(new Blob([JSON.stringify(exportTokens(), null, 1)], { type: "application/json" }),
          `callbreak-history-${day}.json`),
      }),
      " ",
      el("button", { type: "button", class: "import", text: t("history.import"), onclick: () => file.click() }),
      file),
    Object.assign(message, { tabIndex: -1 }));
}

/** Everything this browser holds, as the tokens file (the format `callbreak adopt` writes), with
 * this browser's player in public play (player.js) when it has one. */
function exportTokens() {
  // What another browser's import would refuse is left out: a file of this page always imports.
  const held = (kind) => heldEntries(kind).filter((entry) => typeof entry.token === "string" && goodEntry(kind, entry))
    .map(({ id, token, since }) => ({ id, token, since }));
  const rooms = heldEntries("room").filter((entry) => goodEntry("room", entry)).map(({ id, token, seat, since, left }) =>
    ({ id, token: typeof token === "string" ? token : null, seat: Number.isInteger(seat) ? seat : null, since, left: Boolean(left) }));
  const file = { format: FORMAT, version: 1, matches: held("match"), rooms, sheets: held("sheet") };
  const me = myPlayer();
  if (me) file.player = { id: me.id, token: me.token, name: me.name ?? null, avatar: me.avatar ?? null };
  return file;
}

class NoRoom extends Error {
  constructor(added) {
    super("storage full");
    this.added = added;
  }
}

/** Merge a tokens file in: what this browser holds already stays as it is, the rest is added;
 * the file's player is taken when this browser has none (`otherPlayer`: the name of the one it
 * keeps instead). The whole file is checked first: a bad one throws before anything is kept. */
function importTokens(data) {
  const entries = readTokens(data);
  const theirs = readPlayer(data);
  let added = 0;
  let kept = 0;
  let otherPlayer = null;
  if (theirs) {
    const mine = myPlayer();
    if (!mine) {
      try {
        keepPlayer(theirs);
      } catch {
        throw new NoRoom(added);
      }
      added += 1;
    } else if (mine.id === theirs.id) {
      kept += 1;
    } else {
      otherPlayer = mine.name || mine.id;
    }
  }
  for (const [kind, id, entry] of entries) {
    if (heldEntry(kind, id)) {
      kept += 1;
      continue;
    }
    try {
      keepEntry(kind, id, entry);
    } catch {
      throw new NoRoom(added);
    }
    added += 1;
  }
  return { added, kept, otherPlayer };
}

/** The file's player (absent: null); a player not as the server makes them throws. */
function readPlayer(data) {
  if (data.player === undefined || data.player === null) return null;
  if (!goodPlayer(data.player)) throw new Error("bad player");
  const { id, token, name, avatar } = data.player;
  return { id, token, ...(name ? { name } : {}), ...(avatar ? { avatar } : {}) };
}

function readTokens(data) {
  if (!data || typeof data !== "object" || data.format !== FORMAT || data.version !== 1) throw new Error("not a tokens file");
  const read = (key, kind, valid) => {
    const list = data[key] === undefined ? [] : data[key];
    if (!Array.isArray(list) || list.length > MAX_IMPORT) throw new Error(`bad ${key}`);
    return list.map((item) => {
      if (!goodEntry(kind, item, valid)) throw new Error(`bad entry in ${key}`);
      const entry = { token: item.token, since: typeof item.since === "number" ? item.since : Date.now() };
      if (kind === "room") {
        if (Number.isInteger(item.seat)) entry.seat = item.seat;
        if (item.left === true || item.token === null) entry.left = true;
      }
      return [kind, item.id, entry];
    });
  };
  return [...read("matches", "match", HELD_ID), ...read("rooms", "room", ROOM_CODE), ...read("sheets", "sheet", HELD_ID)];
}

/**
 * Whether `item` is an entry this page can keep and show, every field of it checked: an id as the
 * server makes them, a token (or, in a room the person left, null), a time a Date can hold, a
 * seat 0-3, a yes or no for having left. The import refuses a file with one entry that is not;
 * the page leaves such a stored entry out.
 * @param {"match" | "sheet" | "room"} kind
 * @param {any} item
 * @param {RegExp} [valid] the form of its id
 * @returns {boolean}
 */
function goodEntry(kind, item, valid = kind === "room" ? ROOM_CODE : HELD_ID) {
  const absent = (value) => value === undefined || value === null;
  return Boolean(item) && typeof item === "object" && typeof item.id === "string" && valid.test(item.id)
    && (typeof item.token === "string" ? TOKEN.test(item.token) : kind === "room" && item.token === null)
    && (absent(item.since) || (Number.isFinite(item.since) && item.since >= 0 && item.since <= LAST_TIME))
    && (kind !== "room" || absent(item.seat) || (Number.isInteger(item.seat) && item.seat >= 0 && item.seat <= 3))
    && (kind !== "room" || item.left === undefined || typeof item.left === "boolean");
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
    const names = seatNames(lobby.seats.map((seat) => seat.name), lobby.seats.map((seat) => seat.name_key));
    const players = lobby.seats.map((seat, n) =>
      (seat.kind === "open" ? t("room.openSeat") : names[n]) +
      (seat.kind === "computer" ? ` (${levelLabel(seat.level)})` : "") +
      (n === entry.seat && !entry.left ? ` (${t("table.you")})` : "")).join("; ");
    const status = t(STATUS[lobby.status] || "history.playing");
    const actions = el("td", { class: "actions" },
      over ? null : el("a", { href: `#/room/${code}`, text: lobby.status === "lobby" ? t("history.open") : t("history.resume") }),
      lobby.status === "lobby" ? null : el("a", { href: `#/replay/room/${code}`, text: t("history.replay") }),
      // A finished room is reviewed for the seat this browser still holds in it.
      over && !entry.left && typeof entry.token === "string"
        ? el("a", { href: `#/review/room/${code}`, class: "review-link", text: t("history.review") }) : null,
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
    const players = seatNames(match.names, match.name_keys).map((name, seat) =>
      `${name}${match.levels[seat] ? ` (${levelLabel(match.levels[seat])})` : ""}` +
      (match.totals ? `: ${score(match.totals[seat])}` : "") +
      (match.places ? `, ${placeText(match.places, seat)}` : "")).join("; ") +
      (match.seed !== null && match.seed !== undefined ? ` (${t("history.seed", { seed: match.seed })})` : "");
    const actions = el("td", { class: "actions" },
      match.status === "playing" ? el("a", { href: `#/play/${match.id}`, text: t("history.resume") }) : null,
      el("a", { href: `#/replay/${match.id}`, text: t("history.replay") }),
      match.status === "finished" || match.status === "stopped"
        ? el("a", { href: `#/review/${match.id}`, class: "review-link", text: t("history.review") }) : null,
      downloadLink(`/api/matches/${match.id}/record`, match.token, t("history.record")));
    const status = match.status === "playing"
      ? tn("history.playingDeals", match.deals_played) : t(STATUS[match.status] || "history.finished");
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


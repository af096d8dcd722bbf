// A room's page, #/room/CODE: its code and invite link, the lobby (who sits where, connected or
// not; the creator seats computers, opens seats, moves people and starts), then the table of
// table.js for this browser's seat, or for a spectator. One socket serves the lobby and the
// table: it says hello with the seat token this browser keeps for the room (common.js), so a
// reload or a new tab resumes the seat. Someone without a seat is offered an open one.
// Names are put in the page as text only, never as markup.

import {
  api, copyText, el, keepRoomEntry, LEVEL_LABELS, roomEntry, ROOM_CODE, saveName, savedName,
} from "./common.js";
import { TablePage } from "./table.js";

export async function render(view, [code]) {
  code = code.toUpperCase();
  if (!ROOM_CODE.test(code)) {
    drawMissing(view, code);
    return;
  }
  const { levels } = await api("/api/levels");
  const page = new RoomPage(view, code, levels);
  return () => page.close();
}

function drawMissing(view, code) {
  view.replaceChildren(el("div", { class: "panel" },
    el("h1", { text: "No such room" }),
    el("p", { text: `There is no room with the code ${code}. Check the code, or make a room of your own.` }),
    el("p", {}, el("a", { href: "#/friends", text: "Play with friends" }))));
}

class RoomPage {
  constructor(view, code, levels) {
    this.view = view;
    this.code = code;
    this.levels = levels;
    this.lobby = null;
    this.seat = undefined; // unknown until the server's welcome; null: watching
    this.build();
    this.table = new TablePage(this.tableBox, {
      socketPath: `/ws/rooms/${code}`,
      hello: () => {
        const token = this.token();
        return token ? { type: "hello", token } : { type: "hello" };
      },
      onMessage: (message) => this.receive(message),
      room: true,
      recordHref: `/api/rooms/${code}/record`,
      replayHash: `#/replay/room/${code}`,
      againHash: "#/friends",
      seenKey: `callbreak:seen:room:${code}`,
      missing: "no such room",
      turnSeconds: () => this.lobby && this.lobby.turn_seconds,
    });
  }

  close() {
    this.table.close();
    clearTimeout(this.copiedTimer);
    clearTimeout(this.sayTimer);
  }

  token() {
    const entry = roomEntry(this.code);
    return (entry && entry.token) || null;
  }

  // --- messages --------------------------------------------------------------------------------

  receive(message) {
    if (message.type === "welcome") {
      this.welcome(message.seat);
      return true;
    }
    if (message.type === "room") {
      this.lobby = message.room;
      this.draw();
      return true;
    }
    if (message.type === "error" && message.message === "no such room") {
      this.table.missing = true;
      drawMissing(this.view, this.code);
      return true;
    }
    // A token that holds no seat any more: the welcome that follows says what it means.
    return message.type === "error" && String(message.message).startsWith("that seat token");
  }

  welcome(seat) {
    const entry = roomEntry(this.code);
    if (seat === null && entry && entry.token) {
      // The token no longer holds a seat (the person left): the room stays in the history.
      keepRoomEntry(this.code, { ...entry, token: null, left: true });
      this.say("Your seat in this room is not yours any more: you are watching.");
    } else if (seat !== null && entry && entry.seat !== seat) {
      keepRoomEntry(this.code, { ...entry, seat });
      this.say(`The room's creator moved you: you now sit in seat ${seat + 1}.`);
    }
    this.seat = seat;
    this.draw();
  }

  /** A word about what just happened, shown for a while. */
  say(text, kind = "info") {
    this.message.textContent = text;
    this.message.className = `room-message ${kind}`;
    clearTimeout(this.sayTimer);
    if (text && text !== "Connecting…") this.sayTimer = setTimeout(() => this.say(""), 10000);
  }

  // --- layout ----------------------------------------------------------------------------------

  build() {
    const link = `${location.origin}${location.pathname}#/room/${this.code}`;
    this.invite = el("input", { id: "invite-link", readonly: true, value: link, "aria-label": "Invite link" });
    this.invite.addEventListener("focus", () => this.invite.select());
    this.copyButton = el("button", { type: "button", class: "copy", text: "Copy link", onclick: () => this.copy() });
    this.settings = el("p", { class: "hint settings" });
    this.message = el("p", { class: "room-message", role: "status" });
    this.head = el("section", { class: "panel wide room-head", "aria-labelledby": "room-heading" },
      el("div", { class: "room-title" },
        el("h1", { id: "room-heading", text: "Room" }),
        el("p", { class: "room-code", "aria-label": `Room code ${this.code.split("").join(" ")}`, text: this.code })),
      el("div", { class: "invite" }, this.invite, this.copyButton),
      el("p", { class: "hint", text: "Send the link to your friends, or tell them the code: they open it and join with a name." }),
      this.settings, this.message);

    this.joinName = el("input", { id: "join-name", name: "name", maxlength: "32", autocomplete: "nickname", value: savedName() });
    this.joinProblem = el("p", { class: "error", role: "alert" });
    this.joinIntro = el("p", {});
    this.joinForm = el("form", { class: "panel wide join", hidden: true, "aria-labelledby": "join-heading" },
      el("h2", { id: "join-heading", text: "Join this room" }),
      this.joinIntro,
      el("label", { for: "join-name", text: "Your name" }),
      el("div", { class: "inline" }, this.joinName, el("button", { type: "submit", class: "primary", text: "Join" })),
      this.joinProblem);
    this.joinForm.addEventListener("submit", (event) => { event.preventDefault(); this.join(); });

    this.seatList = el("ol", { class: "seat-list", "aria-label": "Seats in play order" });
    this.lobbyNote = el("p", { class: "lobby-note" });
    this.problem = el("p", { class: "error", role: "alert" });
    this.startButton = el("button", { type: "button", class: "primary", text: "Start the match", onclick: () => this.start() });
    this.leaveButton = el("button", { type: "button", class: "danger", text: "Leave this room for good",
      onclick: () => this.confirmLeave() });
    this.links = el("p", { class: "room-links" });
    this.seatsPanel = el("section", { class: "panel wide lobby", "aria-labelledby": "seats-heading" },
      el("h2", { id: "seats-heading", text: "Seats" }),
      this.seatList, this.lobbyNote, this.problem,
      el("div", { class: "lobby-actions" }, this.startButton, this.leaveButton),
      this.links);

    this.tableBox = el("div", { class: "room-table", hidden: true });
    this.leaveText = el("p", {});
    this.leaveDialog = el("dialog", { class: "result confirm", "aria-labelledby": "leave-heading" },
      el("h2", { id: "leave-heading", text: "Leave this room for good?" }),
      this.leaveText,
      el("div", { class: "lobby-actions" },
        el("button", { type: "button", class: "danger", text: "Leave for good", onclick: () => this.leave() }),
        el("button", { type: "button", text: "Stay", onclick: () => this.leaveDialog.close() })));
    this.page = el("div", { class: "room-page" }, this.head, this.joinForm, this.tableBox, this.seatsPanel);
    this.view.append(this.page, this.leaveDialog);
    this.say("Connecting…");
  }

  // --- drawing ---------------------------------------------------------------------------------

  draw() {
    const lobby = this.lobby;
    if (!lobby || this.seat === undefined) return;
    const started = lobby.status !== "lobby";
    const over = lobby.status === "finished" || lobby.status === "stopped";
    const creator = this.seat === 0;
    this.head.classList.toggle("started", started);
    this.page.classList.toggle("started", started);
    this.tableBox.hidden = !started;
    // Once the match is on, the seats go beside the table, under the scores.
    const home = started ? this.table.side : this.page;
    if (this.seatsPanel.parentNode !== home) home.append(this.seatsPanel);
    const clock = lobby.turn_seconds ? `Turn clock: ${lobby.turn_seconds} s.` : "No turn clock.";
    this.settings.textContent = `Rules: ${lobby.rules} (${lobby.summary || ""}). ${clock} ` +
      `A computer (${lobby.cover}) plays for anyone away or out of time.`;
    if (this.message.textContent === "Connecting…") this.say("");

    const open = lobby.seats.filter((seat) => seat.kind === "open").length;
    const canJoin = this.seat === null && open > 0 && !over;
    this.joinForm.hidden = !canJoin;
    if (canJoin) {
      const host = lobby.seats[0].name;
      this.joinIntro.textContent = started
        ? `${host}'s match has started, and a seat is open: join and play it from the next turn, or just watch.`
        : `${host} invites you to a game of Call Break. Join with a name, or just watch.`;
    }

    this.seatList.replaceChildren(...lobby.seats.map((info, index) => this.seatRow(info, index, lobby)));

    let note = "";
    if (over) note = "The match is over.";
    else if (this.seat === null) {
      note = canJoin ? "You are watching: join to take the open seat." : started
        ? "The match has started: you are watching." : "This room is full: you are watching.";
    } else if (!started && creator) {
      note = open ? `Waiting for ${open === 1 ? "one more player" : `${open} more players`}: send the link, or seat a computer.`
        : "Every seat is taken: start when you are ready.";
    } else if (!started) {
      note = `You sit in seat ${this.seat + 1}. Waiting for ${lobby.seats[0].name} to start the match.`;
    } else {
      note = `You play seat ${this.seat + 1}.`;
    }
    this.lobbyNote.textContent = note;
    this.startButton.hidden = started || !creator;
    this.startButton.disabled = open > 0;
    // The creator does not leave a lobby: without them nobody could start it.
    this.leaveButton.hidden = this.seat === null || over || (!started && creator);
    this.links.replaceChildren(...(started ? [
      el("a", { href: `#/replay/room/${this.code}`, text: over ? "Replay" : "Replay the finished deals" }), " · ",
      el("a", { href: `/api/rooms/${this.code}/record`, download: "", text: "Download record" }),
    ] : []));
  }

  seatRow(info, index, lobby) {
    const started = lobby.status !== "lobby";
    const over = lobby.status === "finished" || lobby.status === "stopped";
    const mine = index === this.seat;
    const tags = [];
    if (index === 0) tags.push("creator");
    if (mine) tags.push("you");
    if (info.kind === "computer") tags.push(`computer: ${info.level}`);
    if (info.kind === "person" && info.left) tags.push("left");
    else if (info.kind === "person") tags.push(info.connected ? "here" : "away");
    const name = info.kind === "open" ? "Open seat" : info.name;
    const who = el("div", { class: "seat-who" },
      el("strong", { text: name }),
      ...tags.map((tag) => el("span", { class: `tag tag-${tag.split(":")[0]}`, text: tag })));
    let line = null;
    if (info.kind === "open") {
      line = started ? "waiting for someone to join; a computer plays meanwhile" : "waiting for a friend to join";
    } else if (info.covered) {
      line = info.left ? `a computer plays for ${info.name}, who left` : `a computer plays for ${info.name} while away`;
    }
    const controls = this.seat === 0 && !over && index > 0 ? this.seatControls(info, index, started) : null;
    return el("li", { class: `seat-row kind-${info.kind}` + (mine ? " mine" : ""), "data-seat": String(index) },
      el("span", { class: "seat-number", "aria-hidden": "true", text: String(index + 1) }),
      el("div", { class: "seat-body" }, who, line ? el("div", { class: "seat-line", text: line }) : null),
      controls);
  }

  /** The creator's buttons for seat `index`. */
  seatControls(info, index, started) {
    const buttons = [];
    const name = info.kind === "open" ? `seat ${index + 1}` : info.name;
    const free = info.kind === "open" || (info.kind === "person" && info.left);
    if (free) {
      const level = el("select", { "aria-label": `Computer level for seat ${index + 1}` },
        ...this.levels.map((l) => el("option", { value: l, text: LEVEL_LABELS[l] || l })));
      level.value = this.levels.includes("intermediate") ? "intermediate" : this.levels[0];
      buttons.push(level, el("button", { type: "button", text: "Seat a computer",
        onclick: () => this.change(`/seats/${index}`, { level: level.value }) }));
    }
    if (info.kind === "computer" || (info.kind === "person" && info.left)) {
      buttons.push(el("button", { type: "button", text: "Open for a friend",
        onclick: () => this.change(`/seats/${index}`, { open: true }) }));
    }
    if (!started) {
      if (index > 1) {
        buttons.push(el("button", { type: "button", class: "move", text: "▲", "aria-label": `Move ${name} up`,
          onclick: () => this.change("/move", { from: index, to: index - 1 }) }));
      }
      if (index < 3) {
        buttons.push(el("button", { type: "button", class: "move", text: "▼", "aria-label": `Move ${name} down`,
          onclick: () => this.change("/move", { from: index, to: index + 1 }) }));
      }
    }
    return buttons.length ? el("div", { class: "seat-controls" }, ...buttons) : null;
  }

  // --- requests --------------------------------------------------------------------------------

  async post(path, body) {
    const headers = { "Content-Type": "application/json" };
    const token = this.token();
    if (token) headers.Authorization = `Bearer ${token}`;
    return api(`/api/rooms/${this.code}${path}`, { method: "POST", body, headers });
  }

  async change(path, body) {
    this.problem.textContent = "";
    try {
      this.lobby = await this.post(path, body);
      this.draw();
    } catch (error) {
      this.problem.textContent = error.message;
    }
  }

  async start() {
    this.startButton.disabled = true;
    await this.change("/start", {});
  }

  async join() {
    this.joinProblem.textContent = "";
    const name = this.joinName.value.trim();
    if (!name) {
      this.joinProblem.textContent = "Your name, please: the others will see it.";
      this.joinName.focus();
      return;
    }
    try {
      const { seat, token } = await this.post("/join", { name });
      keepRoomEntry(this.code, { token, seat });
      saveName(name);
      this.say(`You joined: you sit in seat ${seat + 1}.`);
      this.table.reconnect(); // say hello again, with the new seat's token
    } catch (error) {
      this.joinProblem.textContent = error.message;
    }
  }

  confirmLeave() {
    const started = this.lobby && this.lobby.status !== "lobby";
    this.leaveText.textContent = started
      ? "A computer plays your seat until the match ends, or until the room's creator gives it to someone else. You cannot take it back."
      : "Your seat opens for someone else.";
    this.leaveDialog.showModal();
  }

  async leave() {
    this.leaveDialog.close();
    try {
      await this.post("/leave", {});
    } catch (error) {
      this.problem.textContent = error.message;
      return;
    }
    const entry = roomEntry(this.code) || {};
    keepRoomEntry(this.code, { ...entry, token: null, left: true });
    this.say("You left the room: you are watching.");
    this.table.reconnect(); // as a spectator from now on
  }

  async copy() {
    const copied = await copyText(this.invite.value, this.invite);
    this.copyButton.textContent = copied ? "Copied" : "Select and copy";
    clearTimeout(this.copiedTimer);
    this.copiedTimer = setTimeout(() => { this.copyButton.textContent = "Copy link"; }, 2500);
  }
}

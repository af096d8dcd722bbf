// A room's page, #/room/CODE: its code and invite link, the lobby (who sits where, connected or
// not; the creator seats computers, opens seats, moves people and starts), then the table of
// table.js for this browser's seat, or for a spectator. One socket serves the lobby and the
// table: it says hello with the seat token this browser keeps for the room (common.js), so a
// reload or a new tab resumes the seat. Someone without a seat is offered an open one.
// Names are put in the page as text only, never as markup.

import { canShare, keepAwake, share } from "./device.js";
import {
  api, copyText, el, keepRoomEntry, levelLabel, roomEntry, ROOM_CODE, rulesName, rulesSummary, saveName,
  savedName, serverText,
} from "./common.js";
import { num, seatNames, t, tn } from "./i18n.js";
import { TablePage } from "./table.js";
import { reviewTarget } from "./review.js";

/**
 * @param {HTMLElement} view the page's box
 * @param {string[]} params the address's parts
 * @returns {Promise<(() => void) | null | void>} what closes the page, if anything
 */
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
    el("h1", { text: t("room.missingTitle") }),
    el("p", { text: t("room.missing", { code }) }),
    el("p", {}, el("a", { href: "#/friends", text: t("home.withFriends") }))));
}

class RoomPage {
  constructor(view, code, levels) {
    this.view = view;
    this.code = code;
    this.levels = levels;
    this.lobby = null;
    this.seat = undefined; // unknown until the server's welcome; null: watching
    /** @type {{seat: number, deal: number} | null} a computer's seat this browser takes from
     * a later deal (a table of strangers) */
    this.arriving = null;
    this.build();
    this.table = new TablePage(this.tableBox, {
      socketPath: `/ws/rooms/${code}`,
      hello: () => {
        const token = this.token();
        return token ? { type: "hello", token } : { type: "hello" };
      },
      onMessage: (message) => this.receive(message),
      room: true,
      reactions: `room:${code}`,
      creatorless: () => Boolean(this.lobby && this.lobby.pool),
      watchingText: () => (this.arriving
        ? t("now.watchUntil", { name: this.arrivingName(), deal: this.arriving.deal }) : null),
      recordHref: `/api/rooms/${code}/record`,
      replayHash: `#/replay/room/${code}`,
      review: () => reviewTarget(true, code),
      againHash: "#/friends",
      seenKey: `callbreak:seen:room:${code}`,
      missing: "no_such_room",
      turnSeconds: () => this.lobby && this.lobby.turn_seconds,
    });
  }

  close() {
    keepAwake(false);
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
      this.welcome(message.seat, message.arriving || null);
      return true;
    }
    if (message.type === "room") {
      this.lobby = message.room;
      this.draw();
      return true;
    }
    if (message.type === "error" && message.code === "no_such_room") {
      this.table.missing = true;
      drawMissing(this.view, this.code);
      return true;
    }
    // A token that holds no seat any more: the welcome that follows says what it means.
    return message.type === "error" && message.code === "watching";
  }

  welcome(seat, arriving) {
    const entry = roomEntry(this.code);
    const coming = this.arriving;
    // A computer's seat taken over at a table of strangers: watched until the person's first
    // deal, then theirs (a welcome to it follows).
    this.arriving = arriving;
    if (arriving) {
      this.say(t("now.arriving", { name: this.arrivingName(), deal: arriving.deal }));
    } else if (seat !== null && coming) {
      this.say(t("now.arrived", { deal: coming.deal }));
    } else if (seat === null && entry && entry.token) {
      // The token no longer holds a seat (the person left): the room stays in the history.
      keepRoomEntry(this.code, { ...entry, token: null, left: true });
      this.say(t("room.notYours"));
    } else if (seat !== null && entry && entry.seat !== seat) {
      keepRoomEntry(this.code, { ...entry, seat });
      this.say(t("room.moved", { seat: seat + 1 }));
    }
    this.seat = seat;
    this.draw();
  }

  /** The name of the seat this browser takes from a later deal (its computer's, until then),
   * as the page words it. */
  arrivingName() {
    const seat = this.arriving.seat;
    if (!this.lobby) return t("room.seatN", { seat: seat + 1 });
    const seats = this.lobby.seats;
    return seatNames(seats.map((info) => info.name), seats.map((info) => info.name_key))[seat];
  }

  /** A word about what just happened, shown for a while (over the table's status once the
   * match is on, so that nothing on the table moves). */
  say(text, kind = "info") {
    if (text && this.lobby && this.lobby.status !== "lobby") {
      this.table.note(text, kind);
      text = "";
    }
    this.message.textContent = text;
    this.message.className = `room-message ${kind}`;
    clearTimeout(this.sayTimer);
    if (text && !this.connecting) this.sayTimer = setTimeout(() => this.say(""), 10000);
  }

  // --- layout ----------------------------------------------------------------------------------

  build() {
    const link = `${location.origin}${location.pathname}#/room/${this.code}`;
    this.invite = el("input", { id: "invite-link", readonly: true, value: link, "aria-label": t("room.inviteLink") });
    this.invite.addEventListener("focus", () => this.invite.select());
    this.copyButton = el("button", { type: "button", class: "copy", text: t("room.copy"), onclick: () => this.copy() });
    // The phone's share sheet where the browser has one (Copy stays beside it).
    this.shareButton = canShare() ? el("button", { type: "button", class: "share primary", text: t("room.share"),
      onclick: () => share(link, t("room.shareTitle"), t("room.shareText", { code: this.code })) }) : null;
    this.settings = el("p", { class: "hint settings" });
    this.message = el("p", { class: "room-message", role: "status" });
    this.head = el("section", { class: "panel wide room-head", "aria-labelledby": "room-heading" },
      el("div", { class: "room-title" },
        this.heading = el("h1", { id: "room-heading", text: t("room.title") }),
        el("p", { class: "room-code", "aria-label": t("room.codeLabel", { code: this.code.split("").join(" ") }), text: this.code })),
      el("div", { class: "invite" }, ...[this.invite, this.shareButton, this.copyButton].filter(Boolean)),
      this.inviteHint = el("p", { class: "hint", text: t("room.sendLink") }),
      this.settings, this.message);

    this.joinName = el("input", { id: "join-name", name: "name", maxlength: "24", autocomplete: "nickname", value: savedName() });
    this.joinProblem = el("p", { class: "error", role: "alert" });
    this.joinIntro = el("p", {});
    this.joinForm = el("form", { class: "panel wide join", hidden: true, "aria-labelledby": "join-heading" },
      el("h2", { id: "join-heading", text: t("room.joinTitle") }),
      this.joinIntro,
      el("label", { for: "join-name", text: t("home.name") }),
      el("div", { class: "inline" }, this.joinName, el("button", { type: "submit", class: "primary", text: t("room.join") })),
      this.joinProblem);
    this.joinForm.addEventListener("submit", (event) => { event.preventDefault(); this.join(); });

    this.seatList = el("ol", { class: "seat-list", "aria-label": t("room.seatsOrder") });
    this.lobbyNote = el("p", { class: "lobby-note" });
    this.problem = el("p", { class: "error", role: "alert" });
    this.startButton = el("button", { type: "button", class: "primary", text: t("home.start"), onclick: () => this.start() });
    this.leaveButton = el("button", { type: "button", class: "danger", text: t("room.leave"),
      onclick: () => this.confirmLeave() });
    this.links = el("p", { class: "room-links" });
    this.seatsPanel = el("section", { class: "panel wide lobby", "aria-labelledby": "seats-heading" },
      el("h2", { id: "seats-heading", text: t("room.seats") }),
      this.seatList, this.lobbyNote, this.problem,
      el("div", { class: "lobby-actions" }, this.startButton, this.leaveButton),
      this.links);

    this.tableBox = el("div", { class: "room-table", hidden: true });
    this.leaveText = el("p", {});
    this.leaveDialog = el("dialog", { class: "result confirm", "aria-labelledby": "leave-heading" },
      el("h2", { id: "leave-heading", text: t("room.leaveQuestion") }),
      this.leaveText,
      el("div", { class: "lobby-actions" },
        el("button", { type: "button", class: "danger", text: t("room.leaveForGood"), onclick: () => this.leave() }),
        el("button", { type: "button", text: t("room.stay"), onclick: () => this.leaveDialog.close() })));
    this.page = el("div", { class: "room-page" }, this.head, this.joinForm, this.tableBox, this.seatsPanel);
    this.view.append(this.page, this.leaveDialog);
    this.connecting = true;
    this.say(t("room.connecting"));
  }

  // --- drawing ---------------------------------------------------------------------------------

  draw() {
    const lobby = this.lobby;
    if (!lobby || this.seat === undefined) return;
    const started = lobby.status !== "lobby";
    const over = lobby.status === "finished" || lobby.status === "stopped";
    // A table of strangers (a pool's) has no creator: the server seats it and starts it.
    const strangers = Boolean(lobby.pool);
    const creator = this.seat === 0 && !strangers;
    this.head.classList.toggle("strangers", strangers);
    this.heading.textContent = t(strangers ? "now.tableTitle" : "room.title");
    this.invite.parentElement.hidden = strangers;
    this.inviteHint.hidden = strangers;
    // A computer's name, as every name the server leaves to the page, in the page's language.
    const names = seatNames(lobby.seats.map((seat) => seat.name), lobby.seats.map((seat) => seat.name_key));
    const seats = lobby.seats.map((seat, index) => ({ ...seat, name: names[index] }));
    this.head.classList.toggle("started", started);
    this.page.classList.toggle("started", started);
    this.tableBox.hidden = !started;
    // Once the match is on, the table is the page (the whole screen on a phone): the room's
    // code and link go above the scores and the seats below them, beside the table on a wide
    // screen and in the scores' sheet on a narrow one.
    this.table.fullScreen(started);
    // A phone that sleeps mid-match would leave its seat away: awake while the match is on.
    keepAwake(started && !over && this.seat !== null);
    const home = started ? this.table.side : this.page;
    if (started && this.head.parentNode !== home) home.prepend(this.head);
    if (!started && this.head.parentNode !== this.page) this.page.prepend(this.head);
    if (this.seatsPanel.parentNode !== home) home.append(this.seatsPanel);
    const clock = lobby.turn_seconds ? t("room.clock", { seconds: lobby.turn_seconds }) : t("room.noClock");
    this.settings.textContent = [
      t("room.rules", { rules: rulesName(lobby.rules), summary: rulesSummary(lobby.options) }), clock,
      t("room.cover", { level: levelLabel(lobby.cover) })].join(" ");
    if (this.connecting) {
      this.connecting = false;
      this.say("");
    }

    const open = lobby.seats.filter((seat) => seat.kind === "open").length;
    const canJoin = this.seat === null && open > 0 && !over;
    this.joinForm.hidden = !canJoin;
    if (canJoin) {
      const host = seats[0].name;
      this.joinIntro.textContent = t(started ? "room.joinStarted" : "room.invites", { name: host });
    }

    this.seatList.replaceChildren(...seats.map((info, index) => this.seatRow(info, index, lobby)));

    let note;
    if (over) note = t("room.over");
    else if (this.arriving) note = t("now.watchUntil", { name: this.arrivingName(), deal: this.arriving.deal });
    else if (this.seat === null) {
      note = t(canJoin ? "room.watchJoin" : started ? "room.watchStarted" : "room.watchFull");
    } else if (!started && creator) {
      note = open ? tn("room.waiting", open) : t("room.ready");
    } else if (!started) {
      note = t("room.waitStart", { seat: this.seat + 1, name: seats[0].name });
    } else {
      note = t("room.youPlay", { seat: this.seat + 1 });
    }
    this.lobbyNote.textContent = note;
    this.startButton.hidden = started || !creator;
    this.startButton.disabled = open > 0;
    // The creator does not leave a lobby: without them nobody could start it.
    this.leaveButton.hidden = (this.seat === null && !this.arriving) || over || (!started && creator);
    this.links.replaceChildren(...(started ? [
      el("a", { href: `#/replay/room/${this.code}`, text: over ? t("history.replay") : t("room.replayDeals") }), " · ",
      el("a", { href: `/api/rooms/${this.code}/record`, download: "", text: t("table.download") }),
    ] : []));
  }

  seatRow(info, index, lobby) {
    const started = lobby.status !== "lobby";
    const over = lobby.status === "finished" || lobby.status === "stopped";
    const mine = index === this.seat;
    const tags = [];
    if (index === 0 && !lobby.pool) tags.push(["creator", t("room.tagCreator")]);
    if (mine) tags.push(["you", t("table.you")]);
    if (info.kind === "computer") tags.push(["computer", t("room.tagComputer", { level: levelLabel(info.level) })]);
    if (info.kind === "person" && info.left) tags.push(["left", t("room.tagLeft")]);
    else if (info.kind === "person") tags.push(info.connected ? ["here", t("room.tagHere")] : ["away", t("table.away")]);
    const name = info.kind === "open" ? t("room.openSeat") : info.name;
    const who = el("div", { class: "seat-who" },
      el("strong", { text: name }),
      ...tags.map(([kind, text]) => el("span", { class: `tag tag-${kind}`, text })));
    let line = null;
    if (info.arriving) {
      line = t("now.seatArriving", { name: info.arriving.name, deal: info.arriving.deal });
    } else if (info.kind === "open") {
      line = t(started ? "room.openStarted" : "room.openWaiting");
    } else if (info.covered) {
      line = info.left ? t("table.coveredLeft", { name: info.name }) : t("table.coveredAway", { name: info.name });
    }
    const controls = this.seat === 0 && !lobby.pool && !over && index > 0
      ? this.seatControls(info, index, started) : null;
    return el("li", { class: `seat-row kind-${info.kind}` + (mine ? " mine" : ""), "data-seat": String(index) },
      el("span", { class: "seat-number", "aria-hidden": "true", text: num(index + 1) }),
      el("div", { class: "seat-body" }, who, line ? el("div", { class: "seat-line", text: line }) : null),
      controls);
  }

  /** The creator's buttons for seat `index`. */
  seatControls(info, index, started) {
    const buttons = [];
    const name = info.kind === "open" ? t("room.seatN", { seat: index + 1 }) : info.name;
    const free = info.kind === "open" || (info.kind === "person" && info.left);
    if (free) {
      const level = el("select", { "aria-label": t("room.levelFor", { seat: index + 1 }) },
        ...this.levels.map((l) => el("option", { value: l, text: levelLabel(l) })));
      level.value = this.levels.includes("intermediate") ? "intermediate" : this.levels[0];
      buttons.push(level, el("button", { type: "button", class: "seat-computer", text: t("room.seatComputer"),
        onclick: () => this.change(`/seats/${index}`, { level: level.value }) }));
    }
    if (info.kind === "computer" || (info.kind === "person" && info.left)) {
      buttons.push(el("button", { type: "button", class: "open-seat", text: t("room.openForFriend"),
        onclick: () => this.change(`/seats/${index}`, { open: true }) }));
    }
    if (!started) {
      if (index > 1) {
        buttons.push(el("button", { type: "button", class: "move", text: "▲", "aria-label": t("room.moveUp", { name }),
          onclick: () => this.change("/move", { from: index, to: index - 1 }) }));
      }
      if (index < 3) {
        buttons.push(el("button", { type: "button", class: "move", text: "▼", "aria-label": t("room.moveDown", { name }),
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
      this.problem.textContent = serverText(error);
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
      this.joinProblem.textContent = t("room.nameNeeded");
      this.joinName.focus();
      return;
    }
    try {
      const { seat, token } = await this.post("/join", { name });
      keepRoomEntry(this.code, { token, seat });
      saveName(name);
      this.say(t("room.joined", { seat: seat + 1 }));
      this.table.reconnect(); // say hello again, with the new seat's token
    } catch (error) {
      this.joinProblem.textContent = serverText(error);
    }
  }

  confirmLeave() {
    const started = this.lobby && this.lobby.status !== "lobby";
    this.leaveText.textContent = t(started ? "room.leaveStarted" : "room.leaveLobby");
    this.leaveDialog.showModal();
  }

  async leave() {
    this.leaveDialog.close();
    try {
      await this.post("/leave", {});
    } catch (error) {
      this.problem.textContent = serverText(error);
      return;
    }
    const entry = roomEntry(this.code) || {};
    keepRoomEntry(this.code, { ...entry, token: null, left: true });
    this.say(t("room.left"));
    this.table.reconnect(); // as a spectator from now on
  }

  async copy() {
    const copied = await copyText(this.invite.value, this.invite);
    this.copyButton.textContent = copied ? t("room.copied") : t("room.selectCopy");
    clearTimeout(this.copiedTimer);
    this.copiedTimer = setTimeout(() => { this.copyButton.textContent = t("room.copy"); }, 2500);
  }
}

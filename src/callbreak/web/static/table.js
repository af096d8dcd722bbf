// The table over a WebSocket: a person's match against three computer players, and (through
// room.js) a room's table for a seat or a spectator. The server sends the connection's own
// view after every action; this page only draws it and sends the person's calls and cards. It
// never sends an illegal card: the server lists the legal ones and the reason for every other
// card in the hand. A spectator's view has no hand at all.

import {
  backElement, cardElement, cardName, cardText, el, placeText, rovingFocus,
} from "./common.js";

export function render(view, [matchId]) {
  const page = new TablePage(view, {
    socketPath: `/ws/matches/${matchId}`,
    recordHref: `/api/matches/${matchId}/record`,
    replayHash: `#/replay/${matchId}`,
    seenKey: `callbreak:seen:${matchId}`,
    missing: "no such match",
  });
  return () => page.close();
}

/**
 * The table drawn in `view`. Options:
 * - socketPath, recordHref, replayHash, againHash (a new game), seenKey (where the deal results
 *   already shown are kept);
 * - missing: the server's error for an unknown table (the page then says so);
 * - hello(): the first message of every connection, for a room (its seat token);
 * - onMessage(message): sees every message first and returns true for those it handles;
 * - room: a room's table (settings are the creator's; the title names the room);
 * - turnSeconds(): the room's turn clock, to keep a clock shown within it.
 */
export class TablePage {
  constructor(view, options) {
    this.view = view;
    this.options = options;
    this.state = null;
    this.pending = false;
    this.showLast = false;
    this.statusNote = null;
    this.hint = null;
    this.closed = false;
    this.retry = 0;
    this.seenKey = options.seenKey;
    this.build();
    this.connect();
    this.ticker = setInterval(() => this.tick(), 250);
  }

  close() {
    this.closed = true;
    if (this.socket) this.socket.close();
    clearTimeout(this.noteTimer);
    clearInterval(this.ticker);
  }

  // --- connection --------------------------------------------------------------------------

  connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${location.host}${this.options.socketPath}`);
    this.socket = socket;
    socket.addEventListener("open", () => {
      this.retry = 0;
      if (this.options.hello) socket.send(JSON.stringify(this.options.hello()));
    });
    socket.addEventListener("message", (event) => {
      if (socket === this.socket) this.receive(JSON.parse(event.data));
    });
    socket.addEventListener("close", () => {
      if (socket !== this.socket || this.closed || this.missing) return;
      this.note("Connection lost: reconnecting…", "error");
      this.retry = Math.min(this.retry + 1, 5);
      setTimeout(() => { if (!this.closed && socket === this.socket) this.connect(); }, 300 * this.retry);
    });
  }

  /** Connect again at once, saying hello anew (a room's seat token changed). */
  reconnect() {
    const old = this.socket;
    this.socket = null;
    this.pending = false;
    if (old) old.close();
    this.connect();
  }

  send(message) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) {
      this.socket.send(JSON.stringify(message));
      return true;
    }
    this.note("Not connected: wait a moment.", "error");
    return false;
  }

  receive(message) {
    if (this.options.onMessage && this.options.onMessage(message)) return;
    if (message.type === "state") {
      this.state = message.state;
      this.pending = false;
      if (this.hint && this.hint.version !== this.state.version) this.hint = null;
      this.draw();
    } else if (message.type === "error") {
      this.pending = false;
      if (message.message === this.options.missing) {
        this.missing = true;
        this.drawMissing();
        return;
      }
      this.note(message.message, "error");
    } else if (message.type === "notice") {
      this.note(message.message, "info");
    } else if (message.type === "hint") {
      // A hint worked out for an earlier decision is no use any more.
      if (!this.state || message.version !== this.state.version) return;
      this.hint = message;
      this.note(`Hint: ${message.summary}`, "hint");
      this.draw();
    }
  }

  // --- layout ------------------------------------------------------------------------------

  build() {
    this.seats = [0, 1, 2, 3].map((position) => el("section", {
      class: `seat pos-${position}`, "aria-live": "off",
    }));
    this.center = el("div", { class: "center", "aria-label": "Cards on the table", role: "group" });
    this.status = el("p", { class: "status", role: "status", "aria-live": "polite" });
    // The seconds left tick here, apart from the status, so that a screen reader is not told
    // every second.
    this.clockLine = el("p", { class: "turn-clock", hidden: true });
    this.watching = el("p", { class: "watching", hidden: true,
      text: "You are watching: every hand stays hidden, you see what is played face up." });
    this.calling = el("div", { class: "calling", role: "group", "aria-label": "Your call" });
    this.hand = el("div", { class: "hand", role: "group", "aria-label": "Your hand" });
    rovingFocus(this.hand, "button.card");
    rovingFocus(this.calling, "button.call");
    this.scores = el("section", { class: "scores panel", "aria-label": "Scores" });
    // The side column: the scores, and whatever the page adds below them (a room's seats).
    this.side = el("div", { class: "play-side" }, this.scores);
    this.hintButton = el("button", { type: "button", text: "Hint", onclick: () => this.askHint() });
    this.lastButton = el("button", {
      type: "button", text: "Last trick", "aria-pressed": "false",
      onclick: () => { this.showLast = !this.showLast; this.draw(); },
    });
    this.speed = el("select", { "aria-label": "Speed of the computer players" },
      ...["slow", "normal", "fast", "instant"].map((s) => el("option", { value: s, text: s })));
    this.speed.addEventListener("change", () => this.send({ type: "settings", speed: this.speed.value }));
    this.auto = el("input", { type: "checkbox" });
    this.auto.addEventListener("change", () => this.send({ type: "settings", auto_forced: this.auto.checked }));
    this.stopButton = el("button", { type: "button", text: "End the match here", hidden: true,
      onclick: () => this.act({ type: "stop" }) });
    this.download = el("a", { href: this.options.recordHref, download: "", text: "Download record" });
    this.speedLabel = el("label", {}, "Speed ", this.speed);
    this.autoLabel = el("label", { class: "check" }, this.auto, " Auto-play forced cards");
    this.dialog = el("dialog", { class: "result", "aria-labelledby": "result-title" });
    this.title = el("h1", { class: "table-title" });
    const controls = el("div", { class: "controls" },
      this.hintButton, this.lastButton, this.speedLabel, this.autoLabel, this.stopButton, this.download);
    const board = el("div", { class: "board" }, ...this.seats, this.center);
    this.view.append(
      el("div", { class: "play-page" },
        el("div", { class: "play-main" }, this.title, board, this.status, this.clockLine, this.calling,
          this.hand, this.watching, controls),
        this.side),
      this.dialog);
  }

  position(seat) {
    // Seats in play order drawn round the table from the person at the bottom: anticlockwise
    // puts the next player on the right, clockwise on the left.
    // A spectator sees the table from seat 0's side.
    const offset = (seat - (this.state.seat ?? 0) + 4) % 4;
    if (!this.state.rules.clockwise) return offset;
    return [0, 3, 2, 1][offset];
  }

  // --- drawing -----------------------------------------------------------------------------

  draw() {
    const s = this.state;
    if (!s) return;
    const profile = s.rules.text;
    this.title.textContent = s.match_over
      ? `Match over (${profile})`
      : `Deal ${s.deal_number}${s.rules.deals ? ` of ${s.rules.deals}` : ""} · ${profile}`;
    this.speed.value = s.settings.speed;
    this.auto.checked = s.settings.auto_forced;
    // In a room the settings and the end of an open-ended match are the creator's (seat 0).
    const settles = !this.options.room || s.seat === 0;
    this.speedLabel.hidden = this.autoLabel.hidden = !settles;
    this.stopButton.hidden = !(s.can_stop && settles);
    this.hintButton.hidden = s.seat === null;
    this.watching.hidden = s.seat !== null;
    this.hand.hidden = s.seat === null;
    this.drawSeats();
    this.drawCenter();
    this.drawCalling();
    this.drawHand();
    this.drawScores();
    this.drawStatus();
    this.tick();
    this.maybeShowResult();
  }

  drawSeats() {
    const s = this.state;
    for (let seat = 0; seat < 4; seat++) {
      const box = this.seats[this.position(seat)];
      const call = s.calls[seat];
      const mine = seat === s.seat;
      box.className = `seat pos-${this.position(seat)}` + (s.turn === seat ? " turn" : "") + (mine ? " mine" : "");
      box.setAttribute("aria-label", `${s.names[seat]}${mine ? " (you)" : ""}`);
      box.dataset.seat = String(seat);
      const who = el("div", { class: "who" },
        el("strong", { text: s.names[seat] }),
        mine ? " (you)" : s.levels[seat] ? el("span", { class: "level", text: ` ${s.levels[seat]}` }) : null,
        seat === s.dealer ? el("span", { class: "dealer", title: "Dealer", text: " · dealer" }) : null);
      const line = el("div", { class: "line" },
        `call ${call === null ? "–" : call} · tricks ${s.won[seat]} · total ${s.totals[seat]}`);
      const doing = s.thinking === seat ? el("div", { class: "thinking", text: "thinking…" })
        : s.turn === seat ? el("div", { class: "thinking", text: mine ? "your turn" : "to play" }) : null;
      const clock = s.clock && s.clock.seat === seat && !s.match_over
        ? el("div", { class: "clock", "data-deadline": String(s.clock.deadline), title: "Time left for this turn" })
        : null;
      const backs = mine ? null : el("div", { class: "backs", "aria-hidden": "true" },
        ...Array.from({ length: Math.min(13, 13 - s.tricks_played - (s.trick.cards.length > ((seat - s.trick.leader + 4) % 4) ? 1 : 0)) }, backElement));
      box.replaceChildren(...[who, this.presence(seat), line, doing, clock, backs].filter(Boolean));
    }
  }

  /** In a room: who a computer is playing for, who is away, an open seat. */
  presence(seat) {
    const s = this.state;
    if (!s.seats || s.match_over) return null;
    const info = s.seats[seat];
    const name = s.names[seat];
    if ((s.covered || []).includes(seat)) {
      return el("div", { class: "covered", text: info.left
        ? `computer playing for ${name}, who left`
        : `computer playing for ${name} while away` });
    }
    if (info.kind === "open") return el("div", { class: "covered", text: "open seat: the computer plays until someone joins" });
    if (info.kind === "person" && !info.connected && seat !== s.seat) return el("div", { class: "away", text: "away" });
    return null;
  }

  /** The turn clock: seconds left for the seat to act, counted here from its deadline. */
  tick() {
    const s = this.state;
    const cap = this.options.turnSeconds ? this.options.turnSeconds() : null;
    const left = (deadline) => {
      let ms = Number(deadline) - Date.now();
      // The deadline is the server's time; a browser clock set ahead would show more than the
      // whole clock, so it is never shown as more than the room's clock.
      if (cap) ms = Math.min(ms, cap * 1000);
      return Math.max(0, Math.ceil(ms / 1000));
    };
    for (const clock of this.view.querySelectorAll(".seat .clock")) {
      const seconds = left(clock.dataset.deadline);
      clock.textContent = `${seconds} s`;
      clock.classList.toggle("low", seconds <= 5);
    }
    const mine = s && s.clock && s.seat !== null && s.clock.seat === s.seat && !s.match_over;
    this.clockLine.hidden = !mine;
    if (mine) {
      const seconds = left(s.clock.deadline);
      this.clockLine.textContent = `${seconds} s left, then the computer plays for you.`;
      this.clockLine.classList.toggle("low", seconds <= 5);
    }
  }

  drawCenter() {
    const s = this.state;
    const showing = this.showLast && s.last_trick ? s.last_trick
      : s.trick.cards.length ? s.trick
      : s.last_trick && !s.match_over ? { ...s.last_trick, fading: true } : null;
    this.lastButton.setAttribute("aria-pressed", String(this.showLast));
    this.lastButton.disabled = !s.last_trick;
    const slots = [0, 1, 2, 3].map((position) => el("div", { class: `slot pos-${position}` }));
    let caption = "";
    if (showing) {
      showing.cards.forEach((code, index) => {
        const seat = (showing.leader + index) % 4;
        const card = cardElement(code, { label: `${cardName(code)}, played by ${s.names[seat]}` });
        if (showing.winner !== null && showing.winner !== undefined && seat === showing.winner) card.classList.add("winner");
        slots[this.position(seat)].append(card);
      });
      if (showing === s.last_trick || showing.fading) {
        caption = `Last trick: won by ${s.names[showing.winner]}`;
      }
    }
    this.center.replaceChildren(...slots, ...(caption ? [el("p", { class: "caption", text: caption })] : []));
    this.center.classList.toggle("review", Boolean(showing && (showing === s.last_trick || showing.fading)));
  }

  drawCalling() {
    const s = this.state;
    this.calling.replaceChildren();
    if (!s.legal_calls.length) {
      this.calling.hidden = true;
      return;
    }
    this.calling.hidden = false;
    const suggested = this.hint && this.hint.kind === "call" ? this.hint.options[0].action : null;
    const buttons = s.legal_calls.map((value, index) => el("button", {
      type: "button", class: "call" + (value === suggested ? " suggested" : ""), text: String(value),
      "aria-label": `Call ${value}`, tabindex: index === 0 ? "0" : "-1",
      onclick: () => this.call(value),
    }));
    this.calling.append(el("span", { class: "label", text: "Your call:" }), ...buttons);
    if (s.may_claim_redeal) {
      this.calling.append(el("button", {
        type: "button", class: "redeal", text: "No spades: ask for a new deal",
        onclick: () => this.act({ type: "redeal" }),
      }));
    }
  }

  drawHand() {
    const s = this.state;
    const focused = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.card : null;
    const legal = new Set(s.legal);
    const myTurnToPlay = s.seat !== null && s.turn === s.seat && s.phase === "playing" && !s.match_over;
    const suggested = this.hint && this.hint.kind === "play" ? this.hint.options[0].action : null;
    const cards = s.hand.map((code) => {
      const playable = myTurnToPlay && legal.has(code);
      const label = cardName(code) + (myTurnToPlay && !playable ? ", not playable now" : "");
      const card = cardElement(code, { button: true, label });
      if (myTurnToPlay && !playable) {
        card.classList.add("illegal");
        card.setAttribute("aria-disabled", "true");
        card.title = s.reasons[code] || "";
      }
      if (code === suggested) card.classList.add("suggested");
      card.addEventListener("click", () => this.play(code));
      return card;
    });
    // One tab stop for the hand: the focused card, else the first playable one.
    const start = Math.max(0, cards.findIndex((c) => c.dataset.card === focused) >= 0
      ? cards.findIndex((c) => c.dataset.card === focused)
      : cards.findIndex((c) => !c.classList.contains("illegal")));
    cards.forEach((card, index) => card.setAttribute("tabindex", index === start ? "0" : "-1"));
    this.hand.replaceChildren(...cards);
    this.hand.classList.toggle("active", myTurnToPlay);
    if (focused) {
      const again = this.hand.querySelector(`[data-card="${focused}"]`);
      if (again) again.focus();
    }
  }

  drawScores() {
    const s = this.state;
    const head = el("tr", {}, el("th", { scope: "col", text: "Deal" }),
      ...s.names.map((name) => el("th", { scope: "col", title: name }, el("span", { class: "name", text: name }))));
    const rows = s.results.map((result) => el("tr", {},
      el("th", { scope: "row", text: String(result.number) }),
      ...result.scores.map((score, seat) => el("td", {
        title: `called ${result.calls[seat]}, took ${result.won[seat]}`,
      }, el("span", { class: "detail", text: `${result.calls[seat]}/${result.won[seat]} ` }), score))));
    const total = el("tr", { class: "total" }, el("th", { scope: "row", text: "Total" }),
      ...s.totals.map((t) => el("td", { text: t })));
    const table = el("table", {}, el("caption", { text: "Scores (call/tricks, points)" }),
      el("thead", {}, head), el("tbody", {}, ...rows, total));
    const summary = el("p", { class: "hint", text: s.rules.summary });
    this.scores.replaceChildren(el("h2", { text: "Scores" }), table, summary);
    if (s.match_over && s.places) {
      this.scores.append(el("p", { class: "final" },
        ...s.names.map((name, seat) => `${name}: ${placeText(s.places, seat)}${seat < 3 ? " · " : ""}`)));
    }
  }

  drawStatus() {
    const s = this.state;
    if (this.statusNote) {
      this.status.textContent = this.statusNote.text;
      this.status.className = `status ${this.statusNote.kind}`;
      return;
    }
    this.status.className = "status";
    let text;
    const watching = s.seat === null;
    if (s.match_over && watching) {
      const first = s.names.filter((_, seat) => s.places[seat] === 1);
      text = `Match over. First: ${first.join(" and ")}.`;
    } else if (s.match_over) {
      text = `Match over. You finish ${placeText(s.places, s.seat)} with ${s.totals[s.seat]}.`;
    } else if (watching) {
      text = s.turn === null ? "Watching." : `Watching: ${s.names[s.turn]} to ${s.phase === "calling" ? "call" : "play"}.`;
    } else if (s.turn === s.seat && s.legal_calls.length) {
      text = `Your call: how many tricks will you take (${s.rules.calls[0]}–${s.rules.calls[1]})?`;
    } else if (s.turn === s.seat) {
      const lead = s.trick.cards.length === 0;
      text = lead ? "Your lead: play a card." : "Your turn: play a card.";
      if (s.legal.length === 1) text += ` Only the ${cardText(s.legal[0])} is legal.`;
    } else if (s.thinking !== null) {
      text = `${s.names[s.thinking]} is thinking…`;
    } else if (s.turn !== null) {
      text = `${s.names[s.turn]} to ${s.phase === "calling" ? "call" : "play"}.`;
    } else {
      text = "";
    }
    this.status.textContent = text;
  }

  note(text, kind = "info") {
    this.statusNote = { text, kind };
    clearTimeout(this.noteTimer);
    this.noteTimer = setTimeout(() => { this.statusNote = null; this.drawStatus(); }, kind === "hint" ? 12000 : 5000);
    if (this.state) this.drawStatus();
    else {
      this.status.textContent = text;
      this.status.className = `status ${kind}`;
    }
  }

  drawMissing() {
    this.view.replaceChildren(el("p", { class: "error" }, "There is no such match. ",
      el("a", { href: "#/", text: "Start a new one" }), "."));
  }

  // --- results between deals ------------------------------------------------------------

  maybeShowResult() {
    const s = this.state;
    const seen = Number(localStorage.getItem(this.seenKey) || "0");
    const count = s.results.length;
    if (s.match_over && seen <= count) {
      if (seen === count + 1) return;
      localStorage.setItem(this.seenKey, String(count + 1));
      this.showDialog("Match over", s.results[count - 1], true);
    } else if (count > seen) {
      localStorage.setItem(this.seenKey, String(count));
      this.showDialog(`Deal ${count} scored`, s.results[count - 1], false);
    }
  }

  showDialog(title, result, final) {
    const s = this.state;
    const rows = s.names.map((name, seat) => el("tr", {},
      el("th", { scope: "row", text: name }),
      el("td", { text: result ? String(result.calls[seat]) : "–" }),
      el("td", { text: result ? String(result.won[seat]) : "–" }),
      el("td", { text: result ? result.scores[seat] : "–" }),
      el("td", { text: s.totals[seat] }),
      final ? el("td", { text: placeText(s.places, seat) }) : null));
    const head = el("tr", {}, el("th", { scope: "col", text: "Player" }), el("th", { scope: "col", text: "Call" }),
      el("th", { scope: "col", text: "Tricks" }), el("th", { scope: "col", text: "Deal" }),
      el("th", { scope: "col", text: "Total" }), final ? el("th", { scope: "col", text: "Place" }) : null);
    const close = el("button", { type: "button", class: "primary", text: final ? "Close" : "Continue",
      onclick: () => this.dialog.close() });
    const extra = final
      ? el("p", {}, el("a", { href: this.options.againHash || "#/", text: "Play again" }), " · ",
        el("a", { href: this.options.replayHash, text: "Replay this match" }))
      : null;
    // A null given to replaceChildren would show as the text "null": only what there is.
    this.dialog.replaceChildren(...[el("h2", { id: "result-title", text: title }),
      el("table", {}, el("thead", {}, head), el("tbody", {}, ...rows)), extra, close].filter(Boolean));
    if (!this.dialog.open) this.dialog.showModal();
    close.focus();
  }

  // --- the person's actions --------------------------------------------------------------

  // Every action says which state it was made on: a click on a state the table has left
  // behind (a second tab, a slow network) is refused by the server instead of played.
  act(message) {
    if (this.pending || !this.state) return;
    if (this.send({ ...message, version: this.state.version })) this.pending = true;
  }

  call(value) {
    this.act({ type: "call", value });
  }

  play(code) {
    const s = this.state;
    if (!s || this.pending || s.seat === null) return;
    if (s.match_over) return this.note("The match is over.");
    if (s.turn !== s.seat) {
      return this.note(s.turn === null ? "Nothing to play now." : `Wait: it is ${s.names[s.turn]}'s turn.`);
    }
    if (s.phase !== "playing") return this.note("Make your call first.");
    if (!s.legal.includes(code)) {
      return this.note(s.reasons[code] || "That card may not be played now.", "error");
    }
    this.act({ type: "play", card: code });
  }

  askHint() {
    const s = this.state;
    if (!s || s.seat === null || s.turn !== s.seat || s.match_over) return this.note("Hints are for your own turn.");
    this.note("Working out a hint…", "hint");
    this.send({ type: "hint" });
  }
}

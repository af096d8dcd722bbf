// The table: the person's seat against three computer players, over a WebSocket.
// The server sends the person's own view after every action; this page only draws it and
// sends the person's calls and cards. It never sends an illegal card: the server lists the
// legal ones and the reason for every other card in the hand.

import {
  backElement, cardElement, cardName, cardText, el, placeText, rovingFocus,
} from "./common.js";

export function render(view, [matchId]) {
  const page = new TablePage(view, matchId);
  return () => page.close();
}

class TablePage {
  constructor(view, matchId) {
    this.view = view;
    this.matchId = matchId;
    this.state = null;
    this.pending = false;
    this.showLast = false;
    this.statusNote = null;
    this.hint = null;
    this.closed = false;
    this.retry = 0;
    this.seenKey = `callbreak:seen:${matchId}`;
    this.build();
    this.connect();
  }

  close() {
    this.closed = true;
    if (this.socket) this.socket.close();
    clearTimeout(this.noteTimer);
  }

  // --- connection --------------------------------------------------------------------------

  connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${location.host}/ws/matches/${this.matchId}`);
    this.socket = socket;
    socket.addEventListener("open", () => { this.retry = 0; });
    socket.addEventListener("message", (event) => this.receive(JSON.parse(event.data)));
    socket.addEventListener("close", () => {
      if (this.closed || this.missing) return;
      this.note("Connection lost: reconnecting…", "error");
      this.retry = Math.min(this.retry + 1, 5);
      setTimeout(() => { if (!this.closed) this.connect(); }, 300 * this.retry);
    });
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
    if (message.type === "state") {
      this.state = message.state;
      this.pending = false;
      if (this.hint && this.hint.version !== this.state.version) this.hint = null;
      this.draw();
    } else if (message.type === "error") {
      this.pending = false;
      if (message.message === "no such match") {
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
    this.calling = el("div", { class: "calling", role: "group", "aria-label": "Your call" });
    this.hand = el("div", { class: "hand", role: "group", "aria-label": "Your hand" });
    rovingFocus(this.hand, "button.card");
    rovingFocus(this.calling, "button.call");
    this.scores = el("section", { class: "scores panel", "aria-label": "Scores" });
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
    this.download = el("a", { href: `/api/matches/${this.matchId}/record`, download: "", text: "Download record" });
    this.dialog = el("dialog", { class: "result", "aria-labelledby": "result-title" });
    this.title = el("h1", { class: "table-title" });
    const controls = el("div", { class: "controls" },
      this.hintButton, this.lastButton,
      el("label", {}, "Speed ", this.speed),
      el("label", { class: "check" }, this.auto, " Auto-play forced cards"),
      this.stopButton, this.download);
    const board = el("div", { class: "board" }, ...this.seats, this.center);
    this.view.append(
      el("div", { class: "play-page" },
        el("div", { class: "play-main" }, this.title, board, this.status, this.calling, this.hand, controls),
        this.scores),
      this.dialog);
  }

  position(seat) {
    // Seats in play order drawn round the table from the person at the bottom: anticlockwise
    // puts the next player on the right, clockwise on the left.
    const offset = (seat - this.state.seat + 4) % 4;
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
    this.stopButton.hidden = !s.can_stop;
    this.drawSeats();
    this.drawCenter();
    this.drawCalling();
    this.drawHand();
    this.drawScores();
    this.drawStatus();
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
      const who = el("div", { class: "who" },
        el("strong", { text: s.names[seat] }),
        mine ? " (you)" : s.levels[seat] ? el("span", { class: "level", text: ` ${s.levels[seat]}` }) : null,
        seat === s.dealer ? el("span", { class: "dealer", title: "Dealer", text: " · dealer" }) : null);
      const line = el("div", { class: "line" },
        `call ${call === null ? "–" : call} · tricks ${s.won[seat]} · total ${s.totals[seat]}`);
      const doing = s.thinking === seat ? el("div", { class: "thinking", text: "thinking…" })
        : s.turn === seat ? el("div", { class: "thinking", text: mine ? "your turn" : "to play" }) : null;
      const backs = mine ? null : el("div", { class: "backs", "aria-hidden": "true" },
        ...Array.from({ length: Math.min(13, 13 - s.tricks_played - (s.trick.cards.length > ((seat - s.trick.leader + 4) % 4) ? 1 : 0)) }, backElement));
      box.replaceChildren(...[who, line, doing, backs].filter(Boolean));
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
    const myTurnToPlay = s.turn === s.seat && s.phase === "playing" && !s.match_over;
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
      ...s.names.map((name) => el("th", { scope: "col", text: name })));
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
    if (s.match_over) {
      text = `Match over. You finish ${placeText(s.places, s.seat)} with ${s.totals[s.seat]}.`;
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
      ? el("p", {}, el("a", { href: "#/", text: "Play again" }), " · ", el("a", { href: `#/replay/${this.matchId}`, text: "Replay this match" }))
      : null;
    this.dialog.replaceChildren(el("h2", { id: "result-title", text: title }),
      el("table", {}, el("thead", {}, head), el("tbody", {}, ...rows)), extra, close);
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
    if (!s || this.pending) return;
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
    if (!s || s.turn !== s.seat || s.match_over) return this.note("Hints are for your own turn.");
    this.note("Working out a hint…", "hint");
    this.send({ type: "hint" });
  }
}

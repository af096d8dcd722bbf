// The table over a WebSocket: a person's match against three computer players, and (through
// room.js) a room's table for a seat or a spectator. The server sends the connection's own
// view after every action; this page draws it and sends the person's calls and cards. It never
// sends an illegal card: the server lists the legal ones and the duty that forbids every other
// card in the hand. A spectator's view has no hand at all.
//
// States are shown one after the other: a card travels from its seat (or from the hand) to the
// trick, a finished trick stays up for a moment (a setting) and goes to its winner, a new deal
// is dealt. Whatever the person may tap stays where it is while a trick is played: the board,
// the status line and the hand keep their size, and a card played from the hand leaves its
// place empty until the trick is taken. prefers-reduced-motion turns the travel off.

import {
  backElement, cardElement, cardName, cardText, downloadLink, dutyText, el, heldToken, levelLabel, notHeld,
  placeText, rovingFocus, rulesName, rulesSummary, score, serverText,
} from "./common.js";
import { num, seatNames, t } from "./i18n.js";
import * as sound from "./sound.js";

const MOVE_MS = 300;
const QUICK_MS = 110;
/** How long a finished trick stays up, by the person's setting (milliseconds). */
export const PAUSES = { off: 0, short: 600, normal: 1200, long: 2400 };
const PAUSE_KEY = "callbreak:pause";

export function render(view, [matchId]) {
  // The match opens only with the token this browser was given when it started it.
  const token = heldToken("match", matchId);
  if (!token) {
    view.append(notHeld("match"));
    return null;
  }
  const page = new TablePage(view, {
    socketPath: `/ws/matches/${matchId}`,
    hello: () => ({ type: "hello", token }),
    recordHref: `/api/matches/${matchId}/record`,
    recordToken: token,
    replayHash: `#/replay/${matchId}`,
    seenKey: `callbreak:seen:${matchId}`,
    missing: "no such match",
  });
  return () => page.close();
}

export function motion() {
  return !window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

export function pauseSetting() {
  try {
    const value = localStorage.getItem(PAUSE_KEY);
    return value in PAUSES ? value : "normal";
  } catch {
    return "normal";
  }
}

const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Where a seat sits, from the person's side: 0 bottom, 1 right, 2 top, 3 left. */
function positionOf(state, seat) {
  // Anticlockwise puts the next player on the right, clockwise on the left. A spectator sees
  // the table from seat 0's side.
  const offset = (seat - (state.seat ?? 0) + 4) % 4;
  return state.rules.clockwise ? [0, 3, 2, 1][offset] : offset;
}

/**
 * The table drawn in `view`. Options:
 * - socketPath, recordHref (and recordToken, the token that downloads it), replayHash,
 *   againHash (a new game), seenKey (where the number of deal summaries the person has closed
 *   is kept);
 * - missing: the server's error for an unknown table (the page then says so);
 * - hello(): the first message of every connection (the match's or the room seat's token);
 * - onMessage(message): sees every message first and returns true for those it handles;
 * - room: a room's table (settings are the creator's; the title names the room);
 * - turnSeconds(): the room's turn clock, to keep a clock shown within it.
 */
export class TablePage {
  constructor(view, options) {
    this.view = view;
    this.options = options;
    this.latest = null; // the newest state from the server: what actions are made on
    this.state = null; // the state drawn now (it catches up with latest, card by card)
    this.queue = [];
    this.busy = false;
    this.pending = false;
    this.noteState = null;
    this.hint = null;
    this.closed = false;
    this.retry = 0;
    this.seenKey = options.seenKey;
    this.handCards = new Map(); // card code -> its button, kept from draw to draw
    this.layout = null; // {key, codes}: the hand's places, kept while a trick is played
    this.build();
    this.connect();
    this.ticker = setInterval(() => this.tick(), 250);
    this.resize = new ResizeObserver(() => this.placeHand(false));
    this.resize.observe(this.hand);
  }

  close() {
    this.closed = true;
    if (this.socket) this.socket.close();
    clearTimeout(this.noteTimer);
    clearTimeout(this.peekTimer);
    clearInterval(this.ticker);
    this.resize.disconnect();
  }

  // --- connection --------------------------------------------------------------------------

  connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${location.host}${this.options.socketPath}`);
    this.socket = socket;
    this.greeted = false;
    socket.addEventListener("open", () => {
      this.retry = 0;
      if (this.noteState && this.noteState.kind === "offline") this.clearNote();
      if (this.options.hello) socket.send(JSON.stringify(this.options.hello()));
    });
    socket.addEventListener("message", (event) => {
      if (socket === this.socket) this.receive(JSON.parse(event.data));
    });
    socket.addEventListener("close", (event) => {
      if (socket !== this.socket || this.closed || this.missing) return;
      // 4429: over the server's limits (its error said so): trying again at once would only
      // be refused again.
      const limited = event.code === 4429;
      if (!limited) this.note(t("table.connectionLost"), "offline");
      this.retry = Math.min(this.retry + 1, 5);
      setTimeout(() => { if (!this.closed && socket === this.socket) this.connect(); }, limited ? 15_000 : 300 * this.retry);
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
    this.note(t("table.notConnected"), "error");
    return false;
  }

  receive(message) {
    if (this.options.onMessage && this.options.onMessage(message)) return;
    if (message.type === "state") {
      message.state.names = seatNames(message.state.names, message.state.name_keys); // in the page's language
      this.latest = message.state;
      this.pending = false;
      if (this.hint && this.hint.version !== this.latest.version) this.hint = null;
      if (!this.greeted) {
        // This page shows deal summaries: the computers wait (a while) for the person to
        // close each one before the next deal's calls.
        this.greeted = true;
        this.send({ type: "seen", deals: Math.min(this.seen(), message.state.results.length) });
      }
      this.queue.push(message.state);
      this.pump();
    } else if (message.type === "error") {
      this.pending = false;
      this.unchoose();
      if (this.state) {
        // What was refused may be chosen again.
        this.drawCalling();
        this.drawHand();
      }
      if (message.message === this.options.missing) {
        this.missing = true;
        this.drawMissing();
        return;
      }
      this.note(message.stale ? t("server.stale") : serverText(message.message), "error");
    } else if (message.type === "notice") {
      this.note(this.noticeText(message), "info");
    } else if (message.type === "hint") {
      // A hint worked out for an earlier decision is no use any more.
      if (!this.latest || message.version !== this.latest.version) return;
      this.hint = message;
      this.note(this.hintText(message), "hint");
      if (this.state && this.state.version === message.version) {
        this.drawCalling();
        this.drawHand();
      }
    }
  }

  noticeText(message) {
    const names = (this.latest || {}).names || [];
    const what = (kind, action) => kind === "play" ? t("notice.theCard", { card: cardText(action) })
      : action === "redeal" ? t("notice.aRedeal") : t("notice.aCall", { call: Number(action) });
    if (message.cover) {
      const c = message.cover;
      const key = c.reason === "timeout" ? "notice.coverTimeout" : "notice.coverAway";
      return t(key, { name: names[c.seat] || "", what: what(c.kind, c.action) });
    }
    if (message.fault) {
      const f = message.fault;
      return t("notice.botFault", { name: names[f.seat] || "", what: what(f.action, f.substitute) });
    }
    return t("notice.other", { detail: message.message });
  }

  hintText(message) {
    const best = message.options[0];
    if (!best) return t("hint.none");
    if (message.kind === "call") {
      return t("hint.call", { call: best.action, tricks: best.tricks === null ? null : num(best.tricks.toFixed(1)) });
    }
    return t("hint.play", { card: cardText(best.action) });
  }

  // --- layout ------------------------------------------------------------------------------

  build() {
    this.seats = [0, 1, 2, 3].map((position) => el("section", { class: `seat pos-${position}` }));
    this.trick = el("div", { class: "trick", role: "group" });
    this.status = el("p", { class: "status", role: "status", "aria-live": "polite" });
    this.noteBox = el("p", { class: "note", role: "alert", hidden: true });
    // The seconds left tick apart from the status, so a screen reader is not told each second.
    this.clockLine = el("p", { class: "turn-clock", hidden: true });
    this.watching = el("p", { class: "watching", hidden: true });
    this.calling = el("div", { class: "calling", role: "group", hidden: true });
    this.peek = el("div", { class: "peek", hidden: true, role: "group" });
    this.hand = el("div", { class: "hand", role: "group" });
    rovingFocus(this.hand, "button.card:not(.gone)");
    rovingFocus(this.calling, "button.call");
    this.scores = el("section", { class: "scores panel" });
    // The side column: the scores, and whatever the page adds below them (a room's seats).
    this.side = el("div", { class: "play-side" }, this.scores);
    this.hintButton = el("button", { type: "button", class: "hint-button", onclick: () => this.askHint() });
    this.lastButton = el("button", { type: "button", class: "last-trick" });
    this.bindPeek(this.lastButton);
    this.soundButton = el("button", { type: "button", class: "sound", onclick: () => this.toggleSound() });
    this.settingsButton = el("button", { type: "button", class: "settings-button", onclick: () => this.openSettings() });
    this.stopButton = el("button", { type: "button", hidden: true, onclick: () => this.act({ type: "stop" }) });
    this.dialog = el("dialog", { class: "result", "aria-labelledby": "result-title" });
    this.dialog.addEventListener("close", () => this.closedResult());
    this.settingsDialog = el("dialog", { class: "result settings-dialog", "aria-labelledby": "settings-title" });
    this.title = el("h1", { class: "table-title" });
    const controls = el("div", { class: "controls" },
      this.hintButton, this.lastButton, this.soundButton, this.settingsButton, this.stopButton);
    this.board = el("div", { class: "board" }, this.trick, ...this.seats, this.calling, this.peek, this.clockLine);
    this.statusBox = el("div", { class: "status-box" }, this.status, this.noteBox);
    this.pageBox = el("div", { class: "play-page" },
      el("div", { class: "play-main" }, this.title, this.board, this.statusBox, this.hand, this.watching, controls),
      this.side);
    this.view.append(this.pageBox,
      this.dialog, this.settingsDialog);
    this.drawLabels();
  }

  /** The words of the buttons and regions, in the chosen language. */
  drawLabels() {
    this.trick.setAttribute("aria-label", t("table.cardsOnTable"));
    this.calling.setAttribute("aria-label", t("table.yourCall"));
    this.hand.setAttribute("aria-label", t("table.yourHand"));
    this.peek.setAttribute("aria-label", t("table.lastTrick"));
    this.scores.setAttribute("aria-label", t("table.scores"));
    this.watching.textContent = t("table.watching");
    this.hintButton.textContent = t("table.hint");
    this.lastButton.textContent = t("table.lastTrick");
    this.lastButton.title = t("table.lastTrickHow");
    this.settingsButton.textContent = t("table.settings");
    this.stopButton.textContent = t("table.stop");
    this.drawSoundButton();
  }

  drawSoundButton() {
    const on = sound.enabled();
    this.soundButton.textContent = on ? t("table.soundOn") : t("table.soundOff");
    this.soundButton.setAttribute("aria-pressed", String(on));
  }

  toggleSound() {
    sound.setEnabled(!sound.enabled());
    this.drawSoundButton();
    sound.play("turn");
  }

  position(seat) {
    return positionOf(this.state, seat);
  }

  // --- showing states one after the other --------------------------------------------------

  async pump() {
    if (this.busy) return;
    this.busy = true;
    try {
      while (this.queue.length && !this.closed) {
        const next = this.queue.shift();
        try {
          await this.transition(this.state, next);
        } catch (error) {
          console.error(error);
          this.show(next);
        }
      }
    } finally {
      this.busy = false;
    }
  }

  /** Hurry when more is waiting to be shown, or the person acts. */
  hurried() {
    return this.queue.length > 0 || this.rushed;
  }

  async transition(prev, next) {
    const sameTable = prev && prev.match === next.match && prev.seat === next.seat;
    if (!sameTable || next.version <= prev.version || next.version > prev.version + 1) {
      const fresh = !sameTable || next.version !== prev.version;
      this.show(next);
      if (fresh && isFreshDeal(next)) await this.dealOut();
      return;
    }
    const sameDeal = next.deal_number === prev.deal_number && next.tricks_played >= prev.tricks_played;
    const before = prev.trick.cards;
    // A card added to the trick being played.
    if (sameDeal && next.tricks_played === prev.tricks_played && next.trick.leader === prev.trick.leader &&
        next.trick.cards.length === before.length + 1) {
      await this.layCards(next.trick, before.length, next);
      this.show(next);
      return;
    }
    // A trick completed: by the same deal's next trick, or by the next deal after the 13th.
    const done = next.last_trick;
    const completed = done && done.cards.length === 4 && done.leader === prev.trick.leader &&
      before.every((card, index) => done.cards[index] === card) && (
      (sameDeal && next.tricks_played === prev.tricks_played + 1) ||
      (!sameDeal && prev.tricks_played === 12 && next.tricks_played === 0));
    if (completed) {
      await this.layCards(done, before.length, prev);
      await this.takeTrick(done, prev);
      this.show(next);
      if (isFreshDeal(next)) await this.dealOut();
      return;
    }
    this.show(next);
    if (isFreshDeal(next) && !sameDeal) await this.dealOut();
  }

  /** Draw `state` at once, everything in its place. */
  show(state) {
    const previous = this.state;
    this.state = state;
    this.draw();
    const myTurn = (s) => s && s.seat !== null && s.turn === s.seat && !s.match_over;
    if (myTurn(state) && !(myTurn(previous) && previous.version === state.version)) sound.play("turn");
  }

  /** Lay the cards of `trick` from index `from` on the table, each travelling from its seat. */
  async layCards(trick, from, state) {
    for (let index = from; index < trick.cards.length; index++) {
      const code = trick.cards[index];
      const seat = (trick.leader + index) % 4;
      const card = this.trickCard(code, seat, state);
      this.trick.append(card);
      if (seat === state.seat) this.markPlayed(code);
      sound.play("card");
      const from = this.originOf(seat, code, state);
      if (motion() && from) {
        await travel(card, from, null, this.hurried() ? QUICK_MS : MOVE_MS);
      }
    }
  }

  /** Where a card of `seat` starts from: its place in the hand, or the seat's badge. */
  originOf(seat, code, state) {
    if (seat === state.seat) {
      const card = this.handCards.get(code);
      if (card && card.isConnected) return card.getBoundingClientRect();
    }
    const badge = this.seats[positionOf(state, seat)];
    const fan = badge.querySelector(".fan") || badge;
    return fan.getBoundingClientRect();
  }

  /** The finished trick stays up a moment, then goes to its winner. */
  async takeTrick(trick, state) {
    const cards = [...this.trick.querySelectorAll(".card")];
    const winner = cards.find((card) => card.dataset.card === trick.cards[(trick.winner - trick.leader + 4) % 4]);
    if (winner) winner.classList.add("winner");
    sound.play(trick.winner === state.seat ? "won" : "trick");
    const pause = PAUSES[pauseSetting()];
    if (pause && !this.hurried()) await this.pauseFor(pause);
    if (motion()) {
      const target = this.seats[positionOf(state, trick.winner)].getBoundingClientRect();
      const ms = this.hurried() ? QUICK_MS : MOVE_MS;
      await Promise.all(cards.map((card) => travel(card, null, target, ms)));
    }
    this.trick.replaceChildren();
  }

  /** Wait `ms`, or less if the person acts meanwhile. */
  async pauseFor(ms) {
    const end = performance.now() + ms;
    while (performance.now() < end && !this.hurried() && !this.closed) await wait(50);
  }

  /** The new deal's cards come to the hand from the middle of the table, one by one. */
  async dealOut() {
    if (!motion() || this.hurried()) return;
    const from = this.trick.getBoundingClientRect();
    const cards = this.state.hand.map((code) => this.handCards.get(code)).filter(Boolean);
    const backs = [...this.board.querySelectorAll(".fan .card")];
    sound.play("card");
    await Promise.all([
      ...cards.map((card, index) => travel(card, from, null, 260, index * 28)),
      ...backs.map((back, index) => travel(back, from, null, 260, (index % 13) * 28)),
    ]);
  }

  // --- drawing -----------------------------------------------------------------------------

  draw() {
    const s = this.state;
    if (!s) return;
    this.drawLabels();
    this.title.textContent = s.match_over
      ? t("table.titleOver", { rules: rulesName(s.rules) })
      : t("table.title", { deal: s.deal_number, deals: s.rules.deals, rules: rulesName(s.rules) });
    // In a room the settings and the end of an open-ended match are the creator's (seat 0).
    const settles = !this.options.room || s.seat === 0;
    this.stopButton.hidden = !(s.can_stop && settles);
    this.hintButton.hidden = s.seat === null;
    this.watching.hidden = s.seat !== null;
    this.hand.hidden = s.seat === null;
    this.lastButton.disabled = !s.last_trick;
    this.pageBox.toggleAttribute("data-over", Boolean(s.match_over));
    this.drawSeats();
    this.drawTrick();
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
      const position = this.position(seat);
      const box = this.seats[position];
      const call = s.calls[seat];
      const mine = seat === s.seat;
      const name = s.names[seat];
      box.className = `seat pos-${position}` + (s.turn === seat && !s.match_over ? " turn" : "") + (mine ? " mine" : "");
      box.setAttribute("aria-label", name);
      box.dataset.seat = String(seat);
      const clocked = s.clock && s.clock.seat === seat && !s.match_over;
      const avatar = el("div", { class: "avatar" + (clocked ? " clocked" : ""), "aria-hidden": "true" },
        el("span", { text: initial(name) }));
      if (clocked) avatar.dataset.deadline = String(s.clock.deadline);
      const tags = [];
      if (mine && !isDefaultName(name)) tags.push(el("span", { class: "you", text: t("table.you") }));
      if (!mine && s.levels[seat]) tags.push(el("span", { class: "level", text: levelLabel(s.levels[seat]) }));
      if (seat === s.dealer) tags.push(el("span", { class: "dealer", title: t("table.dealer"), text: t("table.dealer") }));
      const who = el("div", { class: "who" }, el("strong", { text: name }), ...tags);
      const pill = el("span", {
        class: "pill", title: t("table.pillTitle"),
        text: `${num(s.won[seat])}/${call === null ? "–" : num(call)}`,
      });
      const line = el("div", { class: "line", "aria-label": call === null
        ? t("table.lineNoCall", { won: s.won[seat] }) : t("table.line", { won: s.won[seat], call }) },
        pill, el("span", { class: "total", text: score(s.totals[seat]) }));
      const doing = s.thinking === seat ? el("div", { class: "doing", text: t("table.thinking") })
        : s.turn === seat && !s.match_over ? el("div", { class: "doing", text: mine ? t("table.yourTurn") : t("table.toPlay") })
        : null;
      const clock = clocked
        ? el("div", { class: "clock", "data-deadline": String(s.clock.deadline), title: t("table.clockTitle") })
        : null;
      const left = mine ? 0 : cardsLeft(s, seat);
      const fan = mine ? null : el("div", { class: "fan", "aria-hidden": "true" },
        ...Array.from({ length: left }, (_, index) => {
          const back = backElement();
          back.style.setProperty("--i", String(index - (left - 1) / 2));
          return back;
        }));
      box.replaceChildren(...[avatar, el("div", { class: "badge-text" }, who, line, this.presence(seat), doing, clock), fan]
        .filter(Boolean));
    }
  }

  /** In a room: who a computer is playing for, who is away, an open seat. */
  presence(seat) {
    const s = this.state;
    if (!s.seats || s.match_over) return null;
    const info = s.seats[seat];
    const name = s.names[seat];
    if ((s.covered || []).includes(seat)) {
      return el("div", { class: "covered", text: info.left ? t("table.coveredLeft", { name }) : t("table.coveredAway", { name }) });
    }
    if (info.kind === "open") return el("div", { class: "covered", text: t("table.openSeat") });
    if (info.kind === "person" && !info.connected && seat !== s.seat) return el("div", { class: "away", text: t("table.away") });
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
      return Math.max(0, ms);
    };
    for (const clock of this.view.querySelectorAll(".seat .clock")) {
      const seconds = Math.ceil(left(clock.dataset.deadline) / 1000);
      clock.textContent = t("table.seconds", { seconds });
      clock.classList.toggle("low", seconds <= 5);
    }
    for (const avatar of this.view.querySelectorAll(".seat .avatar.clocked")) {
      const share = cap ? left(avatar.dataset.deadline) / (cap * 1000) : 1;
      avatar.style.setProperty("--left", String(Math.max(0, Math.min(1, share))));
      avatar.classList.toggle("low", share * (cap || 0) <= 5);
    }
    const mine = s && s.clock && s.seat !== null && s.clock.seat === s.seat && !s.match_over;
    this.clockLine.hidden = !mine;
    if (mine) {
      const seconds = Math.ceil(left(s.clock.deadline) / 1000);
      this.clockLine.textContent = t("table.clockLine", { seconds });
      this.clockLine.classList.toggle("low", seconds <= 5);
    }
  }

  /** A card on the table, in the place of the seat that played it. */
  trickCard(code, seat, state) {
    const card = cardElement(code, { label: t("table.playedBy", { card: cardName(code), name: state.names[seat] }) });
    card.classList.add(`slot-${positionOf(state, seat)}`);
    return card;
  }

  drawTrick() {
    const s = this.state;
    const wanted = s.trick.cards.map((code, index) => [code, (s.trick.leader + index) % 4]);
    const kept = new Map([...this.trick.querySelectorAll(".card")].map((card) => [card.dataset.card, card]));
    const cards = wanted.map(([code, seat]) => {
      const card = kept.get(code) || this.trickCard(code, seat, s);
      card.className = card.className.replace(/ ?slot-\d/, "") + ` slot-${this.position(seat)}`;
      card.classList.remove("winner");
      return card;
    });
    this.trick.replaceChildren(...cards);
    if (!this.peek.hidden) this.drawPeek();
  }

  // --- the last trick, as a peek ------------------------------------------------------------

  /** Press and hold to see the last trick; a tap or a key shows it for a few seconds. It is
   * drawn apart from the trick being played, which stays in view. */
  bindPeek(button) {
    let held = null;
    button.addEventListener("pointerdown", (event) => {
      if (button.disabled) return;
      held = performance.now();
      button.setPointerCapture?.(event.pointerId);
      this.showPeek(0);
    });
    const release = () => {
      if (held === null) return;
      const long = performance.now() - held > 350;
      held = null;
      if (long) this.hidePeek();
      else this.showPeek(3000);
    };
    button.addEventListener("pointerup", release);
    button.addEventListener("pointercancel", release);
    button.addEventListener("click", (event) => {
      if (event.detail === 0) this.showPeek(3000); // a key, not a pointer
    });
  }

  showPeek(ms) {
    if (!this.state || !this.state.last_trick) return;
    clearTimeout(this.peekTimer);
    this.drawPeek();
    this.peek.hidden = false;
    this.lastButton.setAttribute("aria-expanded", "true");
    if (ms) this.peekTimer = setTimeout(() => this.hidePeek(), ms);
  }

  hidePeek() {
    clearTimeout(this.peekTimer);
    this.peek.hidden = true;
    this.lastButton.setAttribute("aria-expanded", "false");
  }

  drawPeek() {
    const s = this.state;
    const last = s.last_trick;
    if (!last) {
      this.peek.replaceChildren();
      return;
    }
    const cards = last.cards.map((code, index) => {
      const seat = (last.leader + index) % 4;
      const card = this.trickCard(code, seat, s);
      if (seat === last.winner) card.classList.add("winner");
      return card;
    });
    this.peek.replaceChildren(
      el("p", { class: "caption", text: t("table.lastTrickWon", { name: s.names[last.winner] }) }),
      el("div", { class: "peek-cards" }, ...cards));
  }

  // --- calls and the hand ------------------------------------------------------------------

  drawCalling() {
    const s = this.state;
    if (!s.legal_calls.length || this.latest !== s) {
      this.calling.hidden = true;
      this.calling.replaceChildren();
      return;
    }
    this.calling.hidden = false;
    const suggested = this.hint && this.hint.kind === "call" && this.hint.version === s.version
      ? this.hint.options[0].action : null;
    const buttons = s.legal_calls.map((value, index) => el("button", {
      type: "button", class: "call" + (value === suggested ? " suggested" : ""), text: num(value),
      "aria-label": t("table.callButton", { call: value }), tabindex: index === 0 ? "0" : "-1",
      onclick: () => this.call(value),
    }));
    const hint = el("button", { type: "button", class: "hint-call", text: t("table.hint"), onclick: () => this.askHint() });
    this.calling.replaceChildren(
      el("p", { class: "label", text: t("table.callPrompt", { low: s.rules.calls[0], high: s.rules.calls[1] }) }),
      el("div", { class: "calls" }, ...buttons),
      el("div", { class: "call-extra" }, hint, s.may_claim_redeal ? el("button", {
        type: "button", class: "redeal", text: t("table.redeal"), onclick: () => this.act({ type: "redeal" }),
      }) : null));
  }

  drawHand() {
    const s = this.state;
    const focused = document.activeElement && this.hand.contains(document.activeElement)
      ? document.activeElement.dataset.card : null;
    const legal = new Set(s.legal);
    const myTurnToPlay = s.seat !== null && s.turn === s.seat && s.phase === "playing" && !s.match_over;
    const suggested = this.hint && this.hint.kind === "play" && this.hint.version === s.version
      ? this.hint.options[0].action : null;
    // The hand's places stay as they were while a trick is played: a card played from it
    // leaves its place empty until the trick is taken.
    const key = `${s.deal_number}:${s.tricks_played}`;
    const relayout = !this.layout || this.layout.key !== key || s.hand.some((code) => !this.layout.codes.includes(code));
    const before = relayout ? rectsOf(this.handCards) : null;
    if (relayout) this.layout = { key, codes: [...s.hand] };
    const held = new Set(s.hand);
    const cards = this.layout.codes.map((code) => {
      let card = this.handCards.get(code);
      if (!card) {
        card = cardElement(code, { button: true });
        card.addEventListener("click", () => this.play(code));
        this.handCards.set(code, card);
      }
      const gone = !held.has(code);
      const playable = myTurnToPlay && legal.has(code);
      card.className = card.className.replace(/ (illegal|playable|suggested|gone|chosen)/g, "");
      card.classList.toggle("gone", gone);
      card.classList.toggle("playable", playable && !gone);
      card.classList.toggle("illegal", myTurnToPlay && !playable && !gone);
      card.classList.toggle("suggested", code === suggested);
      card.setAttribute("aria-label", cardName(code) + (myTurnToPlay && !playable ? t("table.notPlayable") : ""));
      if (myTurnToPlay && !playable) card.setAttribute("aria-disabled", "true");
      else card.removeAttribute("aria-disabled");
      card.title = myTurnToPlay && !playable && s.duties ? dutyText(s.duties[code]) : "";
      card.hidden = false;
      return card;
    });
    for (const [code, card] of this.handCards) if (!this.layout.codes.includes(code)) this.handCards.delete(code);
    // One tab stop for the hand: the focused card, else the first playable one.
    const live = cards.filter((card) => !card.classList.contains("gone"));
    let start = live.findIndex((card) => card.dataset.card === focused);
    if (start < 0) start = Math.max(0, live.findIndex((card) => !card.classList.contains("illegal")));
    cards.forEach((card) => card.setAttribute("tabindex", "-1"));
    if (live[start]) live[start].setAttribute("tabindex", "0");
    this.hand.replaceChildren(...cards);
    this.hand.classList.toggle("active", myTurnToPlay);
    this.placeHand(false);
    if (before && motion() && !this.hurried()) {
      for (const card of cards) {
        const old = before.get(card.dataset.card);
        if (old) travel(card, old, null, 220);
      }
    }
    if (focused) {
      const again = this.handCards.get(focused);
      if (again && again.isConnected && !again.classList.contains("gone")) again.focus();
    }
  }

  /** Lay the hand out in one overlapped row, or two on a narrow screen, centred. The hand's
   * box is as tall as a full hand needs, so it never changes size during a deal. */
  placeHand() {
    const cards = [...this.hand.children];
    const width = this.hand.clientWidth;
    if (!width) return;
    const probe = cards[0];
    const cardWidth = probe ? probe.offsetWidth : 0;
    const cardHeight = probe ? probe.offsetHeight : 0;
    if (!cardWidth) return;
    const rowsFor = (count) => {
      if (count <= 1) return 1;
      const step = (width - cardWidth) / (count - 1);
      // Below about half a card showing, the corners get hard to read and to tap: two rows.
      return step >= cardWidth * 0.56 || count < 8 ? 1 : 2;
    };
    const fullRows = rowsFor(13);
    const lift = cardHeight * 0.16;
    const rowGap = cardHeight * 0.82;
    this.hand.style.height = `${Math.round(lift + cardHeight + (fullRows - 1) * rowGap + 4)}px`;
    const rows = Math.min(rowsFor(cards.length), fullRows);
    const perRow = Math.ceil(cards.length / rows);
    cards.forEach((card, index) => {
      const row = Math.floor(index / perRow);
      const inRow = row === rows - 1 ? cards.length - perRow * (rows - 1) : perRow;
      const column = index - row * perRow;
      const step = inRow > 1 ? Math.min(cardWidth * 0.92, (width - cardWidth) / (inRow - 1)) : 0;
      const rowWidth = cardWidth + step * (inRow - 1);
      card.style.left = `${Math.round((width - rowWidth) / 2 + column * step)}px`;
      card.style.top = `${Math.round(lift + row * rowGap)}px`;
    });
  }

  /** The person's own card left the hand: its place stays, empty, until the trick is taken. */
  markPlayed(code) {
    const card = this.handCards.get(code);
    // Nothing in the hand is playable until the next state says so.
    this.hand.classList.remove("active");
    if (card) {
      card.classList.add("gone");
      card.classList.remove("chosen", "playable");
      if (document.activeElement === card) this.hand.focus?.();
    }
  }

  unchoose() {
    for (const card of this.handCards.values()) card.classList.remove("chosen");
  }

  // --- scores ------------------------------------------------------------------------------

  drawScores() {
    const s = this.state;
    this.scores.replaceChildren(el("h2", { text: t("table.scores") }), scoreTable(s),
      el("p", { class: "hint", text: rulesSummary(s.rules.options) }));
    if (s.match_over && s.places) this.scores.append(placesList(s));
  }

  drawStatus() {
    const s = this.state;
    let text;
    const watching = s.seat === null;
    const name = (seat) => s.names[seat];
    if (s.match_over && watching) {
      const first = s.names.filter((_, seat) => s.places[seat] === 1);
      text = t("status.overWatching", { names: first.join(t("and")) });
    } else if (s.match_over) {
      text = t("status.over", { place: placeText(s.places, s.seat), total: score(s.totals[s.seat]) });
    } else if (watching) {
      text = s.turn === null ? t("status.watching")
        : t(s.phase === "calling" ? "status.watchingCall" : "status.watchingPlay", { name: name(s.turn) });
    } else if (s.turn === s.seat && s.legal_calls.length) {
      text = t("status.yourCall", { low: s.rules.calls[0], high: s.rules.calls[1] });
    } else if (s.turn === s.seat) {
      text = t(s.trick.cards.length === 0 ? "status.yourLead" : "status.yourTurn");
      if (s.legal.length === 1) text += " " + t("status.onlyOne", { card: cardText(s.legal[0]) });
    } else if (s.thinking !== null) {
      // On a first start a simpler level plays for a computer whose search still compiles.
      text = t(s.preparing ? "status.preparing" : "status.thinking", { name: name(s.thinking) });
    } else if (s.turn !== null) {
      text = t(s.phase === "calling" ? "status.toCall" : "status.toPlay", { name: name(s.turn) });
    } else {
      text = "";
    }
    this.status.textContent = text;
  }

  /** A word for the person, shown over the status for a few seconds (the connection's loss
   * until it is back). */
  note(text, kind = "info") {
    this.noteState = { text, kind };
    clearTimeout(this.noteTimer);
    if (kind !== "offline") {
      this.noteTimer = setTimeout(() => this.clearNote(), kind === "hint" ? 12000 : 5000);
    }
    this.noteBox.textContent = text;
    this.noteBox.className = `note ${kind}`;
    this.noteBox.hidden = false;
  }

  clearNote() {
    clearTimeout(this.noteTimer);
    this.noteState = null;
    this.noteBox.hidden = true;
    this.noteBox.textContent = "";
  }

  drawMissing() {
    this.view.replaceChildren(el("p", { class: "error" }, t("table.noMatch"), " ",
      el("a", { href: "#/", text: t("startNew") })));
  }

  // --- results between deals ------------------------------------------------------------

  seen() {
    return Number(localStorage.getItem(this.seenKey) || "0");
  }

  maybeShowResult() {
    const s = this.state;
    const count = s.results.length;
    const seen = this.seen();
    if (this.dialog.open || this.showing) return;
    if (s.match_over && seen <= count) {
      this.showResult(count, true);
    } else if (count > seen) {
      this.showResult(count, false);
    }
  }

  showResult(count, final) {
    const s = this.state;
    this.showing = { count, final };
    const result = s.results[count - 1];
    if (result && s.seat !== null) {
      const made = this.madeCall(result, s.seat);
      sound.play(made ? "made" : "broken");
    }
    const title = final ? t("result.over") : t("result.deal", { deal: count });
    const close = el("button", { type: "button", class: "primary", text: final ? t("result.close") : t("result.continue"),
      onclick: () => this.dialog.close() });
    const extra = final
      ? el("p", { class: "links" }, el("a", { href: this.options.againHash || "#/", text: t("result.again") }), " · ",
        el("a", { href: this.options.replayHash, text: t("result.replay") }))
      : null;
    // A null given to replaceChildren would show as the text "null": only what there is.
    this.dialog.replaceChildren(...[
      el("h2", { id: "result-title", text: title }),
      final && s.places ? placesList(s) : null,
      el("div", { class: "table-scroll" }, scoreTable(s, count)),
      extra, close].filter(Boolean));
    if (!this.dialog.open) this.dialog.showModal();
    close.focus();
  }

  madeCall(result, seat) {
    const options = this.state.rules.options || {};
    const call = result.calls[seat];
    const won = result.won[seat];
    return options.exact_scoring ? won === call || won === call + 1 : won >= call;
  }

  /** The summary was closed: say so, and the computers go on with the next deal. */
  closedResult() {
    const showing = this.showing;
    this.showing = null;
    if (!showing) return;
    const seen = showing.final ? showing.count + 1 : showing.count;
    localStorage.setItem(this.seenKey, String(Math.max(this.seen(), seen)));
    this.send({ type: "seen", deals: showing.count });
    if (this.state) this.maybeShowResult();
  }

  // --- settings ----------------------------------------------------------------------------

  openSettings() {
    const s = this.latest;
    const settles = s && (!this.options.room || s.seat === 0);
    const heading = el("h2", { id: "settings-title", text: t("settings.title") });
    const rows = [];
    if (settles) {
      const speed = el("select", { id: "set-speed" },
        ...["slow", "normal", "fast", "instant"].map((value) => el("option", { value, text: t(`speed.${value}`) })));
      speed.value = s.settings.speed;
      speed.addEventListener("change", () => this.send({ type: "settings", speed: speed.value }));
      const auto = el("input", { type: "checkbox", id: "set-auto" });
      auto.checked = s.settings.auto_forced;
      auto.addEventListener("change", () => this.send({ type: "settings", auto_forced: auto.checked }));
      rows.push(el("label", { for: "set-speed", text: t("settings.speed") }), speed,
        el("label", { class: "check" }, auto, t("settings.auto")));
    }
    const pause = el("select", { id: "set-pause" },
      ...Object.keys(PAUSES).map((value) => el("option", { value, text: t(`pause.${value}`) })));
    pause.value = pauseSetting();
    pause.addEventListener("change", () => localStorage.setItem(PAUSE_KEY, pause.value));
    const noise = el("input", { type: "checkbox", id: "set-sound" });
    noise.checked = sound.enabled();
    noise.addEventListener("change", () => { sound.setEnabled(noise.checked); this.drawSoundButton(); });
    rows.push(el("label", { for: "set-pause", text: t("settings.pause") }), pause,
      el("label", { class: "check" }, noise, t("settings.sound")),
      el("p", { class: "hint", text: t("settings.motion") }),
      el("p", {}, downloadLink(this.options.recordHref, this.options.recordToken, t("table.download"))));
    const done = el("button", { type: "button", class: "primary", text: t("result.close"),
      onclick: () => this.settingsDialog.close() });
    this.settingsDialog.replaceChildren(heading, el("div", { class: "form-grid" }, ...rows), done);
    this.settingsDialog.showModal();
  }

  // --- the person's actions --------------------------------------------------------------

  // Every action says which state it was made on: a click on a state the table has left
  // behind (a second tab, a slow network) is refused by the server instead of played.
  act(message) {
    if (this.pending || !this.latest) return false;
    if (this.send({ ...message, version: this.latest.version })) {
      this.pending = true;
      this.rush();
      return true;
    }
    return false;
  }

  /** The person acts: whatever is still being shown is shown quickly. */
  rush() {
    this.rushed = true;
    setTimeout(() => { this.rushed = false; }, 600);
  }

  call(value) {
    // The calls go at once: a second tap cannot send another.
    if (this.act({ type: "call", value })) this.calling.hidden = true;
  }

  play(code) {
    const s = this.latest;
    if (!s || this.pending || s.seat === null) return;
    if (s.match_over) return this.note(t("table.over"));
    if (s.turn !== s.seat) {
      return this.note(s.turn === null ? t("table.nothingNow") : t("table.wait", { name: s.names[s.turn] }));
    }
    if (s.phase !== "playing") return this.note(t("table.callFirst"));
    if (!s.legal.includes(code)) return this.note(dutyText(s.duties && s.duties[code]), "error");
    if (this.act({ type: "play", card: code })) {
      const card = this.handCards.get(code);
      if (card) card.classList.add("chosen");
      this.hand.classList.remove("active");
    }
  }

  askHint() {
    const s = this.latest;
    if (!s || s.seat === null || s.turn !== s.seat || s.match_over) return this.note(t("table.hintOwnTurn"));
    this.note(t("table.hintWorking"), "hint");
    this.send({ type: "hint" });
  }
}

// --- helpers -----------------------------------------------------------------------------------

function isFreshDeal(state) {
  return state.hand.length === 13 && state.tricks_played === 0 && !state.trick.cards.length &&
    state.calls.every((call) => call === null) && !state.match_over;
}

/** Cards still held by `seat` (counted from what is public). */
function cardsLeft(state, seat) {
  const played = state.trick.cards.length > ((seat - state.trick.leader + 4) % 4) ? 1 : 0;
  return Math.max(0, 13 - state.tricks_played - played);
}

function initial(name) {
  return [...String(name || "?").trim()][0] || "?";
}

/** The default name of a person who gave none, in any language ("You"): no "you" tag then. */
function isDefaultName(name) {
  return ["You", "तपाईं", "आप"].includes(name);
}

function rectsOf(cards) {
  const rects = new Map();
  for (const [code, card] of cards) if (card.isConnected) rects.set(code, card.getBoundingClientRect());
  return rects;
}

/** Move `element` from the rectangle `from` to where it is (or from where it is to `to`),
 * with a CSS transform; resolves when done. */
function travel(element, from, to, ms, delay = 0) {
  const here = element.getBoundingClientRect();
  const shift = (rect) => {
    const dx = rect.left + rect.width / 2 - (here.left + here.width / 2);
    const dy = rect.top + rect.height / 2 - (here.top + here.height / 2);
    const scale = Math.max(0.25, Math.min(1.2, rect.width / (here.width || 1)));
    return `translate(${dx}px, ${dy}px) scale(${scale})`;
  };
  const frames = from
    ? [{ transform: shift(from), opacity: 0.85 }, { transform: "translate(0, 0) scale(1)", opacity: 1 }]
    : [{ transform: "translate(0, 0) scale(1)", opacity: 1 }, { transform: shift(to), opacity: 0 }];
  const animation = element.animate(frames, {
    duration: ms, delay, easing: "cubic-bezier(.2,.7,.3,1)", fill: from ? "backwards" : "forwards",
  });
  return animation.finished.catch(() => {});
}

/** The score table: per deal each player's call/tricks and points, and the totals. */
export function scoreTable(state, highlight = null) {
  const s = state;
  const head = el("tr", {}, el("th", { scope: "col", text: t("scores.deal") }),
    ...s.names.map((name) => el("th", { scope: "col", title: name }, el("span", { class: "name", text: name }))));
  const made = (result, seat) => {
    const o = s.rules.options || {};
    const call = result.calls[seat];
    const won = result.won[seat];
    return o.exact_scoring ? won === call || won === call + 1 : won >= call;
  };
  const rows = s.results.map((result) => el("tr", { class: result.number === highlight ? "latest" : null },
    el("th", { scope: "row", text: num(result.number) }),
    ...result.scores.map((points, seat) => el("td", {
      class: made(result, seat) ? "made" : "broken",
      title: t("scores.cellTitle", { call: result.calls[seat], won: result.won[seat] }),
    }, el("span", { class: "points", text: score(points) }),
    el("span", { class: "detail", text: `${num(result.calls[seat])}/${num(result.won[seat])}` })))));
  const total = el("tr", { class: "total" }, el("th", { scope: "row", text: t("scores.total") }),
    ...s.totals.map((value) => el("td", { text: score(value) })));
  return el("table", { class: "score-table" }, el("caption", { text: t("scores.caption") }),
    el("thead", {}, head), el("tbody", {}, ...rows, total));
}

function placesList(state) {
  const order = [0, 1, 2, 3].sort((a, b) => state.places[a] - state.places[b]);
  return el("ol", { class: "places" }, ...order.map((seat) => el("li", { class: state.places[seat] === 1 ? "first" : null },
    el("span", { class: "place", text: placeText(state.places, seat) }),
    el("span", { class: "who", text: state.names[seat] }),
    el("span", { class: "total", text: score(state.totals[seat]) }))));
}

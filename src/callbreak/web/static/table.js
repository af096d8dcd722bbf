// The table over a WebSocket: a person's match against three computer players, and (through
// room.js) a room's table for a seat or a spectator. The server sends the connection's own
// view after every action; this page draws it and sends the person's calls and cards. It never
// sends an illegal card: the server lists the legal ones and the duty that forbids every other
// card in the hand. A spectator's view has no hand at all.
//
// The table fills the window: on a phone (portrait from 360 px, landscape down to 640×360) it is
// the whole screen and nothing scrolls while a deal is played. The opponents sit left, top and
// right of the trick, your own badge at the bottom left, your hand along the bottom edge; the
// scores, the rules, the settings and the last trick open over the table and close with a tap
// outside.
//
// States are shown one after the other: a card travels from its seat (or from the hand) to the
// trick, a finished trick stays up for a moment (a setting) and goes to its winner, a new deal
// is dealt. What the table says of the turn (whose it is, the clock, "thinking") is true as soon
// as the card that moved it on has landed, even while that trick still stays up. Whatever the
// person may tap stays where it is for the whole deal: the board, the status line and the hand
// keep their size, and a card played from the hand leaves its place empty. On a touch screen a
// tap lifts a card and a second tap (or a drag upwards) plays it, so that a finger that lands
// on the wrong card plays nothing. prefers-reduced-motion turns the travel off.

import {
  backElement, cardElement, cardName, cardText, downloadLink, dutyText, el, heldToken, levelLabel, notHeld,
  placeText, rovingFocus, rulesName, rulesSummary, score, serverText,
} from "./common.js";
import { num, seatNames, t, tn } from "./i18n.js";
import * as sound from "./sound.js";

const MOVE_MS = 300;
const QUICK_MS = 110;
/** How long a finished trick stays up, by the person's setting (milliseconds). */
export const PAUSES = { off: 0, short: 600, normal: 1200, long: 2400 };
const PAUSE_KEY = "callbreak:pause";
/** "on": a tap plays a card at once on a touch screen too (else a tap lifts it first). */
const ONE_TAP_KEY = "callbreak:onetap";
/** Where this tab keeps the hand's places of the deal it shows (sessionStorage). */
const LAYOUT_KEY = "callbreak:layout";
/** How far up (px) a card is dragged to play it. */
const DRAG_PX = 28;
/** What each card of the hand shows of itself at least, each way (px): a fingertip. */
const TOUCH_PX = 44;

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
    missing: "no_such_match",
  });
  page.fullScreen(true);
  return () => page.close();
}

export function motion() {
  return !window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

/** What this browser keeps under `key`, or null (a browser that keeps nothing: null too). */
function readStored(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

/** Keep `value` under `key`; where the browser keeps nothing, it holds until the page is left. */
function keepStored(key, value) {
  try {
    localStorage.setItem(key, value);
  } catch {
    // not remembered
  }
}

export function pauseSetting() {
  const value = readStored(PAUSE_KEY);
  return value in PAUSES ? value : "normal";
}

/** Whether this device's main pointer is a finger: a tap then lifts a card before it plays. */
export function coarse() {
  return window.matchMedia("(pointer: coarse)").matches;
}

export function oneTap() {
  return readStored(ONE_TAP_KEY) === "on";
}

function setOneTap(on) {
  keepStored(ONE_TAP_KEY, on ? "on" : "off");
}

const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Where a seat sits, from the person's side: 0 bottom, 1 right, 2 top, 3 left. */
export function positionOf(state, seat) {
  // Anticlockwise puts the next player on the right, clockwise on the left. A spectator sees
  // the table from seat 0's side.
  const offset = (seat - (state.seat ?? 0) + 4) % 4;
  return state.rules.clockwise ? [0, 3, 2, 1][offset] : offset;
}

// The toolbar's icons: drawn here (no font has them all), stroked in the button's colour.
const ICONS = {
  hint: '<path d="M9 18h6M10 21h4"/><path d="M12 3a6 6 0 0 0-3.6 10.8c.7.6 1.1 1.3 1.1 2.2h5c0-.9.4-1.6 1.1-2.2A6 6 0 0 0 12 3z"/>',
  last: '<path d="M3.5 12a8.5 8.5 0 1 0 2.6-6.1"/><path d="M3 3.5V8h4.5"/><path d="M12 8v4.5l3 2"/>',
  scores: '<rect x="3.5" y="4.5" width="17" height="15" rx="2"/><path d="M3.5 9.5h17M3.5 14.5h17M9.5 4.5v15"/>',
  settings: '<path d="M4 7h9M17 7h3M4 12h3M11 12h9M4 17h11M19 17h1"/><circle cx="15" cy="7" r="2"/><circle cx="9" cy="12" r="2"/><circle cx="17" cy="17" r="2"/>',
  stop: '<path d="M6 21V4h11l-2.5 4.5L17 13H6"/>',
  download: '<path d="M12 4v11M7.5 10.5 12 15l4.5-4.5"/><path d="M5 19.5h14"/>',
  back: '<path d="M15 5l-7 7 7 7"/>',
  on: '<path d="M9 5l7 7-7 7"/>',
  backTrick: '<path d="M12 5l-7 7 7 7M19 5l-7 7 7 7"/>',
  onTrick: '<path d="M12 5l7 7-7 7M5 5l7 7-7 7"/>',
};

/** A one-finger drag is the page's (no scroll, no fling that would swallow the next tap); two
 * fingers still pinch to zoom. */
export function oneFinger(event) {
  if (event.touches.length === 1) event.preventDefault();
}

/** One of the toolbar's icons, as markup. */
export function iconSvg(icon) {
  return '<svg viewBox="0 0 24 24" aria-hidden="true" focusable="false" fill="none" stroke="currentColor"' +
    ` stroke-width="2" stroke-linecap="round" stroke-linejoin="round">${ICONS[icon]}</svg>`;
}

/** A toolbar button: its icon, and its words (shown beside it on a wide screen, else read out). */
function tool(icon, className, onclick) {
  const button = el("button", { type: "button", class: `tool ${className}`, onclick });
  button.innerHTML = `${iconSvg(icon)}<span class="label"></span>`;
  return button;
}

function labelTool(button, text, title = text) {
  button.querySelector(".label").textContent = text;
  button.title = title;
}

/** A sheet over the table (a modal dialog) that a tap outside it closes. */
function sheet(className, labelledBy) {
  const dialog = el("dialog", { class: `sheet ${className}`, "aria-labelledby": labelledBy },
    el("div", { class: "sheet-body" }));
  // The backdrop's clicks land on the dialog itself, never on what it holds (the sheet's body
  // fills it): a click there is a tap outside.
  dialog.addEventListener("click", (event) => {
    if (event.target === dialog) dialog.close();
  });
  return dialog;
}

/**
 * The table drawn in `view`. Options:
 * - socketPath, recordHref (and recordToken, the token that downloads it), replayHash,
 *   againHash (a new game), seenKey (where the number of deal summaries the person has closed
 *   is kept);
 * - missing: the code of the server's refusal of an unknown table (the page then says so);
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
    this.live = null; // the state whose turn, clock and "thinking" are shown: its cards have landed
    this.queue = [];
    this.busy = false;
    this.pending = false;
    this.noteState = null;
    this.hint = null;
    this.lifted = null; // {code, version}: the card a first tap lifted, played by a second
    this.closed = false;
    this.retry = 0;
    this.seenKey = options.seenKey;
    this.handCards = new Map(); // card code -> its button, kept from draw to draw
    this.layout = null; // {key, codes}: the hand's places, kept for the whole deal
    this.build();
    this.connect();
    this.ticker = setInterval(() => this.tick(), 250);
    this.resize = new ResizeObserver(() => this.placeHand());
    this.resize.observe(this.hand);
    this.onResize = () => this.placeHand();
    window.addEventListener("resize", this.onResize);
    // A tap anywhere else puts a lifted card back and closes the last trick.
    this.onPointer = (event) => this.pointedAt(event.target);
    document.addEventListener("pointerdown", this.onPointer, true);
  }

  close() {
    this.closed = true;
    if (this.socket) this.socket.close();
    clearTimeout(this.noteTimer);
    clearTimeout(this.peekTimer);
    clearInterval(this.ticker);
    this.resize.disconnect();
    window.removeEventListener("resize", this.onResize);
    document.removeEventListener("pointerdown", this.onPointer, true);
    this.fullScreen(false);
  }

  /** The table is the page: it fills the window (on a phone the site's header makes way). */
  fullScreen(on) {
    document.body.classList.toggle("at-table", on);
  }

  pointedAt(target) {
    const inside = (element) => element && element.contains(target);
    if (!this.peek.hidden && !inside(this.peek) && !inside(this.lastButton)) this.hidePeek();
    if (this.lifted && !(target instanceof Element && target.closest(".hand .card"))) this.drop();
    // A hint's words close at a tap elsewhere too (the outline on its card or call stays).
    const note = this.noteState;
    if (note && note.kind === "hint" && !inside(this.hintButton) && !inside(this.calling)) this.clearNote();
  }

  // --- connection --------------------------------------------------------------------------

  connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${location.host}${this.options.socketPath}`);
    this.socket = socket;
    this.greeted = false;
    // The server pings every few seconds ({"type": "ping", "every": S}); a page cannot see the
    // protocol's own pings, and a frozen server closes nothing: silence for 2.5 intervals
    // means it is gone, so the page lets the socket go and connects again.
    let heard = Date.now();
    let every = 5;
    let gone = false;
    const lost = (code) => {
      if (gone) return;
      gone = true;
      clearInterval(watch);
      if (socket !== this.socket || this.closed || this.missing) return;
      // 4429: over the server's limits (its error said so): trying again at once would only
      // be refused again. 1012: the server is restarting; another takes over (behind a load
      // balancer): back at once, and nothing to tell the person unless that fails too.
      const limited = code === 4429;
      const restarting = code === 1012;
      if (!limited && !restarting) this.note(t("table.connectionLost"), "offline");
      this.retry = restarting ? 0 : Math.min(this.retry + 1, 5);
      const wait = limited ? 15_000 : restarting ? 100 + Math.random() * 400 : 300 * this.retry;
      setTimeout(() => { if (!this.closed && socket === this.socket) this.connect(); }, wait);
    };
    const watch = setInterval(() => {
      if (Date.now() - heard < 2.5 * every * 1000) return;
      lost(4000); // not waiting for a closing handshake a frozen server would never answer
      socket.close();
    }, 1000);
    socket.addEventListener("open", () => {
      this.retry = 0;
      heard = Date.now();
      if (this.noteState && this.noteState.kind === "offline") this.clearNote();
      if (this.options.hello) socket.send(JSON.stringify(this.options.hello()));
    });
    socket.addEventListener("message", (event) => {
      heard = Date.now();
      const message = JSON.parse(event.data);
      if (message.type === "ping") {
        every = message.every || every;
        return;
      }
      if (socket === this.socket) this.receive(message);
    });
    socket.addEventListener("close", (event) => lost(event.code));
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
      // A hint (or the word that one is being worked out) is for one decision: once that is
      // made, it goes.
      const note = this.noteState;
      if (note && note.kind === "hint" && note.version !== this.latest.version) this.clearNote();
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
      if (this.state && this.state === this.latest && !this.busy) {
        // What was refused may be chosen again. (While newer states are still being shown,
        // the next one drawn does it: drawn now, an older state would put back in the hand a
        // card that is on its way to the trick.)
        this.drawCalling();
        this.drawHand();
      }
      if (message.code === this.options.missing) {
        this.missing = true;
        this.drawMissing();
        return;
      }
      this.note(serverText(message, (seat) => ((this.latest || {}).names || [])[seat]), "error");
    } else if (message.type === "notice") {
      this.note(this.noticeText(message), "info");
    } else if (message.type === "hint") {
      // A hint worked out for an earlier decision is no use any more.
      if (!this.latest || message.version !== this.latest.version) return;
      this.hint = message;
      this.note(this.hintText(message), "hint", message.version);
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
    // Once the match is over: the places and what next, where the hand was.
    this.after = el("div", { class: "after", hidden: true });
    this.calling = el("div", { class: "calling", role: "group", hidden: true });
    this.peek = el("div", { class: "peek", hidden: true, role: "group" });
    this.hand = el("div", { class: "hand", role: "group" });
    rovingFocus(this.hand, "button.card:not(.gone)");
    // A drag on the hand is the person's (a card played upwards): the browser makes no scroll
    // or fling of it, which would swallow the tap that follows.
    this.hand.addEventListener("touchmove", oneFinger, { passive: false });
    rovingFocus(this.calling, "button.call");
    this.scores = el("section", { class: "scores panel" });
    // The side column: the scores and the rules, and whatever the page adds (a room's seats).
    // Beside the table on a wide screen, else a sheet over it.
    this.side = el("div", { class: "play-side" }, this.scores);
    this.homeLink = el("a", { class: "home-link", href: "#/", text: "♠" });
    this.hintButton = tool("hint", "hint-button", () => this.askHint());
    this.lastButton = tool("last", "last-trick");
    this.bindPeek(this.lastButton);
    this.scoresButton = tool("scores", "scores-button", () => this.openScores());
    this.settingsButton = tool("settings", "settings-button", () => this.openSettings());
    this.stopButton = tool("stop", "stop-button", () => this.act({ type: "stop" }));
    this.stopButton.hidden = true;
    this.dialog = el("dialog", { class: "result", "aria-labelledby": "result-title" });
    this.dialog.addEventListener("close", () => this.closedResult());
    this.settingsDialog = sheet("settings-dialog", "settings-title");
    this.scoresDialog = sheet("scores-dialog", "scores-title");
    // The side column goes back beside the table when its sheet closes.
    this.scoresDialog.addEventListener("close", () => this.pageBox.append(this.side));
    this.title = el("h1", { class: "table-title" });
    const controls = el("div", { class: "controls" },
      this.hintButton, this.lastButton, this.scoresButton, this.settingsButton, this.stopButton);
    this.bar = el("div", { class: "table-bar" }, this.homeLink, this.title, controls);
    this.board = el("div", { class: "board" }, ...this.seats, this.trick, this.calling, this.peek);
    this.statusBox = el("div", { class: "status-box" }, this.status, this.clockLine, this.noteBox);
    this.pageBox = el("div", { class: "play-page" },
      el("div", { class: "play-main" }, this.bar, this.board, this.statusBox, this.hand, this.after, this.watching),
      this.side);
    this.view.append(this.pageBox, this.dialog, this.settingsDialog, this.scoresDialog);
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
    this.homeLink.setAttribute("aria-label", t("brand"));
    this.homeLink.title = t("brand");
    labelTool(this.hintButton, t("table.hint"));
    labelTool(this.lastButton, t("table.lastTrick"), t("table.lastTrickHow"));
    labelTool(this.scoresButton, t("table.scores"));
    labelTool(this.settingsButton, t("table.settings"));
    labelTool(this.stopButton, t("table.stop"));
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
        this.drawing = next.version;
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

  /** Hurry when more is waiting to be shown, or the person acted on a newer state than the
   * one being shown (what came after their action is shown at its pace: the trick their card
   * finished stays up its moment). */
  hurried() {
    return this.queue.length > 0 || (this.rushedTo !== undefined && this.drawing <= this.rushedTo);
  }

  async transition(prev, next) {
    const sameTable = prev && prev.match === next.match && prev.seat === next.seat;
    if (sameTable && next.thrown_in.length > prev.thrown_in.length) {
      // The deal was thrown in (the calls too low, or a spadeless hand's claim): said, and
      // the new hand dealt out, rather than the calls vanishing with no word.
      this.note(t(`table.thrownIn.${next.thrown_in[next.thrown_in.length - 1]}`), "info");
      this.show(next);
      if (isFreshDeal(next)) await this.dealOut();
      return;
    }
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
      // The last card has landed: whose turn it is now (and their clock) is said at once, while
      // the finished trick still stays up.
      this.drawLive(next);
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
    if (this.closed) return; // the page was left while a card travelled: nothing more is drawn
    const previous = this.state;
    this.state = state;
    this.draw();
    const myTurn = (s) => s && s.seat !== null && s.turn === s.seat && !s.match_over;
    if (myTurn(state) && !(myTurn(previous) && previous.version === state.version)) sound.play("turn");
  }

  /** Lay the cards of `trick` from index `from` on the table, each travelling from its seat. */
  async layCards(trick, from, state) {
    for (let index = from; index < trick.cards.length; index++) {
      if (this.closed) return;
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
    // The fan of backs where it is drawn (not on a phone), else the badge itself.
    const fan = badge.querySelector(".fan");
    return (fan && fan.offsetWidth ? fan : badge).getBoundingClientRect();
  }

  /** The finished trick stays up a moment, then goes to its winner. */
  async takeTrick(trick, state) {
    const cards = [...this.trick.querySelectorAll(".card")];
    const winner = cards.find((card) => card.dataset.card === trick.cards[(trick.winner - trick.leader + 4) % 4]);
    if (winner) winner.classList.add("winner");
    sound.play(trick.winner === state.seat ? "won" : "trick");
    const pause = PAUSES[pauseSetting()];
    if (pause && !this.hurried()) await this.pauseFor(pause);
    if (this.closed) return;
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
    if (!motion() || this.hurried() || this.closed) return;
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
    const over = Boolean(s.match_over);
    this.stopButton.hidden = !(s.can_stop && settles);
    this.hintButton.hidden = s.seat === null || over;
    // The hand's place holds the hand, or a spectator's word, or (after the match) the places
    // and what next: it is never left empty.
    this.hand.hidden = s.seat === null || over;
    this.watching.hidden = s.seat !== null || over;
    this.after.hidden = !over;
    this.lastButton.disabled = !s.last_trick;
    this.pageBox.toggleAttribute("data-over", over);
    this.drawTrick();
    this.drawCalling();
    this.drawHand();
    this.drawScores();
    if (over) this.drawAfter();
    this.drawLive(s);
    this.maybeShowResult();
  }

  /** What the table says of the turn: the badges, the status line and the clock, from `state`
   * (the state shown, or a newer one whose cards have landed while a trick stays up). */
  drawLive(state) {
    this.live = state;
    this.drawSeats(state);
    this.drawStatus(state);
    this.tick();
    // A finished trick still up and the person's lead next: the hand is ready for it (its
    // playable cards raised), as the status line says.
    if (state !== this.state && this.state && state.deal_number === this.state.deal_number) this.drawHand(state);
  }

  drawSeats(s) {
    for (let seat = 0; seat < 4; seat++) {
      const position = positionOf(s, seat);
      const box = this.seats[position];
      const call = s.calls[seat];
      const mine = seat === s.seat;
      const name = s.names[seat];
      const turn = s.turn === seat && !s.match_over;
      const presence = this.presence(s, seat);
      box.className = `seat pos-${position}` + (turn ? " turn" : "") + (mine ? " mine" : "") +
        (presence ? ` ${presence.kind}` : "");
      box.setAttribute("aria-label", name);
      box.dataset.seat = String(seat);
      // Everything a badge says fits its fixed size: one short line each, the rest as marks on
      // the initial (the dealer, a computer playing the seat) and words for a screen reader.
      const clocked = turn && !s.paused && s.clock && s.clock.seat === seat;
      const avatar = avatarOf(name, seat === s.dealer);
      if (clocked) {
        avatar.classList.add("clocked");
        avatar.dataset.deadline = String(s.clock.deadline);
      }
      if (presence && presence.kind !== "away") avatar.append(el("b", { class: "mark stand-in", text: "⚙" }));
      const tags = [];
      if (mine && !isDefaultName(name)) tags.push(el("span", { class: "you", text: t("table.you") }));
      if (!mine && s.levels[seat]) tags.push(el("span", { class: "level", text: levelLabel(s.levels[seat]) }));
      if (seat === s.dealer) tags.push(el("span", { class: "sr-only dealer", text: t("table.dealer") }));
      const who = el("div", { class: "who" }, el("strong", { text: name }), ...tags);
      const line = tricksLine(s.won[seat], call, score(s.totals[seat]));
      let doing = "";
      let kind = "";
      if (turn && s.paused) [doing, kind] = [t("table.pausedShort"), "paused"];
      else if (s.thinking === seat && turn) [doing, kind] = [t("table.thinking"), "thinking"];
      else if (turn && mine) [doing, kind] = [t("table.yourTurn"), "turn"];
      else if (turn) [doing, kind] = [t(s.phase === "calling" ? "table.toCall" : "table.toPlay"), "turn"];
      else if (presence) [doing, kind] = [presence.short, presence.kind];
      const clock = clocked
        ? el("span", { class: "clock", "data-deadline": String(s.clock.deadline), title: t("table.clockTitle") })
        : null;
      const doingLine = el("div", { class: `doing ${kind}` }, el("span", { class: "what", text: doing }), clock);
      const told = presence && presence.long ? el("span", { class: "covered sr-only", text: presence.long }) : null;
      const left = mine ? 0 : cardsLeft(s, seat);
      const fan = mine ? null : el("div", { class: "fan", "aria-hidden": "true" },
        ...Array.from({ length: left }, (_, index) => {
          const back = backElement();
          back.style.setProperty("--i", String(index - (left - 1) / 2));
          return back;
        }));
      box.replaceChildren(...[avatar, el("div", { class: "badge-text" }, who, line, doingLine, told), fan]
        .filter(Boolean));
    }
  }

  /** In a room: a computer playing for someone (left or away), an open seat, someone away;
   * {kind, short, long} or null. */
  presence(s, seat) {
    if (!s.seats || s.match_over) return null;
    const info = s.seats[seat];
    const name = s.names[seat];
    if ((s.covered || []).includes(seat)) {
      return { kind: "stood-in", short: t("table.coveredShort"),
        long: info.left ? t("table.coveredLeft", { name }) : t("table.coveredAway", { name }) };
    }
    if (info.kind === "open") return { kind: "stood-in", short: t("table.openShort"), long: t("table.openSeat") };
    if (info.kind === "person" && !info.connected && seat !== s.seat) return { kind: "away", short: t("table.away") };
    return null;
  }

  /** The turn clock: seconds left for the seat to act, counted here from its deadline. */
  tick() {
    const s = this.live;
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
      avatar.classList.toggle("low", left(avatar.dataset.deadline) <= 5000);
    }
    const mine = s && !s.paused && s.clock && s.seat !== null && s.clock.seat === s.seat && s.turn === s.seat &&
      !s.match_over;
    this.clockLine.hidden = !mine;
    if (mine) {
      const seconds = Math.ceil(left(s.clock.deadline) / 1000);
      // The whole sentence where there is room for it, else the seconds alone.
      this.clockLine.replaceChildren(el("span", { class: "long", text: t("table.clockLine", { seconds }) }),
        el("span", { class: "short", text: t("table.clockShort", { seconds }) }));
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
    // In the order played, each card with its player's name under it.
    const items = last.cards.map((code, index) => {
      const seat = (last.leader + index) % 4;
      const card = cardElement(code, { label: t("table.playedBy", { card: cardName(code), name: s.names[seat] }) });
      if (seat === last.winner) card.classList.add("winner");
      return el("figure", { class: "peek-item" }, card, el("figcaption", { text: s.names[seat] }));
    });
    this.peek.replaceChildren(
      el("p", { class: "caption", text: t("table.lastTrickWon", { name: s.names[last.winner] }) }),
      el("div", { class: "peek-cards" }, ...items));
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
    // Drawn again (a hint came, someone joined): the keyboard keeps its place.
    const focused = this.calling.contains(document.activeElement) ? document.activeElement : null;
    const refocus = focused && (focused.dataset.call || focused.className.split(" ")[0]);
    const suggested = this.hint && this.hint.kind === "call" && this.hint.version === s.version
      ? this.hint.options[0].action : null;
    const buttons = s.legal_calls.map((value, index) => el("button", {
      type: "button", class: "call" + (value === suggested ? " suggested" : ""), text: num(value),
      "aria-label": t("table.callButton", { call: value }), tabindex: index === 0 ? "0" : "-1",
      "data-call": String(value), onclick: () => this.call(value),
    }));
    const hint = el("button", { type: "button", class: "hint-call", text: t("table.hint"), onclick: () => this.askHint() });
    this.calling.replaceChildren(
      el("p", { class: "label", text: t("table.callPrompt", { low: s.rules.calls[0], high: s.rules.calls[1] }) }),
      el("div", { class: "calls" }, ...buttons),
      el("div", { class: "call-extra" }, hint, s.may_claim_redeal ? el("button", {
        type: "button", class: "redeal", text: t("table.redeal"), onclick: () => this.act({ type: "redeal" }),
      }) : null));
    if (refocus) {
      const again = this.calling.querySelector(`[data-call="${refocus}"]`) || this.calling.querySelector(`.${refocus}`);
      if (again) {
        for (const button of buttons) button.setAttribute("tabindex", button === again ? "0" : "-1");
        again.focus();
      }
    }
  }

  drawHand(s = this.state) {
    const focused = document.activeElement && this.hand.contains(document.activeElement)
      ? document.activeElement.dataset.card : null;
    const legal = new Set(s.legal);
    const myTurnToPlay = s.seat !== null && s.turn === s.seat && s.phase === "playing" && !s.match_over;
    const suggested = this.hint && this.hint.kind === "play" && this.hint.version === s.version
      ? this.hint.options[0].action : null;
    // The hand is laid out once a deal: a card played leaves its place empty and no other card
    // moves until the next deal, so that a finger never finds another card where it aimed.
    const key = `${s.match}:${s.seat}:${s.deal_number}`;
    const relayout = !this.layout || this.layout.key !== key || s.hand.some((code) => !this.layout.codes.includes(code));
    const before = relayout ? rectsOf(this.handCards) : null;
    if (relayout) {
      // A page loaded again mid-deal (a reload, a reconnect) lays the hand out as it was.
      const kept = keptLayout(key);
      this.layout = kept && s.hand.every((code) => kept.codes.includes(code)) ? kept : { key, codes: [...s.hand] };
      keepLayout(this.layout);
    }
    // A lifted card stays up only on the decision it was lifted for.
    if (this.lifted && (this.lifted.version !== s.version || !legal.has(this.lifted.code))) this.lifted = null;
    const held = new Set(s.hand);
    const cards = this.layout.codes.map((code) => {
      let card = this.handCards.get(code);
      if (!card) {
        card = cardElement(code, { button: true });
        card.addEventListener("click", (event) => this.tapped(code, event));
        card.addEventListener("pointerdown", (event) => this.pressed(code, event));
        this.handCards.set(code, card);
      }
      const gone = !held.has(code);
      const playable = myTurnToPlay && legal.has(code);
      const lifted = Boolean(this.lifted && this.lifted.code === code && playable);
      card.className = card.className.replace(/ (illegal|playable|suggested|gone|chosen|lifted)/g, "");
      card.classList.toggle("gone", gone);
      card.classList.toggle("playable", playable && !gone);
      card.classList.toggle("lifted", lifted);
      card.classList.toggle("illegal", myTurnToPlay && !playable && !gone);
      card.classList.toggle("suggested", code === suggested);
      card.setAttribute("aria-label", cardName(code) + (myTurnToPlay && !playable ? t("table.notPlayable") : "") +
        (lifted ? t("table.liftedLabel") : ""));
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
    this.placeHand();
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

  placeHand() {
    layHand(this.hand);
  }

  /** The person's own card left the hand: its place stays, empty, for the rest of the deal. */
  markPlayed(code) {
    const card = this.handCards.get(code);
    // Nothing in the hand is playable until the next state says so.
    this.hand.classList.remove("active");
    if (card) {
      const focused = document.activeElement === card;
      card.classList.add("gone");
      card.classList.remove("chosen", "playable", "lifted");
      // The keyboard stays in the hand: on the next card still held (or the one before).
      if (focused) {
        const live = [...this.hand.querySelectorAll("button.card:not(.gone)")];
        const next = live.find((other) => other.compareDocumentPosition(card) & Node.DOCUMENT_POSITION_PRECEDING) ||
          live[live.length - 1];
        if (next) {
          for (const other of live) other.setAttribute("tabindex", other === next ? "0" : "-1");
          next.focus();
        }
      }
    }
  }

  unchoose() {
    for (const card of this.handCards.values()) card.classList.remove("chosen");
  }

  /** A click, a tap or a key on a card of the hand. */
  tapped(code, event) {
    if (this.dragged === code) {
      this.dragged = null; // the drag that ended here played it already
      return;
    }
    // A key (Enter, Space) or a mouse plays at once, as does a tap under the one-tap setting.
    if (event.detail === 0 || !coarse() || oneTap()) return this.play(code);
    if (this.lifted && this.lifted.code === code) return this.play(code);
    // A card that cannot be played now is not lifted: play() says why.
    if (!this.playableNow(code)) return this.play(code);
    this.lift(code);
  }

  /** A press on a card: dragged upwards far enough, it is played (a touch screen's swipe). */
  pressed(code, event) {
    if (event.pointerType === "mouse" || !this.playableNow(code)) return;
    const card = event.currentTarget;
    const start = { x: event.clientX, y: event.clientY };
    const move = (moved) => {
      if (moved.pointerId !== event.pointerId) return;
      const up = start.y - moved.clientY;
      if (up >= DRAG_PX && up > Math.abs(moved.clientX - start.x)) {
        done();
        this.dragged = code;
        setTimeout(() => { if (this.dragged === code) this.dragged = null; }, 600);
        this.play(code);
      }
    };
    const done = () => {
      card.removeEventListener("pointermove", move);
      card.removeEventListener("pointerup", done);
      card.removeEventListener("pointercancel", done);
    };
    card.addEventListener("pointermove", move);
    card.addEventListener("pointerup", done);
    card.addEventListener("pointercancel", done);
  }

  playableNow(code) {
    const s = this.latest;
    return Boolean(s && !this.pending && s.seat !== null && !s.match_over && s.turn === s.seat &&
      s.phase === "playing" && s.legal.includes(code));
  }

  /** The first tap on a touch screen: the card rises, and a second tap plays it. */
  lift(code) {
    this.drop();
    const card = this.handCards.get(code);
    if (!card) return;
    this.lifted = { code, version: this.latest.version };
    card.classList.add("lifted");
    card.setAttribute("aria-label", cardName(code) + t("table.liftedLabel"));
  }

  drop() {
    if (!this.lifted) return;
    const card = this.handCards.get(this.lifted.code);
    this.lifted = null;
    if (card) {
      card.classList.remove("lifted");
      card.setAttribute("aria-label", cardName(card.dataset.card));
    }
  }

  // --- scores ------------------------------------------------------------------------------

  drawScores() {
    const s = this.state;
    this.scores.replaceChildren(el("h2", { id: "scores-title", text: t("table.scores") }),
      ...(s.match_over && s.places ? [placesList(s)] : []),
      el("div", { class: "table-scroll" }, scoreTable(s)),
      el("h3", { text: t("table.rules") }),
      el("p", { class: "hint" }, el("strong", { text: rulesName(s.rules) }), " ", rulesSummary(s.rules.options)));
  }

  /** After the match, in the hand's place: the places, and a new game or the replay. */
  drawAfter() {
    const s = this.state;
    this.after.replaceChildren(...[
      s.places ? placesList(s) : null,
      el("p", { class: "after-links" },
        el("a", { class: "button primary", href: this.options.againHash || "#/", text: t("result.again") }),
        el("a", { class: "button", href: this.options.replayHash, text: t("result.replay") })),
    ].filter(Boolean));
  }

  drawStatus(s) {
    let text;
    const watching = s.seat === null;
    const name = (seat) => s.names[seat];
    if (s.paused && !s.match_over) {
      // Nobody from the room is here, so nobody plays: not a clock run out.
      const names = s.paused.seats.map((seat) => name(seat)).join(t("listSeparator"));
      text = s.paused.reason === "left" ? t("status.pausedLeft")
        : tn("status.pausedAway", s.paused.seats.length, { names });
    } else if (s.match_over && watching) {
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
  note(text, kind = "info", version = null) {
    // A hint's note is for the decision of `version` (the state it was asked on): it goes
    // when that decision is made.
    this.noteState = { text, kind, version };
    clearTimeout(this.noteTimer);
    if (kind !== "offline") {
      this.noteTimer = setTimeout(() => this.clearNote(), kind === "hint" ? 12000 : 5000);
    }
    this.noteBox.textContent = text;
    this.noteBox.title = text;
    this.noteBox.className = `note ${kind}`;
    if (version === null) delete this.noteBox.dataset.version;
    else this.noteBox.dataset.version = String(version);
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
    return Number(readStored(this.seenKey) || "0");
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
      const made = madeCall(s.rules, result, s.seat);
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

  /** The summary was closed: say so, and the computers go on with the next deal. */
  closedResult() {
    const showing = this.showing;
    this.showing = null;
    if (!showing) return;
    const seen = showing.final ? showing.count + 1 : showing.count;
    keepStored(this.seenKey, String(Math.max(this.seen(), seen)));
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
    pause.addEventListener("change", () => keepStored(PAUSE_KEY, pause.value));
    const noise = el("input", { type: "checkbox", id: "set-sound" });
    noise.checked = sound.enabled();
    noise.addEventListener("change", () => sound.setEnabled(noise.checked));
    rows.push(el("label", { for: "set-pause", text: t("settings.pause") }), pause,
      el("label", { class: "check" }, noise, t("settings.sound")));
    if (coarse()) {
      // Only a touch screen lifts a card before playing it.
      const tap = el("input", { type: "checkbox", id: "set-onetap" });
      tap.checked = oneTap();
      tap.addEventListener("change", () => { setOneTap(tap.checked); this.drop(); });
      rows.push(el("label", { class: "check" }, tap, t("settings.oneTap")),
        el("p", { class: "hint", text: t("settings.oneTapHow") }));
    }
    rows.push(el("p", { class: "hint", text: t("settings.motion") }),
      el("p", {}, downloadLink(this.options.recordHref, this.options.recordToken, t("table.download"))));
    const done = el("button", { type: "button", class: "primary", text: t("result.close"),
      onclick: () => this.settingsDialog.close() });
    this.settingsDialog.firstElementChild.replaceChildren(heading, el("div", { class: "form-grid" }, ...rows), done);
    this.settingsDialog.showModal();
  }

  /** The scores, the rules (and a room's seats): beside the table on a wide screen, else a
   * sheet over it. */
  openScores() {
    const done = el("button", { type: "button", class: "primary", text: t("result.close"),
      onclick: () => this.scoresDialog.close() });
    this.scoresDialog.firstElementChild.replaceChildren(this.side, done);
    this.scoresDialog.showModal();
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
    this.rushedTo = this.latest.version;
  }

  call(value) {
    // The calls go at once: a second tap cannot send another.
    if (this.act({ type: "call", value })) {
      const focused = this.calling.contains(document.activeElement);
      this.calling.hidden = true;
      // The keyboard goes on to the hand rather than to nowhere.
      if (focused) this.hand.querySelector('button.card[tabindex="0"]')?.focus();
    }
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
      this.drop();
      const card = this.handCards.get(code);
      if (card) card.classList.add("chosen");
      this.hand.classList.remove("active");
    }
  }

  askHint() {
    const s = this.latest;
    if (!s || s.seat === null || s.turn !== s.seat || s.match_over) return this.note(t("table.hintOwnTurn"));
    this.note(t("table.hintWorking"), "hint", s.version);
    this.send({ type: "hint" });
  }
}

// --- helpers -----------------------------------------------------------------------------------

/** Lay the hand out along the bottom: one overlapped row, or two where a row would show less
 * of each card than `px` and a `share` of its width, centred. At the table every card shows its
 * corner and at least TOUCH_PX × TOUCH_PX of itself (a fingertip); the replay's hand, which
 * nobody taps, asks less (its corner index). The hand's box is as tall as a full hand needs,
 * so it never changes size during a deal. */
export function layHand(hand, { px = TOUCH_PX, share = 0.5 } = {}) {
  const cards = [...hand.children];
  const width = hand.clientWidth;
  if (!width || !cards.length) return;
  const cardWidth = cards[0].offsetWidth;
  const cardHeight = cards[0].offsetHeight;
  if (!cardWidth) return;
  const style = getComputedStyle(hand);
  const rem = parseFloat(getComputedStyle(document.documentElement).fontSize) || 16;
  const length = (name) => (parseFloat(style.getPropertyValue(name)) || 0) * rem;
  const lift = length("--lifted"); // room above the cards for one lifted or hovered
  const raise = length("--raise"); // playable cards rise this much on the person's turn
  const least = Math.max(px, cardWidth * share);
  const perRowMost = Math.max(1, Math.floor((width - cardWidth) / least) + 1);
  const rowsFor = (count) => (count <= perRowMost ? 1 : 2);
  const fullRows = rowsFor(13);
  // The upper row shows `px` of each card even under a lifted card of the lower row.
  const rowGap = Math.max(cardHeight * 0.6, px + Math.max(raise, lift) + 2);
  hand.style.height = `${Math.round(lift + cardHeight + (fullRows - 1) * rowGap + 2)}px`;
  const rows = Math.min(rowsFor(cards.length), fullRows);
  const perRow = Math.ceil(cards.length / rows);
  // A hand of one row in a box of two sits in the lower row, along the bottom edge.
  const firstRow = fullRows - rows;
  cards.forEach((card, index) => {
    const row = Math.floor(index / perRow);
    const inRow = row === rows - 1 ? cards.length - perRow * (rows - 1) : perRow;
    const column = index - row * perRow;
    const step = inRow > 1 ? Math.min(cardWidth * 0.92, (width - cardWidth) / (inRow - 1)) : 0;
    const rowWidth = cardWidth + step * (inRow - 1);
    card.style.left = `${Math.round((width - rowWidth) / 2 + column * step)}px`;
    card.style.top = `${Math.round(lift + (firstRow + row) * rowGap)}px`;
  });
}

/** The hand's places of the deal `key` as this tab last laid them out, or null. */
function keptLayout(key) {
  try {
    const kept = JSON.parse(sessionStorage.getItem(LAYOUT_KEY) || "null");
    return kept && kept.key === key && Array.isArray(kept.codes) ? kept : null;
  } catch {
    return null;
  }
}

function keepLayout(layout) {
  try {
    sessionStorage.setItem(LAYOUT_KEY, JSON.stringify(layout));
  } catch {
    // not kept: a reload lays the cards held then out afresh
  }
}

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

/** A badge's round initial, with the dealer's mark on it (the table and the replay). */
export function avatarOf(name, dealer) {
  const avatar = el("div", { class: "avatar", "aria-hidden": "true" }, el("span", { text: initial(name) }));
  if (dealer) avatar.append(el("b", { class: "mark dealer", text: t("table.dealerMark") }));
  return avatar;
}

/** A badge's line: tricks taken of the call, as a pill, and a total (`totalTitle` says which);
 * in words for a screen reader. */
export function tricksLine(won, call, total, totalTitle = null) {
  const words = call === null ? t("table.lineNoCall", { won }) : t("table.line", { won, call });
  return el("div", { class: "line" }, el("span", { class: "sr-only", text: words }),
    el("span", { class: "pill", title: t("table.pillTitle"), "aria-hidden": "true", text: `${num(won)}/${call === null ? "–" : num(call)}` }),
    el("span", { class: "total", title: totalTitle, text: total }));
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

/** Whether `seat` made its call in a deal's `result`, under `rules` (exact scoring: the call
 * or one more). */
function madeCall(rules, result, seat) {
  const call = result.calls[seat];
  const won = result.won[seat];
  return (rules.options || {}).exact_scoring ? won === call || won === call + 1 : won >= call;
}

/** The score table: per deal each player's call/tricks and points, and the totals. */
export function scoreTable(state, highlight = null) {
  const s = state;
  const head = el("tr", {}, el("th", { scope: "col", text: t("scores.deal") }),
    ...s.names.map((name) => el("th", { scope: "col", title: name }, el("span", { class: "name", text: name }))));
  const made = (result, seat) => madeCall(s.rules, result, seat);
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

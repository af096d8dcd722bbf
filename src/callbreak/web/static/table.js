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
// States are shown one after the other, animated from the event each comes with (what the
// server says happened, not a guess from comparing two states): a card travels from its seat
// (or from the hand) to the trick, a finished trick stays up for a moment (a setting) and goes
// to its winner, a new deal is dealt. What the table says of the turn (whose it is, the clock, "thinking") is true as soon
// as the card that moved it on has landed, even while that trick still stays up. Whatever the
// person may tap stays where it is for the whole deal: the board, the status line and the hand
// keep their size, and a card played from the hand leaves its place empty. On a touch screen a
// tap lifts a card and a second tap (or a drag upwards) plays it, so that a finger that lands
// on the wrong card plays nothing. prefers-reduced-motion turns the travel off.
//
// This module is the table page: it holds the state, hears the socket (socket.js) and draws the
// board from its parts, each its own module: the hand and the calls (hand.js), the badges
// (badges.js), the trick and the states shown one after the other (tricks.js), the status line
// (status.js) and what opens over the table (dialogs.js).

import {
  dutyText, el, heldToken, notHeld, rovingFocus, rulesName, serverText,
} from "./common.js";
import { seatNames, t } from "./i18n.js";
import { labelTool, oneFinger, tool } from "./toolbar.js";
import { TableSocket } from "./socket.js";
import { drawCalling, drawHand, drop, placeHand, unchoose } from "./hand.js";
import { drawSeats, positionOf, tick } from "./badges.js";
import { drawTrick, pump } from "./tricks.js";
import { drawStatus, hintText, noticeText } from "./status.js";
import { reviewTarget } from "./review.js";
import { Reactions } from "./reactions.js";
import {
  bindPeek, closedResult, drawAfter, drawScores, hidePeek, maybeShowResult, openScores, openSettings, seenDeals, sheet,
} from "./dialogs.js";

/**
 * The view of the table a seat is sent (docs/web.md, *The WebSocket*): the person's hand, legal
 * cards and calls, the duties that forbid the others, the seats' names, calls, tricks won, the
 * trick and the last trick, the totals, the results, whose turn it is and who thinks.
 * @typedef {{[field: string]: any, seat: number | null, version: number, match: string,
 *   names: string[], hand: string[], legal: string[], legal_calls: number[], trick: Trick,
 *   last_trick: Trick | null, turn: number | null, match_over: boolean,
 *   rules: {clockwise: boolean, calls: number[], deals: number | null, options: object}}} TableState
 */

/**
 * A trick: its cards in the order played, from the seat that led (and who won it, once done).
 * @typedef {{cards: string[], leader: number, winner?: number}} Trick
 */

/**
 * The table options of a TablePage (see the class).
 * @typedef {object} TableOptions
 * @property {string} socketPath
 * @property {() => object} [hello]
 * @property {string} recordHref
 * @property {string} [recordToken]
 * @property {string} replayHash
 * @property {() => (import("./review.js").ReviewTarget | null)} [review] what the review of the
 *   person's seat is asked of, once the match is over (none: no review offered)
 * @property {string} [againHash]
 * @property {string} seenKey
 * @property {string} missing
 * @property {(message: any) => boolean} [onMessage]
 * @property {boolean} [room]
 * @property {() => boolean} [creatorless] whether the room is a table of strangers (no seat
 *   settles it)
 * @property {() => (string | null)} [watchingText] what a spectator is told instead of the
 *   usual words (a person taking a seat from a later deal)
 * @property {string} [reactions] the table's key (a room's code) where seated people send
 *   reactions (reactions.js); none: no reactions
 * @property {() => (number | null)} [turnSeconds]
 * @property {(action: {type: string, card?: string, value?: number}) => (string | null)} [guard]
 *   a page's own refusal of a legal call or card, in words (the lesson's: "play the 9♣")
 * @property {(page: TablePage) => void} [drawn] told each time the turn is drawn (the lesson
 *   guides by it)
 */

/**
 * The page of match `matchId` (#/play/ID), opened with the token this browser holds for it.
 * @param {HTMLElement} view
 * @param {string[]} params the match's id
 * @returns {(() => void) | null} what closes it
 */
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
    review: () => reviewTarget(false, matchId),
    seenKey: `callbreak:seen:${matchId}`,
    missing: "no_such_match",
  });
  page.fullScreen(true);
  return () => page.close();
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
  /**
   * @param {HTMLElement} view
   * @param {TableOptions} options
   */
  constructor(view, options) {
    this.view = view;
    this.options = options;
    this.latest = null; // the newest state from the server: what actions are made on
    this.state = null; // the state drawn now (it catches up with latest, card by card)
    this.live = null; // the state whose turn, clock and "thinking" are shown: its cards have landed
    /** @type {import("./tricks.js").Arrival[]} the states still to show, with their events */
    this.queue = [];
    this.busy = false;
    this.pending = false;
    this.noteState = null;
    this.hint = null;
    this.lifted = null; // {code, version}: the card a first tap lifted, played by a second
    this.closed = false;
    this.seenKey = options.seenKey;
    this.handCards = new Map(); // card code -> its button, kept from draw to draw
    this.layout = null; // {key, codes}: the hand's places, kept for the whole deal
    this.dragged = null; // the card a drag upwards just played (its click that follows is not a tap)
    this.showing = null; // {count, final}: the deal summary open now
    /** @type {HTMLElement | null} the review's panel, once the match is over (dialogs.js) */
    this.reviewBox = null;
    this.drawing = 0; // the version of the state being shown
    this.rushedTo = undefined; // the version the person last acted on: shown quickly up to it
    this.greeted = false; // whether this connection has said which summaries the page shows
    this.missing = false; // the server has no such table
    this.noteTimer = undefined;
    this.peekTimer = undefined;
    /** @type {Reactions | null} the reactions at a room's table */
    this.reactions = options.reactions ? new Reactions(this, options.reactions) : null;
    this.build();
    this.socket = this.connection();
    this.socket.connect();
    this.ticker = setInterval(() => tick(this), 250);
    this.resize = new ResizeObserver(() => placeHand(this));
    this.resize.observe(this.hand);
    this.onResize = () => placeHand(this);
    window.addEventListener("resize", this.onResize);
    // A tap anywhere else puts a lifted card back and closes the last trick.
    this.onPointer = (event) => this.pointedAt(event.target);
    document.addEventListener("pointerdown", this.onPointer, true);
  }

  close() {
    this.closed = true;
    this.socket.close();
    clearTimeout(this.noteTimer);
    clearTimeout(this.peekTimer);
    clearInterval(this.ticker);
    if (this.reactions) this.reactions.clear();
    this.resize.disconnect();
    window.removeEventListener("resize", this.onResize);
    document.removeEventListener("pointerdown", this.onPointer, true);
    this.fullScreen(false);
  }

  /**
   * The table is the page: it fills the window (on a phone the site's header makes way).
   * @param {boolean} on
   */
  fullScreen(on) {
    document.body.classList.toggle("at-table", on);
  }

  pointedAt(target) {
    const inside = (element) => element && element.contains(target);
    if (!this.peek.hidden && !inside(this.peek) && !inside(this.lastButton)) hidePeek(this);
    const reactions = this.reactions;
    if (reactions && !reactions.panel.hidden && !inside(reactions.panel) && !inside(this.reactButton)) reactions.close();
    if (this.lifted && !(target instanceof Element && target.closest(".hand .card"))) drop(this);
    // A hint's words close at a tap elsewhere too (the outline on its card or call stays).
    const note = this.noteState;
    if (note && note.kind === "hint" && !inside(this.hintButton) && !inside(this.calling)) this.clearNote();
  }

  // --- the connection ----------------------------------------------------------------------

  /** The table's socket (socket.js), its messages heard by `receive`. */
  connection() {
    return new TableSocket(this.options.socketPath, {
      opened: () => {
        this.greeted = false;
        if (this.noteState && this.noteState.kind === "offline") this.clearNote();
      },
      hello: () => (this.options.hello ? this.options.hello() : null),
      heard: (message) => this.receive(message),
      lost: () => !this.closed && !this.missing,
      lostWord: (restarting) =>
        this.note(t(restarting ? "table.restarting" : "table.connectionLost"), "offline"),
    });
  }

  /** Connect again at once, saying hello anew (a room's seat token changed). */
  reconnect() {
    this.pending = false;
    this.socket.reconnect();
  }

  /**
   * Send `message` to the server; false (and the person told) when not connected.
   * @param {object} message
   * @returns {boolean}
   */
  send(message) {
    if (this.socket.send(message)) return true;
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
        this.send({ type: "seen", deals: Math.min(seenDeals(this), message.state.results.length) });
      }
      this.queue.push({ state: message.state, event: message.event || null });
      pump(this);
    } else if (message.type === "error") {
      this.pending = false;
      unchoose(this);
      if (this.state && this.state === this.latest && !this.busy) {
        // What was refused may be chosen again. (While newer states are still being shown,
        // the next one drawn does it: drawn now, an older state would put back in the hand a
        // card that is on its way to the trick.)
        drawCalling(this);
        drawHand(this);
      }
      if (message.code === this.options.missing) {
        this.missing = true;
        this.drawMissing();
        return;
      }
      this.note(serverText(message, (seat) => ((this.latest || {}).names || [])[seat]), "error");
    } else if (message.type === "reaction") {
      if (this.reactions) this.reactions.heard(message);
    } else if (message.type === "notice") {
      this.note(noticeText(this, message), "info");
    } else if (message.type === "hint") {
      // A hint worked out for an earlier decision is no use any more.
      if (!this.latest || message.version !== this.latest.version) return;
      this.hint = message;
      this.note(hintText(message), "hint", message.version);
      if (this.state && this.state.version === message.version) {
        drawCalling(this);
        drawHand(this);
      }
    }
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
    bindPeek(this, this.lastButton);
    this.scoresButton = tool("scores", "scores-button", () => openScores(this));
    this.settingsButton = tool("settings", "settings-button", () => openSettings(this));
    this.stopButton = tool("stop", "stop-button", () => this.act({ type: "stop" }));
    this.stopButton.hidden = true;
    this.reactButton = tool("react", "react-button", () => this.reactions && this.reactions.toggle());
    this.reactButton.hidden = true;
    this.dialog = el("dialog", { class: "result", "aria-labelledby": "result-title" });
    this.dialog.addEventListener("close", () => closedResult(this));
    this.settingsDialog = sheet("settings-dialog", "settings-title");
    this.scoresDialog = sheet("scores-dialog", "scores-title");
    // The side column goes back beside the table when its sheet closes.
    this.scoresDialog.addEventListener("close", () => this.pageBox.append(this.side));
    this.title = el("h1", { class: "table-title" });
    const controls = el("div", { class: "controls" },
      this.reactButton, this.hintButton, this.lastButton, this.scoresButton, this.settingsButton, this.stopButton);
    this.bar = el("div", { class: "table-bar" }, this.homeLink, this.title, controls);
    this.board = el("div", { class: "board" }, ...this.seats, this.trick, this.calling, this.peek,
      ...(this.reactions ? [this.reactions.panel] : []));
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
    this.watching.textContent = (this.options.watchingText && this.options.watchingText()) || t("table.watching");
    this.homeLink.setAttribute("aria-label", t("brand"));
    this.homeLink.title = t("brand");
    labelTool(this.hintButton, t("table.hint"));
    labelTool(this.lastButton, t("table.lastTrick"), t("table.lastTrickHow"));
    labelTool(this.scoresButton, t("table.scores"));
    labelTool(this.settingsButton, t("table.settings"));
    labelTool(this.stopButton, t("table.stop"));
    labelTool(this.reactButton, t("reaction.button"), t("reaction.title"));
  }

  position(seat) {
    return positionOf(this.state, seat);
  }

  /**
   * Whether this page's person settles the table (its settings, the end of an open-ended
   * match): the match's person; in a room, its creator (seat 0), unless the room is a table
   * of strangers, which has none.
   * @param {TableState} s
   * @returns {boolean}
   */
  settles(s) {
    if (!this.options.room) return true;
    return s.seat === 0 && !(this.options.creatorless && this.options.creatorless());
  }

  // --- states shown one after the other (tricks.js) ----------------------------------------

  /** Hurry when more of the game is waiting to be shown (a state of a newer version: the view
   * a computer sends when it starts to think, of the same version, moves nothing on), or the
   * person acted on a newer state than the one being shown. */
  hurried() {
    return this.queue.some((arrival) => arrival.state.version > this.drawing) || this.rushed();
  }

  /** The person acted on a newer state than the one being shown (what came after their
   * action is shown at its pace: the trick their card finished stays up its moment). */
  rushed() {
    return this.rushedTo !== undefined && this.drawing <= this.rushedTo;
  }

  // --- drawing -----------------------------------------------------------------------------

  draw() {
    const s = this.state;
    if (!s) return;
    this.drawLabels();
    // The deal, then the rules, which a phone leaves out (they are under Scores): the deal's
    // number is never cut.
    this.title.replaceChildren(
      el("span", { class: "deal", text: s.match_over ? t("table.titleMatchOver")
        : t("table.titleDeal", { deal: s.deal_number, deals: s.rules.deals }) }),
      el("span", { class: "rules", text: t("table.titleRules", { rules: rulesName(s.rules) }) }));
    const over = Boolean(s.match_over);
    this.stopButton.hidden = !(s.can_stop && this.settles(s));
    this.reactButton.hidden = !this.reactions || s.seat === null || over;
    // No hints in the daily challenge (its server refuses them): everyone plays it alone.
    this.hintButton.hidden = s.seat === null || over || Boolean(s.settings && s.settings.challenge);
    // The hand's place holds the hand, or a spectator's word, or (after the match) the places
    // and what next: it is never left empty.
    this.hand.hidden = s.seat === null || over;
    this.watching.hidden = s.seat !== null || over;
    this.after.hidden = !over;
    this.lastButton.disabled = !s.last_trick;
    this.pageBox.toggleAttribute("data-over", over);
    drawTrick(this);
    drawCalling(this);
    drawHand(this);
    drawScores(this);
    if (over) drawAfter(this);
    this.drawLive(s);
    maybeShowResult(this);
  }

  /** What the table says of the turn: the badges, the status line and the clock, from `state`
   * (the state shown, or a newer one whose cards have landed while a trick stays up). */
  drawLive(state) {
    this.live = state;
    drawSeats(this, state);
    if (this.reactions) this.reactions.place();
    drawStatus(this, state);
    tick(this);
    // A finished trick still up and the person's lead next: the hand is ready for it (its
    // playable cards raised), as the status line says.
    if (state !== this.state && this.state && state.deal_number === this.state.deal_number) drawHand(this, state);
    if (this.options.drawn) this.options.drawn(this);
  }

  // --- notes over the status line --------------------------------------------------------

  /**
   * A word for the person, shown over the status for a few seconds (the connection's loss
   * until it is back).
   * @param {string} text
   * @param {string} [kind] "info", "error", "hint", "lift" (a card lifted) or "offline"
   * @param {number | null} [version] the decision a hint's note is for
   */
  note(text, kind = "info", version = null) {
    // A hint's note is for the decision of `version` (the state it was asked on): it goes
    // when that decision is made.
    this.noteState = { text, kind, version };
    clearTimeout(this.noteTimer);
    if (kind !== "offline" && kind !== "lift") {
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
    const refused = this.options.guard && this.options.guard({ type: "call", value });
    if (refused) return this.note(refused, "error");
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
    const refused = this.options.guard && this.options.guard({ type: "play", card: code });
    if (refused) return this.note(refused, "error");
    if (this.act({ type: "play", card: code })) {
      drop(this);
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

// Replay a stored match or room from its game record, card by card, on the table it was played
// on: the trick in the middle, each seat around it with the cards it still holds (the bottom
// seat's as its hand, laid out as the table lays a hand out, the others' suit by suit), and the
// step buttons along the bottom where a thumb reaches them (on a phone on its side: back on the
// left, forward on the right). A swipe across the board steps a card (a swipe to the left goes
// on, as a page turns); the arrow keys step a card, with Shift (or Page Up and Down) a trick,
// and Home and End go to the deal's start and end. Stepping on past a deal's end goes to the
// next deal, back past its start to the previous one's end.
//
// #/replay/ID for a match against the computer (opened with its token), #/replay/room/CODE for
// a room, seen from the seat this browser held in it (else from seat 1's). The server sends,
// beside the record, what the engine decides of it (who won each trick, each deal's scores,
// the totals): nothing of the rules is worked out again here. ?deal=D&step=S opens it at deal D
// (from 1) with S cards shown: the links of a review's costliest decisions (review.js), whose
// line (the choice against the best, the points lost, the hindsight) shows at each of the
// bottom seat's decisions once that seat's review was made.

import {
  api, cardElement, cardName, cardText, downloadLink, el, heldToken, notHeld, roomEntry, rulesName, score, serverText,
  SUITS,
} from "./common.js";
import { seatNames, suitName, t } from "./i18n.js";
import { avatarOf, positionOf, tricksLine } from "./badges.js";
import { layHand } from "./hand.js";
import { iconSvg, oneFinger } from "./toolbar.js";
import { momentLine, reviewTarget } from "./review.js";

/** What each card of the bottom seat's hand shows of itself at least (px, and a share of its
 * width): its corner index; nobody taps it. */
const INDEX_SHOWN = { px: 28, share: 0.4 };
/** How far (px) a finger moves across the board, more sideways than up or down, to step. */
const SWIPE_PX = 40;
/** The suits of a seat's cards, in the order the table sorts a hand. */
const SUIT_ORDER = ["S", "H", "C", "D"];

/**
 * @param {HTMLElement} view the page's box
 * @param {string[]} params the address's parts
 * @returns {Promise<(() => void) | null | void>} what closes the page, if anything
 */
export async function render(view, params) {
  const room = params.length === 3 && params[0] === "room";
  const id = room ? params[1].toUpperCase() : params[0];
  const query = new URLSearchParams((room ? params[2] : params[1]) || "");
  const base = room ? `/api/rooms/${id}` : `/api/matches/${id}`;
  // A match opens with its token; a room's record is its players' and watchers' alike.
  const token = room ? null : heldToken("match", id);
  if (!room && !token) {
    view.append(notHeld("match"));
    return null;
  }
  let data;
  try {
    data = await api(`${base}/replay`, { token });
  } catch (error) {
    view.append(el("p", { class: "error", text: t(room ? "replay.cannotRoom" : "replay.cannotMatch", { detail: serverText(error) }) }));
    return null;
  }
  const { record, rules } = data;
  const deals = record.deals
    .map((deal, index) => ({
      ...deal, hands: data.hands[index], winners: data.winners[index],
      scores: data.scores[index], totals: data.totals[index], names: dealNames(record, data.name_keys, index + 1),
    }))
    .filter((deal) => !deal.thrown_in);
  if (!deals.length) {
    view.append(el("div", { class: "panel" }, el("h1", { text: t("replay.title") }),
      el("p", { text: t("replay.nothing") })));
    return null;
  }
  // The record's names, the computers' and a person's who gave none in the page's language.
  const names = seatNames(record.players, data.name_keys);
  const entry = room ? roomEntry(id) : null;
  const seat = entry && [0, 1, 2, 3].includes(entry.seat) ? entry.seat : 0;
  const page = new ReplayPage(view, { deals, names, rules, seat, download: downloadLink(`${base}/record`, token, t("table.download")) });
  // The review of the bottom seat, when one was made: its line at each of the seat's decisions.
  // Asked after the page is drawn (a replay never waits on it), and never started from here.
  const target = reviewTarget(room, id);
  const asked = target && entrySeat(room, entry) === seat
    ? api(target.path, { token: target.token }).catch(() => null) : Promise.resolve(null);
  const at = { deal: Number(query.get("deal")), step: Number(query.get("step")) };
  if (Number.isInteger(at.deal) && at.deal >= 1 && at.deal <= deals.length && Number.isInteger(at.step) && at.step >= 0) {
    page.go(at.deal - 1, Math.min(at.step, page.plays(deals[at.deal - 1]).length));
  }
  const answer = await asked;
  if (answer && answer.state === "done") page.reviewed(answer.review);
  return () => page.close();
}

/**
 * Who played each seat in the deal at `position` (from 1), in the page's language: the record's
 * players, and from its deal on the person who took over a seat (record-format.md, takeovers).
 * @param {any} record
 * @param {(string | null)[]} keys the name keys of the record's players
 * @param {number} position
 * @returns {string[]}
 */
function dealNames(record, keys, position) {
  const names = [...record.players];
  const worded = [...keys];
  for (const takeover of record.takeovers || []) {
    if (takeover.deal <= position) {
      names[takeover.seat] = takeover.player;
      worded[takeover.seat] = null; // a person's name, shown as it is
    }
  }
  return seatNames(names, worded);
}

/** The seat a room's entry holds (a match's person is seat 0). */
function entrySeat(room, entry) {
  if (!room) return 0;
  return entry && [0, 1, 2, 3].includes(entry.seat) ? entry.seat : null;
}

class ReplayPage {
  constructor(view, { deals, names, rules, seat, download }) {
    this.view = view;
    this.deals = deals;
    this.names = names;
    // The table's own placing of the seats: the bottom one, the direction of play.
    this.table = { seat, rules };
    this.dealIndex = 0;
    this.step = 0; // cards shown of the current deal
    /** @type {Map<string, any>} the review's decisions by "deal:step" (review.js momentHref) */
    this.marks = new Map();
    this.build(download);
    this.onKey = (event) => this.key(event);
    document.addEventListener("keydown", this.onKey);
    this.onResize = () => layHand(this.hand, INDEX_SHOWN);
    window.addEventListener("resize", this.onResize);
    this.resize = new ResizeObserver(this.onResize);
    this.resize.observe(this.hand);
    document.body.classList.add("at-table");
    this.draw();
  }

  close() {
    document.removeEventListener("keydown", this.onKey);
    window.removeEventListener("resize", this.onResize);
    this.resize.disconnect();
    document.body.classList.remove("at-table");
  }

  build(download) {
    this.seats = [0, 1, 2, 3].map((position) => el("section", { class: `seat pos-${position}` }));
    this.trick = el("div", { class: "trick", role: "group", "aria-label": t("replay.trick") });
    this.board = el("div", { class: "board" }, ...this.seats, this.trick);
    this.bindSwipe(this.board);
    this.status = el("p", { class: "status", role: "status", "aria-live": "polite" });
    this.reviewBox = el("div", { class: "review-at", "aria-live": "polite" });
    this.hand = el("div", { class: "hand", role: "group" });
    this.title = el("h1", { class: "table-title" });
    this.pick = el("select", { class: "deal-pick", "aria-label": t("replay.deal") },
      ...this.deals.map((_, index) => el("option", { value: String(index), text: t("replay.dealOf", { deal: index + 1, deals: this.deals.length }) })));
    this.pick.addEventListener("change", () => this.go(Number(this.pick.value), 0));
    // The record's download, an icon on a phone (its words read out), words too where there is room.
    download.classList.add("tool", "download");
    download.title = download.textContent;
    download.innerHTML = `${iconSvg("download")}<span class="label"></span>`;
    download.querySelector(".label").textContent = download.title;
    const step = (className, icon, key, delta) => {
      const button = el("button", {
        type: "button", class: `step ${className}`, "aria-label": t(key), title: t(key), onclick: () => this.move(delta),
      });
      button.innerHTML = iconSvg(icon);
      return button;
    };
    this.previous = step("previous-trick", "backTrick", "replay.previousTrick", -4);
    this.back = step("back-card", "back", "replay.backCard", -1);
    this.forward = step("forward-card", "on", "replay.forwardCard", 1);
    this.next = step("next-trick", "onTrick", "replay.nextTrick", 4);
    const home = el("a", { class: "home-link", href: "#/", text: "♠", "aria-label": t("brand"), title: t("brand") });
    const bar = el("div", { class: "table-bar" }, home, this.title, el("div", { class: "controls" }, this.pick, download));
    const steps = el("div", { class: "steps", role: "group", "aria-label": t("replay.steps") },
      el("div", { class: "steps-back" }, this.previous, this.back),
      el("div", { class: "steps-on" }, this.forward, this.next));
    this.title.textContent = t("replay.heading", { rules: rulesName(this.table.rules) });
    this.title.title = this.title.textContent;
    this.main = el("div", { class: "play-main replay" }, bar, this.board,
      el("div", { class: "status-box" }, this.status, this.reviewBox), this.hand, steps);
    this.view.append(el("div", { class: "play-page replay-page" }, this.main));
  }

  // --- stepping -------------------------------------------------------------------------------

  /** Every card of a deal in order, with the seat that played it. */
  plays(deal) {
    const result = [];
    let leader = (deal.dealer + 1) % 4;
    deal.tricks.forEach((trick, number) => {
      trick.forEach((card, index) => result.push({ card, seat: (leader + index) % 4 }));
      if (trick.length === 4) leader = deal.winners[number];
    });
    return result;
  }

  /** The review of the bottom seat: its line shown at each of the seat's decisions. */
  reviewed(review) {
    this.marks = new Map(review.decisions.filter((d) => d.at).map((d) => [`${d.at.deal}:${d.at.step}`, d]));
    this.view.querySelector(".replay-page").classList.add("reviewed");
    this.draw();
  }

  go(dealIndex, step) {
    this.dealIndex = dealIndex;
    this.step = step;
    this.draw();
  }

  /** A card (±1) or a trick (±4) on or back; past a deal's end or start, into the next or the
   * previous deal. */
  move(delta) {
    const total = this.plays(this.deals[this.dealIndex]).length;
    if (delta > 0 && this.step === total) {
      if (this.dealIndex + 1 < this.deals.length) this.go(this.dealIndex + 1, 0);
      return;
    }
    if (delta < 0 && this.step === 0) {
      if (this.dealIndex > 0) this.go(this.dealIndex - 1, this.plays(this.deals[this.dealIndex - 1]).length);
      return;
    }
    let step;
    if (Math.abs(delta) === 4) {
      // To the end of the next trick, or back to the end of the one before.
      step = delta > 0 ? Math.min(total, (Math.floor(this.step / 4) + 1) * 4) : Math.max(0, (Math.ceil(this.step / 4) - 1) * 4);
    } else {
      step = Math.max(0, Math.min(total, this.step + delta));
    }
    this.go(this.dealIndex, step);
  }

  key(event) {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.target instanceof Element && event.target.closest("select, input, textarea, dialog")) return;
    const total = this.plays(this.deals[this.dealIndex]).length;
    const moves = {
      ArrowRight: () => this.move(event.shiftKey ? 4 : 1),
      ArrowLeft: () => this.move(event.shiftKey ? -4 : -1),
      PageDown: () => this.move(4),
      PageUp: () => this.move(-4),
      Home: () => this.go(this.dealIndex, 0),
      End: () => this.go(this.dealIndex, total),
    };
    if (!moves[event.key]) return;
    event.preventDefault();
    moves[event.key]();
  }

  /** A finger (or a mouse) drawn across the board steps a card: to the left goes on. */
  bindSwipe(board) {
    let start = null;
    board.addEventListener("pointerdown", (event) => {
      start = { x: event.clientX, y: event.clientY, id: event.pointerId };
    });
    const end = (event) => {
      if (!start || event.pointerId !== start.id) return;
      const dx = event.clientX - start.x;
      const dy = event.clientY - start.y;
      start = null;
      if (Math.abs(dx) >= SWIPE_PX && Math.abs(dx) > 1.5 * Math.abs(dy)) this.move(dx < 0 ? 1 : -1);
    };
    board.addEventListener("pointerup", end);
    board.addEventListener("touchmove", oneFinger, { passive: false });
    board.addEventListener("pointercancel", () => { start = null; });
  }

  // --- drawing --------------------------------------------------------------------------------

  draw() {
    const deal = this.deals[this.dealIndex];
    this.names = deal.names || this.names; // a seat taken over is its person's from their deal
    const all = this.plays(deal);
    const shown = all.slice(0, this.step);
    const played = new Set(shown.map((p) => p.card));
    const won = [0, 0, 0, 0];
    const complete = Math.floor(this.step / 4);
    for (let trick = 0; trick < complete; trick++) won[deal.winners[trick]] += 1;
    // The trick being played, or the one just completed (with its winner).
    const open = shown.slice(complete * 4);
    const current = open.length ? open : this.step ? shown.slice(this.step - 4) : [];
    const trickDone = current.length === 4;
    const trickNumber = Math.floor((this.step - 1) / 4);
    const winner = trickDone ? deal.winners[trickNumber] : null;
    const over = this.step === all.length;
    // Whose card comes next: the leader of the next trick once one is done.
    const turn = over ? null : all[this.step].seat;
    this.pick.value = String(this.dealIndex);
    for (let seat = 0; seat < 4; seat++) {
      const held = deal.hands[seat].filter((code) => !played.has(code));
      this.drawSeat(seat, deal, { won: won[seat], held, turn: turn === seat, over });
    }
    this.trick.replaceChildren(...current.map((p) => {
      const card = cardElement(p.card, { label: t("table.playedBy", { card: cardName(p.card), name: this.names[p.seat] }) });
      card.classList.add(`slot-${positionOf(this.table, p.seat)}`);
      if (p.seat === winner) card.classList.add("winner");
      return card;
    }));
    this.drawHand(deal, played);
    this.drawStatus(deal, { shown, winner, trickNumber, over });
    const decision = this.marks.get(`${this.dealIndex + 1}:${this.step}`);
    this.reviewBox.replaceChildren(...(decision ? [momentLine(decision)] : []));
    const first = this.dealIndex === 0 && this.step === 0;
    const last = this.dealIndex === this.deals.length - 1 && over;
    // A button about to be disabled under the keyboard gives its focus to the other way.
    const focused = /** @type {HTMLButtonElement | null} */ (document.activeElement);
    this.previous.disabled = this.back.disabled = first;
    this.next.disabled = this.forward.disabled = last;
    if (focused && focused.disabled) (first ? this.forward : this.back).focus();
  }

  /** A seat's badge as the table draws it (its initial, the dealer's mark, its name, tricks
   * taken of its call, its total), with the cards it still holds for the three around the
   * trick. */
  drawSeat(seat, deal, { won, held, turn, over }) {
    const position = positionOf(this.table, seat);
    const box = this.seats[position];
    const name = this.names[seat];
    const call = deal.calls[seat];
    box.className = `seat pos-${position}` + (turn ? " turn" : "") + (seat === this.table.seat ? " mine" : "");
    box.dataset.seat = String(seat);
    box.setAttribute("aria-label", name);
    const avatar = avatarOf(name, seat === deal.dealer);
    const who = el("div", { class: "who" }, el("strong", { text: name }),
      seat === deal.dealer ? el("span", { class: "sr-only", text: t("table.dealer") }) : null);
    // The total before the deal; once the deal is over, a line with the points it scored.
    const line = tricksLine(won, call, score(deal.totals[seat]), t("replay.totalBefore"));
    const points = over && deal.scores
      ? el("div", { class: "doing points", title: t("replay.points") },
        el("span", { class: "sr-only", text: `${t("replay.points")}: ` }), signed(deal.scores[seat]))
      : null;
    const parts = [avatar, el("div", { class: "badge-text" }, who, line, points)];
    if (position !== 0) parts.push(heldBySuit(held));
    box.replaceChildren(...parts);
  }

  /** The bottom seat's cards where the table has the hand: each in its place for the whole
   * deal, a played card's place left empty. */
  drawHand(deal, played) {
    const seat = this.table.seat;
    const key = `${this.dealIndex}`;
    if (this.hand.dataset.deal !== key) {
      this.hand.dataset.deal = key;
      this.hand.replaceChildren(...deal.hands[seat].map((code) => cardElement(code)));
    }
    this.hand.setAttribute("aria-label", t("replay.handOf", { name: this.names[seat] }));
    for (const card of this.hand.children) card.classList.toggle("gone", played.has(card.dataset.card));
    layHand(this.hand, INDEX_SHOWN);
  }

  drawStatus(deal, { shown, winner, trickNumber, over }) {
    let text;
    if (!shown.length) {
      text = t("replay.before", { name: this.names[(deal.dealer + 1) % 4] });
    } else if (winner !== null) {
      text = t(over ? "replay.wonLast" : "replay.won", { name: this.names[winner], trick: trickNumber + 1 });
    } else {
      const last = shown[shown.length - 1];
      text = t("replay.played", { name: this.names[last.seat], card: cardName(last.card), trick: trickNumber + 1 });
    }
    this.status.textContent = text;
  }
}

/** "+3.2", "−4.0": a deal's points with their sign. */
function signed(points) {
  return (points.startsWith("-") ? "" : "+") + score(points);
}

/** The cards a seat still holds, a line per suit (a suit it holds none of shows a dash), as
 * card players write a hand down. */
function heldBySuit(held) {
  const lines = SUIT_ORDER.map((suit) => {
    const ranks = held.filter((code) => code[1] === suit).map((code) => cardText(code).slice(0, -1));
    return el("li", { class: `suit suit-${suit}`, "aria-label": `${suitName(suit)}: ${ranks.join(" ") || "—"}` },
      el("i", { "aria-hidden": "true", text: SUITS[suit] }),
      // Each rank a box of its own: a small gap between them, a line broken between ranks.
      el("span", { class: "ranks", "aria-hidden": "true" }, ...(ranks.length ? ranks : ["—"]).map((rank) => el("b", { text: rank }))));
  });
  return el("ul", { class: "held", "aria-label": t("replay.held", { count: held.length }) }, ...lines);
}

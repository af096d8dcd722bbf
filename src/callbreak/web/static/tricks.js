// The cards on the table, and states shown one after the other, animated from what the server
// says happened (each state comes with its event: the action that led to it, by whom): a card
// travels from its seat (or from the hand) to the trick, a finished trick stays up for a moment
// (a setting) and goes to its winner, a new deal is dealt. A state whose event does not follow
// the one shown (a gap in the versions, a reconnection) is shown as it is. Functions of the
// table page (table.js).

import { cardElement, cardName } from "./common.js";
import { t } from "./i18n.js";
import { PAUSES, pauseSetting } from "./prefs.js";
import { motion, travel, wait } from "./motion.js";
import { markPlayed } from "./hand.js";
import { positionOf } from "./badges.js";
import { drawPeek } from "./dialogs.js";
import * as sound from "./sound.js";
import { buzz } from "./device.js";

/** @typedef {import("./table.js").TablePage} TablePage */
/** @typedef {import("./table.js").TableState} TableState */
/** @typedef {import("./table.js").Trick} Trick */

const MOVE_MS = 300;

const QUICK_MS = 110;

function isFreshDeal(state) {
  return state.hand.length === 13 && state.tricks_played === 0 && !state.trick.cards.length &&
    state.calls.every((call) => call === null) && !state.match_over;
}

/**
 * What happened, as the server says it with each state (docs/web.md, *The WebSocket*): the
 * action stored at `version`, the state before, by `seat` (null: the table's stop).
 * @typedef {{version: number, seat: number | null, action: string, card?: string, value?: number}} TableEvent
 */

/**
 * A state the server sent, and the event that led to it (null: none yet, the match's start).
 * @typedef {{state: TableState, event: TableEvent | null}} Arrival
 */

/**
 * Show the states that arrived, one after the other.
 * @param {TablePage} page
 * @returns {Promise<void>}
 */
export async function pump(page) {
  if (page.busy) return;
  page.busy = true;
  try {
    while (page.queue.length && !page.closed) {
      const { state: next, event } = page.queue.shift();
      page.drawing = next.version;
      try {
        await transition(page, page.state, next, event);
      } catch (error) {
        console.error(error);
        show(page, next);
      }
    }
  } finally {
    page.busy = false;
  }
}

/**
 * Show `next`, the state `event` led to, after `prev`: the event is animated when it is the
 * next of what the page shows (it was taken on `prev`'s version); any other state is shown as
 * it is (the first, a reconnection, a gap in the versions: a resync), and a state of the same
 * version (someone came or went, a computer thinks) moves nothing.
 * @param {TablePage} page
 * @param {TableState | null} prev
 * @param {TableState} next
 * @param {TableEvent | null} event
 * @returns {Promise<void>}
 */
async function transition(page, prev, next, event) {
  const sameTable = prev && prev.match === next.match && prev.seat === next.seat;
  if (!sameTable || !event || event.version !== prev.version || next.version !== prev.version + 1) {
    const fresh = !sameTable || next.version !== prev.version;
    show(page, next);
    if (fresh && isFreshDeal(next)) await dealOut(page);
    return;
  }
  if (event.action === "play") {
    await played(page, prev, next, event);
    return;
  }
  if (next.thrown_in.length > prev.thrown_in.length) {
    // A redeal claimed, or the last call leaving the calls too low: the deal is thrown in,
    // said, and the new hand dealt out, rather than the calls vanishing with no word.
    page.note(t(`table.thrownIn.${next.thrown_in[next.thrown_in.length - 1]}`), "info");
  }
  show(page, next);
  // A call or a claim that leads to a fresh hand has thrown the deal in: the new one is dealt.
  if (isFreshDeal(next)) await dealOut(page);
}

/**
 * A card played (`event`): it travels to the trick; when it finishes the trick, the trick
 * stays up a moment and goes to its winner, and when that was the deal's last, the deal's
 * summary comes first and the next deal is dealt.
 * @param {TablePage} page
 * @param {TableState} prev
 * @param {TableState} next
 * @param {TableEvent} event
 * @returns {Promise<void>}
 */
async function played(page, prev, next, event) {
  const seat = /** @type {number} */ (event.seat);
  await layCard(page, /** @type {string} */ (event.card), seat, prev);
  if (prev.trick.cards.length < 3) {
    show(page, next);
    return;
  }
  // The fourth card: the trick as it was finished, its winner as the state says.
  const winner = next.last_trick ? next.last_trick.winner : undefined;
  const done = { leader: prev.trick.leader, cards: [...prev.trick.cards, event.card], winner };
  // A deal's last trick, a next deal to come: its summary comes first, over the deal just
  // played, and the next deal is dealt once it is closed. (The match's last trick: the result
  // is shown with the state.)
  const scored = next.results.length > prev.results.length;
  const ended = scored && !next.match_over ? dealEnded(prev, next) : null;
  // The last card has landed: whose turn it is now (and their clock) is said at once, while
  // the finished trick still stays up.
  page.drawLive(ended || next);
  await takeTrick(page, done, prev);
  if (ended) await summaryFirst(page, ended, next);
  show(page, next);
  if (isFreshDeal(next)) await dealOut(page);
}

/**
 * The table as the deal `prev` ended: its 13 tricks taken, nobody to act, and the scores of
 * `next`, the first state of the deal after it.
 * @param {TableState} prev
 * @param {TableState} next
 * @returns {TableState}
 */
function dealEnded(prev, next) {
  const last = next.last_trick;
  const won = prev.won.map((count, seat) => (last && seat === last.winner ? count + 1 : count));
  return {
    ...prev, results: next.results, totals: next.totals, totals_before: next.totals_before, last_trick: last,
    trick: { cards: [], leader: last ? last.winner : prev.trick.leader }, tricks_played: prev.tricks_played + 1,
    won, hand: [], legal: [], legal_calls: [], duties: {}, may_claim_redeal: false, turn: null, thinking: null,
    clock: null, preparing: false,
  };
}

/**
 * Show the deal just ended (`ended`) with its summary, until the person closes it or the table
 * goes on without them (a state newer than `next`: the computers' wait for the summary ran
 * out), which closes it.
 * @param {TablePage} page
 * @param {TableState} ended
 * @param {TableState} next
 * @returns {Promise<void>}
 */
async function summaryFirst(page, ended, next) {
  show(page, ended);
  const movedOn = () => page.queue.some((arrival) => arrival.state.version > next.version);
  while (!page.closed && (page.dialog.open || page.showing) && !movedOn()) await wait(100);
  if (page.dialog.open) page.dialog.close();
}

/**
 * Draw `state` at once, everything in its place.
 * @param {TablePage} page
 * @param {TableState} state
 */
export function show(page, state) {
  if (page.closed) return; // the page was left while a card travelled: nothing more is drawn
  const previous = page.state;
  page.state = state;
  page.draw();
  const myTurn = (s) => s && s.seat !== null && s.turn === s.seat && !s.match_over;
  if (myTurn(state) && !(myTurn(previous) && previous.version === state.version)) {
    sound.play("turn");
    buzz();
  }
}

/**
 * Lay card `code` of `seat` on the table, travelling from the seat (or from the hand).
 * @param {TablePage} page
 * @param {string} code
 * @param {number} seat
 * @param {TableState} state
 * @returns {Promise<void>}
 */
async function layCard(page, code, seat, state) {
  if (page.closed) return;
  const card = trickCard(page, code, seat, state);
  page.trick.append(card);
  if (seat === state.seat) markPlayed(page, code);
  sound.play("card");
  const origin = originOf(page, seat, code, state);
  if (motion() && origin) {
    await travel(card, origin, null, page.hurried() ? QUICK_MS : MOVE_MS);
  }
}

/**
 * Where a card of `seat` starts from: its place in the hand, or the seat's badge.
 * @param {TablePage} page
 * @param {number} seat
 * @param {string} code
 * @param {TableState} state
 * @returns {DOMRect}
 */
function originOf(page, seat, code, state) {
  if (seat === state.seat) {
    const card = page.handCards.get(code);
    if (card && card.isConnected) return card.getBoundingClientRect();
  }
  const badge = page.seats[positionOf(state, seat)];
  // The fan of backs where it is drawn (not on a phone), else the badge itself.
  const fan = badge.querySelector(".fan");
  return (fan && fan.offsetWidth ? fan : badge).getBoundingClientRect();
}

/**
 * The finished trick stays up a moment, then goes to its winner.
 * @param {TablePage} page
 * @param {Trick} trick
 * @param {TableState} state
 * @returns {Promise<void>}
 */
async function takeTrick(page, trick, state) {
  const cards = [...page.trick.querySelectorAll(".card")];
  const winner = cards.find((card) => card.dataset.card === trick.cards[(trick.winner - trick.leader + 4) % 4]);
  if (winner) winner.classList.add("winner");
  sound.play(trick.winner === state.seat ? "won" : "trick");
  // The trick stays up its whole time whoever won it and whatever arrives meanwhile (the next
  // cards of fast computers are shown after it, quickly): only the person's action cuts it.
  const pause = PAUSES[pauseSetting()];
  if (pause && !page.rushed()) await pauseFor(page, pause);
  if (page.closed) return;
  if (motion()) {
    const target = page.seats[positionOf(state, trick.winner)].getBoundingClientRect();
    const ms = page.hurried() ? QUICK_MS : MOVE_MS;
    await Promise.all(cards.map((card) => travel(card, null, target, ms)));
  }
  page.trick.replaceChildren();
}

/**
 * Wait `ms`, or less if the person acts meanwhile.
 * @param {TablePage} page
 * @param {number} ms
 * @returns {Promise<void>}
 */
async function pauseFor(page, ms) {
  const end = performance.now() + ms;
  // Steps of at most 50 ms, the last one to the end itself: the trick goes on time.
  while (!page.rushed() && !page.closed) {
    const left = end - performance.now();
    if (left <= 0) break;
    await wait(Math.min(50, left));
  }
}

/**
 * The new deal's cards come to the hand from the middle of the table, one by one.
 * @param {TablePage} page
 * @returns {Promise<void>}
 */
async function dealOut(page) {
  if (!motion() || page.hurried() || page.closed) return;
  const from = page.trick.getBoundingClientRect();
  const cards = page.state.hand.map((code) => page.handCards.get(code)).filter(Boolean);
  const backs = [...page.board.querySelectorAll(".fan .card")];
  sound.play("card");
  await Promise.all([
    ...cards.map((card, index) => travel(card, from, null, 260, index * 28)),
    ...backs.map((back, index) => travel(back, from, null, 260, (index % 13) * 28)),
  ]);
}

/**
 * A card on the table, in the place of the seat that played it.
 * @param {TablePage} page
 * @param {string} code
 * @param {number} seat
 * @param {TableState} state
 * @returns {HTMLElement}
 */
function trickCard(page, code, seat, state) {
  const card = cardElement(code, { label: t("table.playedBy", { card: cardName(code), name: state.names[seat] }) });
  card.classList.add(`slot-${positionOf(state, seat)}`);
  return card;
}

/**
 * @param {TablePage} page
 */
export function drawTrick(page) {
  const s = page.state;
  const wanted = s.trick.cards.map((code, index) => [code, (s.trick.leader + index) % 4]);
  const kept = new Map([...page.trick.querySelectorAll(".card")].map((card) => [card.dataset.card, card]));
  const cards = wanted.map(([code, seat]) => {
    const card = kept.get(code) || trickCard(page, code, seat, s);
    card.className = card.className.replace(/ ?slot-\d/, "") + ` slot-${page.position(seat)}`;
    card.classList.remove("winner");
    return card;
  });
  page.trick.replaceChildren(...cards);
  if (!page.peek.hidden) drawPeek(page);
}

// The review of a finished match or room, for the seat this browser played (docs/review.md,
// docs/web.md "Review"): the server's expert weighs each of the seat's calls and cards in the
// background; here, a button that asks for it, its progress, and then the accuracy, the points
// lost and the three costliest decisions, each a link to its moment in the replay. Also the
// page #/review/ID (#/review/room/CODE) that History links to, and the marks the replay shows.

import { api, cardText, el, heldToken, notHeld, roomEntry, serverText } from "./common.js";
import { num, t } from "./i18n.js";

/** How often (ms) a running review's progress is asked for: a few dozen requests a review,
 * well inside the lookups an address may make (docs/deploy.md). */
const POLL_MS = 1500;

/** Points lost from which a decision is marked, as chess sites mark an inaccuracy, a mistake
 * and a blunder (docs/review.md): under 0.05 is within the review's noise. */
/** @type {[number, string][]} */
const MARKS = [[1, "blunder"], [0.3, "mistake"], [0.05, "inaccuracy"]];

/**
 * What a review is asked of: the endpoint, the seat's token, the replay's address.
 * @typedef {{path: string, token: string, replay: string}} ReviewTarget
 */

/**
 * The mark of a reviewed decision: "forced", "good", "inaccuracy", "mistake" or "blunder".
 * @param {{lost: number, forced: boolean}} decision
 * @returns {string}
 */
export function markOf(decision) {
  if (decision.forced) return "forced";
  for (const [from, mark] of MARKS) if (decision.lost >= from) return mark;
  return "good";
}

/**
 * Points with two decimals, in the page's digits.
 * @param {number} value
 * @returns {string}
 */
export function points(value) {
  return num(value, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
}

/**
 * A call ("4") or a card ("TH") as the lines show it.
 * @param {string} action
 * @returns {string}
 */
function actionText(action) {
  return /^\d+$/.test(action) ? num(Number(action)) : cardText(action);
}

/**
 * The replay's address at a decision's moment (null for one the replay does not show).
 * @param {string} replay the replay's address
 * @param {{at?: {deal: number, step: number} | null}} decision
 * @returns {string | null}
 */
export function momentHref(replay, decision) {
  return decision.at ? `${replay}?deal=${decision.at.deal}&step=${decision.at.step}` : null;
}

/**
 * The review's panel: what it says now, and the button that starts it when there is none.
 * @param {ReviewTarget} target
 * @param {{start?: boolean}} [options] start at once (History's Review link)
 * @returns {HTMLElement}
 */
export function reviewPanel(target, { start = false } = {}) {
  const body = el("div", { class: "review-body", role: "status", "aria-live": "polite" });
  const panel = el("section", { class: "review-panel", "aria-labelledby": "review-title" },
    el("h2", { id: "review-title", text: t("review.title") }), body);
  let timer = null;

  const ask = async (method) => {
    clearTimeout(timer);
    let answer;
    try {
      answer = await api(target.path, { method, token: target.token });
    } catch (error) {
      // A match past the review's bound stays past it: said, with no button to try again.
      if (error && error.code === "review_long") body.replaceChildren(el("p", { class: "error", text: serverText(error) }));
      else offer(serverText(error));
      return;
    }
    if (!panel.isConnected && method === "GET" && answer.state !== "done") {
      // The page moved on: nobody is shown the progress, the server goes on alone.
      return;
    }
    if (answer.state === "done") {
      body.replaceChildren(summary(answer.review, target.replay));
    } else if (answer.state === "none") {
      if (start) ask("POST");
      else offer(null);
      start = false;
    } else {
      progress(answer);
      timer = setTimeout(() => ask("GET"), POLL_MS);
    }
  };

  /** The button, with why it is there or what went wrong. */
  const offer = (error) => {
    const button = el("button", {
      type: "button", class: "primary review-start", text: t(error ? "review.again" : "review.button"),
      onclick: () => {
        // Until the server answers, nothing is known of its queue.
        progress({ state: "starting", done: 0, total: 0 });
        ask("POST");
      },
    });
    body.replaceChildren(
      el("p", { class: error ? "error" : "hint", text: error || t("review.about") }),
      el("p", {}, button));
  };

  const progress = (answer) => {
    const bar = el("progress", { class: "review-progress", max: String(answer.total || 1) });
    if (answer.total) bar.value = answer.done;
    else bar.removeAttribute("value"); // still starting: a bar that says so by moving
    // Asked for, "starting" until the server answers; waiting, the server says where in its
    // queue (docs/web.md "Review"); then the decisions reviewed, from 0 as soon as a process
    // has begun on it.
    const words = answer.state === "waiting" && !answer.total
      ? (answer.place ? t("review.place", { place: answer.place }) : t("review.waiting"))
      : answer.total ? t("review.progress", { done: answer.done, total: answer.total }) : t("review.starting");
    bar.setAttribute("aria-label", t("review.title"));
    body.replaceChildren(bar, el("p", { class: "review-words", text: words }));
  };

  body.append(el("p", { class: "hint", text: t("review.loading") }));
  ask("GET");
  return panel;
}

/**
 * The accuracy, the points lost and the three costliest decisions, each a link to the replay.
 * @param {any} review the server's review (callbreak.review.Review.to_json)
 * @param {string} replay the replay's address
 * @returns {HTMLElement}
 */
export function summary(review, replay) {
  const s = review.summary;
  const lines = [
    el("p", { class: "accuracy" }, el("strong", { text: `${num(Math.round(s.accuracy))}%` }), " ",
      el("span", { text: t("review.accuracy") })),
    el("p", { text: t("review.lost", { lost: points(s.lost), calls: points(s.calls_lost), cards: points(s.cards_lost) }) }),
  ];
  if (s.hindsight_lost !== null && s.hindsight_lost !== undefined) {
    lines.push(el("p", { class: "hint", text: t("review.hindsight", { lost: points(s.hindsight_lost) }) }));
  }
  // The costliest that lost more than the review's noise (docs/review.md): a "good" decision
  // is no mistake to be shown.
  const costliest = s.costliest.map((index) => review.decisions[index]).filter((d) => markOf(d) !== "good");
  if (costliest.length) {
    lines.push(el("h3", { text: t("review.costliest") }));
    lines.push(el("ol", { class: "costliest" }, ...costliest.map((decision) => {
      const href = momentHref(replay, decision);
      const mark = markOf(decision);
      const words = [
        el("span", { class: `mark ${mark}`, text: t(`review.mark.${mark}`) }), " ",
        el("span", { class: "what", text: decisionLine(decision) }), " ",
        el("span", { class: "lost", text: `−${points(decision.lost)}` }),
      ];
      return el("li", {}, href ? el("a", { href }, ...words) : el("span", {}, ...words));
    })));
  } else {
    lines.push(el("p", { text: t("review.noneLost") }));
  }
  lines.push(el("p", {}, el("a", { href: replay, text: t("review.replay") })));
  return el("div", { class: "review-summary" }, ...lines);
}

/** "Deal 2, trick 5: you played 9♠, best J♠". */
function decisionLine(decision) {
  const values = {
    deal: decision.at ? decision.at.deal : decision.deal, trick: decision.trick,
    made: actionText(decision.made), best: actionText(decision.best),
  };
  return t(decision.kind === "call" ? "review.callLine" : "review.cardLine", values);
}

/**
 * What the replay says at a decision of the reviewed seat: the choice against the best, the
 * points lost, and the hindsight line, named so.
 * @param {any} decision
 * @returns {HTMLElement}
 */
export function momentLine(decision) {
  const mark = markOf(decision);
  const values = { made: actionText(decision.made), best: actionText(decision.best), lost: points(decision.lost) };
  let key;
  if (mark === "forced") key = "review.atForced";
  else if (decision.lost < 0.005) key = decision.kind === "call" ? "review.atCallBest" : "review.atCardBest";
  else key = decision.kind === "call" ? "review.atCall" : "review.atCard";
  const parts = [
    el("span", { class: `mark ${mark}`, text: t(`review.mark.${mark}`) }), " ",
    el("span", { class: "choice", text: t(key, values) + (decision.stand_in ? ` ${t("review.standIn")}` : "") }),
  ];
  if (decision.hindsight_best && !decision.forced) {
    parts.push(el("span", {
      class: "hindsight",
      text: t("review.atHindsight", { best: actionText(decision.hindsight_best), lost: points(decision.hindsight_lost || 0) }),
    }));
  }
  return el("p", { class: "review-line" }, ...parts);
}

/**
 * The page #/review/ID or #/review/room/CODE: the review of a match or a room from History.
 * @param {HTMLElement} view the page's box
 * @param {string[]} params the address's parts
 * @returns {Promise<(() => void) | null | void>} what closes the page, if anything
 */
export async function render(view, params) {
  const room = params[0] === "room" && params.length > 1 && params[1] !== undefined;
  const id = room ? params[1].toUpperCase() : params[0];
  const target = reviewTarget(room, id);
  if (!target) {
    view.append(room ? el("p", { class: "error", text: t("refusal.not_seated") }) : notHeld("match"));
    return null;
  }
  view.append(el("div", { class: "panel review-page" }, reviewPanel(target, { start: true })));
  return null;
}

/**
 * What this browser may ask a review of: a match it holds the token of, a room it holds a seat
 * in (with the seat's token); null otherwise.
 * @param {boolean} room
 * @param {string} id the match's id or the room's code
 * @returns {ReviewTarget | null}
 */
export function reviewTarget(room, id) {
  if (room) {
    const entry = roomEntry(id);
    if (!entry || typeof entry.token !== "string" || entry.left) return null;
    return { path: `/api/rooms/${id}/review`, token: entry.token, replay: `#/replay/room/${id}` };
  }
  const token = heldToken("match", id);
  return token ? { path: `/api/matches/${id}/review`, token, replay: `#/replay/${id}` } : null;
}

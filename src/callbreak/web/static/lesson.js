// Learn to play (#/lesson): one guided deal against three gentle computers, for a newcomer.
//
// The lesson is a real match through the API, made from static/lesson.json: one deal of the
// strict rules against three beginner computers with a fixed, published seed, so that the deal
// is the same every time (docs/web.md, *Learn to play*: the only deal that is fixed on purpose).
// benchmarks/lesson.py found the seed and the person's cards so that every duty is met in play,
// in that deal: the first-lead rule, follow suit, overtake, trump, overtrump and the free
// discard; tests/test_lesson.py checks on every run that the file still meets them.
//
// The table is the table page's own (table.js), with a guide above its status line: what the
// step is, the rule's own reason (the duty the server sends as data, worded by the catalogues as
// every refusal is), and which card to play; the lesson's card is ringed, and any other legal
// card is refused with a word. The call is taught from the hint's count of the hand. Should the
// table ever leave the file's path (a change of the rules or of the beginner's play that the
// test has not caught yet), the guide goes on explaining each duty from the state and lets any
// legal card go.
//
// Progress is kept in the browser (callbreak:lesson): the match's id and token (a reload goes on
// where it was), and whether it was done or skipped; the start page offers it until then, and
// *How to play* opens it again.

import { api, cardText, dutyText, el, serverText } from "./common.js";
import { t, tn } from "./i18n.js";

const KEY = "callbreak:lesson";

/**
 * What this browser did of the lesson.
 * @typedef {{id?: string, token?: string, done?: boolean, over?: string, skipped?: boolean}} Progress
 */

/** @returns {Progress} */
export function progress() {
  try {
    const kept = JSON.parse(localStorage.getItem(KEY) || "{}");
    return kept && typeof kept === "object" ? kept : {};
  } catch {
    return {};
  }
}

/** @param {Progress} changes */
function keep(changes) {
  try {
    localStorage.setItem(KEY, JSON.stringify({ ...progress(), ...changes }));
  } catch {
    // not kept: the lesson still runs, and is offered again
  }
}

/** The lesson's styles (its own file: the table's are not changed by it), once a page. */
function styled() {
  if (!document.querySelector('link[href="/static/lesson.css"]')) {
    document.head.append(el("link", { rel: "stylesheet", href: "/static/lesson.css" }));
  }
}

/**
 * The start page's offer of the lesson, or null once it was done or skipped.
 * @returns {HTMLElement | null}
 */
export function lessonOffer() {
  const kept = progress();
  if (kept.done || kept.skipped) return null;
  styled();
  // A banner of two short lines over the form: Start the match stays in sight on a phone.
  const box = el("section", { class: "panel lesson-offer", "aria-label": t("lesson.offerTitle") });
  const skip = el("button", { type: "button", class: "lesson-skip", text: t("lesson.skip") });
  skip.addEventListener("click", () => {
    keep({ skipped: true });
    box.remove();
  });
  box.append(
    el("p", {}, el("strong", { text: t("lesson.offerTitle") }), " ",
      t(kept.id ? "lesson.offerResume" : "lesson.offer")),
    el("a", { class: "button primary", href: "#/lesson", text: t(kept.id ? "lesson.resume" : "lesson.start") }),
    skip);
  return box;
}

/**
 * A link that opens the lesson, done or not (under *How to play*).
 * @returns {HTMLElement}
 */
export function lessonLink() {
  return el("li", {}, el("a", { href: "#/lesson", text: t("lesson.open") }));
}

/**
 * The lesson's deal, as static/lesson.json has it.
 * @typedef {{rules: string, opponents: string[], speed: string, seed: string, call: number,
 *   steps: {card: string, duty: string}[], taught: string[]}} Lesson
 */

/**
 * @param {HTMLElement} view
 * @returns {Promise<(() => void) | null>}
 */
export async function render(view) {
  styled();
  const problem = el("p", { class: "error", role: "alert" });
  /** @type {Lesson} */
  let lesson;
  try {
    const answer = await fetch("/static/lesson.json");
    lesson = await answer.json();
  } catch (error) {
    problem.textContent = serverText(error);
    view.append(problem);
    return null;
  }
  const { TablePage } = await import("./table.js");
  let page = null;
  let closed = false;

  const open = async (fresh) => {
    let kept = progress();
    // A lesson played to its end is not opened again: How to play's link starts a new one.
    if (fresh || !kept.id || !kept.token || kept.over === kept.id) {
      try {
        const made = await api("/api/matches", {
          method: "POST",
          body: { rules: lesson.rules, opponents: lesson.opponents, seed: lesson.seed, speed: lesson.speed, auto_forced: false },
        });
        keep({ id: made.id, token: made.token });
        kept = progress();
      } catch (error) {
        problem.textContent = serverText(error);
        view.replaceChildren(problem);
        return;
      }
    }
    if (closed) return;
    const { id, token } = kept;
    view.replaceChildren();
    const guide = new Guide(lesson, id);
    page = new TablePage(view, {
      socketPath: `/ws/matches/${id}`,
      hello: () => ({ type: "hello", token }),
      recordHref: `/api/matches/${id}/record`,
      recordToken: token,
      replayHash: "#/lesson",
      seenKey: `callbreak:seen:${id}`,
      missing: "no_such_match",
      onMessage: (message) => {
        if (message.type === "error" && message.code === "no_such_match") {
          // The server no longer keeps that lesson (old matches expire): a new one.
          page.close();
          open(true);
          return true;
        }
        // The hint's count is part of the calling lesson: the guide says it once it is here.
        if (message.type === "hint") setTimeout(() => page && guide.draw(page), 0);
        return false;
      },
      guard: (action) => guide.guard(page, action),
      drawn: (table) => guide.draw(table),
    });
    page.fullScreen(true);
    guide.attach(page, () => {
      page.close();
      open(true);
    });
  };
  await open(false);
  return () => {
    closed = true;
    if (page) page.close();
  };
}

/** Which duty binds the person in `s` (their turn to play), as the lesson names it: the same
 * as benchmarks/lesson.py works it out from the rules, here from the duties the view sends. */
export function dutyNow(s) {
  const kinds = new Set(Object.values(s.duties || {}).map((duty) => duty.duty));
  const cards = s.trick.cards;
  if (!cards.length) return kinds.has("no_spade_lead") ? "no_spade_lead" : "lead";
  for (const kind of ["overtrump", "trump", "low_spade", "beat", "beat_spade_lead", "follow"]) {
    if (kinds.has(kind)) return kind === "beat_spade_lead" ? "beat" : kind;
  }
  // Nothing forbidden: a hand of only the led suit follows, of only spades trumps.
  const led = cards[0].slice(-1);
  if (s.hand.some((code) => code.endsWith(led))) return "follow";
  if (s.hand.some((code) => code.endsWith("S"))) return "trump";
  return "free";
}

/** The guide over the table: what to do now and why. */
class Guide {
  /**
   * @param {Lesson} lesson
   * @param {string} id the lesson's match
   */
  constructor(lesson, id) {
    this.lesson = lesson;
    this.id = id;
    // One paragraph, its title first: a phone held sideways has two lines for it.
    this.box = el("aside", { class: "lesson-guide", "aria-live": "polite" });
    this.title = el("strong", { class: "lesson-title" });
    this.text = el("span", { class: "lesson-text" });
    // Leaving is a small ✕ (its words for a screen reader and a long press): the guide's
    // lines are the phone's room.
    this.skip = el("button", { type: "button", class: "lesson-leave", text: "✕" });
    this.box.append(el("p", {}, this.title, " ", this.text), this.skip);
  }

  /** Put the guide above the status line of `page`; `again` starts a new lesson. */
  attach(page, again) {
    this.again = again;
    const main = page.pageBox.querySelector(".play-main");
    main.classList.add("lesson");
    main.insertBefore(this.box, page.statusBox);
    this.skip.addEventListener("click", () => {
      // Leaving is skipping: the start page offers it no more (How to play still opens it).
      keep({ skipped: true });
      location.hash = "#/";
    });
  }

  /** The person's step now in `s`, with whether the table is on the lesson's path. */
  stepOf(s) {
    const step = this.lesson.steps[13 - s.hand.length];
    const onPath = Boolean(step) && s.legal.includes(step.card) && dutyNow(s) === step.duty;
    return { step, onPath };
  }

  /** The page's refusal of a legal call or card that is not the lesson's, in words. */
  guard(page, action) {
    const s = page && page.latest;
    if (!s) return null;
    if (action.type === "call") {
      return action.value === this.lesson.call ? null : t("lesson.callThis", { call: this.lesson.call });
    }
    const { step, onPath } = this.stepOf(s);
    if (!onPath || action.card === step.card) return null;
    return t("lesson.playThis", { card: cardText(step.card) });
  }

  /** @param {any} page the table page (table.js) */
  draw(page) {
    const s = page.live || page.state;
    if (!s) return;
    this.skip.setAttribute("aria-label", t("lesson.leave"));
    this.skip.title = t("lesson.leave");
    this.skip.hidden = Boolean(s.match_over);
    for (const card of page.handCards.values()) card.classList.remove("lesson-card");
    const mine = s.turn === s.seat;
    let title = t("lesson.title");
    let text = t("lesson.watch");
    if (s.match_over) {
      keep({ done: true, over: this.id });
      title = t("lesson.doneTitle");
      text = t("lesson.done");
      this.drawEnd(page);
    } else if (s.phase === "calling") {
      title = t("lesson.callTitle");
      text = mine ? this.callText(page, s) : t("lesson.callWatch");
    } else if (mine && s.phase === "playing") {
      const { step, onPath } = this.stepOf(s);
      const kind = onPath ? step.duty : dutyNow(s);
      title = t(`lesson.kind.${kind}`);
      const card = onPath ? t("lesson.play", { card: cardText(step.card) }) : t("lesson.playAny");
      text = [t(`lesson.why.${kind}`, this.values(s)), this.rule(s, kind), card].filter(Boolean).join(" ");
      if (onPath) page.handCards.get(step.card)?.classList.add("lesson-card");
    }
    this.title.textContent = title;
    this.text.textContent = text;
    this.box.dataset.step = s.match_over ? "done" : s.phase === "calling" ? "call" : mine ? String(13 - s.hand.length) : "watch";
  }

  /** The words of the calling lesson: the hint's count of the hand once asked for. */
  callText(page, s) {
    const call = this.lesson.call;
    const hint = page.hint && page.hint.kind === "call" && page.hint.version === s.version ? page.hint : null;
    const best = hint && hint.options[0];
    if (!best) return `${t("lesson.callWhat")} ${t("lesson.callAsk")}`;
    const tricks = best.tricks === null ? call : Math.round(best.tricks);
    return `${tn("lesson.callCount", tricks)} ${t("lesson.callScore", { call })}`;
  }

  /** The led suit and the card to beat in `s`, for the words of a step. */
  values(s) {
    const led = s.trick.cards.length ? s.trick.cards[0].slice(-1) : null;
    return { suit: led ? t(`suit.${led}.plural`) : "" };
  }

  /** The rule's own reason for the step (the duty as the server sends it, worded as every
   * refusal is); none for a step no duty binds. */
  rule(s, kind) {
    const wanted = kind === "beat" ? ["beat", "beat_spade_lead"] : [kind];
    const duty = Object.values(s.duties || {}).find((d) => wanted.includes(d.duty));
    if (duty) return dutyText(duty);
    return "";
  }

  /** After the deal: what was learnt, and what next, where the table shows the places. */
  drawEnd(page) {
    const again = el("button", { type: "button", class: "button", text: t("lesson.again") });
    again.addEventListener("click", () => this.again && this.again());
    const places = page.after.querySelector("ol, ul, .places");
    page.after.replaceChildren(...[places].filter(Boolean),
      el("p", { class: "after-links" },
        el("a", { class: "button primary", href: "#/", text: t("lesson.realMatch") }), again));
  }
}

// The daily challenge (#/challenge): today's five deals, the same for everyone, against three
// expert computers, one attempt a profile; the deals' commitment (the SHA-256 of the day's
// seed, published when the day opens), the person's attempt (begun here, played on the table
// page), today's standings once they have played, and yesterday's seed and standings.
// docs/public.md, *The daily challenge*.

import { el, formatDate, heldToken, keepEntry, score, serverText } from "./common.js";
import { num, t, tn } from "./i18n.js";
import { asPlayer, myPlayer, playerForm } from "./player.js";
import { personLink } from "./public.js";

/**
 * @param {HTMLElement} view the page's box
 * @returns {Promise<(() => void) | null | void>} what closes the page, if anything
 */
export async function render(view) {
  let today;
  try {
    today = await asPlayer("/api/challenge");
  } catch (error) {
    view.append(el("p", { class: "error", text: t("challenge.cannotLoad", { detail: serverText(error) }) }));
    return;
  }
  const page = el("div", { class: "public-page challenge-page" });
  view.append(page);
  page.append(todayPanel(today));
  const [standings, previous] = await Promise.all([
    asPlayer(`/api/challenge/days/${today.day}/standings`).catch(() => null),
    asPlayer(`/api/challenge/days/${today.previous.day}/standings`).catch(() => null),
  ]);
  page.append(standingsPanel("challenge-today", t("challenge.todayStandings"), standings));
  page.append(previousPanel(today.previous, previous));
}

/** Today's challenge: what it is, its commitment, and the person's attempt. */
function todayPanel(today) {
  const left = Math.max(0, today.closes - Date.now() / 1000);
  const panel = el("section", { class: "panel", "aria-labelledby": "challenge-title" },
    el("h1", { id: "challenge-title", text: t("challenge.title") }),
    el("p", { class: "challenge-day" }, el("b", { text: num(today.day) }), " · ",
      t("challenge.closes", { when: formatDate(today.closes), hours: Math.floor(left / 3600), minutes: Math.floor((left % 3600) / 60) })),
    el("p", { text: t("challenge.intro") }),
    commitment(today.commitment, today.day));
  const box = el("div", { class: "attempt" });
  panel.append(box);
  drawAttempt(box, today);
  return panel;
}

/** The commitment, with how to check it after the close. */
function commitment(hash, day) {
  return el("details", { class: "commitment" },
    el("summary", {}, t("challenge.commitment"), " ", el("code", { class: "hash", text: `${hash.slice(0, 12)}…` })),
    el("p", { class: "hint", text: t("challenge.commitmentHint") }),
    el("p", {}, el("code", { class: "hash", text: hash })),
    el("p", { class: "hint" }, t("challenge.verifyHint"), " ", el("code", { text: `callbreak challenge verify ${day} SEED RECORD.json --commitment ${hash.slice(0, 8)}…` })));
}

/** The person's attempt of today: a button to begin it, to go back to it, or its result. */
function drawAttempt(box, today) {
  const mine = today.you;
  const problem = el("p", { class: "error", role: "alert" });
  const go = async (button) => {
    problem.textContent = "";
    button.disabled = true;
    try {
      const attempt = await asPlayer("/api/challenge/play", { method: "POST", body: { speed: savedSpeed() } });
      keepEntry("match", attempt.match, { token: attempt.token, challenge: attempt.day });
      location.hash = `#/play/${attempt.match}`;
    } catch (error) {
      problem.textContent = serverText(error);
      button.disabled = false;
    }
  };
  if (!mine) {
    if (!myPlayer()) {
      box.replaceChildren(el("p", { class: "hint", text: t("challenge.needPlayer") }),
        playerForm(() => drawAttempt(box, today)));
      return;
    }
    const closing = Date.now() / 1000 >= today.starts_until;
    const button = el("button", { type: "button", class: "primary", text: t("challenge.play"), disabled: closing });
    button.addEventListener("click", () => go(button));
    box.replaceChildren(
      el("p", { class: "hint", text: closing ? t("challenge.closing") : t("challenge.once") }),
      button, problem);
    return;
  }
  if (mine.state === "playing") {
    const button = el("button", { type: "button", class: "primary", text: t("challenge.resume") });
    button.addEventListener("click", () => go(button));
    box.replaceChildren(el("p", { text: tn("challenge.playing", mine.deals) }), button, problem);
    return;
  }
  // Kept for History and the replay's and review's pages, as any match of this browser.
  if (!heldToken("match", mine.match)) keepEntry("match", mine.match, { token: mine.token, challenge: mine.day });
  box.replaceChildren(el("div", { class: "figures" },
    figure(mine.total === null ? "–" : score(mine.total), t("challenge.total")),
    figure(mine.accuracy === null ? "…" : num(mine.accuracy), mine.accuracy === null ? t("challenge.reviewing") : t("challenge.accuracy")),
    figure(num(mine.made), tn("challenge.made", mine.deals))),
  el("p", { class: "hint", text: mine.ranked ? t("challenge.done") : t(`challenge.why.${mine.why}`) }),
  el("p", {}, el("a", { href: `#/replay/${mine.match}`, text: t("history.replay") }), " · ",
    el("a", { href: `#/review/${mine.match}`, text: t("history.review") })));
}

function figure(value, label) {
  return el("div", { class: "figure" }, el("b", { text: value }), el("span", { text: label }));
}

function savedSpeed() {
  try {
    return JSON.parse(localStorage.getItem("callbreak:new") || "{}").speed || "normal";
  } catch {
    return "normal";
  }
}

/** A day's standings as the server showed them to this person (or why not). */
function standingsPanel(id, title, standings) {
  const panel = el("section", { class: "panel", "aria-labelledby": id }, el("h2", { id, text: title }));
  if (!standings) {
    panel.append(el("p", { class: "hint", text: t("challenge.noStandings") }));
    return panel;
  }
  if (!standings.shown) {
    panel.append(el("p", { class: "hint", text: tn("challenge.hidden", standings.entrants) }));
    return panel;
  }
  if (!standings.rows.length) {
    panel.append(el("p", { class: "hint", text: t("challenge.noneRanked") }));
  } else {
    const head = el("tr", {}, ...[t("leaderboard.place"), t("leaderboard.player"), t("challenge.totalShort"),
      t("challenge.accuracyShort"), t("challenge.madeShort")].map((text) => el("th", { scope: "col", text })));
    const rows = standings.rows.map((row) => el("tr", { class: standings.you && standings.you.id === row.id ? "mine" : null },
      el("td", { text: num(row.place) }),
      el("td", {}, personLink(row)),
      el("td", { text: score(row.total) }),
      el("td", { text: row.accuracy === null ? "…" : num(row.accuracy) }),
      el("td", { text: t("challenge.madeOf", { made: row.made, deals: row.deals }) })));
    panel.append(el("div", { class: "table-scroll" },
      el("table", { class: "record-table standings" }, el("thead", {}, head), el("tbody", {}, ...rows))));
  }
  panel.append(el("p", { class: "hint", text: t("challenge.counted", { ranked: standings.ranked, entrants: standings.entrants }) }));
  if (standings.you) panel.append(yourPlace(standings.you));
  return panel;
}

function yourPlace(you) {
  if (you.place) return el("p", { class: "your-place", text: t("challenge.yourPlace", { place: you.place, total: score(you.total) }) });
  return el("p", { class: "your-place", text: t(`challenge.why.${you.why || "unfinished"}`) });
}

/** Yesterday: its seed, now out, beside its commitment, and its standings. */
function previousPanel(day, standings) {
  const panel = standingsPanel("challenge-previous", t("challenge.previous", { day: num(day.day) }), standings);
  panel.insertBefore(el("details", { class: "commitment" },
    el("summary", {}, t("challenge.seed"), " ", el("code", { class: "hash", text: `${(day.seed || "").slice(0, 12)}…` })),
    el("p", {}, el("code", { class: "hash", text: day.seed || "" })),
    el("p", { class: "hint" }, t("challenge.commitment"), " ", el("code", { class: "hash", text: day.commitment })),
    el("p", { class: "hint", text: t("challenge.seedHint") })), panel.children[1] || null);
  return panel;
}

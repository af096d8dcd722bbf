// Replay a stored match or room trick by trick from its game record (every hand shown).
// #/replay/ID for a match against the computer, #/replay/room/CODE for a room.

import { api, cardElement, cardName, downloadLink, el, heldToken, notHeld, rulesName, serverText } from "./common.js";
import { seatNames, t } from "./i18n.js";

export async function render(view, params) {
  const room = params.length === 2;
  const base = room ? `/api/rooms/${params[1]}` : `/api/matches/${params[0]}`;
  // A match opens with its token; a room's record is its players' and watchers' alike.
  const token = room ? null : heldToken("match", params[0]);
  if (!room && !token) {
    view.append(notHeld("match"));
    return;
  }
  let record, winners, nameKeys;
  try {
    ({ record, winners, name_keys: nameKeys } = await api(`${base}/replay`, { token }));
  } catch (error) {
    view.append(el("p", { class: "error", text: t(room ? "replay.cannotRoom" : "replay.cannotMatch", { detail: serverText(error.message) }) }));
    return;
  }
  // The winner of every trick comes from the server's engine, never worked out again here.
  const deals = record.deals
    .map((deal, index) => ({ ...deal, winners: winners[index] }))
    .filter((deal) => !deal.thrown_in);
  if (!deals.length) {
    view.append(el("div", { class: "panel" }, el("h1", { text: t("replay.title") }),
      el("p", { text: t("replay.nothing") })));
    return;
  }
  let dealIndex = 0;
  let step = 0; // cards shown of the current deal
  // The record's names, the computers' and a person's who gave none in the page's language.
  const names = seatNames(record.players, nameKeys);
  const rules = typeof record.rules === "string" ? record.rules
    : `${record.rules.profile}${Object.keys(record.rules).length > 1 ? "(…)" : ""}`;
  const title = el("h1", {});
  const board = el("div", { class: "replay-board" });
  const where = el("p", { class: "status", role: "status", "aria-live": "polite" });
  const previous = el("button", { type: "button", class: "previous-trick", text: `◀ ${t("replay.previousTrick")}`, onclick: () => move(-4) });
  const next = el("button", { type: "button", class: "next-trick", text: `${t("replay.nextTrick")} ▶`, onclick: () => move(4) });
  const back = el("button", { type: "button", class: "back-card", text: `◀ ${t("replay.card")}`, onclick: () => move(-1) });
  const forward = el("button", { type: "button", class: "forward-card", text: `${t("replay.card")} ▶`, onclick: () => move(1) });
  const pick = el("select", { "aria-label": t("replay.deal") },
    ...deals.map((_, index) => el("option", { value: String(index), text: t("replay.dealN", { deal: index + 1 }) })));
  pick.addEventListener("change", () => { dealIndex = Number(pick.value); step = 0; draw(); });
  view.append(el("div", { class: "panel wide replay" }, title,
    el("div", { class: "controls" }, pick, previous, back, forward, next,
      downloadLink(`${base}/record`, token, t("table.download"))),
    where, board));
  const onKey = (event) => {
    if (event.target.tagName === "SELECT") return;
    if (event.key === "ArrowRight") move(event.shiftKey ? 4 : 1);
    if (event.key === "ArrowLeft") move(event.shiftKey ? -4 : -1);
  };
  view.addEventListener("keydown", onKey);

  function plays(deal) {
    // Every card of the deal in order, with the seat that played it.
    const result = [];
    let leader = (deal.dealer + 1) % 4;
    deal.tricks.forEach((trick, number) => {
      trick.forEach((card, index) => result.push({ card, seat: (leader + index) % 4 }));
      if (trick.length === 4) leader = deal.winners[number];
    });
    return result;
  }

  function move(delta) {
    const total = plays(deals[dealIndex]).length;
    if (Math.abs(delta) === 4) {
      // Jump to the end of the next or previous trick.
      step = delta > 0 ? Math.min(total, (Math.floor(step / 4) + 1) * 4) : Math.max(0, (Math.ceil(step / 4) - 1) * 4);
    } else {
      step = Math.max(0, Math.min(total, step + delta));
    }
    draw();
  }

  function draw() {
    const deal = deals[dealIndex];
    const all = plays(deal);
    const shown = all.slice(0, step);
    const played = new Set(shown.map((p) => p.card));
    const won = [0, 0, 0, 0];
    const complete = Math.floor(step / 4);
    for (let trick = 0; trick < complete; trick++) won[deal.winners[trick]] += 1;
    const trickCards = shown.slice(complete * 4);
    const lastComplete = step > 0 && step % 4 === 0 ? shown.slice(step - 4) : null;
    const current = trickCards.length ? trickCards : lastComplete || [];
    title.textContent = t("replay.heading", { rules: rulesName(rules), deal: dealIndex + 1, deals: deals.length });
    const hands = deal.hands.map((hand, seat) => el("section", { class: "replay-seat", "aria-label": names[seat] },
      el("h2", {}, names[seat] + (seat === deal.dealer ? ` (${t("table.dealer")})` : ""),
        el("span", { class: "line", text: " " + t("replay.line", { call: deal.calls[seat] ?? "–", won: won[seat] }) })),
      el("div", { class: "replay-hand" }, ...hand.filter((c) => !played.has(c)).map((c) => cardElement(c)))));
    const trickView = el("div", { class: "replay-trick", role: "group", "aria-label": t("replay.trick") },
      ...current.map((p) => {
        const card = cardElement(p.card, { label: t("table.playedBy", { card: cardName(p.card), name: names[p.seat] }) });
        const trickIndex = Math.floor((step - 1) / 4);
        if (current.length === 4 && deal.winners[trickIndex] === p.seat) card.classList.add("winner");
        return el("figure", {}, card, el("figcaption", { text: names[p.seat] }));
      }));
    board.replaceChildren(...hands, trickView);
    const trickNumber = Math.min(13, Math.floor(Math.max(step - 1, 0) / 4) + 1);
    where.textContent = step === 0 ? t("replay.before")
      : t(step === all.length ? "replay.whereEnd" : "replay.where", { trick: trickNumber, card: ((step - 1) % 4) + 1 });
    previous.disabled = back.disabled = step === 0;
    next.disabled = forward.disabled = step === all.length;
  }
  draw();
  return () => view.removeEventListener("keydown", onKey);
}


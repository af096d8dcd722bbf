// Replay a stored match or room trick by trick from its game record (every hand shown).
// #/replay/ID for a match against the computer, #/replay/room/CODE for a room.

import { api, cardElement, cardName, el } from "./common.js";

export async function render(view, params) {
  const base = params.length === 2 ? `/api/rooms/${params[1]}` : `/api/matches/${params[0]}`;
  let record, winners;
  try {
    ({ record, winners } = await api(`${base}/replay`));
  } catch (error) {
    view.append(el("p", { class: "error", text: `Cannot load the ${params.length === 2 ? "room" : "match"}: ${error.message}` }));
    return;
  }
  // The winner of every trick comes from the server's engine, never worked out again here.
  const deals = record.deals
    .map((deal, index) => ({ ...deal, winners: winners[index] }))
    .filter((deal) => !deal.thrown_in);
  if (!deals.length) {
    view.append(el("div", { class: "panel" }, el("h1", { text: "Replay" }),
      el("p", { text: "No deal of this match has been played to the end yet." })));
    return;
  }
  let dealIndex = 0;
  let step = 0; // cards shown of the current deal
  const names = record.players;
  const title = el("h1", {});
  const board = el("div", { class: "replay-board" });
  const where = el("p", { class: "status", role: "status", "aria-live": "polite" });
  const previous = el("button", { type: "button", text: "◀ Previous trick", onclick: () => move(-4) });
  const next = el("button", { type: "button", text: "Next trick ▶", onclick: () => move(4) });
  const back = el("button", { type: "button", text: "◀ Card", onclick: () => move(-1) });
  const forward = el("button", { type: "button", text: "Card ▶", onclick: () => move(1) });
  const pick = el("select", { "aria-label": "Deal" },
    ...deals.map((_, index) => el("option", { value: String(index), text: `Deal ${index + 1}` })));
  pick.addEventListener("change", () => { dealIndex = Number(pick.value); step = 0; draw(); });
  view.append(el("div", { class: "panel wide replay" }, title,
    el("div", { class: "controls" }, pick, previous, back, forward, next,
      el("a", { href: `${base}/record`, download: "", text: "Download record" })),
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
    for (let t = 0; t < complete; t++) won[deal.winners[t]] += 1;
    const trickCards = shown.slice(complete * 4);
    const lastComplete = step > 0 && step % 4 === 0 ? shown.slice(step - 4) : null;
    const current = trickCards.length ? trickCards : lastComplete || [];
    title.textContent = `Replay: ${record.rules}, deal ${dealIndex + 1} of ${deals.length}`;
    const hands = deal.hands.map((hand, seat) => el("section", { class: "replay-seat", "aria-label": names[seat] },
      el("h2", {}, `${names[seat]}${seat === deal.dealer ? " (dealer)" : ""}`,
        el("span", { class: "line", text: ` call ${deal.calls[seat] ?? "–"}, tricks ${won[seat]}` })),
      el("div", { class: "replay-hand" }, ...hand.filter((c) => !played.has(c)).map((c) => cardElement(c)))));
    const trickView = el("div", { class: "replay-trick", role: "group", "aria-label": "Trick" },
      ...current.map((p) => {
        const card = cardElement(p.card, { label: `${cardName(p.card)}, played by ${names[p.seat]}` });
        const trickIndex = Math.floor((step - 1) / 4);
        if (current.length === 4 && deal.winners[trickIndex] === p.seat) card.classList.add("winner");
        return el("figure", {}, card, el("figcaption", { text: names[p.seat] }));
      }));
    board.replaceChildren(...hands, trickView);
    const trickNumber = Math.min(13, Math.floor(Math.max(step - 1, 0) / 4) + 1);
    where.textContent = step === 0 ? "Before the first lead." :
      `Trick ${trickNumber}, card ${((step - 1) % 4) + 1} of 4` + (step === all.length ? " — end of the deal." : ".");
    previous.disabled = back.disabled = step === 0;
    next.disabled = forward.disabled = step === all.length;
  }
  draw();
  return () => view.removeEventListener("keydown", onKey);
}

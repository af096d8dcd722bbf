// The start page: a new match against three computer players (#/), or a room to play with
// friends (#/friends, in newroom.js).

import { api, el, LEVEL_LABELS } from "./common.js";
import { roomForm } from "./newroom.js";

export async function render(view, [choice]) {
  const [profiles, { levels, descriptions, speeds }] = await Promise.all([api("/api/profiles"), api("/api/levels")]);
  const friends = choice === "friends";
  const link = (href, text, current) => el("a", { href, text, "aria-current": current ? "page" : null });
  view.append(el("nav", { class: "choice", "aria-label": "How to play" },
    link("#/", "Against the computer", !friends),
    link("#/friends", "With friends", friends)));
  if (friends) {
    view.append(...roomForm(profiles, levels, speeds), howToPlay());
    view.querySelector("#room-name").focus();
    return;
  }
  const saved = JSON.parse(localStorage.getItem("callbreak:new") || "{}");

  const summary = el("p", { id: "profile-summary", class: "hint" });
  const profile = el("select", { id: "profile", name: "rules" },
    ...profiles.map((p) => el("option", { value: p.name, text: p.name + (p.name === "strict" ? " (default)" : "") })));
  profile.value = saved.rules || "strict";
  const showSummary = () => {
    const chosen = profiles.find((p) => p.name === profile.value);
    summary.textContent = chosen ? chosen.summary : "";
  };
  profile.addEventListener("change", showSummary);
  showSummary();

  const opponents = [0, 1, 2].map((index) => {
    const select = el("select", { id: `opponent-${index}`, name: `opponent-${index}` },
      ...levels.map((level) => el("option", {
        value: level,
        text: `${LEVEL_LABELS[level] || level}: ${(descriptions || {})[level] || ""}`.replace(/: $/, ""),
      })));
    select.value = (saved.opponents && saved.opponents[index]) || "expert";
    return select;
  });
  const name = el("input", { id: "name", name: "name", maxlength: "24", autocomplete: "nickname", value: saved.name || "" });
  const seed = el("input", { id: "seed", name: "seed", inputmode: "numeric", maxlength: "64", placeholder: "random" });
  const speed = el("select", { id: "speed", name: "speed" }, ...speeds.map((s) => el("option", { value: s, text: s })));
  speed.value = saved.speed || "normal";
  const clockwise = el("input", { id: "clockwise", type: "checkbox", name: "clockwise" });
  clockwise.checked = Boolean(saved.clockwise);
  const auto = el("input", { id: "auto", type: "checkbox", name: "auto" });
  auto.checked = Boolean(saved.auto_forced);
  const problem = el("p", { class: "error", role: "alert" });

  const seatNames = ["Next player (plays after you)", "Opposite player", "Previous player (plays before you)"];
  const form = el("form", { class: "panel new-match", "aria-labelledby": "new-title" },
    el("h1", { id: "new-title", text: "New match" }),
    el("p", { text: "Play a full match of Call Break against three computer players. Spades are always trump, everyone calls, and you must win a trick whenever you can." }),
    el("label", { for: "name", text: "Your name" }), name,
    el("label", { for: "profile", text: "Rules" }), profile, summary,
    el("fieldset", {},
      el("legend", { text: "Opponents" }),
      ...opponents.flatMap((select, index) => [el("label", { for: select.id, text: seatNames[index] }), select])),
    el("details", {},
      el("summary", { text: "More options" }),
      el("div", { class: "more" },
        el("label", { for: "speed", text: "Speed of the computer players" }), speed,
        el("label", { class: "check" }, auto, "Play my card for me when only one is legal"),
        el("label", { class: "check" }, clockwise, "Clockwise: play passes to the left"),
        el("label", { for: "seed", text: "Seed (to replay the same deals)" }), seed)),
    problem,
    el("button", { type: "submit", class: "primary", text: "Start the match" }));

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    problem.textContent = "";
    const body = {
      name: name.value.trim() || "You",
      rules: clockwise.checked ? `${profile.value}(clockwise=true)` : profile.value,
      opponents: opponents.map((s) => s.value),
      speed: speed.value,
      auto_forced: auto.checked,
    };
    localStorage.setItem("callbreak:new", JSON.stringify({ ...body, rules: profile.value, clockwise: clockwise.checked }));
    const seedText = seed.value.trim();
    // Long numbers stay text: JavaScript numbers are exact only to 15 digits.
    // "007" stays text, so that it gives the same deals whenever it is typed the same way.
    if (seedText) body.seed = /^(0|[1-9]\d{0,14})$/.test(seedText) ? Number(seedText) : seedText;
    try {
      const { id } = await api("/api/matches", { method: "POST", body });
      location.hash = `#/play/${id}`;
    } catch (error) {
      problem.textContent = error.message;
    }
  });
  view.append(form, howToPlay());
  name.focus();
}

function howToPlay() {
  const points = [
    "Four players, each for themselves, 13 cards each. Spades are always trump.",
    "Before play, everyone calls the number of tricks they will take, starting after the dealer; the dealer calls last.",
    "Follow suit if you can. Holding the led suit, you must beat the best card of it on the table unless someone has trumped. Out of the led suit, you must trump, and overtrump a spade already played if you can.",
    "Take at least your call and you score it, plus 0.1 for each extra trick; fall short and you lose your call. After five deals the highest total wins; equal totals share a place.",
    "The rules differ a little between profiles (strict, classic, online, pagat, bhoos): the summary under Rules says how. When a card may not be played, the table tells you why.",
  ];
  return el("details", { class: "panel how-to" },
    el("summary", { text: "How to play" }),
    el("ul", {}, ...points.map((point) => el("li", { text: point }))));
}

// A new room to play with friends: the rules, who sits in seats 2-4 (a friend or a computer),
// the turn clock, the computer that covers for someone away, the computers' speed. Creating it
// keeps the creator's seat token in this browser and opens the room's page with its invite link.
// Beside it, a box to open a room from its code.

import { api, el, keepRoomEntry, LEVEL_LABELS, ROOM_CODE, saveName, savedName } from "./common.js";

const CLOCKS = [[0, "Off"], [15, "15 seconds"], [30, "30 seconds (default)"], [60, "60 seconds"]];
const SEAT_NAMES = ["Seat 2 (plays after you)", "Seat 3 (opposite you)", "Seat 4 (plays before you)"];

export function roomForm(profiles, levels, speeds) {
  const saved = readSaved();
  const name = el("input", { id: "room-name", name: "name", maxlength: "32", autocomplete: "nickname", required: true,
    value: saved.name || savedName() });
  const summary = el("p", { id: "room-profile-summary", class: "hint" });
  const profile = el("select", { id: "room-profile", name: "rules" },
    ...profiles.map((p) => el("option", { value: p.name, text: p.name + (p.name === "strict" ? " (default)" : "") })));
  profile.value = saved.rules || "strict";
  const showSummary = () => {
    const chosen = profiles.find((p) => p.name === profile.value);
    summary.textContent = chosen ? chosen.summary : "";
  };
  profile.addEventListener("change", showSummary);
  showSummary();

  const seats = [0, 1, 2].map((index) => {
    const select = el("select", { id: `room-seat-${index}`, name: `seat-${index}` },
      el("option", { value: "", text: "A friend (open seat)" }),
      ...levels.map((level) => el("option", { value: level, text: `Computer: ${LEVEL_LABELS[level] || level}` })));
    select.value = (saved.seats && saved.seats[index]) || "";
    return select;
  });
  const clock = el("select", { id: "room-clock", name: "turn_seconds" },
    ...CLOCKS.map(([value, text]) => el("option", { value: String(value), text })));
  clock.value = String(saved.turn_seconds ?? 30);
  const cover = el("select", { id: "room-cover", name: "cover" },
    ...levels.map((level) => el("option", { value: level, text: LEVEL_LABELS[level] || level })));
  cover.value = saved.cover || "intermediate";
  const speed = el("select", { id: "room-speed", name: "speed" }, ...speeds.map((s) => el("option", { value: s, text: s })));
  speed.value = saved.speed || "normal";
  const problem = el("p", { class: "error", role: "alert" });

  const form = el("form", { class: "panel new-match new-room", "aria-labelledby": "room-title" },
    el("h1", { id: "room-title", text: "Play with friends" }),
    el("p", { text: "Make a room, send its link to your friends, and start when every seat is taken. Computers can fill the seats nobody takes." }),
    el("label", { for: "room-name", text: "Your name" }), name,
    el("label", { for: "room-profile", text: "Rules" }), profile, summary,
    el("fieldset", {},
      el("legend", { text: "The other seats" }),
      ...seats.flatMap((select, index) => [el("label", { for: select.id, text: SEAT_NAMES[index] }), select])),
    el("label", { for: "room-clock", text: "Turn clock" }), clock,
    el("p", { class: "hint", text: "When a player's time runs out, or they lose their connection, a computer plays that turn for them." }),
    el("label", { for: "room-cover", text: "The computer that plays for someone away" }), cover,
    el("label", { for: "room-speed", text: "Speed of the computer players" }), speed,
    problem,
    el("button", { type: "submit", class: "primary", text: "Create the room" }));

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    problem.textContent = "";
    const body = {
      name: name.value.trim(),
      rules: profile.value,
      seats: seats.map((s) => s.value || null),
      turn_seconds: Number(clock.value),
      cover: cover.value,
      speed: speed.value,
    };
    if (!body.name) {
      problem.textContent = "Your name, please: your friends will see it.";
      name.focus();
      return;
    }
    localStorage.setItem("callbreak:new-room", JSON.stringify(body));
    saveName(body.name);
    try {
      const { room, seat, token } = await api("/api/rooms", { method: "POST", body });
      keepRoomEntry(room, { token, seat });
      location.hash = `#/room/${room}`;
    } catch (error) {
      problem.textContent = error.message;
    }
  });
  return [form, joinByCode()];
}

function joinByCode() {
  const code = el("input", { id: "room-code", name: "code", maxlength: "6", autocomplete: "off",
    autocapitalize: "characters", spellcheck: "false", placeholder: "e.g. K7M2QX", class: "code-input" });
  const problem = el("p", { class: "error", role: "alert" });
  const form = el("form", { class: "panel new-match join-code", "aria-labelledby": "code-title" },
    el("h2", { id: "code-title", text: "Have a room code?" }),
    el("label", { for: "room-code", text: "Room code (6 letters and digits)" }),
    el("div", { class: "inline" }, code, el("button", { type: "submit", text: "Open the room" })),
    problem);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = code.value.trim().toUpperCase();
    if (!ROOM_CODE.test(text)) {
      problem.textContent = "A room code is 6 characters: letters and digits 2-9 (no 0, 1, I, L or O).";
      return;
    }
    location.hash = `#/room/${text}`;
  });
  return form;
}

function readSaved() {
  try {
    return JSON.parse(localStorage.getItem("callbreak:new-room") || "{}") || {};
  } catch {
    return {};
  }
}

// A new room to play with friends: the rules, who sits in seats 2-4 (a friend or a computer),
// the turn clock, the computer that covers for someone away, the computers' speed. Creating it
// keeps the creator's seat token in this browser and opens the room's page with its invite link.
// Beside it, a box to open a room from its code.

import {
  api, el, keepRoomEntry, levelAbout, levelLabel, profileChooser, ROOM_CODE, saveName, savedName, serverText,
} from "./common.js";
import { t, tn } from "./i18n.js";

const CLOCKS = [0, 15, 30, 60];

/**
 * The form's elements, and its rules menu (for the "How to play" beside it).
 * @param {{name: string, options: object}[]} profiles
 * @param {string[]} levels the computer levels of the menu
 * @param {string[]} speeds
 * @returns {any}
 */
export function roomForm(profiles, levels, speeds) {
  const saved = readSaved();
  const name = el("input", { id: "room-name", name: "name", maxlength: "24", autocomplete: "nickname", required: true,
    value: saved.name || savedName() });
  const { select: profile, summary } = profileChooser("room-profile", profiles, saved.rules);

  const seatNames = [t("newroom.seat2"), t("newroom.seat3"), t("newroom.seat4")];
  const seats = [0, 1, 2].map((index) => {
    const select = el("select", { id: `room-seat-${index}`, name: `seat-${index}` },
      el("option", { value: "", text: t("newroom.friend") }),
      ...levels.map((level) => el("option", { value: level, text: t("newroom.computer", { level: levelLabel(level) }) })));
    select.value = (saved.seats && saved.seats[index]) || "";
    return select;
  });
  const clock = el("select", { id: "room-clock", name: "turn_seconds" },
    ...CLOCKS.map((value) => el("option", { value: String(value),
      text: value === 0 ? t("newroom.clockOff") : tn(value === 30 ? "newroom.clockDefault" : "newroom.clockSeconds", value) })));
  clock.value = String(saved.turn_seconds ?? 30);
  const cover = el("select", { id: "room-cover", name: "cover" },
    ...levels.map((level) => el("option", { value: level, text: levelLabel(level) })));
  cover.value = saved.cover || "learned";
  // The menus name the levels; what each chosen one does is said in full under them.
  const seatsAbout = levelAbout("room-seats-about", seats);
  const coverAbout = levelAbout("room-cover-about", [cover]);
  const speed = el("select", { id: "room-speed", name: "speed" }, ...speeds.map((s) => el("option", { value: s, text: t(`speed.${s}`) })));
  speed.value = saved.speed || "normal";
  const problem = el("p", { class: "error", role: "alert" });

  const form = el("form", { class: "panel new-match new-room", "aria-labelledby": "room-title" },
    el("h1", { id: "room-title", text: t("newroom.title") }),
    el("p", { text: t("newroom.intro") }),
    el("label", { for: "room-name", text: t("home.name") }), name,
    el("label", { for: "room-profile", text: t("home.rules") }), profile, summary,
    el("fieldset", {},
      el("legend", { text: t("newroom.otherSeats") }),
      ...seats.flatMap((select, index) => [el("label", { for: select.id, text: seatNames[index] }), select]), seatsAbout),
    el("label", { for: "room-clock", text: t("newroom.clock") }), clock,
    el("p", { class: "hint", text: t("newroom.clockHint") }),
    el("label", { for: "room-cover", text: t("newroom.cover") }), cover, coverAbout,
    el("label", { for: "room-speed", text: t("settings.speed") }), speed,
    problem,
    el("button", { type: "submit", class: "primary", text: t("newroom.create") }));

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
      problem.textContent = t("newroom.nameNeeded");
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
      problem.textContent = serverText(error);
    }
  });
  return { elements: [form, joinByCode()], profile };
}

function joinByCode() {
  const code = el("input", { id: "room-code", name: "code", maxlength: "6", autocomplete: "off",
    autocapitalize: "characters", spellcheck: "false", placeholder: "K7M2QX", class: "code-input" });
  const problem = el("p", { class: "error", role: "alert" });
  const form = el("form", { class: "panel new-match join-code", "aria-labelledby": "code-title" },
    el("h2", { id: "code-title", text: t("newroom.haveCode") }),
    el("label", { for: "room-code", text: t("newroom.codeLabel") }),
    el("div", { class: "inline" }, code, el("button", { type: "submit", text: t("newroom.open") })),
    problem);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = code.value.trim().toUpperCase();
    if (!ROOM_CODE.test(text)) {
      problem.textContent = t("newroom.badCode");
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

// The start page: a new match against three computer players (#/), or a room to play with
// friends (#/friends, in newroom.js).

import { api, el, keepEntry, levelAbout, levelLabel, profileChooser, serverText } from "./common.js";
import { t, tn } from "./i18n.js";
import { lessonLink, lessonOffer } from "./lesson.js";
import { roomForm } from "./newroom.js";
import { playNowPanel } from "./now.js";
import { publicLinks } from "./public.js";

/**
 * @param {HTMLElement} view the page's box
 * @param {string[]} params the address's parts
 * @returns {Promise<(() => void) | null | void>} what closes the page, if anything
 */
export async function render(view, [choice]) {
  const [profiles, { levels, speeds }] = await Promise.all([api("/api/profiles"), api("/api/levels")]);
  const friends = choice === "friends";
  const link = (href, text, current) => el("a", { href, text, "aria-current": current ? "page" : null });
  // Play now first on the start page: a table with people online in one tap (now.js).
  if (!friends) view.append(playNowPanel());
  view.append(el("nav", { class: friends ? "choice" : "choice wide", "aria-label": t("home.how") },
    link("#/", t("home.againstComputer"), !friends),
    link("#/friends", t("home.withFriends"), friends)));
  if (friends) {
    const form = roomForm(profiles, levels, speeds);
    // No field takes the focus on load: on a phone the keyboard would open over the form.
    view.append(...form.elements, howToPlay(form.profile, profiles));
    return;
  }
  let saved = {};
  try {
    saved = JSON.parse(localStorage.getItem("callbreak:new") || "{}") || {};
  } catch {
    saved = {};
  }

  const { select: profile, summary } = profileChooser("profile", profiles, saved.rules);
  const opponents = [0, 1, 2].map((index) => {
    const select = el("select", { id: `opponent-${index}`, name: `opponent-${index}` },
      ...levels.map((level) => el("option", { value: level, text: levelLabel(level) })));
    select.value = (saved.opponents && saved.opponents[index]) || "expert";
    return select;
  });
  // The menus name the levels; what each chosen level does is said in full below them.
  const about = levelAbout("opponents-about", opponents);
  const name = el("input", {
    id: "name", name: "name", maxlength: "24", autocomplete: "nickname", value: saved.name || "", placeholder: t("home.namePlaceholder"),
  });
  const seed = el("input", { id: "seed", name: "seed", inputmode: "numeric", maxlength: "64", placeholder: t("home.seedPlaceholder") });
  const speed = el("select", { id: "speed", name: "speed" }, ...speeds.map((s) => el("option", { value: s, text: t(`speed.${s}`) })));
  speed.value = saved.speed || "normal";
  const clockwise = el("input", { id: "clockwise", type: "checkbox", name: "clockwise" });
  clockwise.checked = Boolean(saved.clockwise);
  const auto = el("input", { id: "auto", type: "checkbox", name: "auto" });
  auto.checked = Boolean(saved.auto_forced);
  const problem = el("p", { class: "error", role: "alert" });

  const seatNames = [t("home.next"), t("home.opposite"), t("home.previous")];
  // Compact, so that Start the match is in sight on a phone without scrolling: the name and the
  // rules beside the opponents where there is room, each opponent's menu beside its seat, the
  // rarely changed options folded, the words on what a match is under the button, and the
  // button kept in sight (sticky) on a screen too short even for that.
  const form = el("form", { class: "panel new-match", "aria-labelledby": "new-title" },
    el("h1", { id: "new-title", text: t("home.title") }),
    el("div", { class: "fields" },
      el("div", { class: "field-group" },
        el("label", { for: "name", text: t("home.name") }), name,
        el("label", { for: "profile", text: t("home.rules") }), profile, summary),
      el("fieldset", { class: "opponents" },
        el("legend", { text: t("home.opponents") }),
        ...opponents.flatMap((select, index) => [el("label", { for: select.id, text: seatNames[index] }), select]),
        about)),
    el("details", {},
      el("summary", { text: t("home.more") }),
      el("div", { class: "more" },
        el("label", { for: "speed", text: t("settings.speed") }), speed,
        el("label", { class: "check" }, auto, t("home.auto")),
        el("label", { class: "check" }, clockwise, t("home.clockwise")),
        el("label", { for: "seed", text: t("home.seed") }), seed)),
    problem,
    el("div", { class: "start" }, el("button", { type: "submit", class: "primary", text: t("home.start") })),
    el("p", { class: "hint intro", text: t("home.intro") }));

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    problem.textContent = "";
    const body = {
      // A person who gives no name is stored with none: each page says "you" in its language.
      name: name.value.trim(),
      rules: clockwise.checked ? `${profile.value}(clockwise=true)` : profile.value,
      opponents: opponents.map((s) => s.value),
      speed: speed.value,
      auto_forced: auto.checked,
    };
    localStorage.setItem("callbreak:new", JSON.stringify({
      ...body, name: name.value.trim(), rules: profile.value, clockwise: clockwise.checked,
    }));
    const seedText = seed.value.trim();
    // Long numbers stay text: JavaScript numbers are exact only to 15 digits.
    // "007" stays text, so that it gives the same deals whenever it is typed the same way.
    if (seedText) body.seed = /^(0|[1-9]\d{0,14})$/.test(seedText) ? Number(seedText) : seedText;
    try {
      const { id, token } = await api("/api/matches", { method: "POST", body });
      keepEntry("match", id, { token }); // the match's only key: the server keeps its hash
      location.hash = `#/play/${id}`;
    } catch (error) {
      problem.textContent = serverText(error);
    }
  });
  const how = howToPlay(profile, profiles);
  how.classList.add("wide");
  // No field takes the focus on load: on a phone the keyboard would open over the form.
  // A newcomer is offered the lesson first, until they did it or said no.
  const offer = lessonOffer();
  view.append(...(offer ? [offer] : []), form, publicLinks(), how);
}

/** How to play, said for the rules chosen in `select` (the number of deals, the calls). */
function howToPlay(select, profiles) {
  const list = el("ul", {});
  const draw = () => {
    const found = profiles.find((p) => p.name === select.value) || profiles[0];
    const options = found.options;
    const end = options.deals ? tn("how.endDeals", options.deals) : t("how.endOpen");
    const points = [
      t("how.players"),
      t("how.calls", { low: options.min_call, high: options.max_call }),
      t("how.follow"),
      t(options.exact_scoring ? "how.scoreExact" : "how.score") + " " + end,
      t("how.profiles"),
    ];
    list.replaceChildren(...points.map((point) => el("li", { text: point })), lessonLink());
  };
  select.addEventListener("change", draw);
  draw();
  return el("details", { class: "panel how-to" }, el("summary", { text: t("how.title") }), list);
}

// The scoresheet for a game played with real cards: the table enters each deal's calls and
// tricks, the server checks and scores them. Every change is saved on the server at once, so
// the page always draws what the server answered and a reload loses nothing.

import {
  api, downloadLink, el, formatDate, heldToken, heldTokens, keepEntry, notHeld, placeText, profileChooser, rulesName,
  rulesSummary, score, serverText,
} from "./common.js";
import { num, t, tn } from "./i18n.js";
import { coarse } from "./prefs.js";

/** Add sheet.css to the page once (the shared style.css is left to the other pages), and wait
 * for it: drawn without it, the sheet's table is wider than a phone for a moment. */
let styles = null;
function addStyles() {
  if (!styles) {
    styles = new Promise((resolve) => {
      const link = el("link", { rel: "stylesheet", href: "/static/sheet.css", "data-sheet-css": "" });
      link.addEventListener("load", resolve);
      link.addEventListener("error", resolve);
      document.head.append(link);
    });
  }
  return styles;
}

/**
 * @param {HTMLElement} view the page's box
 * @param {string[]} params the address's parts
 * @returns {Promise<(() => void) | null | void>} what closes the page, if anything
 */
export async function render(view, params) {
  await addStyles();
  const [id] = params;
  if (id) await renderSheet(view, id);
  else await renderStart(view);
}

// --- #/sheet: start a sheet, list the others ------------------------------------------------

async function renderStart(view) {
  const problem = el("p", { class: "error", role: "alert" });
  let profiles = [];
  let sheets = [];
  try {
    // Only the sheets this browser holds (started here, or imported on the History page).
    const held = { sheets: heldTokens("sheet") };
    [profiles, sheets] = await Promise.all([api("/api/profiles"),
      api("/api/sheets/mine", { method: "POST", body: held })]);
  } catch (error) {
    problem.textContent = t("sheet.cannotLoad", { detail: serverText(error) });
  }

  const names = [1, 2, 3, 4].map((seat) =>
    el("input", { id: `sheet-name-${seat}`, name: `name-${seat}`, maxlength: "24", autocomplete: "off" }));
  const { select: profile, summary } = profileChooser("sheet-profile", profiles, "strict");
  const changes = el("input", {
    id: "sheet-changes", name: "changes", autocomplete: "off", spellcheck: "false",
    "aria-describedby": "sheet-changes-hint",
  });

  const form = el("form", { class: "panel new-match sheet-new", "aria-labelledby": "sheet-new-title", novalidate: true },
    el("h1", { id: "sheet-new-title", text: t("sheet.newTitle") }),
    el("p", { text: t("sheet.intro") }),
    el("fieldset", {},
      el("legend", { text: t("sheet.playersOrder") }),
      el("p", { class: "hint", text: t("sheet.orderHint") }),
      ...names.flatMap((input, index) => [el("label", { for: input.id, text: t("sheet.playerN", { n: index + 1 }) }), input])),
    el("label", { for: "sheet-profile", text: t("home.rules") }), profile, summary,
    el("details", {},
      el("summary", { text: t("sheet.changeRules") }),
      el("label", { for: "sheet-changes", text: t("sheet.changes") }), changes,
      el("p", { id: "sheet-changes-hint", class: "hint" }, t("sheet.changesHint"), " ",
        ...["deals=10", "deals=open", "min_total_calls=10", "eight_wins=true"].flatMap((option, index) =>
          [index ? ", " : "", el("code", { text: option })]))),
    problem,
    el("button", { type: "submit", class: "primary", text: t("sheet.start") }));

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    problem.textContent = "";
    const extra = changes.value.trim();
    const body = {
      names: names.map((input) => input.value),
      rules: extra ? `${profile.value}(${extra})` : profile.value,
    };
    // The server checks the names (one check, its own: case-blind, 24 characters at most) and
    // says what is wrong as a code, worded here in the page's language.
    try {
      const sheet = await api("/api/sheets", { method: "POST", body });
      keepEntry("sheet", sheet.id, { token: sheet.token }); // the server keeps only its hash
      location.hash = `#/sheet/${sheet.id}`;
    } catch (error) {
      problem.textContent = serverText(error);
    }
  });

  view.append(el("div", { class: "sheet-page" }, form, sheetList(sheets)));
  // The first name is typed at once from a keyboard; on a touch screen no field takes the
  // focus on load, or the phone's keyboard would open over the form.
  if (!coarse()) names[0].focus();
}

function sheetList(sheets) {
  const heading = el("h2", { id: "sheet-list-title", text: t("sheet.list") });
  if (!sheets.length) {
    return el("section", { class: "panel wide sheet-list", "aria-labelledby": "sheet-list-title" },
      heading, el("p", { class: "hint", text: t("sheet.noneYet") }));
  }
  const rows = sheets.map((sheet) => {
    const players = sheet.names.map((name, seat) =>
      `${name}: ${score(sheet.totals[seat])}` + (sheet.over ? `, ${placeText(sheet.places, seat)}` : "")).join("; ");
    const state = tn(sheet.over ? "sheet.finishedDeals" : "sheet.dealsSoFar", sheet.deals_played);
    return el("tr", { "data-sheet": sheet.id },
      el("td", { text: formatDate(sheet.updated) }),
      el("td", { text: rulesName(sheet.rules) }),
      el("td", { text: state }),
      el("td", { text: players }),
      el("td", { class: "actions" },
        el("a", { href: `#/sheet/${sheet.id}`, "aria-label": t("sheet.openOf", { names: sheet.names.join(", ") }), text: t("history.open") })));
  });
  return el("section", { class: "panel wide sheet-list", "aria-labelledby": "sheet-list-title" },
    heading,
    el("div", { class: "sheet-scroll" },
      el("table", { class: "history" },
        el("thead", {}, el("tr", {}, ...[t("sheet.lastChanged"), t("home.rules"), t("sheet.deals"), t("history.playersTotals"), ""]
          .map((text) => el("th", { scope: "col", text })))),
        el("tbody", {}, ...rows))));
}

// --- #/sheet/<id>: the score table and the entry form ---------------------------------------

async function renderSheet(view, id) {
  const alert = el("p", { class: "error sheet-alert", role: "alert" });
  const token = heldToken("sheet", id);
  if (!token) {
    view.append(notHeld("sheet"));
    return;
  }
  let sheet;
  try {
    sheet = await api(`/api/sheets/${id}`, { token });
  } catch (error) {
    alert.textContent = serverText(error);
    view.append(el("div", { class: "panel" }, el("h1", { text: t("nav.sheet") }), alert,
      el("p", {}, el("a", { href: "#/sheet", text: t("sheet.all") }))));
    return;
  }

  const draftKey = `callbreak:sheet-draft:${id}`;
  let editing = null; // the number of the past deal loaded into the form, or null

  const page = el("div", { class: "sheet-page" });
  view.append(page);

  /** Draw the sheet anew from the server's view of it. */
  function draw(focusEntry = false) {
    const number = editing ?? sheet.next_deal;
    const form = number ? entryForm(sheet, number, editing !== null) : null;
    page.replaceChildren(
      header(sheet),
      scoreTable(sheet, editing, (n) => {
        editing = n;
        alert.textContent = "";
        draw(true);
        page.querySelector(".sheet-entry")?.scrollIntoView({ block: "nearest" });
      }),
      form || el("p", { class: "sheet-done", text: t("sheet.done") }),
      alert,
      actions(sheet));
    if (!form) return;
    const inputs = [...form.querySelectorAll("input")];
    if (editing !== null) {
      const deal = sheet.deals[editing - 1];
      deal.calls.forEach((value, seat) => { inputs[seat].value = value; });
      deal.tricks.forEach((value, seat) => { inputs[4 + seat].value = value; });
    } else {
      // A deal half entered (calls at the start, tricks at the end) survives a reload.
      const draft = JSON.parse(localStorage.getItem(draftKey) || "null");
      if (draft && draft.number === number) draft.values.forEach((value, i) => { inputs[i].value = value; });
      form.addEventListener("input", () => {
        localStorage.setItem(draftKey, JSON.stringify({ number, values: inputs.map((input) => input.value) }));
      });
    }
    form.dispatchEvent(new Event("recount"));
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      alert.textContent = "";
      const values = inputs.map((input) => (input.value.trim() === "" ? null : Number(input.value)));
      // The server checks the deal (the rules' own check, nothing of it copied here) and
      // stores nothing it refuses; its code is worded here in the page's language.
      try {
        sheet = await api(`/api/sheets/${id}/deals/${number}`, {
          method: "PUT", token, body: { calls: values.slice(0, 4), tricks: values.slice(4) },
        });
      } catch (error) {
        alert.textContent = serverText(error);
        return;
      }
      if (editing === null) localStorage.removeItem(draftKey);
      editing = null;
      draw(true);
    });
    form.querySelector("button.cancel")?.addEventListener("click", () => {
      editing = null;
      alert.textContent = "";
      draw(true);
    });
    if (focusEntry) inputs[0].focus();
  }

  function actions(current) {
    const last = current.deals.length;
    const remove = last ? el("button", { type: "button", class: "danger", text: t("sheet.delete", { deal: last }) }) : null;
    remove?.addEventListener("click", async () => {
      if (!confirm(t("sheet.deleteQuestion", { deal: last }))) return;
      alert.textContent = "";
      try {
        sheet = await api(`/api/sheets/${id}/deals/${last}`, { method: "DELETE", token });
      } catch (error) {
        alert.textContent = serverText(error);
        return;
      }
      if (editing === last) editing = null;
      draw();
      page.querySelector("button.danger, .sheet-entry input")?.focus();
    });
    return el("div", { class: "sheet-actions" },
      remove,
      downloadLink(`/api/sheets/${id}/export.csv`, token, t("sheet.csv")),
      downloadLink(`/api/sheets/${id}/export.json`, token, t("sheet.json")),
      el("a", { href: "#/sheet", text: t("sheet.all") }));
  }

  // As the new sheet's names: the first call focused for a keyboard, not on a touch screen.
  draw(!coarse());
}

function header(sheet) {
  const limit = sheet.deals_limit;
  let state;
  if (sheet.over) state = overReason(sheet);
  else if (limit) state = t("sheet.nextOf", { deal: sheet.next_deal, deals: limit });
  else state = t("sheet.nextOpen", { deal: sheet.next_deal });
  const result = sheet.over ? winnerText(sheet) : null;
  return el("div", { class: "sheet-head" },
    el("h1", { text: t("sheet.heading", { names: sheet.names.join(", ") }) }),
    el("p", { class: "hint" }, el("strong", { text: t("sheet.rules", { rules: rulesName(sheet.rules) }) }),
      ` (${rulesSummary(sheet.options)})`),
    el("p", { class: "sheet-state" + (sheet.over ? " over" : ""), text: state }),
    result ? el("p", { class: "sheet-result", text: result }) : null);
}

function winnerText(sheet) {
  const first = sheet.names.filter((_, seat) => sheet.places[seat] === 1);
  if (first.length === 1) return t("sheet.wins", { name: first[0] });
  return t("sheet.shareFirst", { names: first.slice(0, -1).join(", "), last: first[first.length - 1] });
}

/** Why the sheet's match is over, from its data: a made call of 8+, or every deal played. */
function overReason(sheet) {
  if (sheet.winners && sheet.winners.length) {
    const last = sheet.deals[sheet.deals.length - 1];
    const who = sheet.winners.map((seat) => t("sheet.madeEight", { name: sheet.names[seat], call: last.calls[seat] }));
    return t("sheet.overEight", { who: who.join(t("and")) });
  }
  return tn("sheet.overDeals", sheet.deals_limit);
}

function scoreTable(sheet, editing, onEdit) {
  const head = el("tr", {}, el("th", { scope: "col", text: t("scores.deal") }),
    ...sheet.names.map((name) => el("th", { scope: "col", class: "name", text: name })));
  const rows = sheet.deals.map((deal) => {
    const edit = el("button", {
      type: "button", class: "edit", text: t("sheet.edit"), "aria-label": t("sheet.editDeal", { deal: deal.number }),
      "aria-pressed": editing === deal.number ? "true" : null,
    });
    edit.addEventListener("click", () => onEdit(deal.number));
    return el("tr", { "data-deal": deal.number, class: editing === deal.number ? "editing" : null },
      el("th", { scope: "row" }, el("span", { class: "number", text: num(deal.number) }), edit),
      ...sheet.names.map((_, seat) => el("td", { class: deal.made[seat] ? "made" : "failed" },
        el("span", { class: "points", text: score(deal.scores[seat]) }),
        el("span", { class: "detail" },
          // Tricks taken / call, the order of the table's badges and summaries.
          el("span", { class: "sr-only", text: t("sheet.srTook") }), num(deal.tricks[seat]),
          el("span", { "aria-hidden": "true", text: " / " }),
          el("span", { class: "sr-only", text: t("sheet.srCalled") }), num(deal.calls[seat]),
          deal.made[seat] ? null : el("span", { class: "sr-only", text: t("sheet.srFailed") })))));
  });
  const placeLabel = sheet.over ? t("sheet.place") : t("sheet.standing");
  return el("div", { class: "sheet-scroll" },
    el("table", { class: "scores sheet-table" },
      el("caption", { text: t("sheet.caption") }),
      el("thead", {}, head),
      el("tbody", {}, ...(rows.length ? rows : [el("tr", {}, el("td", { colspan: "5", class: "empty", text: t("sheet.noDeal") }))])),
      el("tfoot", {},
        el("tr", { class: "total" }, el("th", { scope: "row", text: t("scores.total") }),
          ...sheet.totals.map((total) => el("td", { text: score(total) }))),
        // No standing before a deal is entered (everyone "1st (shared)" says nothing).
        sheet.deals.length ? el("tr", { class: "places" + (sheet.over ? " final" : "") },
          el("th", { scope: "row", text: placeLabel }),
          ...sheet.places.map((_, seat) => el("td", { text: placeText(sheet.places, seat) }))) : null)));
}

function entryForm(sheet, number, correcting) {
  const [low, high] = sheet.calls;
  const title = correcting ? t("sheet.correct", { deal: number }) : t("replay.dealN", { deal: number });
  const callInputs = sheet.names.map((name, seat) => el("input", {
    type: "number", inputmode: "numeric", min: low, max: high, step: "1", name: `call-${seat}`,
    id: `sheet-call-${seat}`, "aria-label": t("sheet.callOf", { name }), autocomplete: "off",
  }));
  const trickInputs = sheet.names.map((name, seat) => el("input", {
    type: "number", inputmode: "numeric", min: "0", max: "13", step: "1", name: `tricks-${seat}`,
    id: `sheet-tricks-${seat}`, "aria-label": t("sheet.tricksOf", { name }), autocomplete: "off",
  }));
  const count = el("p", { class: "hint sheet-count" });
  const buttons = el("div", { class: "sheet-buttons" },
    el("button", { type: "submit", class: "primary", text: t(correcting ? "sheet.save" : "sheet.add", { deal: number }) }),
    correcting ? el("button", { type: "button", class: "cancel", text: t("sheet.cancel") }) : null);
  // Calls are written down at the start of a deal and tricks at its end, so all the calls
  // come first in the tab order, then all the tricks, each in play order.
  const grid = el("div", { class: "sheet-grid" },
    el("span", { class: "corner", "aria-hidden": "true" }),
    ...sheet.names.map((name) => el("span", { class: "name", "aria-hidden": "true", text: name })),
    el("span", { class: "row-label", "aria-hidden": "true", text: t("sheet.call") }), ...callInputs,
    el("span", { class: "row-label", "aria-hidden": "true", text: t("sheet.tricks") }), ...trickInputs);
  const form = el("form", { class: "panel wide sheet-entry" + (correcting ? " correcting" : ""), novalidate: true, "aria-labelledby": "sheet-entry-title" },
    el("h2", { id: "sheet-entry-title", text: title }),
    el("p", { class: "hint", text: t(sheet.min_total_calls ? "sheet.rangeLeast" : "sheet.range", { low, high, least: sheet.min_total_calls }) }),
    grid, count, buttons);
  const recount = () => {
    const sum = (inputs) => inputs.reduce((total, input) => total + (Number(input.value) || 0), 0);
    const tricks = sum(trickInputs);
    const left = 13 - tricks;
    count.textContent = t("sheet.count", { calls: sum(callInputs), tricks, left });
  };
  form.addEventListener("input", recount);
  form.addEventListener("recount", recount);
  return form;
}

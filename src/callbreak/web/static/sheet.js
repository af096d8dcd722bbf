// The scoresheet for a game played with real cards: the table enters each deal's calls and
// tricks, the server checks and scores them. Every change is saved on the server at once, so
// the page always draws what the server answered and a reload loses nothing.

import { api, el, formatDate, placeText } from "./common.js";

/** Add sheet.css to the page once; the shared style.css is left to the other pages. */
function addStyles() {
  if (document.querySelector("link[data-sheet-css]")) return;
  document.head.append(el("link", { rel: "stylesheet", href: "/static/sheet.css", "data-sheet-css": "" }));
}

export async function render(view, params) {
  addStyles();
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
    [profiles, sheets] = await Promise.all([api("/api/profiles"), api("/api/sheets")]);
  } catch (error) {
    problem.textContent = `Could not load the scoresheets: ${error.message}`;
  }

  const names = [1, 2, 3, 4].map((seat) =>
    el("input", { id: `sheet-name-${seat}`, name: `name-${seat}`, maxlength: "24", autocomplete: "off" }));
  const profile = el("select", { id: "sheet-profile", name: "profile" },
    ...profiles.map((p) => el("option", { value: p.name, text: p.name })));
  const summary = el("p", { id: "sheet-profile-summary", class: "hint" });
  const showSummary = () => {
    const chosen = profiles.find((p) => p.name === profile.value);
    summary.textContent = chosen ? chosen.summary : "";
  };
  profile.addEventListener("change", showSummary);
  showSummary();
  const changes = el("input", {
    id: "sheet-changes", name: "changes", autocomplete: "off", spellcheck: "false",
    placeholder: "for example deals=10, eight_wins=true", "aria-describedby": "sheet-changes-hint",
  });

  const form = el("form", { class: "panel new-match sheet-new", "aria-labelledby": "sheet-new-title", novalidate: true },
    el("h1", { id: "sheet-new-title", text: "New scoresheet" }),
    el("p", { text: "Keep score of a game played with real cards: enter each deal's calls and tricks, and the sheet works out exact scores, totals and places." }),
    el("fieldset", {},
      el("legend", { text: "Players in play order" }),
      el("p", { class: "hint", text: "Each player plays after the one above: with anticlockwise play, the player on the right." }),
      ...names.flatMap((input, index) => [el("label", { for: input.id, text: `Player ${index + 1}` }), input])),
    el("label", { for: "sheet-profile", text: "Rules" }), profile, summary,
    el("details", {},
      el("summary", { text: "Change the rules" }),
      el("label", { for: "sheet-changes", text: "Changes to the profile" }), changes,
      el("p", { id: "sheet-changes-hint", class: "hint", text: "Options such as deals=10, deals=open, min_total_calls=10 or eight_wins=true, separated by commas." })),
    problem,
    el("button", { type: "submit", class: "primary", text: "Start the scoresheet" }));

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    problem.textContent = "";
    const extra = changes.value.trim();
    const body = {
      names: names.map((input) => input.value),
      rules: extra ? `${profile.value}(${extra})` : profile.value,
    };
    try {
      const sheet = await api("/api/sheets", { method: "POST", body });
      location.hash = `#/sheet/${sheet.id}`;
    } catch (error) {
      problem.textContent = error.message;
    }
  });

  view.append(el("div", { class: "sheet-page" }, form, sheetList(sheets)));
  names[0].focus();
}

function sheetList(sheets) {
  const heading = el("h2", { id: "sheet-list-title", text: "Scoresheets" });
  if (!sheets.length) {
    return el("section", { class: "panel wide sheet-list", "aria-labelledby": "sheet-list-title" },
      heading, el("p", { class: "hint", text: "No scoresheet yet." }));
  }
  const rows = sheets.map((sheet) => {
    const players = sheet.names.map((name, seat) =>
      `${name}: ${sheet.totals[seat]}` + (sheet.over ? `, ${placeText(sheet.places, seat)}` : "")).join("; ");
    const state = sheet.over ? `finished, ${sheet.deals_played} deals` : `${sheet.deals_played} deals so far`;
    return el("tr", { "data-sheet": sheet.id },
      el("td", { text: formatDate(sheet.updated) }),
      el("td", { text: sheet.rules }),
      el("td", { text: state }),
      el("td", { text: players }),
      el("td", { class: "actions" },
        el("a", { href: `#/sheet/${sheet.id}`, "aria-label": `Open the scoresheet of ${sheet.names.join(", ")}`, text: "Open" })));
  });
  return el("section", { class: "panel wide sheet-list", "aria-labelledby": "sheet-list-title" },
    heading,
    el("div", { class: "sheet-scroll" },
      el("table", { class: "history" },
        el("thead", {}, el("tr", {}, ...["Last changed", "Rules", "Deals", "Players and totals", ""]
          .map((text) => el("th", { scope: "col", text })))),
        el("tbody", {}, ...rows))));
}

// --- #/sheet/<id>: the score table and the entry form ---------------------------------------

async function renderSheet(view, id) {
  const alert = el("p", { class: "error sheet-alert", role: "alert" });
  let sheet;
  try {
    sheet = await api(`/api/sheets/${id}`);
  } catch (error) {
    alert.textContent = error.message;
    view.append(el("div", { class: "panel" }, el("h1", { text: "Scoresheet" }), alert,
      el("p", {}, el("a", { href: "#/sheet", text: "All scoresheets" }))));
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
      form || el("p", { class: "sheet-done", text: "Use Edit on a deal to correct it, or delete the last deal to go on." }),
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
      try {
        sheet = await api(`/api/sheets/${id}/deals/${number}`, {
          method: "PUT", body: { calls: values.slice(0, 4), tricks: values.slice(4) },
        });
      } catch (error) {
        alert.textContent = error.message;
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
    const remove = last ? el("button", { type: "button", class: "danger", text: `Delete deal ${last}` }) : null;
    remove?.addEventListener("click", async () => {
      if (!confirm(`Delete deal ${last}? Its calls and tricks are lost.`)) return;
      alert.textContent = "";
      try {
        sheet = await api(`/api/sheets/${id}/deals/${last}`, { method: "DELETE" });
      } catch (error) {
        alert.textContent = error.message;
        return;
      }
      if (editing === last) editing = null;
      draw();
      page.querySelector("button.danger, .sheet-entry input")?.focus();
    });
    return el("div", { class: "sheet-actions" },
      remove,
      el("a", { href: `/api/sheets/${id}/export.csv`, download: "", text: "Download CSV" }),
      el("a", { href: `/api/sheets/${id}/export.json`, download: "", text: "Download JSON" }),
      el("a", { href: "#/sheet", text: "All scoresheets" }));
  }

  draw(true);
}

function header(sheet) {
  const limit = sheet.deals_limit;
  let state;
  if (sheet.over) state = sheet.over_reason + ".";
  else if (limit) state = `Deal ${sheet.next_deal} of ${limit} is next.`;
  else state = `Deal ${sheet.next_deal} is next; the match is open-ended, so stop when the table agrees.`;
  const result = sheet.over ? winnerText(sheet) : null;
  return el("div", { class: "sheet-head" },
    el("h1", { text: `Scoresheet: ${sheet.names.join(", ")}` }),
    el("p", { class: "hint" }, el("strong", { text: `Rules: ${sheet.rules}` }), ` (${sheet.summary})`),
    el("p", { class: "sheet-state" + (sheet.over ? " over" : ""), text: state }),
    result ? el("p", { class: "sheet-result", text: result }) : null);
}

function winnerText(sheet) {
  const first = sheet.names.filter((_, seat) => sheet.places[seat] === 1);
  if (first.length === 1) return `${first[0]} wins.`;
  return `${first.slice(0, -1).join(", ")} and ${first[first.length - 1]} share first place.`;
}

function scoreTable(sheet, editing, onEdit) {
  const head = el("tr", {}, el("th", { scope: "col", text: "Deal" }),
    ...sheet.names.map((name) => el("th", { scope: "col", class: "name", text: name })));
  const rows = sheet.deals.map((deal) => {
    const edit = el("button", {
      type: "button", class: "edit", text: "Edit", "aria-label": `Edit deal ${deal.number}`,
      "aria-pressed": editing === deal.number ? "true" : null,
    });
    edit.addEventListener("click", () => onEdit(deal.number));
    return el("tr", { "data-deal": deal.number, class: editing === deal.number ? "editing" : null },
      el("th", { scope: "row" }, el("span", { class: "number", text: deal.number }), edit),
      ...sheet.names.map((_, seat) => el("td", { class: deal.made[seat] ? "made" : "failed" },
        el("span", { class: "points", text: deal.scores[seat] }),
        el("span", { class: "detail" },
          el("span", { class: "sr-only", text: "called " }), String(deal.calls[seat]),
          el("span", { "aria-hidden": "true", text: " / " }),
          el("span", { class: "sr-only", text: ", took " }), String(deal.tricks[seat]),
          deal.made[seat] ? null : el("span", { class: "sr-only", text: ", failed" })))));
  });
  const placeLabel = sheet.over ? "Place" : "Standing";
  return el("div", { class: "sheet-scroll" },
    el("table", { class: "scores sheet-table" },
      el("caption", { text: "Points per deal, with call / tricks taken under each score." }),
      el("thead", {}, head),
      el("tbody", {}, ...(rows.length ? rows : [el("tr", {}, el("td", { colspan: "5", class: "empty", text: "No deal entered yet." }))])),
      el("tfoot", {},
        el("tr", { class: "total" }, el("th", { scope: "row", text: "Total" }),
          ...sheet.totals.map((total) => el("td", { text: total }))),
        el("tr", { class: "places" + (sheet.over ? " final" : "") }, el("th", { scope: "row", text: placeLabel }),
          ...sheet.places.map((_, seat) => el("td", { text: placeText(sheet.places, seat) }))))));
}

function entryForm(sheet, number, correcting) {
  const [low, high] = sheet.calls;
  const title = correcting ? `Correct deal ${number}` : `Deal ${number}`;
  const callInputs = sheet.names.map((name, seat) => el("input", {
    type: "number", inputmode: "numeric", min: low, max: high, step: "1", name: `call-${seat}`,
    id: `sheet-call-${seat}`, "aria-label": `${name}'s call`, autocomplete: "off",
  }));
  const trickInputs = sheet.names.map((name, seat) => el("input", {
    type: "number", inputmode: "numeric", min: "0", max: "13", step: "1", name: `tricks-${seat}`,
    id: `sheet-tricks-${seat}`, "aria-label": `${name}'s tricks`, autocomplete: "off",
  }));
  const count = el("p", { class: "hint sheet-count" });
  const buttons = el("div", { class: "sheet-buttons" },
    el("button", { type: "submit", class: "primary", text: correcting ? `Save deal ${number}` : `Add deal ${number}` }),
    correcting ? el("button", { type: "button", class: "cancel", text: "Cancel" }) : null);
  // Calls are written down at the start of a deal and tricks at its end, so all the calls
  // come first in the tab order, then all the tricks, each in play order.
  const grid = el("div", { class: "sheet-grid" },
    el("span", { class: "corner", "aria-hidden": "true" }),
    ...sheet.names.map((name) => el("span", { class: "name", "aria-hidden": "true", text: name })),
    el("span", { class: "row-label", "aria-hidden": "true", text: "Call" }), ...callInputs,
    el("span", { class: "row-label", "aria-hidden": "true", text: "Tricks" }), ...trickInputs);
  const form = el("form", { class: "panel wide sheet-entry" + (correcting ? " correcting" : ""), novalidate: true, "aria-labelledby": "sheet-entry-title" },
    el("h2", { id: "sheet-entry-title", text: title }),
    el("p", { class: "hint", text: `Calls ${low}-${high}` + (sheet.min_total_calls ? `, at least ${sheet.min_total_calls} in all` : "") + "; tricks 0-13, 13 in all." }),
    grid, count, buttons);
  const recount = () => {
    const sum = (inputs) => inputs.reduce((total, input) => total + (Number(input.value) || 0), 0);
    const tricks = sum(trickInputs);
    const left = 13 - tricks;
    count.textContent = `Calls total ${sum(callInputs)}; tricks total ${tricks}` +
      (left > 0 ? ` (${left} left)` : left < 0 ? ` (${-left} too many)` : "") + ".";
  };
  form.addEventListener("input", recount);
  form.addEventListener("recount", recount);
  return form;
}

// What tests/e2e/test_phone.py checks in the page, installed before the page's own scripts run.
//
// window.__sync: each state message, checked 100 ms after it is shown (unless a newer one came
// meanwhile): the status line and the lit badge name the seat to act, "thinking" and the clock
// are on that seat only, no badge says "to play" while the table calls, and no hint is up for an
// earlier decision. The socket is watched from before the page opens it.
//
// window.__phone: the checks of the page as it is now (look), of the last trick (peek), of the
// card focused from the keyboard (focus), and what the page asks of its person (asks).
//
// window.__sent: the type of each message the page sent on its sockets, in order.

(() => {
  const Native = window.WebSocket;
  const sync = { count: 0, checked: 0, checkedVersion: null, wrong: [], latest: null };
  window.__sync = sync;

  // The page's own words: the names its badges show (a computer's in the page's language) and
  // its "to play".
  import("/static/i18n.js").then((i18n) => { sync.t = i18n.t; }).catch(() => {});
  const shownName = (state, seat) => {
    const strong = document.querySelector(`.seat[data-seat='${seat}'] .who strong`);
    return strong ? strong.textContent : state.names[seat];
  };

  const checkState = (state) => {
    const problems = [];
    const lit = [...document.querySelectorAll(".seat.turn")].map((seat) => Number(seat.dataset.seat));
    const status = document.querySelector(".status").textContent;
    const turn = state.match_over ? null : state.turn;
    if (JSON.stringify(lit) !== JSON.stringify(turn === null ? [] : [turn])) {
      problems.push(`lit ${JSON.stringify(lit)}, turn ${turn}`);
    }
    if (turn !== null && !state.paused) {
      const names = state.names.map((_, seat) => shownName(state, seat));
      if (turn !== state.seat && !status.includes(names[turn])) {
        problems.push(`status "${status}" does not name ${names[turn]}`);
      }
      names.forEach((name, seat) => {
        if (seat !== turn && status.includes(name)) problems.push(`status "${status}" names ${name}`);
      });
    }
    for (const element of document.querySelectorAll(".seat .doing.thinking, .seat .clock")) {
      const seat = Number(element.closest(".seat").dataset.seat);
      if (seat !== turn) problems.push(`${element.className} on seat ${seat}, turn ${turn}`);
    }
    if (state.phase === "calling") {
      const toPlay = sync.t ? sync.t("table.toPlay") : "to play";
      for (const what of document.querySelectorAll(".seat .doing .what")) {
        if (what.textContent.trim() === toPlay) problems.push(`"${what.textContent}" while calling`);
      }
    }
    const note = document.querySelector(".note.hint:not([hidden])");
    if (note && Number(note.dataset.version) !== state.version) {
      problems.push(`hint "${note.textContent}" of ${note.dataset.version} at ${state.version}`);
    }
    return problems;
  };

  window.__sockets = [];
  // The type of every message the page sends, in order: a tap that must not play is checked
  // by what the page said, not by a wait that proves nothing.
  window.__sent = [];
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      window.__sockets.push(this);
      this.addEventListener("message", (event) => {
        let message;
        try {
          message = JSON.parse(event.data);
        } catch {
          return;
        }
        if (message.type !== "state") return;
        const mine = ++sync.count;
        sync.latest = message.state;
        // A finished trick stays up its whole time, whatever arrives meanwhile (the page shows
        // the states one after the other): a state is checked 100 ms after it is shown, its
        // trick on the table and no finished trick or summary up any more.
        // A deal's summary is up over the deal just played: the next deal is shown once it is
        // closed.
        const shown = () => !document.querySelector(".trick .card.winner") &&
          !document.querySelector("dialog.result[open]") &&
          document.querySelectorAll(".trick .card").length === message.state.trick.cards.length;
        const since = performance.now();
        const check = () => {
          if (sync.count !== mine) return; // a newer state arrived: it is checked instead
          if (!shown() && performance.now() - since < 10000) {
            setTimeout(check, 25);
            return;
          }
          setTimeout(() => {
            if (sync.count !== mine) return;
            sync.checked++;
            sync.checkedVersion = message.state.version;
            for (const problem of checkState(message.state)) {
              sync.wrong.push(`v${message.state.version}: ${problem}`);
            }
          }, 100);
        };
        setTimeout(check, 0);
      });
    }

    send(data) {
      try {
        window.__sent.push(JSON.parse(data).type);
      } catch {
        window.__sent.push(null);
      }
      super.send(data);
    }
  };

  const rect = (element) => element.getBoundingClientRect();
  const inside = (r, box, slack = 0.5) => r.left >= box.left - slack && r.right <= box.right + slack &&
    r.top >= box.top - slack && r.bottom <= box.bottom + slack;
  const meets = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 &&
    a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  const name = (element) => element.dataset.card || element.className;
  /** Whether the point (x, y) shows `card` (any part of it), nothing over it. */
  const hits = (x, y, card) => {
    const found = document.elementFromPoint(x, y);
    return Boolean(found) && found.closest(".card") === card;
  };
  const middle = (r) => [r.left + r.width / 2, r.top + r.height / 2];

  /** Everything checked of the page as it is now, and what is compared from state to state
   * (the hand's places, the badges' sizes, the cards' sizes). */
  function look() {
    const problems = [];
    const W = innerWidth;
    const H = innerHeight;
    const screen = { left: 0, top: 0, right: W, bottom: H };
    const dialog = document.querySelector("dialog[open]");
    const root = document.documentElement;
    const scroll = { x: root.scrollWidth - W, y: root.scrollHeight - H };
    const trick = [...document.querySelectorAll(".trick .card")];
    const hand = [...document.querySelectorAll(".hand:not([hidden]) .card:not(.gone)")];
    for (const card of [...trick, ...hand]) {
      if (!inside(rect(card), screen)) problems.push(`${name(card)} off the screen: ${JSON.stringify(rect(card))}`);
    }
    if (!dialog) {
      for (const card of trick) {
        if (!hits(...middle(rect(card)), card)) problems.push(`trick ${name(card)} covered at its centre`);
        if (!hits(...middle(rect(card.querySelector(".corner"))), card)) {
          problems.push(`trick ${name(card)} covered at its index`);
        }
      }
      // A fingertip of each hand card a person taps, from its top left corner (where its index
      // is), is its own; a hand nobody taps (the replay's) shows each card's index.
      for (const card of hand) {
        const r = rect(card);
        if (card.tagName !== "BUTTON") {
          if (!hits(...middle(rect(card.querySelector(".corner"))), card)) {
            problems.push(`hand ${name(card)}: its index is covered`);
          }
          continue;
        }
        let covered = 0;
        for (let x = r.left + 2; x <= r.left + 42; x += 4) {
          for (let y = r.top + 2; y <= r.top + 42; y += 4) if (!hits(x, y, card)) covered++;
        }
        if (r.width < 44 || r.height < 44 || covered) {
          problems.push(`hand ${name(card)} shows less than 44×44 (${covered} points covered)`);
        }
      }
    }
    for (const far of document.querySelectorAll(".hand .card .corner.far")) {
      if (getComputedStyle(far).display !== "none") {
        problems.push("a hand card's far corner shows");
        break;
      }
    }
    const board = document.querySelector(".board");
    const seats = [...document.querySelectorAll(".board .seat")];
    const sizes = {};
    if (board && seats.length) {
      const b = rect(board);
      const style = getComputedStyle(board);
      const padded = {
        left: b.left + parseFloat(style.paddingLeft) - 1, right: b.right - parseFloat(style.paddingRight) + 1,
        top: b.top + parseFloat(style.paddingTop) - 1, bottom: b.bottom - parseFloat(style.paddingBottom) + 1,
      };
      const grow = parseFloat(getComputedStyle(root).fontSize) * 0.3; // the clock ring
      for (const seat of seats) {
        const s = rect(seat);
        const which = seat.dataset.seat;
        sizes[seat.className.match(/pos-\d/)[0]] = [Math.round(s.width), Math.round(s.height)];
        if (!inside(s, padded)) {
          problems.push(`badge ${which} runs under the board's edge: ${JSON.stringify([s, padded])}`);
        }
        for (const line of seat.querySelectorAll(".who, .line, .doing, .avatar, .avatar .mark")) {
          if (!inside(rect(line), s, 1)) problems.push(`badge ${which}: ${line.className} outside it`);
        }
        for (const card of trick) if (meets(s, rect(card))) problems.push(`badge ${which} over ${name(card)}`);
        for (const other of seats) {
          if (other !== seat && meets(s, rect(other))) problems.push(`badge ${which} meets badge ${other.dataset.seat}`);
        }
        const clocked = seat.querySelector(".avatar.clocked");
        if (clocked) {
          const a = rect(clocked);
          const ring = { left: a.left - grow, right: a.right + grow, top: a.top - grow, bottom: a.bottom + grow };
          if (meets(ring, rect(seat.querySelector(".who strong")))) problems.push(`clock ring over the name on ${which}`);
        }
      }
      const calling = document.querySelector(".calling:not([hidden])");
      for (const seat of calling ? seats : []) {
        if (meets(rect(calling), rect(seat))) problems.push(`the calls cover badge ${seat.dataset.seat}`);
      }
    }
    const note = document.querySelector(".note:not([hidden])");
    if (note) {
      const n = rect(note);
      if (!inside(n, rect(document.querySelector(".status-box")), 1)) problems.push("a note beyond the status line");
      for (const seat of seats) if (meets(n, rect(seat))) problems.push(`a note over badge ${seat.dataset.seat}`);
      if (note.scrollHeight > note.clientHeight + 1) problems.push(`a note cut short: ${note.textContent}`);
    }
    const places = Object.fromEntries([...document.querySelectorAll(".hand:not([hidden]) .card")]
      .map((card) => [card.dataset.card, [card.offsetLeft, card.offsetTop]]));
    const widths = [...trick, ...hand]
      .map((card) => [card.closest(".trick") ? "trick" : "hand", rect(card).width, rect(card).height]);
    return { problems, scroll, sizes, places, widths, version: sync.latest && sync.latest.version };
  }

  /** The last trick: every mini card drawn whole (its own index on it, nothing over it), on
   * the screen, and beside the trick being played (or over the hand), never over the trick. */
  function peek() {
    const problems = [];
    const shown = rect(document.querySelector(".peek"));
    if (meets(shown, rect(document.querySelector(".trick")))) problems.push("the last trick covers the trick");
    if (!inside(shown, { left: 0, top: 0, right: innerWidth, bottom: innerHeight })) problems.push("off the screen");
    for (const card of document.querySelectorAll(".peek .card")) {
      const corner = rect(card.querySelector(".corner"));
      if (!inside(corner, rect(card))) problems.push(`${card.dataset.card}: its index is not on it`);
      if (!hits(...middle(corner), card)) problems.push(`${card.dataset.card}: its index is covered`);
    }
    return problems;
  }

  /** The card after the focused one: "" when its index shows, else its code (null: none). */
  function focus() {
    const cards = [...document.querySelectorAll(".hand .card:not(.gone)")];
    const index = cards.indexOf(document.activeElement);
    const next = cards[index + 1];
    if (index < 0 || !next) return null;
    return hits(...middle(rect(next.querySelector(".corner"))), next) ? "" : next.dataset.card;
  }

  /** What the page asks of its person now (or shows: a trick won). */
  function asks() {
    if (document.querySelector("dialog.result[open]")) return "dialog";
    if (document.querySelector(".play-page[data-over]")) return "over";
    if (document.querySelector(".calling:not([hidden]) button.call")) return "call";
    if (document.querySelector(".hand.active .card.playable:not(.gone)")) return "play";
    if (document.querySelector(".trick .card.winner")) return "won";
    return null;
  }

  window.__phone = { look, peek, focus, asks };
})();

// Play now (#/now, #/now/POOL): a table with people this browser does not know, in one tap
// (docs/public.md, "Pools"). It makes this browser's player if it has none (player.js; its form
// only when this browser knows no name to play under), picks a pool (the one asked for, else
// the last one played, else the server's first), joins it, shows the wait with its seconds,
// and opens the table when the server has seated the person: their seat's token is kept as a
// room's (common.js), so the room's page (room.js) plays it, and a reload or a new tab comes
// back to it.

import { api, el, keepRoomEntry, ROOM_CODE, rulesName, savedName, serverText } from "./common.js";
import { num, t } from "./i18n.js";
import { asPlayer, avatarImage, makePlayer, myPlayer, playerForm, someAvatar } from "./player.js";

const POOL_KEY = "callbreak:pool";
const POLL_MS = 1000; // the status poll: a seat is given within the server's half-second looks

/**
 * The start page's Play now: one button, and a line on what it does (with who this browser
 * plays as, once it has a player). Compact: the new match's form stays in sight on a phone.
 * @returns {HTMLElement}
 */
export function playNowPanel() {
  const me = myPlayer();
  const line = me && me.name ? t("now.introAs", { name: me.name }) : t("now.intro");
  return el("section", { class: "panel wide now-panel", "aria-label": t("now.title") },
    el("a", { class: "button primary play-now", href: "#/now", role: "button" },
      me && me.avatar ? avatarImage(me.avatar) : null, t("now.button")),
    el("p", { class: "hint", text: line }));
}

/**
 * @param {HTMLElement} view the page's box
 * @param {string[]} params the pool's name, if the address names one
 * @returns {Promise<(() => void) | null | void>} what closes the page
 */
export async function render(view, [asked]) {
  const page = new NowPage(view, asked || null);
  await page.begin();
  return () => page.close();
}

class NowPage {
  constructor(view, asked) {
    this.view = view;
    this.asked = asked;
    this.pools = [];
    this.pool = null;
    this.closed = false;
    this.waiting = false;
    this.since = 0; // when the wait began, by this page's clock (ms)
    this.timer = undefined;
    this.ticker = undefined;
    this.problem = el("p", { class: "error", role: "alert" });
    this.panel = el("section", { class: "panel now-page", "aria-labelledby": "now-heading" });
    view.append(this.panel);
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.ticker);
    // Gone from the page while still waiting: off the list, so that nobody is seated at a
    // table they no longer look at.
    if (this.waiting && myPlayer() && this.pool) {
      asPlayer(`/api/pools/${this.pool.name}/leave`, { method: "POST" }).catch(() => {});
    }
  }

  async begin() {
    try {
      this.pools = await api("/api/pools");
    } catch (error) {
      this.show(t("now.title"), this.problem);
      this.problem.textContent = serverText(error);
      return;
    }
    if (!this.pools.length) {
      this.show(t("now.title"), el("p", { text: t("now.noPools") }), el("p", {}, el("a", { href: "#/", text: t("startMatch") })));
      return;
    }
    const last = localStorage.getItem(POOL_KEY);
    const named = (name) => this.pools.find((pool) => pool.name === name);
    this.pool = named(this.asked) || named(last) || this.pools[0];
    if (myPlayer()) {
      await this.join();
      return;
    }
    const known = savedName();
    if (known) await this.make(known);
    else this.askName();
  }

  /** Draw the panel anew: a heading and what goes under it. */
  show(heading, ...children) {
    this.panel.replaceChildren(el("h1", { id: "now-heading", text: heading }), ...children.filter(Boolean));
  }

  /** This browser knows no name to play under (or the one it knew was refused): the one
   * question Play now asks, player.js's form. */
  askName(refused = "") {
    const form = playerForm(() => this.join(), { submit: t("now.button"), refused });
    this.show(t("now.title"), form);
  }

  /** Make this browser's player under the name it knows, with an avatar drawn at random. */
  async make(name) {
    try {
      await makePlayer(name, someAvatar());
    } catch (error) {
      // The name the browser kept is refused (a rule it was not checked by): asked instead.
      this.askName(serverText(error));
      return;
    }
    await this.join();
  }

  async join() {
    if (!myPlayer() || this.closed) return;
    const pool = this.pool;
    localStorage.setItem(POOL_KEY, pool.name);
    this.drawWait(0);
    try {
      this.heard(await asPlayer(`/api/pools/${pool.name}/join`, { method: "POST" }));
    } catch (error) {
      if (error.code === "not_a_player") {
        // The server no longer knows this browser's player (its data was reset): asPlayer
        // forgot it, a new one is made.
        this.begin();
        return;
      }
      this.failed(error);
    }
  }

  /** What the server said of the person's place. */
  heard(place) {
    if (this.closed) return;
    if (place.state === "seated" && !place.over && ROOM_CODE.test(place.room)) {
      this.waiting = false;
      keepRoomEntry(place.room, { token: place.token, seat: place.seat });
      // The table replaces the wait in the browser's history: Back goes to the start page.
      location.replace(`#/room/${place.room}`);
      return;
    }
    if (place.state === "none" || (place.state === "seated" && place.over)) {
      this.join(); // off the list, or the last table is over: a new wait
      return;
    }
    this.waiting = true;
    this.since = Date.now() - 1000 * (place.waited || 0);
    this.drawWait(place.waited || 0);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.poll(), POLL_MS);
  }

  async poll() {
    if (this.closed || !myPlayer()) return;
    try {
      this.heard(await asPlayer(`/api/pools/${this.pool.name}/place`));
    } catch (error) {
      this.failed(error);
    }
  }

  failed(error) {
    this.waiting = false;
    clearInterval(this.ticker);
    this.problem.textContent = serverText(error);
    const again = el("button", { type: "button", class: "primary", text: t("now.again"), onclick: () => this.join() });
    this.show(t("now.title"), this.problem, el("p", { class: "now-actions" }, again, " ",
      el("a", { href: "#/", text: t("now.back") })));
  }

  /** The wait: its seconds (ticking here between polls), the pool, and a way out. */
  drawWait(seconds) {
    if (this.panel.querySelector(".now-wait")) {
      this.tick(seconds);
      return;
    }
    const pool = this.pool;
    this.seconds = el("span", { class: "now-seconds", text: num(Math.floor(seconds)) });
    const others = this.pools.filter((other) => other.name !== pool.name).map((other) =>
      el("button", { type: "button", class: "now-other", text: t("now.instead", { rules: rulesName(other.rules) }),
        onclick: () => { this.pool = other; this.join(); } }));
    const me = myPlayer();
    this.show(t("now.looking"),
      el("p", { class: "now-wait", role: "status" },
        el("span", { class: "spinner", "aria-hidden": "true" }),
        t("now.waited"), " ", this.seconds, " ", t("now.secondsShort")),
      el("p", { class: "now-pool", text: t("now.pool", { rules: rulesName(pool.rules), seconds: pool.turn_seconds }) }),
      el("p", { class: "hint", text: t("now.how", { seconds: Math.round(pool.wait) }) }),
      me && me.name ? el("p", { class: "hint now-who" }, me.avatar ? avatarImage(me.avatar) : null, t("now.as", { name: me.name })) : null,
      this.problem,
      el("p", { class: "now-actions" },
        el("button", { type: "button", class: "cancel", text: t("now.cancel"), onclick: () => this.cancel() }),
        ...others));
    clearInterval(this.ticker);
    this.since = Date.now() - 1000 * seconds;
    this.ticker = setInterval(() => this.tick(), 250);
  }

  tick(seconds = (Date.now() - this.since) / 1000) {
    if (this.seconds) this.seconds.textContent = num(Math.max(0, Math.floor(seconds)));
  }

  async cancel() {
    this.waiting = false;
    clearTimeout(this.timer);
    clearInterval(this.ticker);
    if (myPlayer()) await asPlayer(`/api/pools/${this.pool.name}/leave`, { method: "POST" }).catch(() => {});
    location.hash = "#/";
  }
}

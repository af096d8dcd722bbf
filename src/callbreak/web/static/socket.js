// A table's WebSocket: connected, kept alive and connected again when lost. The server pings
// every few seconds ({"type": "ping", "every": S}); a page cannot see the protocol's own pings,
// and a frozen server closes nothing: silence for 2.5 intervals means it is gone, so the socket
// is let go and connected again. The page (table.js) hears every other message.

/**
 * @typedef {object} SocketHandlers
 * @property {() => void} opened connected (again): the first message is sent next
 * @property {() => (object | null)} hello the first message of every connection, or null
 * @property {(message: any) => void} heard a message from the server (never a ping)
 * @property {(code: number) => boolean} lost the connection is gone (its close code): false
 *   when the page wants no new one (it was left, or the table does not exist)
 * @property {(restarting: boolean) => void} lostWord the connection is gone for a reason the person
 *   should hear (restarting: the server said it was restarting, and is not back yet)
 */

/** Silence for this many ping intervals means the server is gone. */
const SILENT_PINGS = 2.5;

/** A table's socket, connected again whenever it is lost, until it is closed. */
export class TableSocket {
  /**
   * @param {string} path the socket's path on this server, such as "/ws/matches/ID"
   * @param {SocketHandlers} handlers
   */
  constructor(path, handlers) {
    this.path = path;
    this.handlers = handlers;
    /** @type {WebSocket | null} */
    this.socket = null;
    this.retry = 0;
    this.closed = false;
    // The server closed with 1012 and no connection has opened since: on one process (no
    // other to take over) the person hears that it is restarting, not that the line dropped.
    this.restarting = false;
  }

  /** Open a connection (the one the messages come from from now on). */
  connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${location.host}${this.path}`);
    this.socket = socket;
    let heard = Date.now();
    let every = 5;
    let gone = false;
    const lost = (/** @type {number} */ code) => {
      if (gone) return;
      gone = true;
      clearInterval(watch);
      if (socket !== this.socket || this.closed || !this.handlers.lost(code)) return;
      // 4429: over the server's limits (its error said so): trying again at once would only
      // be refused again. 1012: the server is restarting; another takes over (behind a load
      // balancer): back at once, and nothing to tell the person unless that fails too.
      const limited = code === 4429;
      const restarting = code === 1012;
      if (restarting) this.restarting = true;
      else if (!limited) this.handlers.lostWord(this.restarting);
      this.retry = restarting ? 0 : Math.min(this.retry + 1, 5);
      const wait = limited ? 15_000 : restarting ? 100 + Math.random() * 400 : 300 * this.retry;
      setTimeout(() => { if (!this.closed && socket === this.socket) this.connect(); }, wait);
    };
    const watch = setInterval(() => {
      if (Date.now() - heard < SILENT_PINGS * every * 1000) return;
      lost(4000); // not waiting for a closing handshake a frozen server would never answer
      socket.close();
    }, 1000);
    socket.addEventListener("open", () => {
      this.retry = 0;
      this.restarting = false;
      heard = Date.now();
      this.handlers.opened();
      const hello = this.handlers.hello();
      if (hello) socket.send(JSON.stringify(hello));
    });
    socket.addEventListener("message", (event) => {
      heard = Date.now();
      const message = JSON.parse(event.data);
      if (message.type === "ping") {
        every = message.every || every;
        return;
      }
      if (socket === this.socket) this.handlers.heard(message);
    });
    socket.addEventListener("close", (event) => lost(event.code));
  }

  /** Connect again at once, saying hello anew (a room's seat token changed). */
  reconnect() {
    const old = this.socket;
    this.socket = null;
    if (old) old.close();
    this.connect();
  }

  /**
   * Send `message` (as JSON); false when there is no open connection to send it on.
   * @param {object} message
   * @returns {boolean}
   */
  send(message) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) {
      this.socket.send(JSON.stringify(message));
      return true;
    }
    return false;
  }

  /** Close for good: the page was left. */
  close() {
    this.closed = true;
    if (this.socket) this.socket.close();
  }
}

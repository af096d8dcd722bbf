// Sounds of the table, made in the page with Web Audio (nothing is downloaded): a card laid,
// a trick won (brighter when it is yours), your turn, a call made or broken. Off until the
// person turns them on; the choice is remembered in the browser.

const KEY = "callbreak:sound";
let context = null;

/** The kinds of the sounds this page has made, in order (the tests read it). */
export const heard = [];

/**
 * @returns {boolean}
 */
export function enabled() {
  try {
    return localStorage.getItem(KEY) === "on";
  } catch {
    return false;
  }
}

/**
 * @param {boolean} on
 */
export function setEnabled(on) {
  try {
    localStorage.setItem(KEY, on ? "on" : "off");
  } catch {
    // not remembered
  }
  // Made on the click that turns sound on, so the browser lets it play.
  if (on) audio();
}

function audio() {
  if (!context) {
    const Context = window.AudioContext || /** @type {any} */ (window).webkitAudioContext;
    if (!Context) return null;
    context = new Context();
  }
  if (context.state === "suspended") context.resume().catch(() => {});
  return context;
}

/** A short tone: frequency in Hz, start offset and length in seconds, peak loudness. */
function tone(ctx, frequency, start, length, peak = 0.18, type = "sine") {
  const oscillator = ctx.createOscillator();
  const gain = ctx.createGain();
  oscillator.type = type;
  oscillator.frequency.value = frequency;
  const at = ctx.currentTime + start;
  gain.gain.setValueAtTime(0.0001, at);
  gain.gain.exponentialRampToValueAtTime(peak, at + 0.012);
  gain.gain.exponentialRampToValueAtTime(0.0001, at + length);
  oscillator.connect(gain).connect(ctx.destination);
  oscillator.start(at);
  oscillator.stop(at + length + 0.02);
}

/** A card laid on the felt: a short burst of filtered noise. */
function snap(ctx) {
  const length = Math.floor(ctx.sampleRate * 0.06);
  const buffer = ctx.createBuffer(1, length, ctx.sampleRate);
  const samples = buffer.getChannelData(0);
  for (let i = 0; i < length; i++) samples[i] = (Math.random() * 2 - 1) * (1 - i / length) ** 3;
  const source = ctx.createBufferSource();
  source.buffer = buffer;
  const filter = ctx.createBiquadFilter();
  filter.type = "bandpass";
  filter.frequency.value = 1800;
  const gain = ctx.createGain();
  gain.gain.value = 0.5;
  source.connect(filter).connect(gain).connect(ctx.destination);
  source.start();
}

const SOUNDS = {
  card: (ctx) => snap(ctx),
  trick: (ctx) => { tone(ctx, 523, 0, 0.14, 0.1); tone(ctx, 659, 0.08, 0.18, 0.1); },
  won: (ctx) => { tone(ctx, 659, 0, 0.14); tone(ctx, 880, 0.09, 0.22); },
  turn: (ctx) => tone(ctx, 988, 0, 0.35, 0.12, "triangle"),
  made: (ctx) => { tone(ctx, 523, 0, 0.16); tone(ctx, 659, 0.1, 0.16); tone(ctx, 784, 0.2, 0.3); },
  broken: (ctx) => { tone(ctx, 392, 0, 0.2, 0.14, "triangle"); tone(ctx, 311, 0.16, 0.35, 0.14, "triangle"); },
};

/**
 * Play `kind` (card, trick, won, turn, made, broken) when sound is on.
 * @param {string} kind
 */
export function play(kind) {
  if (!enabled() || !SOUNDS[kind]) return;
  const ctx = audio();
  if (!ctx) return;
  try {
    SOUNDS[kind](ctx);
    heard.push(kind);
  } catch {
    // a sound is never worth an error
  }
}

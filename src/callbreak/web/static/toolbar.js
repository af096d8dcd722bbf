// The toolbar over the table (and the replay's): icon buttons with their words.

import { el } from "./common.js";

// The toolbar's icons: drawn here (no font has them all), stroked in the button's colour.
const ICONS = {
  hint: '<path d="M9 18h6M10 21h4"/><path d="M12 3a6 6 0 0 0-3.6 10.8c.7.6 1.1 1.3 1.1 2.2h5c0-.9.4-1.6 1.1-2.2A6 6 0 0 0 12 3z"/>',
  last: '<path d="M3.5 12a8.5 8.5 0 1 0 2.6-6.1"/><path d="M3 3.5V8h4.5"/><path d="M12 8v4.5l3 2"/>',
  scores: '<rect x="3.5" y="4.5" width="17" height="15" rx="2"/><path d="M3.5 9.5h17M3.5 14.5h17M9.5 4.5v15"/>',
  settings: '<path d="M4 7h9M17 7h3M4 12h3M11 12h9M4 17h11M19 17h1"/><circle cx="15" cy="7" r="2"/><circle cx="9" cy="12" r="2"/><circle cx="17" cy="17" r="2"/>',
  stop: '<path d="M6 21V4h11l-2.5 4.5L17 13H6"/>',
  react: '<circle cx="12" cy="12" r="8.5"/><path d="M8.5 14a4.5 4.5 0 0 0 7 0"/><path d="M9.2 9.6h.01M14.8 9.6h.01"/>',
  download: '<path d="M12 4v11M7.5 10.5 12 15l4.5-4.5"/><path d="M5 19.5h14"/>',
  back: '<path d="M15 5l-7 7 7 7"/>',
  on: '<path d="M9 5l7 7-7 7"/>',
  backTrick: '<path d="M12 5l-7 7 7 7M19 5l-7 7 7 7"/>',
  onTrick: '<path d="M12 5l7 7-7 7M5 5l7 7-7 7"/>',
};

/**
 * A one-finger drag is the page's (no scroll, no fling that would swallow the next tap); two
 * fingers still pinch to zoom.
 * @param {TouchEvent} event
 */
export function oneFinger(event) {
  if (event.touches.length === 1) event.preventDefault();
}

/**
 * One of the toolbar's icons, as markup.
 * @param {string} icon a key of ICONS
 * @returns {string}
 */
export function iconSvg(icon) {
  return '<svg viewBox="0 0 24 24" aria-hidden="true" focusable="false" fill="none" stroke="currentColor"' +
    ` stroke-width="2" stroke-linecap="round" stroke-linejoin="round">${ICONS[icon]}</svg>`;
}

/**
 * A toolbar button: its icon, and its words (shown beside it on a wide screen, else read out).
 * @param {string} icon
 * @param {string} className
 * @param {() => void} [onclick]
 * @returns {HTMLButtonElement}
 */
export function tool(icon, className, onclick) {
  const button = el("button", { type: "button", class: `tool ${className}`, onclick });
  button.innerHTML = `${iconSvg(icon)}<span class="label"></span>`;
  return button;
}

/**
 * Word a toolbar button (beside its icon, and as its title).
 * @param {HTMLElement} button
 * @param {string} text
 * @param {string} [title]
 */
export function labelTool(button, text, title = text) {
  button.querySelector(".label").textContent = text;
  button.title = title;
}

// Cards on the move: a card travels from where it was to where it is (or away), unless the
// person's browser asks for reduced motion.

/**
 * Whether cards travel (the person has not asked for reduced motion).
 * @returns {boolean}
 */
export function motion() {
  return !window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

/** A promise kept after `ms` milliseconds. */
export const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Move `element` from the rectangle `from` to where it is (or from where it is to `to`),
 * with a CSS transform; resolves when done.
 * @param {HTMLElement} element
 * @param {DOMRect | null} from
 * @param {DOMRect | null} to
 * @param {number} ms
 * @param {number} [delay]
 * @returns {Promise<unknown>}
 */
export function travel(element, from, to, ms, delay = 0) {
  const here = element.getBoundingClientRect();
  const shift = (rect) => {
    const dx = rect.left + rect.width / 2 - (here.left + here.width / 2);
    const dy = rect.top + rect.height / 2 - (here.top + here.height / 2);
    const scale = Math.max(0.25, Math.min(1.2, rect.width / (here.width || 1)));
    return `translate(${dx}px, ${dy}px) scale(${scale})`;
  };
  const frames = from
    ? [{ transform: shift(from), opacity: 0.85 }, { transform: "translate(0, 0) scale(1)", opacity: 1 }]
    : [{ transform: "translate(0, 0) scale(1)", opacity: 1 }, { transform: shift(to), opacity: 0 }];
  const animation = element.animate(frames, {
    duration: ms, delay, easing: "cubic-bezier(.2,.7,.3,1)", fill: from ? "backwards" : "forwards",
  });
  return animation.finished.catch(() => {});
}

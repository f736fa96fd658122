// Text that never clips: a label wraps between words and, when it still does not fit its box,
// shrinks step by step (down to a floor, where it may break inside a word). Each fitted element
// is measured again whenever its box changes size (a page shown, the kiosk, a rotation).

const MIN_PX = 9;
const boxes = new Map(); // a box -> the fitted elements in it
const observer = typeof ResizeObserver === "function"
  ? new ResizeObserver((entries) => {
    for (const entry of entries) for (const node of boxes.get(entry.target) || []) fit(node);
  })
  : null;

function overflows(node) {
  return node.scrollHeight > node.clientHeight + 1 || node.scrollWidth > node.clientWidth + 1;
}

/** Shrinks `node`'s font until its text fits the box it was given; a hidden node is left alone. */
export function fit(node) {
  if (!node.isConnected) return;
  node.style.fontSize = "";
  node.classList.remove("fit-floor");
  if (!node.clientWidth || !node.textContent) return;
  if (!overflows(node)) return;
  let size = parseFloat(getComputedStyle(node).fontSize) || 16;
  while (size > MIN_PX && overflows(node)) {
    size = Math.max(MIN_PX, size * 0.9);
    node.style.fontSize = `${size.toFixed(1)}px`;
  }
  if (overflows(node)) node.classList.add("fit-floor"); // the last resort: break inside words
}

/** Forgets a box taken off the page (a key deleted or rebuilt). */
export function forget(box) {
  if (observer) observer.unobserve(box);
  boxes.delete(box);
}

/** Fits `node` now and whenever `box` (its key, by default its parent) changes size. */
export function keepFitted(node, box = node.parentElement) {
  if (!boxes.has(box)) {
    boxes.set(box, new Set());
    if (observer) observer.observe(box);
  }
  boxes.get(box).add(node);
  fit(node);
}

/** Fits again every watched node (fonts loaded, a class that changes sizes). */
export function refitAll() {
  for (const nodes of boxes.values()) for (const node of nodes) fit(node);
}

/** Fits everything again once the web fonts are in (they change every text's size). */
export function refitWhenFontsLoad() {
  if (document.fonts && document.fonts.ready) document.fonts.ready.then(refitAll);
}

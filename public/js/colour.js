// Text that reads on a colour: black or white, whichever contrasts more.

/** Picks black or white text for a background colour (any CSS colour the browser knows). */
export function readableOn(color) {
  const hex = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(color || "");
  if (hex) return luminanceText(...hex.slice(1).map((h) => parseInt(h, 16)));
  const probe = document.createElement("span");
  probe.style.color = color;
  if (!probe.style.color) return null;
  document.body.append(probe);
  const rgb = getComputedStyle(probe).color.match(/[\d.]+/g) || [];
  probe.remove();
  const [r, g, b] = rgb.map(Number);
  if ([r, g, b].some((x) => Number.isNaN(x))) return null;
  return luminanceText(r, g, b);
}

function luminanceText(r, g, b) {
  const lin = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
  const L = 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
  return L > 0.22 ? "#111318" : "#ffffff"; // about where black and white contrast equally
}

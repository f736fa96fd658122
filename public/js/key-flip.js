// A toggle's two faces on a card that turns over (CSS 3D: about the y axis for flips, the x axis
// for curls) or cross-fades, with the button's transition, curve and duration.

export function configureFlip(view) {
  const flip = view.b.flip || {};
  const t = flip.transition || "flip-from-left";
  const axis = t.startsWith("curl") ? "x" : t.startsWith("flip") ? "y" : "";
  view.node.dataset.transition = t;
  view.node.classList.toggle("axis-x", axis === "x");
  view.node.classList.toggle("axis-y", axis === "y");
  view.node.classList.toggle("mode-fade", axis === "");
  if (axis !== view.axis) {
    view.axis = axis;
    view.angle = (view.face || 0) * 180;
    view.flipper.style.transition = "none";
    applyFaceStyles(view, view.face || 0);
  }
}

/** Shows face 0 or 1; `animate` runs the button's transition (a flip seen live). */
export function setFace(view, face, animate) {
  face = face === 1 ? 1 : 0;
  const prev = view.face;
  if (prev === face && !animate) return; // already shown (maybe still turning): leave it be
  view.face = face;
  const flip = view.b.flip || {};
  const t = flip.transition || "flip-from-left";
  const dur = animate && t !== "none" ? Math.max(0, Number(flip.durationMs ?? 300)) : 0;
  const curve = flip.curve || "ease-in-out";
  const dir = t === "flip-from-right" || t === "curl-down" ? -1 : 1;
  if (view.axis) {
    const parity = ((Math.round(view.angle / 180) % 2) + 2) % 2;
    if (parity !== face) view.angle += 180 * dir;
    view.flipper.style.transition = dur ? `transform ${dur}ms ${curve}` : "none";
    for (const f of view.faceEls) f.style.transition = "none";
  } else {
    for (const f of view.faceEls) f.style.transition = dur ? `opacity ${dur}ms ${curve}` : "none";
  }
  applyFaceStyles(view, face);
  if (animate && prev !== undefined && prev !== face && dur) {
    view.node.classList.add("flipping");
    clearTimeout(view.flipTimer);
    view.flipTimer = setTimeout(() => view.node.classList.remove("flipping"), dur + 30);
  }
  view.node.dataset.face = String(face);
}

function applyFaceStyles(view, face) {
  const [f0, f1] = view.faceEls;
  if (view.axis) {
    view.flipper.style.transform = `rotate${view.axis.toUpperCase()}(${view.angle}deg)`;
    f0.style.opacity = "";
    f1.style.opacity = "";
  } else {
    view.flipper.style.transform = "none";
    f0.style.opacity = face === 0 ? "1" : "0";
    f1.style.opacity = face === 1 ? "1" : "0";
  }
}

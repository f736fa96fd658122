// The button grid: rendering, live state from events, and input (Pointer Events + keyboard).

import { post, get, enc } from "./api.js";
import { el, svg, icon, showError, readableOn } from "./ui.js";
import { buttons, groupedButtons, ingest, onEvent, loadButtons } from "./store.js";

const views = new Map(); // id -> KeyView
let editing = false;
let openEditor = () => {};
let createInGroup = () => {};

export function setEditing(on) {
  editing = on;
  for (const v of views.values()) {
    v.node.classList.toggle("editing", on);
    v.node.title = on ? `Edit ${v.b.label || v.id}` : "";
  }
  render();
}
export function isEditing() { return editing; }
export function setEditorHooks(open, create) { openEditor = open; createInGroup = create; }

const N_TAP = { "single-tap": "single", "double-tap": "double", "triple-tap": "triple", "quadruple-tap": "×4", "quintuple-tap": "×5" };

// ---- input queue: one chain per button, so an up never overtakes its down --------------

const queues = new Map();
function enqueue(id, job) {
  const prev = queues.get(id) || Promise.resolve();
  const next = prev.then(job, job);
  queues.set(id, next);
  next.finally(() => { if (queues.get(id) === next) queues.delete(id); });
  return next;
}

function eventTime(e) {
  return Math.round(performance.timeOrigin + e.timeStamp);
}

function sendInput(press, kind, body) {
  const id = press.id;
  return enqueue(id, async () => {
    if (press.failed) return;
    const b = { ...body };
    if (!press.useT) delete b.t;
    const path = `buttons/${enc(id)}/${kind}`;
    try {
      let res;
      try {
        res = await post(path, b);
      } catch (err) {
        // A clock behind the server's: fall back to the server's clock for the rest of this press.
        if (err.code === "out_of_order" && "t" in b) {
          press.useT = false;
          delete b.t;
          res = await post(path, b);
        } else throw err;
      }
      if (res && res.events) ingest(res.events, "response");
    } catch (err) {
      if (kind === "down") press.failed = true;
      const view = views.get(id);
      // After a server-made cancel (max hold), the up is refused as not_down: that is expected.
      if (err.code === "not_down" && kind !== "down") { view && view.release(); return; }
      showError(err, `${(buttons.get(id) || {}).label || id}`);
      if (view) view.release();
      resyncButton(id);
    }
  });
}

async function resyncButton(id) {
  try {
    const b = await get(`buttons/${enc(id)}`);
    buttons.set(id, b);
    const v = views.get(id);
    if (v) v.update(b, { fromServer: true });
  } catch (err) {
    if (err.status === 404) { buttons.delete(id); render(); }
  }
}

// ---- one key ---------------------------------------------------------------------------

class KeyView {
  constructor(b) {
    this.id = b.id;
    this.b = b;
    this.press = null;          // the local press in progress
    this.releasedAt = 0;        // t of our last local up/cancel: stream events before it are ours, already shown
    this.lastStateSeq = 0;
    this.angle = 0;
    this.axis = "";
    this.build();
    this.update(b, { fromServer: true, first: true });
    this.bindInput();
  }

  build() {
    const b = this.b;
    this.kind = b.kind || "push";
    const node = el(`button.key.key-${this.kind}`, { type: "button", dataset: { id: b.id, kind: this.kind } });
    this.ring = svg("svg", { class: "ring", viewBox: "0 0 100 100", preserveAspectRatio: "none", "aria-hidden": "true" },
      svg("rect", { class: "ring-track", x: 3, y: 3, width: 94, height: 94, rx: 14, pathLength: 100 }),
      svg("rect", { class: "ring-fill", x: 3, y: 3, width: 94, height: 94, rx: 14, pathLength: 100 }));
    this.fill = this.ring.lastChild;
    this.badge = el("span.key-badge", { "aria-hidden": "true" });
    this.editMark = el("span.key-edit", { "aria-hidden": "true" }, icon("edit"));
    if (this.kind === "toggle") {
      this.faceEls = [0, 1].map((i) => el(`span.face.face-${i}`, {},
        el("span.face-caption"), el("span.face-label"), el("span.face-led", { "aria-hidden": "true" })));
      this.flipper = el("span.flipper", {}, ...this.faceEls);
      node.append(this.flipper, this.ring, this.badge, this.editMark);
    } else {
      this.labelEl = el("span.key-label");
      this.hint = el("span.key-hint");
      node.append(el("span.key-cap", { "aria-hidden": "true" }), this.labelEl, this.hint, this.ring, this.badge, this.editMark);
    }
    if (editing) node.classList.add("editing");
    this.node = node;
  }

  update(b, { fromServer = false, first = false } = {}) {
    if ((b.kind || "push") !== this.kind) {
      const old = this.node;
      this.b = b;
      this.build();
      this.bindInput();
      old.replaceWith(this.node);
      first = true;
    }
    this.b = b;
    const label = b.label || b.id;
    this.node.dataset.label = label;
    if (this.kind === "toggle") {
      const faces = b.faces && b.faces.length === 2 ? b.faces : [{ label: "Off" }, { label: "On" }];
      faces.forEach((f, i) => {
        const face = this.faceEls[i];
        face.querySelector(".face-caption").textContent = label;
        face.querySelector(".face-label").textContent = f.label || (i ? "On" : "Off");
        face.style.background = "";
        face.style.color = "";
        face.classList.toggle("has-color", !!f.color);
        if (f.color) {
          face.style.background = f.color;
          const fg = readableOn(f.color);
          if (fg) face.style.color = fg;
        }
      });
      this.configureFlip();
      if (fromServer && b.state) this.setFace(b.state.face || 0, false);
    } else {
      this.labelEl.textContent = label;
      const hints = [`hold ${fmtMs(b.longPressMs ?? 500)}`];
      const taps = ["", "", "double-tap", "triple-tap", "4× tap", "5× tap"][b.maxTaps ?? 2];
      if (taps) hints.push(taps);
      if (b.repeatMs > 0) hints.push("repeats");
      this.hint.replaceChildren(...hints.map((h, i) => el("span.hint-part", { text: (i ? " · " : "") + h })));
    }
    this.node.title = editing ? `Edit ${label}` : "";
    if (fromServer && b.state && !this.press) {
      if (b.state.held) this.showHeld(0, true); else this.release();
    }
    this.updateName();
  }

  updateName() {
    const label = this.b.label || this.b.id;
    if (this.kind === "toggle") {
      const face = this.face || 0;
      const faces = this.b.faces || [];
      const faceLabel = (faces[face] && faces[face].label) || (face ? "On" : "Off");
      this.node.setAttribute("aria-label", `${label}: ${faceLabel}`);
      this.node.setAttribute("aria-pressed", face === 1 ? "true" : "false");
    } else {
      this.node.removeAttribute("aria-label");
    }
  }

  configureFlip() {
    const flip = this.b.flip || {};
    const t = flip.transition || "flip-from-left";
    const axis = t.startsWith("curl") ? "x" : t.startsWith("flip") ? "y" : "";
    this.node.dataset.transition = t;
    this.node.classList.toggle("axis-x", axis === "x");
    this.node.classList.toggle("axis-y", axis === "y");
    this.node.classList.toggle("mode-fade", axis === "");
    if (axis !== this.axis) {
      this.axis = axis;
      this.angle = (this.face || 0) * 180;
      this.flipper.style.transition = "none";
      this.applyFaceStyles(this.face || 0);
    }
  }

  setFace(face, animate) {
    face = face === 1 ? 1 : 0;
    const prev = this.face;
    this.face = face;
    const flip = this.b.flip || {};
    const t = flip.transition || "flip-from-left";
    const dur = animate && t !== "none" ? Math.max(0, Number(flip.durationMs ?? 300)) : 0;
    const curve = flip.curve || "ease-in-out";
    const dir = t === "flip-from-right" || t === "curl-down" ? -1 : 1;
    if (this.axis) {
      const parity = ((Math.round(this.angle / 180) % 2) + 2) % 2;
      if (parity !== face) this.angle += 180 * dir;
      this.flipper.style.transition = dur ? `transform ${dur}ms ${curve}` : "none";
      for (const f of this.faceEls) f.style.transition = "none";
    } else {
      for (const f of this.faceEls) f.style.transition = dur ? `opacity ${dur}ms ${curve}` : "none";
    }
    this.applyFaceStyles(face);
    if (animate && prev !== undefined && prev !== face && dur) {
      this.node.classList.add("flipping");
      clearTimeout(this.flipTimer);
      this.flipTimer = setTimeout(() => this.node.classList.remove("flipping"), dur + 30);
    }
    this.node.dataset.face = String(face);
    this.updateName();
  }

  applyFaceStyles(face) {
    if (this.axis) {
      this.flipper.style.transform = `rotate${this.axis.toUpperCase()}(${this.angle}deg)`;
      this.faceEls[0].style.opacity = "";
      this.faceEls[1].style.opacity = "";
    } else {
      this.flipper.style.transform = "none";
      this.faceEls[0].style.opacity = face === 0 ? "1" : "0";
      this.faceEls[1].style.opacity = face === 1 ? "1" : "0";
    }
    this.faceEls[0].setAttribute("aria-hidden", "true");
    this.faceEls[1].setAttribute("aria-hidden", "true");
  }

  // -- visuals ------------------------------------------------------------------------

  showHeld(elapsedMs = 0, silent = false) {
    this.node.classList.add("held");
    this.node.classList.remove("long", "outside");
    const long = Math.max(1, Number(this.b.longPressMs ?? 500));
    const start = Math.min(1, Math.max(0, elapsedMs / long));
    const fill = this.fill;
    fill.style.transition = "none";
    fill.style.strokeDashoffset = String(100 - start * 100);
    this.ring.classList.add("active");
    if (silent && start >= 1) return;
    void fill.getBoundingClientRect();
    fill.style.transition = `stroke-dashoffset ${Math.max(0, long - elapsedMs)}ms linear`;
    fill.style.strokeDashoffset = "0";
  }

  release() {
    this.node.classList.remove("held", "outside");
    const fill = this.fill;
    fill.style.transition = "stroke-dashoffset 180ms ease-out, opacity 180ms";
    fill.style.strokeDashoffset = "100";
    this.ring.classList.remove("active");
    clearTimeout(this.longTimer);
    this.longTimer = setTimeout(() => this.node.classList.remove("long"), 250);
  }

  flash(text, kind = "") {
    this.badge.textContent = text;
    this.badge.dataset.kind = kind;
    this.badge.classList.remove("show");
    void this.badge.offsetWidth;
    this.badge.classList.add("show");
    clearTimeout(this.badgeTimer);
    this.badgeTimer = setTimeout(() => this.badge.classList.remove("show"), 1100);
  }

  pulse() {
    this.node.classList.remove("pulse");
    void this.node.offsetWidth;
    this.node.classList.add("pulse");
  }

  // -- events from the server ----------------------------------------------------------

  apply(ev) {
    const b = this.b;
    b.state = b.state || { held: false, face: 0, tapCount: 0 };
    const mine = ev.t <= this.releasedAt; // an event of a local press already shown as released
    const stale = ev.seq < this.lastStateSeq;
    switch (ev.type) {
      case "touch-down":
        if (!stale) { b.state.held = true; this.lastStateSeq = ev.seq; }
        if (!this.press && !mine && !stale) this.showHeld(Math.max(0, Date.now() - ev.t));
        break;
      case "touch-drag-exit":
        if (!this.press && !mine) this.node.classList.add("outside");
        break;
      case "touch-drag-enter":
        if (!this.press && !mine) this.node.classList.remove("outside");
        break;
      case "long-press":
        if (!mine || this.press) {
          this.node.classList.add("long");
          this.fill.style.transition = "stroke-dashoffset 60ms linear";
          this.fill.style.strokeDashoffset = "0";
        }
        this.flash("hold", "long");
        break;
      case "repeat":
        this.flash(`repeat ${ev.data && ev.data.repeat || ""}`.trim(), "long");
        break;
      case "touch-up-inside":
      case "touch-up-outside":
      case "touch-cancel":
        if (!stale) { b.state.held = false; this.lastStateSeq = ev.seq; }
        if (this.press) {
          if (ev.type === "touch-cancel" && ev.data && ev.data.reason && ev.t >= this.press.downT) {
            // the server ended our press (max hold / restart): send nothing more for it
            this.press.ended = true;
            this.press = null;
            this.release();
          } // else: the end of an earlier press, our current one is still down
        } else {
          this.release();
        }
        if (ev.type === "touch-cancel") this.flash(ev.data && ev.data.reason === "max-hold" ? "max hold" : "cancel", "cancel");
        break;
      case "tap": {
        const n = (ev.data && ev.data.tapCount) || 1;
        b.state.tapCount = n;
        this.pulse();
        if (n > 1) this.flash(`tap ×${n}`);
        break;
      }
      case "toggle":
        if (ev.seq >= (this.lastFaceSeq || 0)) {
          this.lastFaceSeq = ev.seq;
          const face = ev.data && ev.data.face === 1 ? 1 : 0;
          b.state.face = face;
          if (this.kind === "toggle") this.setFace(face, true);
        }
        break;
      default:
        if (N_TAP[ev.type] && ((ev.data && ev.data.tapCount) || 1) > 1) this.flash(`${N_TAP[ev.type]} tap`, "multi");
    }
    this.node.dataset.held = b.state.held ? "true" : "false";
  }

  // -- input ---------------------------------------------------------------------------

  bindInput() {
    const node = this.node;
    node.addEventListener("contextmenu", (e) => e.preventDefault());
    node.addEventListener("dragstart", (e) => e.preventDefault());
    node.addEventListener("selectstart", (e) => e.preventDefault());

    node.addEventListener("click", (e) => {
      if (editing) { e.preventDefault(); openEditor("button", this.id); }
    });

    node.addEventListener("pointerdown", (e) => {
      if (editing) return;
      if (e.pointerType === "mouse" && e.button !== 0) return;
      if (this.press) return; // a second finger on the same key is ignored
      e.preventDefault();
      try { node.setPointerCapture(e.pointerId); } catch { /* synthetic pointer */ }
      this.begin(e, e.pointerId, e.pointerType || "mouse");
    });

    node.addEventListener("pointermove", (e) => {
      const p = this.press;
      if (!p || p.pointerId !== e.pointerId) return;
      const r = node.getBoundingClientRect();
      const inside = e.clientX >= r.left && e.clientX <= r.right && e.clientY >= r.top && e.clientY <= r.bottom;
      if (inside === p.inside) return;
      p.inside = inside;
      node.classList.toggle("outside", !inside);
      sendInput(p, "move", { t: eventTime(e), inside });
    });

    const finish = (e, kind) => {
      const p = this.press;
      if (!p || p.pointerId !== e.pointerId) return;
      this.end(e, kind);
    };
    node.addEventListener("pointerup", (e) => {
      const p = this.press;
      if (!p || p.pointerId !== e.pointerId) return;
      const r = node.getBoundingClientRect();
      p.inside = e.clientX >= r.left && e.clientX <= r.right && e.clientY >= r.top && e.clientY <= r.bottom;
      finish(e, "up");
    });
    node.addEventListener("pointercancel", (e) => finish(e, "cancel"));
    node.addEventListener("lostpointercapture", (e) => finish(e, "cancel"));

    node.addEventListener("keydown", (e) => {
      if (editing) return;
      if (e.key !== " " && e.key !== "Enter") return;
      e.preventDefault();
      if (e.repeat || e.altKey || e.ctrlKey || e.metaKey) return;
      if (this.press) return;
      this.begin(e, "key:" + e.key, "keyboard");
    });
    node.addEventListener("keyup", (e) => {
      if (editing) return;
      if (e.key !== " " && e.key !== "Enter") return;
      e.preventDefault();
      const p = this.press;
      if (!p || p.pointerId !== "key:" + e.key) return;
      p.inside = true;
      this.end(e, "up");
    });
    node.addEventListener("blur", (e) => {
      const p = this.press;
      if (p && typeof p.pointerId === "string") this.end(e, "cancel");
    });
  }

  begin(e, pointerId, pointerType) {
    const t = eventTime(e);
    const p = { id: this.id, pointerId, inside: true, downT: t, useT: true, failed: false, ended: false };
    this.press = p;
    this.showHeld(0);
    sendInput(p, "down", { t, pointer: pointerType });
  }

  end(e, kind) {
    const p = this.press;
    if (!p || p.ended) return;
    p.ended = true;
    this.press = null;
    const t = Math.max(eventTime(e), p.downT);
    this.releasedAt = t;
    this.release();
    if (kind === "up") sendInput(p, "up", { t, inside: p.inside });
    else sendInput(p, "cancel", { t });
  }
}

function fmtMs(ms) {
  return ms >= 100 && ms % 100 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

// ---- the grid ----------------------------------------------------------------------------

let reloadTimer = null;
function scheduleReload() {
  clearTimeout(reloadTimer);
  reloadTimer = setTimeout(() => loadButtons().catch((err) => showError(err, "Loading buttons")), 150);
}

onEvent((ev, source) => {
  if (!ev.button || source === "history") return;
  const view = views.get(ev.button);
  if (!view) { scheduleReload(); return; }
  view.apply(ev);
});

export function render() {
  const host = document.getElementById("groups");
  const groups = groupedButtons();
  const alive = new Set();
  const wanted = [];
  for (const g of groups) {
    let section = host.querySelector(`:scope > section[data-group="${CSS.escape(g.name)}"]`);
    if (!section) {
      const title = el("h2.group-title", { text: g.name || "Buttons" });
      const keys = el("div.keys");
      section = el("section.group", { dataset: { group: g.name } }, title, keys);
    }
    section.querySelector(".group-title").hidden = g.name === "" && groups.length === 1;
    const keysEl = section.querySelector(".keys");
    const nodes = [];
    for (const b of g.buttons) {
      alive.add(b.id);
      let v = views.get(b.id);
      if (!v) { v = new KeyView(b); views.set(b.id, v); }
      else if (v.b !== b) v.update(b, { fromServer: true });
      v.node.classList.toggle("editing", editing);
      nodes.push(v.node);
    }
    if (editing) {
      let add = keysEl.querySelector(".key-add");
      if (!add) {
        add = el("button.key.key-add", { type: "button", on: { click: () => createInGroup(g.name) } },
          icon("plus"), el("span", { text: "New button" }));
      }
      nodes.push(add);
    }
    // Reorder only when needed: moving a node would drop its pointer capture.
    const current = [...keysEl.children];
    const same = current.length === nodes.length && current.every((n, i) => n === nodes[i]);
    if (!same) {
      for (const n of current) if (!nodes.includes(n)) n.remove();
      nodes.forEach((n, i) => {
        if (keysEl.children[i] !== n) keysEl.insertBefore(n, keysEl.children[i] || null);
      });
    }
    wanted.push(section);
  }
  for (const [id, v] of views) {
    if (!alive.has(id)) { v.node.remove(); views.delete(id); }
  }
  const currentSections = [...host.children];
  for (const s of currentSections) if (!wanted.includes(s)) s.remove();
  wanted.forEach((s, i) => { if (host.children[i] !== s) host.insertBefore(s, host.children[i] || null); });
  document.getElementById("empty").hidden = buttons.size > 0;
}

export function keyView(id) { return views.get(id); }

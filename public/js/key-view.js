// One key on the grid: its look (label, colour, icon, size, status line, health mark), its live
// state from control events (held, long press, taps, a toggle's face, an armed window), its
// guards (disabled, a refusal's reason), and what assistive technology hears: the name is the
// label alone, everything else is the description.

import { el, svg } from "./dom.js";
import { readableOn } from "./colour.js";
import { setIcon, iconSpan, icon } from "./icons.js";
import { configureFlip, setFace } from "./key-flip.js";
import { bindInput } from "./key-input.js";
import { healthOf, showHealthMark } from "./health.js";
import { listensFor } from "./listeners.js";
import { N_TAPS, nTapFlash, nTapHint } from "./vocab.js";
import { keepFitted, forget } from "./fit.js";
import { title, facesOf, faceLabel } from "./names.js";
import { isDisconnected, CANNOT_PRESS } from "./connection.js";

const SIZES = new Set(["1x1", "2x1", "1x2", "2x2"]);

/** What a key flashes for a `refused` (SPEC §7: "too short", "locked"). */
const REFUSED = { "too-short": "too short", "locked-out": "locked" };

function fmtMs(ms) {
  return ms >= 100 && ms % 100 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** The gestures a key advertises: only those something listens for (listeners.js). */
function hints(b) {
  const list = [];
  const repeats = b.repeatMs > 0 && listensFor(b.id, ["repeat"]);
  if (repeats || listensFor(b.id, ["long-press", "long-press-end"])) list.push(`hold ${fmtMs(b.longPressMs ?? 500)}`);
  const n = b.maxTaps ?? 2;
  if (n >= 2 && listensFor(b.id, N_TAPS.slice(2, n + 1))) list.push(nTapHint(n));
  if (repeats) list.push("repeats");
  return list;
}

/** A button's key. `actions` come from the grid: `editing()`, `openEditor(kind, id)`,
 *  `openHealth(id, kind)`. */
export class KeyView {
  constructor(b, actions) {
    this.id = b.id;
    this.actions = actions;
    this.b = b;
    this.press = null;          // the local press in progress
    this.releasedAt = 0;        // t of our last local up/cancel: stream events before it are ours, already shown
    this.lastStateSeq = 0;
    this.angle = 0;
    this.axis = "";
    this.desc = el("span.visually-hidden", { id: `kd-${b.id}` });
    this.healthBtn = el("button.health-mark", { type: "button", hidden: true, on: { click: () => actions.openHealth(this.id, "button") } });
    this.build();
    this.cell = el("div.key-cell", { dataset: { id: b.id } }, this.node, this.healthBtn, this.desc);
    this.update(b, { fromServer: true });
  }

  build() {
    const b = this.b;
    this.kind = b.kind || "push";
    const node = el(`button.key.key-${this.kind}`, {
      type: "button", dataset: { id: b.id, kind: this.kind }, "aria-describedby": this.desc.id,
    });
    this.ring = svg("svg", { class: "ring", viewBox: "0 0 100 100", preserveAspectRatio: "none", "aria-hidden": "true" },
      svg("rect", { class: "ring-track", x: 3, y: 3, width: 94, height: 94, rx: 14, pathLength: 100 }),
      svg("rect", { class: "ring-fill", x: 3, y: 3, width: 94, height: 94, rx: 14, pathLength: 100 }));
    this.fill = this.ring.lastChild;
    this.badge = el("span.key-badge", { "aria-hidden": "true" });
    // An armed window's seconds left (a confirm key: tap again to fire).
    this.armedEl = el("span.key-armed", { "aria-hidden": "true", hidden: true });
    this.statusEl = el("span.key-status", { "aria-hidden": "true" });
    const editMark = el("span.key-edit", { "aria-hidden": "true" }, icon("edit"));
    if (this.kind === "toggle") {
      this.faceEls = [0, 1].map((i) => el(`span.face.face-${i}`, { "aria-hidden": "true" },
        el("span.face-caption"), iconSpan(""), el("span.face-label"), el("span.face-led")));
      this.flipper = el("span.flipper", {}, ...this.faceEls);
      this.icons = this.faceEls.map((f) => f.querySelector(".key-icon"));
      node.append(this.flipper, this.statusEl, this.ring, this.badge, this.armedEl, editMark);
      this.face = undefined;
    } else {
      this.labelEl = el("span.key-label", { "aria-hidden": "true" });
      this.hint = el("span.key-hint", { "aria-hidden": "true" });
      this.icons = [iconSpan("")];
      node.append(el("span.key-cap", { "aria-hidden": "true" }), this.icons[0], this.labelEl, this.statusEl,
        this.hint, this.ring, this.badge, this.armedEl, editMark);
    }
    if (this.actions.editing()) node.classList.add("editing");
    this.node = node;
    bindInput(this);
  }

  update(b, { fromServer = false } = {}) {
    if ((b.kind || "push") !== this.kind) {
      const old = this.node;
      forget(old);
      this.b = b;
      this.build();
      old.replaceWith(this.node);
    }
    this.b = b;
    const label = title(b);
    this.node.dataset.label = label;
    this.node.setAttribute("aria-label", label);
    this.applyLook();
    if (this.kind === "toggle") {
      configureFlip(this);
      if (fromServer && b.state) this.setFace(b.state.face || 0, false);
      else if (this.face === undefined) this.setFace(0, false);
    } else {
      this.labelEl.textContent = label;
      const list = hints(b);
      this.hint.hidden = !list.length;
      this.hint.replaceChildren(...list.map((h, i) => el("span.hint-part", { text: (i ? "· " : "") + h })));
    }
    this.fitLabels();
    this.applyConnection();
    this.node.title = this.actions.editing() ? `Edit ${label}` : "";
    if (fromServer && b.state && !this.press) {
      if (b.state.held) this.showHeld(0, true); else this.release();
    }
    if (fromServer && b.state) this.showArmed(b.state.armed ? b.state.armedUntil : null);
    this.showEnabled();
    this.describe();
  }

  /** A disabled key (`enabled: false`) looks disabled, says so, and sends nothing (key-input.js). */
  showEnabled() {
    const off = this.b.enabled === false;
    this.node.classList.toggle("disabled", off);
    if (off) this.node.setAttribute("aria-disabled", "true"); else this.node.removeAttribute("aria-disabled");
    if (off && this.press) { this.press.ended = true; this.press = null; this.release(); }
  }

  get disabled() { return this.b.enabled === false; }

  /** Shows an armed window until `until` (ms since the epoch, the server's `armedUntil`), or
   *  none: the key pulses and counts down the seconds left, on every panel. The server decides
   *  when it ends (`disarmed`); the countdown only stops at zero. */
  showArmed(until) {
    clearInterval(this.armedTimer);
    this.armedTimer = null;
    this.armedUntil = typeof until === "number" ? until : null;
    const on = this.armedUntil !== null;
    this.node.classList.toggle("armed", on);
    this.armedEl.hidden = !on;
    if (on) {
      const tick = () => {
        const left = Math.max(0, Math.ceil((this.armedUntil - Date.now()) / 1000));
        const text = `${left} s`;
        if (this.armedEl.textContent !== text) this.armedEl.textContent = text;
        this.node.dataset.armedLeft = String(left);
        this.describe();
        if (left <= 0) { clearInterval(this.armedTimer); this.armedTimer = null; }
      };
      tick();
      this.armedTimer = setInterval(tick, 250);
    } else {
      delete this.node.dataset.armedLeft;
      this.armedEl.textContent = "";
    }
    this.describe();
  }

  /** Labels wrap, then shrink to fit the key: never cut (fit.js). */
  fitLabels() {
    const texts = this.kind === "toggle"
      ? this.faceEls.flatMap((f) => [f.querySelector(".face-caption"), f.querySelector(".face-label")])
      : [this.hint, this.labelEl]; // the hint first: what it gives up, the label may take
    for (const t of texts) keepFitted(t, this.node);
  }

  /** Colour, icon, size, status and health: the fields other systems set to put state on a key. */
  applyLook() {
    const b = this.b;
    const color = /^#[0-9a-f]{6}$/i.test(b.color || "") ? b.color : "";
    const fg = color ? readableOn(color) : "";
    this.node.classList.toggle("has-color", !!color);
    this.node.style.setProperty("--key-color", color || "");
    this.node.style.setProperty("--key-fg", fg || "");
    if (this.kind === "toggle") {
      facesOf(b).forEach((f, i) => {
        const face = this.faceEls[i];
        face.querySelector(".face-caption").textContent = title(b);
        face.querySelector(".face-label").textContent = faceLabel(b, i);
        // A face keeps its own colour; face 0 without one shows the key's colour.
        const bg = f.color || (i === 0 ? color : "");
        face.classList.toggle("has-color", !!bg);
        face.style.background = bg || "";
        face.style.color = bg ? readableOn(bg) || "" : "";
      });
    }
    for (const node of this.icons) setIcon(node, b.icon || "");
    this.node.classList.toggle("has-icon", !!b.icon);
    this.cell.dataset.size = SIZES.has(b.size) ? b.size : "1x1";
    const status = typeof b.status === "string" ? b.status : "";
    this.statusEl.textContent = status;
    this.statusEl.hidden = !status;
    this.node.classList.toggle("has-status", !!status);

    showHealthMark(this.cell, this.healthBtn, title(b), b);
  }

  /** Without the server a key cannot be pressed, and says so (connection.js). */
  applyConnection() {
    const off = isDisconnected() || this.b.enabled === false;
    if (off) this.node.setAttribute("aria-disabled", "true");
    else this.node.removeAttribute("aria-disabled");
    this.describe();
  }

  /** The accessible description: whether it can be pressed, held, face, status, health, then
   *  the gesture hints. */
  describe() {
    const b = this.b;
    const parts = [];
    if (isDisconnected()) parts.push(CANNOT_PRESS);
    if (this.kind === "toggle") {
      parts.push(`${faceLabel(b, this.face || 0)}.`);
    } else if (this.node.classList.contains("held")) {
      parts.push("Held.");
    }
    if (b.enabled === false) parts.push("Disabled: it cannot be pressed.");
    if (this.armedUntil != null) {
      const left = Math.max(0, Math.ceil((this.armedUntil - Date.now()) / 1000));
      parts.push(`Armed: press again to fire, ${left} s left.`);
    }
    if (b.status) parts.push(`${b.status}.`);
    const h = healthOf(b);
    if (h) parts.push(`Handler ${h.state}${h.reason ? `: ${h.reason}` : ""}.`);
    const list = this.kind === "toggle" ? [] : hints(b);
    if (list.length) parts.push(`${list.join(", ")}.`);
    const text = parts.join(" ");
    if (this.desc.textContent !== text) this.desc.textContent = text;
  }

  setFace(face, animate) {
    setFace(this, face, animate);
    this.node.setAttribute("aria-pressed", this.face === 1 ? "true" : "false");
    this.describe();
  }

  setEditing(on) {
    this.node.classList.toggle("editing", on);
    this.node.title = on ? `Edit ${title(this.b)}` : "";
  }

  remove() {
    clearInterval(this.armedTimer);
    forget(this.node);
    this.cell.remove();
  }

  // -- visuals ------------------------------------------------------------------------

  showHeld(elapsedMs = 0, silent = false) {
    this.node.classList.add("held");
    this.node.classList.remove("long", "outside", "failed");
    const long = Math.max(1, Number(this.b.longPressMs ?? 500));
    const start = Math.min(1, Math.max(0, elapsedMs / long));
    const fill = this.fill;
    fill.style.transition = "none";
    fill.style.strokeDashoffset = String(100 - start * 100);
    this.ring.classList.add("active");
    this.describe();
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
    this.describe();
  }

  /** A press the server did not take: shown at once, on the key. */
  showFailed(text) {
    this.node.classList.remove("failed");
    void this.node.offsetWidth;
    this.node.classList.add("failed");
    clearTimeout(this.failTimer);
    this.failTimer = setTimeout(() => this.node.classList.remove("failed"), 1400);
    this.flash(text, "cancel");
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

  // -- control events from the server ---------------------------------------------------

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
        this.flash(`repeat ${(ev.data && ev.data.repeat) || ""}`.trim(), "long");
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
        if (ev.type === "touch-cancel") {
          const reason = ev.data && ev.data.reason;
          this.flash(reason === "max-hold" ? "max hold" : reason === "disabled" ? "disabled" : "cancel", "cancel");
        }
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
      case "armed": {
        const windowMs = (ev.data && ev.data.windowMs) || b.confirmMs || 0;
        if (!stale) {
          b.state.armed = true;
          b.state.armedUntil = ev.t + windowMs;
          this.lastArmSeq = ev.seq;
          // The window ends on the key's clock; a client whose clock is skewed made a `t` that
          // would count down wrongly here: then it counts from now.
          let until = ev.t + windowMs;
          if (until - Date.now() > windowMs || until < Date.now() - 2000) until = Date.now() + windowMs;
          this.showArmed(until);
        }
        this.flash("armed", "armed");
        break;
      }
      case "disarmed":
        if (ev.seq >= (this.lastArmSeq || 0)) {
          b.state.armed = false;
          delete b.state.armedUntil;
          this.lastArmSeq = ev.seq;
          this.showArmed(null);
        }
        if (ev.data && ev.data.reason === "fired") this.flash("fired", "multi");
        else this.flash(ev.data && ev.data.reason === "timeout" ? "timed out" : "disarmed", "cancel");
        break;
      case "refused":
        this.flash(REFUSED[ev.data && ev.data.reason] || "refused", "refused");
        this.node.dataset.refused = (ev.data && ev.data.reason) || "";
        break;
      default:
        if (nTapFlash(ev.type) && ((ev.data && ev.data.tapCount) || 1) > 1) this.flash(`${nTapFlash(ev.type)} tap`, "multi");
    }
    this.node.dataset.held = b.state.held ? "true" : "false";
  }
}

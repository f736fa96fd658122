// Input on a key: Pointer Events (with pointer capture, leaving the key as move inside:false,
// pointercancel as cancel) and Space/Enter, sent to the server in order per button.
// Nothing is queued while offline: a press that cannot reach the server fails at once. A
// disabled key (`enabled: false`) sends nothing: it says so on the key instead.

import { post, enc, ApiError } from "./api.js";
import { showError, toast } from "./toast.js";
import { ingest, reloadButton, onEvent, subjectName } from "./store.js";
import { isDisconnected } from "./connection.js";

// One chain per button, so an up never overtakes its down.
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

let lastNetworkToast = 0;

// A press the server does not answer in this time is shown as failed: input is never left
// waiting in a request that a stalled server might carry out much later.
const INPUT_TIMEOUT_MS = 3000;

// Downs given up after the timeout, by button: their `t`. A stalled server that wakes may
// still apply one (the request had reached it); when that touch-down shows on the stream,
// it is cancelled at once, so the key is not left held until maxHoldMs.
const givenUp = new Map();

/** Follows the stream from now on, cancelling a given-up down as soon as it shows. */
export function followLateDowns() {
  onEvent((ev, source) => {
    if (ev.type !== "touch-down" || source === "history" || givenUp.get(ev.button) !== ev.t) return;
    givenUp.delete(ev.button);
    post(`buttons/${enc(ev.button)}/cancel`, {}).catch(() => {});
  });
}

function failed(view, kind, err) {
  const timedOut = err.code === "timeout";
  view.showFailed(timedOut ? "no answer" : err.status === 0 ? "not sent" : err.code === "button_disabled" ? "disabled" : "refused");
  const label = subjectName({ button: view.id });
  if (err.status === 0) {
    // One toast for a burst of presses while the server is away, not one per press.
    if (Date.now() - lastNetworkToast > 4000) {
      lastNetworkToast = Date.now();
      toast(timedOut ? `${label}: no answer` : `${label}: not sent`, {
        kind: "error",
        detail: timedOut
          ? `The server did not answer within ${INPUT_TIMEOUT_MS / 1000} s; the press was given up (cancelled if the server applies it later).`
          : "The server cannot be reached; the press was not queued.",
      });
    }
    return;
  }
  showError(err, label);
  reloadButton(view.id);
}

function sendInput(view, press, kind, body) {
  return enqueue(press.id, async () => {
    if (press.failed) return;
    const b = { ...body };
    if (!press.useT) delete b.t;
    const path = `buttons/${enc(press.id)}/${kind}`;
    try {
      if (navigator.onLine === false) throw new ApiError(0, "network", "This device is offline.");
      let res;
      try {
        res = await post(path, b, { timeoutMs: INPUT_TIMEOUT_MS });
      } catch (err) {
        // A clock behind the server's: fall back to the server's clock for the rest of this press.
        if (err.code === "out_of_order" && "t" in b) {
          press.useT = false;
          delete b.t;
          res = await post(path, b, { timeoutMs: INPUT_TIMEOUT_MS });
        } else throw err;
      }
      if (res && res.events) ingest(res.events, "response");
    } catch (err) {
      if (kind === "down") press.failed = true;
      if (kind === "down" && err.code === "timeout" && "t" in b) givenUp.set(press.id, b.t);
      // After a server-made cancel (max hold), the up is refused as not_down: that is expected.
      if (err.code === "not_down" && kind !== "down") { view.release(); return; }
      if (view.press === press) { press.ended = true; view.press = null; }
      view.release();
      failed(view, kind, err);
    }
  });
}

function inside(node, e) {
  const r = node.getBoundingClientRect();
  return e.clientX >= r.left && e.clientX <= r.right && e.clientY >= r.top && e.clientY <= r.bottom;
}

function begin(view, e, pointerId, pointerType) {
  // Without the server nothing is sent: the key says so at once (connection.js).
  if (isDisconnected()) { view.showFailed("offline"); return; }
  if (view.disabled) { view.flash("disabled", "cancel"); return; }
  const t = eventTime(e);
  const p = { id: view.id, pointerId, inside: true, downT: t, useT: true, failed: false, ended: false };
  view.press = p;
  view.showHeld(0);
  sendInput(view, p, "down", { t, pointer: pointerType });
}

function end(view, e, kind) {
  const p = view.press;
  if (!p || p.ended) return;
  p.ended = true;
  view.press = null;
  const t = Math.max(eventTime(e), p.downT);
  view.releasedAt = t;
  view.release();
  if (kind === "up") sendInput(view, p, "up", { t, inside: p.inside });
  else sendInput(view, p, "cancel", { t });
}

/** Wires a key's DOM node to the server. */
export function bindInput(view) {
  const node = view.node;
  node.addEventListener("contextmenu", (e) => e.preventDefault());
  node.addEventListener("dragstart", (e) => e.preventDefault());
  node.addEventListener("selectstart", (e) => e.preventDefault());

  node.addEventListener("click", (e) => {
    if (view.actions.editing()) { e.preventDefault(); view.actions.openEditor("button", view.id); }
  });

  node.addEventListener("pointerdown", (e) => {
    if (view.actions.editing()) return;
    if (e.pointerType === "mouse" && e.button !== 0) return;
    if (view.press) return; // a second finger on the same key is ignored
    e.preventDefault();
    try { node.setPointerCapture(e.pointerId); } catch { /* synthetic pointer */ }
    begin(view, e, e.pointerId, e.pointerType || "mouse");
  });

  node.addEventListener("pointermove", (e) => {
    const p = view.press;
    if (!p || p.pointerId !== e.pointerId) return;
    const now = inside(node, e);
    if (now === p.inside) return;
    p.inside = now;
    node.classList.toggle("outside", !now);
    sendInput(view, p, "move", { t: eventTime(e), inside: now });
  });

  const finish = (e, kind) => {
    const p = view.press;
    if (!p || p.pointerId !== e.pointerId) return;
    if (kind === "up") p.inside = inside(node, e);
    end(view, e, kind);
  };
  node.addEventListener("pointerup", (e) => finish(e, "up"));
  node.addEventListener("pointercancel", (e) => finish(e, "cancel"));
  node.addEventListener("lostpointercapture", (e) => finish(e, "cancel"));

  node.addEventListener("keydown", (e) => {
    if (view.actions.editing()) return;
    if (e.key !== " " && e.key !== "Enter") return;
    e.preventDefault();
    if (e.repeat || e.altKey || e.ctrlKey || e.metaKey) return;
    if (view.press) return;
    begin(view, e, "key:" + e.key, "keyboard");
  });
  node.addEventListener("keyup", (e) => {
    if (view.actions.editing()) return;
    if (e.key !== " " && e.key !== "Enter") return;
    e.preventDefault();
    const p = view.press;
    if (!p || p.pointerId !== "key:" + e.key) return;
    p.inside = true;
    end(view, e, "up");
  });
  node.addEventListener("blur", (e) => {
    const p = view.press;
    if (p && typeof p.pointerId === "string") end(view, e, "cancel");
  });
}

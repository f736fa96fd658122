// Small DOM helpers, toasts and the confirm dialog. No innerHTML with data: text only.

/** el("div.a.b", {attrs}, ...children) */
export function el(spec, attrs = {}, ...children) {
  const [tag, ...classes] = spec.split(".");
  const node = document.createElement(tag || "div");
  if (classes.length) node.className = classes.join(" ");
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "on") {
      for (const [ev, fn] of Object.entries(v)) node.addEventListener(ev, fn);
    } else if (k === "dataset") {
      for (const [dk, dv] of Object.entries(v)) if (dv !== undefined && dv !== null) node.dataset[dk] = String(dv);
    } else if (k === "text") {
      node.textContent = v;
    } else if (k in node && typeof v !== "string") {
      node[k] = v;
    } else if (k === "value" && "value" in node) {
      node.value = v;
    } else {
      node.setAttribute(k, v === true ? "" : String(v));
    }
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(node, c);
    else node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

const SVG_NS = "http://www.w3.org/2000/svg";
export function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  for (const c of children) node.append(c);
  return node;
}

export function icon(name) {
  const paths = {
    edit: "M4 20h4L19 9l-4-4L4 16v4zM14 6l4 4",
    close: "M6 6l12 12M18 6L6 18",
    plus: "M12 5v14M5 12h14",
    trash: "M5 7h14M10 7V5h4v2M7 7l1 12h8l1-12",
    up: "M12 19V5M6 11l6-6 6 6",
    down: "M12 5v14M6 13l6 6 6-6",
    sheet: "M4 15h16v5H4zM7 10h10M9 6h6",
    alert: "M12 4 2.5 20h19L12 4zM12 10v4M12 17h.01",
    ban: "M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18zM5.7 5.7l12.6 12.6",
    chevron: "M6 15l6-6 6 6",
    older: "M12 5v14M6 13l6 6 6-6",
    expand: "M4 9V4h5M20 9V4h-5M4 15v5h5M20 15v5h-5",
    exit: "M14 4h5v16h-5M10 8l-4 4 4 4M6 12h10",
  };
  return svg("svg", { viewBox: "0 0 24 24", "aria-hidden": "true", class: "icon" }, svg("path", { d: paths[name] || "" }));
}

// ---- modal dialogs and toasts ---------------------------------------------------------------
// A modal dialog makes the rest of the page inert and covers it (the top layer), so the toast
// region moves into the topmost open modal: toasts stay visible and dismissable above dialogs.

const modals = [];

function homeToasts() {
  const host = document.getElementById("toasts");
  if (!host) return;
  const top = modals[modals.length - 1] || document.body;
  if (host.parentNode !== top) top.append(host);
}

/** Closes a modal opened with openModal and, with `remove`, takes it out of the page; the
 *  toasts move out of it first (its `close` event comes too late for a removed dialog). */
export function closeModal(dlg, { remove = false } = {}) {
  const i = modals.indexOf(dlg);
  if (i >= 0) modals.splice(i, 1);
  homeToasts();
  if (dlg.open) dlg.close();
  if (remove) dlg.remove();
}

/** showModal(), keeping track of the topmost modal for the toasts. */
export function openModal(dlg) {
  if (!dlg.open) dlg.showModal();
  if (!modals.includes(dlg)) {
    modals.push(dlg);
    dlg.addEventListener("close", () => {
      const i = modals.indexOf(dlg);
      if (i >= 0) modals.splice(i, 1);
      homeToasts();
    }, { once: true });
  }
  homeToasts();
}

export function toast(message, { kind = "info", detail = "", timeout, action } = {}) {
  const host = document.getElementById("toasts");
  homeToasts();
  const close = el("button.toast-close", { type: "button", "aria-label": "Dismiss" }, icon("close"));
  const act = action ? el("button.btn.btn-small.toast-action", { type: "button", text: action.label }) : null;
  const node = el(`div.toast.toast-${kind}`, { role: kind === "error" ? "alert" : "status" },
    el("div.toast-text", {}, el("strong", { text: message }), detail ? el("span.toast-detail", { text: detail }) : null),
    act, close);
  const remove = () => {
    node.classList.add("toast-out");
    setTimeout(() => node.remove(), 200);
  };
  close.addEventListener("click", remove);
  if (act) act.addEventListener("click", () => { remove(); action.run(); });
  host.append(node);
  while (host.children.length > 4) host.firstElementChild.remove();
  const ms = timeout ?? (kind === "error" ? 8000 : 3500);
  if (ms > 0) setTimeout(remove, ms);
  return node;
}

/** Shows an API (or any) error in words. */
export function showError(err, context = "") {
  const msg = err && err.message ? err.message : String(err);
  const bits = [];
  if (err && err.code && err.code !== "network") bits.push(err.code);
  if (err && err.field) bits.push(`field: ${err.field}`);
  if (err && err.status) bits.push(`HTTP ${err.status}`);
  toast(context ? `${context}: ${msg}` : msg, { kind: "error", detail: bits.join(" · ") });
  console.warn(context, err);
}

// ---- confirm --------------------------------------------------------------

export function confirmAction(text, yesLabel = "Delete") {
  const dlg = document.getElementById("confirm-dialog");
  document.getElementById("confirm-text").textContent = text;
  document.getElementById("confirm-yes").textContent = yesLabel;
  dlg.returnValue = "";
  return new Promise((resolve) => {
    dlg.addEventListener("close", () => resolve(dlg.returnValue === "yes"), { once: true });
    openModal(dlg);
  });
}

// ---- formatting -----------------------------------------------------------

export function fmtTime(ms) {
  const d = new Date(ms);
  const p = (n, w = 2) => String(n).padStart(w, "0");
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
}

export function fmtDateTime(ms) {
  if (!ms && ms !== 0) return "—";
  const d = new Date(ms);
  return `${d.toLocaleDateString()} ${fmtTime(ms)}`;
}

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

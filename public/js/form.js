// Form helpers for the editor: labelled fields, and errors shown next to the field they are
// about (scrolled into view and focused), never repeated as a toast; an error goes as soon as
// its field is changed.

import { el } from "./dom.js";

export const NAME_RE = /^[a-z0-9][a-z0-9._-]{0,63}$/;

let fieldIds = 0;

export function field(label, input, help) {
  const id = input.id || `f-${++fieldIds}`;
  input.id = id;
  let helpEl = null;
  if (help) {
    helpEl = el("span.help", { id: `${id}-help`, text: help });
    input.setAttribute("aria-describedby", helpEl.id);
  }
  return el("div.field", {}, el("label", { for: id, text: label }), input, helpEl);
}

export function input(name, value, attrs = {}) {
  return el("input", { name, value: value ?? "", type: "text", autocomplete: "off", spellcheck: "false", ...attrs });
}

export function numberInput(name, value, min, max, attrs = {}) {
  return input(name, value ?? "", { type: "number", inputmode: "numeric", min, max, step: 1, ...attrs });
}

export function select(name, options, value) {
  return el("select", { name }, ...options.map((o) => {
    const [v, l] = Array.isArray(o) ? o : [o, o];
    return el("option", { value: v, selected: v === value, text: l });
  }));
}

export function checkbox(name, checked, label) {
  return el("label.check", {}, el("input", { type: "checkbox", name, checked: !!checked }), el("span", { text: label }));
}

/** The form's general error (one not about a field): placed by the Save button. */
export function errorBox() {
  return el("div.form-error.form-error-general", { role: "alert", hidden: true });
}

export function actions(...children) { return el("div.dialog-actions", {}, ...children); }
export function btn(label, cls = "", attrs = {}) { return el(`button.btn${cls}`, { type: "button", ...attrs }, label); }

export function num(form, name) {
  const v = form.elements[name] && form.elements[name].value.trim();
  if (v === "" || v === undefined) return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : v;
}

function clearErrors(form, box) {
  box.hidden = true;
  box.textContent = "";
  for (const n of form.querySelectorAll(".field-error")) n.remove();
  for (const n of form.querySelectorAll("[aria-invalid]")) {
    n.removeAttribute("aria-invalid");
    const keep = (n.getAttribute("aria-describedby") || "").split(" ").filter((x) => x && !x.endsWith("-error"));
    if (keep.length) n.setAttribute("aria-describedby", keep.join(" "));
    else n.removeAttribute("aria-describedby");
  }
}

function findField(form, name) {
  const names = [name, name.split(".").pop(), name.replace(/\[(\d+)\]/g, ".$1")];
  for (const n of names) {
    const hit = form.querySelector(`[data-field="${CSS.escape(n)}"]`) || form.querySelector(`[name="${CSS.escape(n)}"]`);
    if (hit) return hit;
  }
  return null;
}

/** Shows `err` ({message, field?}) next to its field (or in the form's box), in view. */
export function showFormError(form, box, err) {
  clearErrors(form, box);
  const target = err.field ? findField(form, err.field) : null;
  let shown = box;
  if (target && !target.closest("[hidden]")) {
    const id = `${target.id || `f-${++fieldIds}`}-error`;
    const msg = el("p.form-error.field-error", { id, role: "alert", text: err.message });
    const holder = target.closest(".field, .face-edit, [data-field]") || target.parentElement;
    holder.append(msg);
    const control = target.matches("input, select, textarea") ? target : target.querySelector("input, select, textarea");
    if (control) {
      control.setAttribute("aria-invalid", "true");
      const ids = (control.getAttribute("aria-describedby") || "").split(" ").filter(Boolean);
      control.setAttribute("aria-describedby", [id, ...ids].join(" "));
      control.addEventListener("input", () => clearErrors(form, box), { once: true });
      control.addEventListener("change", () => clearErrors(form, box), { once: true });
      control.focus({ preventScroll: true });
    }
    shown = msg;
  } else {
    box.hidden = false;
    box.textContent = err.field ? `${err.message} (${err.field})` : err.message;
  }
  shown.scrollIntoView({ block: "center", behavior: "instant" });
  console.warn("form error", err);
}

export function toHex(color) {
  if (!color) return "";
  if (/^#[0-9a-f]{6}$/i.test(color)) return color.toLowerCase();
  if (/^#[0-9a-f]{3}$/i.test(color)) return "#" + color.slice(1).split("").map((c) => c + c).join("").toLowerCase();
  return "";
}

export function slug(text) {
  return text.toLowerCase().normalize("NFKD").replace(/[^a-z0-9._-]+/g, "-").replace(/^[-._]+|[-]+$/g, "").slice(0, 64);
}

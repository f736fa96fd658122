// Edit mode: buttons, sheets, handlers (webhook and script), deliveries with their attempts.
// Everything is shown in one modal dialog, view after view, with a Back button.

import { get, post, patch, del, enc } from "./api.js";
import { el, icon, toast, showError, confirmAction, fmtDateTime } from "./ui.js";
import { buttons, sheets, changed, loadButtons, loadSheets } from "./store.js";

const dialog = () => document.getElementById("editor");
const NAME_RE = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const TRANSITIONS = ["flip-from-left", "flip-from-right", "curl-up", "curl-down", "cross-dissolve", "none"];
const CURVES = ["ease-in-out", "ease-in", "ease-out", "linear"];
const BUTTON_EVENTS = [
  ["tap", "Tap (every tap, at once)"], ["single-tap", "Single tap"], ["double-tap", "Double tap"],
  ["triple-tap", "Triple tap"], ["quadruple-tap", "Quadruple tap"], ["quintuple-tap", "Quintuple tap"],
  ["long-press", "Long press"], ["long-press-end", "Long press released"], ["repeat", "Repeat while held"],
  ["toggle", "Toggle flipped"], ["touch-down", "Touch down"], ["touch-up-inside", "Touch up inside"],
  ["touch-up-outside", "Touch up outside"], ["touch-cancel", "Touch cancelled"],
  ["touch-drag-exit", "Drag exit"], ["touch-drag-enter", "Drag enter"],
];
const SHEET_EVENTS = [["select", "Option chosen"], ["sheet-open", "Sheet opened"], ["sheet-cancel", "Sheet cancelled"]];
const STATUSES = ["pending", "in_flight", "ok", "failed", "expired"];

let stack = [];

// ---- dialog plumbing --------------------------------------------------------------------

function show(title, body, { replace = false } = {}) {
  const dlg = dialog();
  if (replace) stack.pop();
  stack.push({ title, body });
  paint();
  if (!dlg.open) {
    dlg.showModal();
    dlg.classList.add("in");
  }
  const focusable = body.querySelector("[autofocus]") || body.querySelector("input:not([readonly]):not([type=hidden]), select, textarea, button");
  if (focusable) focusable.focus({ preventScroll: true });
}

function paint() {
  const top = stack[stack.length - 1];
  if (!top) return;
  const head = document.getElementById("editor-title");
  head.replaceChildren();
  if (stack.length > 1) {
    head.append(el("button.icon-btn.back", { type: "button", "aria-label": "Back", on: { click: back } },
      el("span.back-arrow", { "aria-hidden": "true", text: "‹" })));
  }
  head.append(el("span", { text: top.title }));
  document.getElementById("editor-body").replaceChildren(top.body);
  document.getElementById("editor-body").scrollTop = 0;
}

function back() {
  stack.pop();
  if (!stack.length) { closeEditor(); return; }
  const top = stack[stack.length - 1];
  if (top.refresh) top.refresh();
  paint();
}

export function closeEditor() {
  stack = [];
  const dlg = dialog();
  if (dlg.open) dlg.close();
}

{
  const dlg = dialog();
  dlg.querySelector("[data-close]").addEventListener("click", closeEditor);
  dlg.addEventListener("close", () => { stack = []; });
  dlg.addEventListener("click", (e) => { if (e.target === dlg) closeEditor(); });
}

// ---- form helpers -------------------------------------------------------------------------

function field(label, input, help) {
  const id = input.id || `f-${Math.random().toString(36).slice(2, 9)}`;
  input.id = id;
  return el("div.field", {},
    el("label", { for: id, text: label }),
    input,
    help ? el("span.help", { text: help }) : null);
}

function input(name, value, attrs = {}) {
  return el("input", { name, value: value ?? "", type: "text", autocomplete: "off", spellcheck: "false", ...attrs });
}

function numberInput(name, value, min, max, attrs = {}) {
  return input(name, value ?? "", { type: "number", inputmode: "numeric", min, max, step: 1, ...attrs });
}

function select(name, options, value) {
  return el("select", { name }, ...options.map((o) => {
    const [v, l] = Array.isArray(o) ? o : [o, o];
    return el("option", { value: v, selected: v === value, text: l });
  }));
}

function checkbox(name, checked, label) {
  return el("label.check", {}, el("input", { type: "checkbox", name, checked: !!checked }), el("span", { text: label }));
}

function errorBox() {
  return el("div.form-error", { role: "alert", hidden: true });
}

function showFormError(form, box, err) {
  box.hidden = false;
  box.textContent = err.field ? `${err.message} (${err.field})` : err.message;
  form.querySelectorAll("[aria-invalid]").forEach((n) => n.removeAttribute("aria-invalid"));
  if (err.field) {
    const names = [err.field, err.field.split(".").pop(), err.field.replace(/\[(\d+)\]/g, ".$1")];
    for (const n of names) {
      const target = form.querySelector(`[name="${CSS.escape(n)}"]`);
      if (target) { target.setAttribute("aria-invalid", "true"); target.focus(); break; }
    }
  }
  showError(err);
}

function num(form, name) {
  const v = form.elements[name] && form.elements[name].value.trim();
  if (v === "" || v === undefined) return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : v;
}

function actions(...children) { return el("div.dialog-actions", {}, ...children); }
function btn(label, cls = "", attrs = {}) { return el(`button.btn${cls}`, { type: "button", ...attrs }, label); }

// ---- buttons --------------------------------------------------------------------------

export function createButton(group = "") {
  show("New button", buttonForm(null, group));
}

export function openEditor(kind, id) {
  if (kind === "sheet") {
    const s = sheets.get(id);
    if (s) show(`Sheet “${s.title || id}”`, sheetForm(s));
    return;
  }
  const b = buttons.get(id);
  if (b) show(`Button “${b.label || id}”`, buttonForm(b));
}

function buttonForm(b, group = "") {
  const isNew = !b;
  b = b || { kind: "push", group };
  const faces = b.faces && b.faces.length === 2 ? b.faces : [{ label: "Off" }, { label: "On" }];
  const flip = b.flip || { transition: "flip-from-left", curve: "ease-in-out", durationMs: 400 };
  const groups = [...new Set([...buttons.values()].map((x) => x.group).filter(Boolean))];
  const groupList = el("datalist", { id: "group-names" }, ...groups.map((g) => el("option", { value: g })));
  const err = errorBox();

  const kindSeg = el("div.segmented", { role: "radiogroup", "aria-label": "Kind" },
    ...["push", "toggle"].map((k) => el("label", {},
      el("input", { type: "radio", name: "kind", value: k, checked: (b.kind || "push") === k }),
      el("span", { text: k === "push" ? "Push" : "Toggle" }))));

  const faceFields = faces.map((f, i) => el("div.face-edit", {},
    el("span.face-edit-title", { text: i === 0 ? "Face 0 (off)" : "Face 1 (on, pressed)" }),
    field("Label", input(`face${i}Label`, f.label, { maxlength: 64, required: true })),
    el("div.color-row", {},
      checkbox(`face${i}UseColor`, !!f.color, "Colour"),
      el("input", { type: "color", name: `face${i}Color`, value: toHex(f.color) || (i ? "#2f7cf6" : "#9aa3b2"), "aria-label": `Face ${i} colour` }))));

  const toggleFields = el("fieldset.toggle-only", {},
    el("legend", { text: "Toggle faces and flip" }),
    el("div.face-grid", {}, ...faceFields),
    el("div.row3", {},
      field("Transition", select("transition", TRANSITIONS, flip.transition)),
      field("Curve", select("curve", CURVES, flip.curve)),
      field("Duration (ms)", numberInput("durationMs", flip.durationMs, 0, 5000))));

  const form = el("form.form", { novalidate: true },
    err,
    el("fieldset", {},
      el("legend", { text: "Button" }),
      el("div.row2", {},
        field("Name (id)", input("id", b.id, isNew ? { required: true, pattern: NAME_RE.source, placeholder: "e.g. door", autofocus: true, autocapitalize: "none" } : { readonly: true }),
          isNew ? "Lowercase letters, digits, . _ -; used in URLs." : "The name cannot be changed."),
        field("Label", input("label", b.label, { maxlength: 64, placeholder: "Shown on the button" }))),
      el("div.field", {}, el("span.label", { text: "Kind" }), kindSeg),
      el("div.row2", {},
        field("Group", input("group", b.group, { list: "group-names", placeholder: "none" }), "Buttons are grouped on the panel."),
        field("Order", numberInput("order", b.order, -1000000, 1000000), "Lower comes first.")),
      groupList),
    toggleFields,
    el("fieldset", {},
      el("legend", { text: "Gestures" }),
      el("div.row2", {},
        field("Long press after (ms)", numberInput("longPressMs", b.longPressMs ?? (isNew ? 500 : ""), 50, 60000), "50–60000; a long press consumes the tap."),
        field("Multi-tap window (ms)", numberInput("multiTapMs", b.multiTapMs ?? (isNew ? 300 : ""), 50, 5000), "Time allowed between taps.")),
      el("div.row3", {},
        field("Max taps", numberInput("maxTaps", b.maxTaps ?? (isNew ? 2 : ""), 1, 5), "1–5"),
        field("Repeat every (ms)", numberInput("repeatMs", b.repeatMs ?? (isNew ? 0 : ""), 0, 60000), "0 = off"),
        field("Max hold (ms)", numberInput("maxHoldMs", b.maxHoldMs ?? (isNew ? 60000 : ""), 1000, 3600000), "Then cancelled."))),
    actions(
      isNew ? null : btn("Delete", ".btn-danger.push-left", { on: { click: () => deleteButton(b) } }),
      btn("Cancel", "", { on: { click: () => (isNew ? closeEditor() : back()) } }),
      el("button.btn.btn-primary", { type: "submit", text: isNew ? "Create button" : "Save" })));

  const syncKind = () => {
    const k = form.elements.kind.value;
    toggleFields.hidden = k !== "toggle";
    toggleFields.disabled = k !== "toggle";
  };
  form.addEventListener("change", (e) => { if (e.target.name === "kind") syncKind(); });
  syncKind();

  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const f = form.elements;
    const body = {};
    if (isNew) {
      const id = f.id.value.trim();
      if (!NAME_RE.test(id)) {
        showFormError(form, err, { message: "The name must be lowercase letters, digits, '.', '_' or '-' (up to 64), starting with a letter or digit.", field: "id", code: "invalid_value" });
        return;
      }
      body.id = id;
    }
    const label = f.label.value.trim();
    if (label || !isNew) body.label = label || (isNew ? undefined : b.id);
    body.kind = f.kind.value;
    const group = f.group.value.trim();
    if (group || (!isNew && b.group)) body.group = group;
    const order = num(form, "order");
    if (order !== undefined) body.order = order;
    for (const k of ["longPressMs", "multiTapMs", "maxTaps", "repeatMs", "maxHoldMs"]) {
      const v = num(form, k);
      if (v !== undefined) body[k] = v;
    }
    if (body.kind === "toggle") {
      body.faces = [0, 1].map((i) => {
        const face = { label: f[`face${i}Label`].value.trim() || (i ? "On" : "Off") };
        if (f[`face${i}UseColor`].checked) face.color = f[`face${i}Color`].value;
        return face;
      });
      body.flip = { transition: f.transition.value, curve: f.curve.value };
      const d = num(form, "durationMs");
      body.flip.durationMs = d === undefined ? 300 : d;
    }
    for (const k of Object.keys(body)) if (body[k] === undefined) delete body[k];
    const submit = form.querySelector("[type=submit]");
    submit.disabled = true;
    try {
      const saved = isNew ? await post("buttons", body) : await patch(`buttons/${enc(b.id)}`, body);
      buttons.set(saved.id, saved);
      changed("buttons");
      toast(isNew ? `Created “${saved.label || saved.id}”` : `Saved “${saved.label || saved.id}”`, { kind: "ok" });
      if (isNew) show(`Button “${saved.label || saved.id}”`, buttonForm(saved), { replace: true });
      else show(`Button “${saved.label || saved.id}”`, buttonForm(saved), { replace: true });
    } catch (ex) {
      showFormError(form, err, ex);
    } finally {
      submit.disabled = false;
    }
  });

  const wrap = el("div.editor-view", {}, form);
  if (!isNew) wrap.append(handlersSection("button", b));
  return wrap;
}

function toHex(color) {
  if (!color) return "";
  if (/^#[0-9a-f]{6}$/i.test(color)) return color.toLowerCase();
  if (/^#[0-9a-f]{3}$/i.test(color)) return "#" + color.slice(1).split("").map((c) => c + c).join("").toLowerCase();
  const probe = document.createElement("span");
  probe.style.color = color;
  document.body.append(probe);
  const m = getComputedStyle(probe).color.match(/\d+/g);
  probe.remove();
  if (!m) return "";
  return "#" + m.slice(0, 3).map((x) => Number(x).toString(16).padStart(2, "0")).join("");
}

async function deleteButton(b) {
  if (!(await confirmAction(`Delete the button “${b.label || b.id}” and its handlers?`))) return;
  try {
    await del(`buttons/${enc(b.id)}`);
    buttons.delete(b.id);
    changed("buttons");
    toast(`Deleted “${b.label || b.id}”`, { kind: "ok" });
    closeEditor();
  } catch (err) {
    showError(err, "Delete");
  }
}

// ---- sheets ------------------------------------------------------------------------------

export function createSheet() {
  show("New sheet", sheetForm(null));
}

function sheetForm(s) {
  const isNew = !s;
  s = s || { options: [{ id: "", label: "" }], cancelLabel: "Cancel" };
  const err = errorBox();
  const rows = el("ol.option-rows");
  const addRow = (o = { id: "", label: "", destructive: false }) => {
    const row = el("li.option-row", {},
      input("optionLabel", o.label, { placeholder: "Label", "aria-label": "Option label", maxlength: 64 }),
      input("optionId", o.id, { placeholder: "id", "aria-label": "Option id", pattern: NAME_RE.source, autocapitalize: "none" }),
      checkbox("optionDestructive", o.destructive, "Destructive"),
      el("span.row-tools", {},
        el("button.icon-btn", { type: "button", "aria-label": "Move up", on: { click: () => row.previousElementSibling && rows.insertBefore(row, row.previousElementSibling) } }, icon("up")),
        el("button.icon-btn", { type: "button", "aria-label": "Move down", on: { click: () => row.nextElementSibling && rows.insertBefore(row.nextElementSibling, row) } }, icon("down")),
        el("button.icon-btn", { type: "button", "aria-label": "Remove option", on: { click: () => row.remove() } }, icon("trash"))));
    const [labelIn, idIn] = row.querySelectorAll("input[type=text]");
    labelIn.addEventListener("input", () => {
      if (!idIn.dataset.touched) idIn.value = slug(labelIn.value);
    });
    idIn.addEventListener("input", () => { idIn.dataset.touched = "1"; });
    if (o.id) idIn.dataset.touched = "1";
    rows.append(row);
    return row;
  };
  for (const o of s.options || []) addRow(o);

  const form = el("form.form", { novalidate: true },
    err,
    el("fieldset", {},
      el("legend", { text: "Sheet" }),
      el("div.row2", {},
        field("Name (id)", input("id", s.id, isNew ? { required: true, placeholder: "e.g. scene", autofocus: true, autocapitalize: "none" } : { readonly: true })),
        field("Title", input("title", s.title, { placeholder: "Shown above the options" }))),
      field("Cancel label", input("cancelLabel", s.cancelLabel, { placeholder: "Cancel" }))),
    el("fieldset", {},
      el("legend", { text: "Options" }),
      rows,
      btn("Add option", ".btn-ghost.btn-small", { on: { click: () => addRow().querySelector("input").focus() } })),
    actions(
      isNew ? null : btn("Delete", ".btn-danger.push-left", { on: { click: () => deleteSheet(s) } }),
      isNew ? null : btn("Open now", "", { on: { click: async () => {
        try { await post(`sheets/${enc(s.id)}/open`); closeEditor(); } catch (ex) { showError(ex, "Open"); }
      } } }),
      el("button.btn.btn-primary", { type: "submit", text: isNew ? "Create sheet" : "Save" })));

  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const f = form.elements;
    const body = {};
    if (isNew) body.id = f.id.value.trim();
    body.title = f.title.value.trim();
    const cancelLabel = f.cancelLabel.value.trim();
    if (cancelLabel) body.cancelLabel = cancelLabel;
    body.options = [...rows.children].map((row) => {
      const [labelIn, idIn] = row.querySelectorAll("input[type=text]");
      const o = { id: idIn.value.trim() || slug(labelIn.value), label: labelIn.value.trim() };
      if (row.querySelector("input[type=checkbox]").checked) o.destructive = true;
      return o;
    }).filter((o) => o.id || o.label);
    const submit = form.querySelector("[type=submit]");
    submit.disabled = true;
    try {
      const saved = isNew ? await post("sheets", body) : await patch(`sheets/${enc(s.id)}`, body);
      sheets.set(saved.id, saved);
      changed("sheets");
      toast(isNew ? `Created sheet “${saved.title || saved.id}”` : "Saved", { kind: "ok" });
      show(`Sheet “${saved.title || saved.id}”`, sheetForm(saved), { replace: true });
    } catch (ex) {
      showFormError(form, err, ex);
    } finally {
      submit.disabled = false;
    }
  });

  const wrap = el("div.editor-view", {}, form);
  if (!isNew) wrap.append(handlersSection("sheet", s));
  return wrap;
}

function slug(text) {
  return text.toLowerCase().normalize("NFKD").replace(/[^a-z0-9._-]+/g, "-").replace(/^[-._]+|[-]+$/g, "").slice(0, 64);
}

async function deleteSheet(s) {
  if (!(await confirmAction(`Delete the sheet “${s.title || s.id}” and its handlers?`))) return;
  try {
    await del(`sheets/${enc(s.id)}`);
    sheets.delete(s.id);
    changed("sheets");
    toast("Sheet deleted", { kind: "ok" });
    closeEditor();
  } catch (err) {
    showError(err, "Delete");
  }
}

// ---- handlers ------------------------------------------------------------------------------

function handlersSection(ownerKind, owner) {
  const list = el("ul.handler-list");
  const status = el("p.muted", { text: "Loading handlers…" });
  const base = `${ownerKind === "sheet" ? "sheets" : "buttons"}/${enc(owner.id)}/handlers`;
  const section = el("section.handlers", { "aria-label": "Handlers" },
    el("div.section-head", {},
      el("h3", { text: "Handlers" }),
      btn("Add handler", ".btn-primary.btn-small", { on: { click: () => show("New handler", handlerForm(ownerKind, owner, null, refresh)) } })),
    el("p.help", { text: ownerKind === "sheet"
      ? "Run a webhook or a script when an option is chosen (or the sheet opens or is cancelled)."
      : "Run a webhook or a script when this button is tapped, held, double-tapped, flipped…" }),
    status, list);

  async function refresh() {
    try {
      const res = await get(base);
      const hs = (res && res.handlers) || [];
      status.hidden = hs.length > 0;
      status.textContent = "No handlers yet.";
      list.replaceChildren(...hs.map((h) => handlerCard(ownerKind, owner, h, refresh)));
    } catch (err) {
      status.hidden = false;
      status.textContent = err.status === 404 || err.status === 405
        ? `Handlers are not available on this server (${err.message}).`
        : `Could not load handlers: ${err.message}`;
      if (!(err.status === 404 || err.status === 405)) showError(err, "Handlers");
    }
  }
  refresh();
  // When coming back to this view, reload.
  queueMicrotask(() => { const top = stack[stack.length - 1]; if (top) top.refresh = refresh; });
  return section;
}

function handlerTarget(h) {
  if (h.webhook) return h.webhook.url;
  if (h.script) return [h.script.name, ...(h.script.args || [])].join(" ");
  return h.id;
}

function handlerCard(ownerKind, owner, h, refresh) {
  const enabled = el("input", { type: "checkbox", checked: h.enabled !== false, role: "switch", "aria-label": "Enabled" });
  enabled.addEventListener("change", async () => {
    try {
      await patch(`handlers/${enc(h.id)}`, { enabled: enabled.checked });
      toast(enabled.checked ? "Handler enabled" : "Handler disabled", { kind: "ok" });
    } catch (err) {
      enabled.checked = !enabled.checked;
      showError(err, "Handler");
    }
  });
  const on = (h.on || []).map((t) => el("span.chip", { text: t }));
  if (h.option) on.push(el("span.chip.chip-alt", { text: `option ${h.option}` }));
  return el("li.handler-card", { dataset: { handler: h.id } },
    el("div.handler-top", {},
      el("span.kind-chip", { dataset: { kind: h.webhook ? "webhook" : "script" }, text: h.webhook ? "Webhook" : "Script" }),
      el("span.handler-target", { title: handlerTarget(h), text: handlerTarget(h) }),
      el("label.switch", {}, enabled, el("span.switch-track", { "aria-hidden": "true" }))),
    el("div.chips", {}, ...on),
    el("div.handler-actions", {},
      btn("Test", ".btn-small", { on: { click: () => testHandler(h) } }),
      btn("Deliveries", ".btn-small", { on: { click: () => showDeliveries(h) } }),
      h.webhook ? btn("New secret", ".btn-small", { on: { click: () => rotateSecret(h) } }) : null,
      btn("Edit", ".btn-small", { on: { click: () => show("Edit handler", handlerForm(ownerKind, owner, h, refresh)) } }),
      btn("Delete", ".btn-small.btn-danger-ghost", { on: { click: async () => {
        if (!(await confirmAction(`Delete this ${h.webhook ? "webhook" : "script"} handler (${handlerTarget(h)})?`))) return;
        try { await del(`handlers/${enc(h.id)}`); toast("Handler deleted", { kind: "ok" }); refresh(); } catch (err) { showError(err, "Delete handler"); }
      } } })));
}

function handlerForm(ownerKind, owner, h, refresh) {
  const isNew = !h;
  h = h || { on: ownerKind === "sheet" ? ["select"] : ["tap"], enabled: true, webhook: { url: "" } };
  const type = h.script ? "script" : "webhook";
  const events = ownerKind === "sheet" ? SHEET_EVENTS : BUTTON_EVENTS.filter(([t]) => t !== "toggle" || owner.kind === "toggle");
  const err = errorBox();
  const w = h.webhook || {};
  const sc = h.script || {};
  const headersText = Object.entries(w.headers || {}).map(([k, v]) => `${k}: ${v}`).join("\n");

  const typeSeg = el("div.segmented", { role: "radiogroup", "aria-label": "Handler type" },
    ...[["webhook", "Webhook"], ["script", "Script"]].map(([v, l]) => el("label", {},
      el("input", { type: "radio", name: "htype", value: v, checked: type === v, disabled: !isNew }), el("span", { text: l }))));

  const webhookFields = el("fieldset.webhook-only", {},
    el("legend", { text: "Webhook" }),
    field("URL", input("url", w.url, { type: "url", placeholder: "https://example.com/hook", inputmode: "url", autocapitalize: "none" }), "A signed POST (Standard Webhooks) with the event as JSON."),
    field("Extra headers", el("textarea", { name: "headers", rows: 2, placeholder: "X-Api-Key: abc", spellcheck: "false", value: headersText }), "One “Name: value” per line."),
    el("div.row3", {},
      field("Timeout (ms)", numberInput("timeoutMs", w.timeoutMs, 1000, 30000, { placeholder: "10000" })),
      field("Max attempts", numberInput("maxAttempts", w.maxAttempts, 1, 100, { placeholder: "7" })),
      field("Expire after (ms)", numberInput("expireAfterMs", w.expireAfterMs, 1, undefined, { placeholder: "never" }))));

  const scriptFields = el("fieldset.script-only", {},
    el("legend", { text: "Script" }),
    field("Script name", input("scriptName", sc.name, { placeholder: "notify.sh", autocapitalize: "none" }), "A file in the server's --scripts-dir."),
    field("Arguments", el("textarea", { name: "args", rows: 2, spellcheck: "false", placeholder: "{button}\n{type}", value: (sc.args || []).join("\n") }),
      "One per line. Placeholders: {button} {type} {seq} {t} {face} {option}."),
    el("div.row2", {},
      field("Timeout (ms)", numberInput("scriptTimeoutMs", sc.timeoutMs, 1, 300000, { placeholder: "10000" })),
      field("Max attempts", numberInput("scriptMaxAttempts", sc.maxAttempts, 1, 100, { placeholder: "1" }))));

  const optionSelect = ownerKind === "sheet"
    ? field("Option", select("option", [["", "Any option"], ...(owner.options || []).map((o) => [o.id, o.label || o.id])], h.option || ""), "Only for this option (select events).")
    : null;

  const form = el("form.form", { novalidate: true },
    err,
    el("fieldset", {},
      el("legend", { text: "When" }),
      el("div.event-grid", {}, ...events.map(([t, l]) => checkbox(`on:${t}`, (h.on || []).includes(t), l))),
      optionSelect,
      checkbox("enabled", h.enabled !== false, "Enabled")),
    el("div.field", {}, el("span.label", { text: "Do" }), typeSeg),
    webhookFields, scriptFields,
    actions(
      btn("Cancel", "", { on: { click: back } }),
      el("button.btn.btn-primary", { type: "submit", text: isNew ? "Add handler" : "Save" })));

  const sync = () => {
    const t = form.elements.htype.value;
    webhookFields.hidden = webhookFields.disabled = t !== "webhook";
    scriptFields.hidden = scriptFields.disabled = t !== "script";
  };
  form.addEventListener("change", (e) => { if (e.target.name === "htype") sync(); });
  sync();

  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const f = form.elements;
    const on = events.map(([t]) => t).filter((t) => f[`on:${t}`].checked);
    if (!on.length) { showFormError(form, err, { message: "Pick at least one event.", field: "on" }); return; }
    const body = { on, enabled: f.enabled.checked };
    if (ownerKind === "sheet" && f.option.value) body.option = f.option.value;
    else if (ownerKind === "sheet" && !isNew && h.option) body.option = null;
    if (f.htype.value === "webhook") {
      const webhook = { url: f.url.value.trim() };
      const headers = {};
      for (const line of f.headers.value.split("\n")) {
        if (!line.trim()) continue;
        const i = line.indexOf(":");
        if (i < 1) { showFormError(form, err, { message: `A header line needs “Name: value”: ${line}`, field: "headers" }); return; }
        headers[line.slice(0, i).trim()] = line.slice(i + 1).trim();
      }
      if (Object.keys(headers).length) webhook.headers = headers;
      for (const k of ["timeoutMs", "maxAttempts", "expireAfterMs"]) { const v = num(form, k); if (v !== undefined) webhook[k] = v; }
      body.webhook = webhook;
    } else {
      const script = { name: f.scriptName.value.trim() };
      const args = f.args.value.split("\n").map((a) => a.trim()).filter(Boolean);
      if (args.length) script.args = args;
      const tm = num(form, "scriptTimeoutMs"); if (tm !== undefined) script.timeoutMs = tm;
      const ma = num(form, "scriptMaxAttempts"); if (ma !== undefined) script.maxAttempts = ma;
      body.script = script;
    }
    const submit = form.querySelector("[type=submit]");
    submit.disabled = true;
    try {
      const base = `${ownerKind === "sheet" ? "sheets" : "buttons"}/${enc(owner.id)}/handlers`;
      const saved = isNew ? await post(base, body) : await patch(`handlers/${enc(h.id)}`, body);
      refresh && refresh();
      if (saved && saved.secret) {
        show("Webhook secret", secretView(saved.secret, "The handler was added."), { replace: true });
      } else {
        toast(isNew ? "Handler added" : "Handler saved", { kind: "ok" });
        back();
      }
    } catch (ex) {
      showFormError(form, err, ex);
    } finally {
      submit.disabled = false;
    }
  });
  return el("div.editor-view", {}, form);
}

function secretView(secret, lead) {
  const box = el("input.secret", { type: "text", readonly: true, value: secret, "aria-label": "Webhook secret", spellcheck: "false" });
  const copy = btn("Copy", ".btn-primary", { on: { click: async () => {
    box.select();
    try { await navigator.clipboard.writeText(secret); toast("Secret copied", { kind: "ok" }); }
    catch { document.execCommand && document.execCommand("copy"); toast("Select the text and copy it", {}); }
  } } });
  return el("div.editor-view.secret-view", {},
    el("p", { text: lead }),
    el("div.callout", {},
      el("strong", { text: "Signing secret — shown only this once." }),
      el("span", { text: " Copy it now and give it to the receiver to verify the webhook-signature header (HMAC-SHA256, Standard Webhooks). You can make a new one later." })),
    el("div.secret-row", {}, box, copy),
    actions(btn("Done", "", { on: { click: back } })));
}

async function testHandler(h) {
  try {
    const res = await post(`handlers/${enc(h.id)}/test`);
    const d = res && (res.delivery || res);
    toast("Test event queued", { kind: "ok", detail: d && d.id ? `delivery ${d.id}` : "" });
    showDeliveries(h);
  } catch (err) {
    showError(err, "Test");
  }
}

async function rotateSecret(h) {
  if (!(await confirmAction("Make a new signing secret? The old one stops working at once.", "New secret"))) return;
  try {
    const res = await post(`handlers/${enc(h.id)}/rotate-secret`);
    show("New webhook secret", secretView(res.secret, `A new secret for ${handlerTarget(h)}.`));
  } catch (err) {
    showError(err, "New secret");
  }
}

// ---- deliveries ----------------------------------------------------------------------------

export function showDeliveries(h) {
  const statusSel = select("status", [["", "All statuses"], ...STATUSES.map((s) => [s, s.replace("_", " ")])], "");
  const list = el("ul.delivery-list");
  const note = el("p.muted", { text: "Loading…" });
  const view = el("div.editor-view", {},
    el("div.toolbar", {},
      h ? el("p.muted.grow", { text: `For ${h.webhook ? "webhook" : "script"} ${handlerTarget(h)}` }) : el("p.muted.grow", { text: "All handlers" }),
      el("label.inline", {}, el("span.visually-hidden", { text: "Status" }), statusSel),
      btn("Refresh", ".btn-small", { on: { click: () => load() } })),
    note, list);

  async function load() {
    const q = new URLSearchParams({ limit: "50" });
    if (h) q.set("handler", h.id);
    if (statusSel.value) q.set("status", statusSel.value);
    try {
      const res = await get(`deliveries?${q}`);
      const ds = (res && res.deliveries) || [];
      note.hidden = ds.length > 0;
      note.textContent = "No deliveries yet. Press the button, or use Test.";
      // Rows the user had open stay open (with fresh attempts) across a refresh.
      const open = new Set([...list.querySelectorAll("li.delivery")]
        .filter((li) => li.querySelector(".delivery-summary")?.getAttribute("aria-expanded") === "true")
        .map((li) => li.dataset.delivery));
      const rows = ds.map((d) => deliveryRow(d, load));
      list.replaceChildren(...rows);
      for (const row of rows) {
        if (open.has(row.dataset.delivery)) row.querySelector(".delivery-summary")?.click();
      }
    } catch (err) {
      note.hidden = false;
      note.textContent = `Could not load deliveries: ${err.message}`;
      showError(err, "Deliveries");
    }
  }
  statusSel.addEventListener("change", load);
  load();
  show("Deliveries", view);
  const top = stack[stack.length - 1];
  top.refresh = load;
}

function deliveryRow(d, reload) {
  const details = el("div.delivery-details", { hidden: true });
  const toggle = el("button.delivery-summary", { type: "button", "aria-expanded": "false" },
    el("span.status", { dataset: { status: d.status || "" }, text: (d.status || "?").replace("_", " ") }),
    el("span.delivery-main", {},
      el("span.delivery-id", { text: d.id }),
      el("span.delivery-sub", { text: [`event #${d.eventSeq}`, d.createdAt ? fmtDateTime(d.createdAt) : null].filter(Boolean).join(" · ") })),
    el("span.delivery-attempts", { text: `${d.attempts ?? 0} attempt${d.attempts === 1 ? "" : "s"}` }));
  toggle.addEventListener("click", async () => {
    const open = details.hidden;
    details.hidden = !open;
    toggle.setAttribute("aria-expanded", String(open));
    if (open) await loadDetails();
  });
  async function loadDetails() {
    details.replaceChildren(el("p.muted", { text: "Loading…" }));
    try {
      const full = await get(`deliveries/${enc(d.id)}`);
      const attempts = full.attempts || [];
      details.replaceChildren(
        attempts.length ? el("ol.attempts", {}, ...attempts.map((a) => el("li.attempt", {},
          el("div.attempt-head", {},
            el("strong", { text: `#${a.number}` }),
            el("span.status", { dataset: { status: a.outcome === "ok" ? "ok" : "failed" }, text: String(a.outcome || "").replace(/_/g, " ") }),
            a.statusCode !== undefined && a.statusCode !== null ? el("span", { text: `HTTP ${a.statusCode}` }) : null,
            a.exitCode !== undefined && a.exitCode !== null ? el("span", { text: `exit ${a.exitCode}` }) : null,
            el("span.muted", { text: `${fmtDateTime(a.startedAt)} · ${a.durationMs} ms` })),
          a.output ? el("pre.output", { text: a.output }) : null)))
          : el("p.muted", { text: full.nextAttemptAt ? `No attempt yet (next ${fmtDateTime(full.nextAttemptAt)}).` : "No attempt yet." }),
        el("div.dialog-actions", {},
          btn("Redeliver", ".btn-small", { on: { click: async () => {
            try {
              await post(`deliveries/${enc(d.id)}/redeliver`);
              toast("Redelivery queued", { kind: "ok" });
              setTimeout(() => { reload(); }, 600);
            } catch (err) { showError(err, "Redeliver"); }
          } } })));
    } catch (err) {
      details.replaceChildren(el("p.form-error", { text: err.message }));
      showError(err, "Delivery");
    }
  }
  return el("li.delivery", { dataset: { delivery: d.id, status: d.status || "" } }, toggle, details);
}

export { loadButtons, loadSheets };

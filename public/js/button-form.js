// The button editor: what it is (name, label, kind, page), how it looks (colour, icon, size,
// status), a toggle's faces and flip, and its gesture timings. An existing button shows its
// handlers first: attaching a webhook is what most visits are for.

import { post, patch, enc } from "./api.js";
import { el } from "./dom.js";
import { toast } from "./toast.js";
import { buttons, changed } from "./store.js";
import { show, back, closeEditor, deleteEntry } from "./editor-dialog.js";
import { NAME_RE, field, input, numberInput, select, checkbox, errorBox, actions, btn, num, showFormError, toHex } from "./form.js";
import { lookFields } from "./look-fields.js";
import { handlersSection } from "./handlers.js";
import { title, facesOf, faceLabel } from "./names.js";

const TRANSITIONS = ["flip-from-left", "flip-from-right", "curl-up", "curl-down", "cross-dissolve", "none"];
const CURVES = ["ease-in-out", "ease-in", "ease-out", "linear"];
const TIMINGS = ["longPressMs", "multiTapMs", "maxTaps", "repeatMs", "maxHoldMs"];
const GUARDS = ["minPressMs", "lockoutMs", "confirmMs"];

export function createButton(group = "") {
  show("New button", buttonForm(null, group));
}

export function editButton(id) {
  const b = buttons.get(id);
  if (b) show(`Button “${title(b)}”`, buttonForm(b));
}

function toggleFieldset(b) {
  const faces = facesOf(b);
  const flip = b.flip || { transition: "flip-from-left", curve: "ease-in-out", durationMs: 400 };
  const faceFields = faces.map((f, i) => el("div.face-edit", {},
    el("span.face-edit-title", { text: i === 0 ? "Face 0 (off)" : "Face 1 (on, pressed)" }),
    field("Label", input(`face${i}Label`, f.label, { maxlength: 64, required: true })),
    el("div.color-row", {},
      checkbox(`face${i}UseColor`, !!f.color, "Own colour"),
      el("input", { type: "color", name: `face${i}Color`, value: toHex(f.color) || (i ? "#2f7cf6" : "#9aa3b2"), "aria-label": `Face ${i} colour` }))));
  return el("fieldset.toggle-only", {},
    el("legend", { text: "Toggle faces and flip" }),
    el("div.face-grid", {}, ...faceFields),
    el("div.row3", {},
      field("Transition", select("transition", TRANSITIONS, flip.transition)),
      field("Curve", select("curve", CURVES, flip.curve)),
      field("Duration (ms)", numberInput("durationMs", flip.durationMs, 0, 5000))));
}

function gestureFieldset(b, isNew) {
  const v = (k, d) => b[k] ?? (isNew ? d : "");
  return el("fieldset", {},
    el("legend", { text: "Gestures" }),
    el("div.row2", {},
      field("Long press after (ms)", numberInput("longPressMs", v("longPressMs", 500), 50, 60000), "50–60000; a long press consumes the tap."),
      field("Multi-tap window (ms)", numberInput("multiTapMs", v("multiTapMs", 300), 50, 5000), "Time allowed between taps.")),
    el("div.row3", {},
      field("Max taps", numberInput("maxTaps", v("maxTaps", 2), 1, 5), "1–5"),
      field("Repeat every (ms)", numberInput("repeatMs", v("repeatMs", 0), 0, 60000), "0 = off"),
      field("Max hold (ms)", numberInput("maxHoldMs", v("maxHoldMs", 60000), 1000, 3600000), "Then cancelled.")));
}

/** The guards (SPEC §4 "Guards"): a minimum press, a lockout after a fire, arm-then-fire, and
 *  whether the key takes input at all. A lockout or a confirm fires on single taps only, so
 *  the form holds Max taps at 1 while either is on. */
function guardFieldset(b, isNew) {
  const v = (k) => b[k] ?? (isNew ? 0 : "");
  return el("fieldset.guards", {},
    el("legend", { text: "Guards (a stage's safety rules)" }),
    el("div.row3", {},
      field("Minimum press (ms)", numberInput("minPressMs", v("minPressMs"), 0, 2000), "0 = off, else 10–2000: a shorter brush is refused."),
      field("Lockout after firing (ms)", numberInput("lockoutMs", v("lockoutMs"), 0, 60000), "0 = off, else 50–60000: no double GO."),
      field("Confirm window (ms)", numberInput("confirmMs", v("confirmMs"), 0, 60000), "0 = off, else 500–60000: tap to arm, tap again to fire.")),
    checkbox("enabled", b.enabled !== false, "Enabled (takes input; off: every press is refused)"));
}

function buttonForm(b, group = "") {
  const isNew = !b;
  b = b || { kind: "push", group };
  const groups = [...new Set([...buttons.values()].map((x) => x.group).filter(Boolean))];
  const err = errorBox();
  const look = lookFields(b, isNew);
  const toggleFields = toggleFieldset(b);

  const kindSeg = el("div.segmented", { role: "radiogroup", "aria-label": "Kind" },
    ...["push", "toggle"].map((k) => el("label", {},
      el("input", { type: "radio", name: "kind", value: k, checked: (b.kind || "push") === k }),
      el("span", { text: k === "push" ? "Push" : "Toggle" }))));

  const form = el("form.form", { novalidate: true },
    el("fieldset", {},
      el("legend", { text: "Button" }),
      el("div.row2", {},
        field("Name (id)", input("id", b.id, isNew ? { required: true, pattern: NAME_RE.source, placeholder: "e.g. door", autofocus: true, autocapitalize: "none" } : { readonly: true }),
          isNew ? "Lowercase letters, digits, . _ -; used in URLs." : "The name cannot be changed."),
        field("Label", input("label", b.label, { maxlength: 64, placeholder: "Shown on the button" }))),
      el("div.field", { "data-field": "kind" }, el("span.label", { text: "Kind" }), kindSeg),
      el("div.row2", {},
        field("Page (group)", input("group", b.group, { list: "group-names", placeholder: "Main" }), "Each group is a page of its own."),
        field("Order", numberInput("order", b.order, -1000000, 1000000), "Lower comes first.")),
      el("datalist", { id: "group-names" }, ...groups.map((g) => el("option", { value: g })))),
    look.fieldset,
    toggleFields,
    gestureFieldset(b, isNew),
    guardFieldset(b, isNew),
    err,
    actions(
      isNew ? null : btn("Delete", ".btn-danger.push-left", { on: { click: () => deleteEntry("buttons", buttons, b, title(b)) } }),
      btn("Cancel", "", { on: { click: () => (isNew ? closeEditor() : back()) } }),
      el("button.btn.btn-primary", { type: "submit", text: isNew ? "Create button" : "Save" })));
  form.querySelector(".dialog-actions").classList.add("sticky-actions");

  const syncKind = () => {
    const k = form.elements.kind.value;
    toggleFields.hidden = k !== "toggle";
    toggleFields.disabled = k !== "toggle";
  };
  const syncGuards = () => {
    const single = ["lockoutMs", "confirmMs"].some((k) => Number(form.elements[k].value) > 0);
    const taps = form.elements.maxTaps;
    if (single) taps.value = "1";
    taps.readOnly = single;
    taps.title = single ? "A key with a lockout or a confirm window fires on single taps only." : "";
  };
  form.addEventListener("change", (e) => { if (e.target.name === "kind") syncKind(); });
  form.addEventListener("input", (e) => { if (e.target.name === "lockoutMs" || e.target.name === "confirmMs") syncGuards(); });
  syncKind();
  syncGuards();
  look.bind(form);

  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const body = readBody(form, b, isNew, look);
    if (!body) {
      showFormError(form, err, { message: "The name must be lowercase letters, digits, '.', '_' or '-' (up to 64), starting with a letter or digit.", field: "id" });
      return;
    }
    const submit = form.querySelector("[type=submit]");
    submit.disabled = true;
    try {
      const saved = isNew ? await post("buttons", body) : await patch(`buttons/${enc(b.id)}`, body);
      if (buttons.get(saved.id) && buttons.get(saved.id).state && !saved.state) saved.state = buttons.get(saved.id).state;
      buttons.set(saved.id, saved);
      changed("buttons");
      toast(isNew ? `Created “${title(saved)}”` : `Saved “${title(saved)}”`, { kind: "ok" });
      show(`Button “${title(saved)}”`, buttonForm(saved), { replace: true });
    } catch (ex) {
      showFormError(form, err, ex);
    } finally {
      submit.disabled = false;
    }
  });

  const wrap = el("div.editor-view");
  if (!isNew) wrap.append(handlersSection("button", b));
  wrap.append(form);
  return wrap;
}

/** The request body from the form, or null when the new name is not a valid id. */
function readBody(form, b, isNew, look) {
  const f = form.elements;
  const body = {};
  if (isNew) {
    const id = f.id.value.trim();
    if (!NAME_RE.test(id)) return null;
    body.id = id;
  }
  const label = f.label.value.trim();
  if (label || !isNew) body.label = label || (isNew ? undefined : b.id);
  body.kind = f.kind.value;
  const group = f.group.value.trim();
  if (group || (!isNew && b.group)) body.group = group;
  const order = num(form, "order");
  if (order !== undefined) body.order = order;
  for (const k of [...TIMINGS, ...GUARDS]) {
    const v = num(form, k);
    if (v !== undefined) body[k] = v;
  }
  if ((body.lockoutMs || 0) > 0 || (body.confirmMs || 0) > 0) body.maxTaps = 1;
  body.enabled = f.enabled.checked;
  Object.assign(body, look.read(form));
  if (body.kind === "toggle") {
    body.faces = [0, 1].map((i) => {
      const face = { label: f[`face${i}Label`].value.trim() || faceLabel(null, i) };
      if (f[`face${i}UseColor`].checked) face.color = f[`face${i}Color`].value;
      return face;
    });
    body.flip = { transition: f.transition.value, curve: f.curve.value };
    const d = num(form, "durationMs");
    body.flip.durationMs = d === undefined ? 300 : d;
  }
  for (const k of Object.keys(body)) if (body[k] === undefined) delete body[k];
  return body;
}

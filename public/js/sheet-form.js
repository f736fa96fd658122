// The sheet editor: title, options (label, id, destructive) in order, and the cancel label;
// an existing sheet shows its handlers first.

import { post, patch, enc } from "./api.js";
import { el } from "./dom.js";
import { icon } from "./icons.js";
import { toast, showError } from "./toast.js";
import { sheets, changed } from "./store.js";
import { show, closeEditor, deleteEntry } from "./editor-dialog.js";
import { NAME_RE, field, input, numberInput, num, checkbox, errorBox, actions, btn, showFormError, slug } from "./form.js";
import { handlersSection } from "./handlers.js";
import { title } from "./names.js";

export function createSheet() {
  show("New sheet", sheetForm(null));
}

export function editSheet(id) {
  const s = sheets.get(id);
  if (s) show(`Sheet “${title(s)}”`, sheetForm(s));
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
    el("fieldset", {},
      el("legend", { text: "Sheet" }),
      el("div.row2", {},
        field("Name (id)", input("id", s.id, isNew ? { required: true, placeholder: "e.g. scene", autofocus: true, autocapitalize: "none" } : { readonly: true })),
        field("Title", input("title", s.title, { placeholder: "Shown above the options" }))),
      el("div.row2", {},
        field("Cancel label", input("cancelLabel", s.cancelLabel, { placeholder: "Cancel" })),
        field("Closes after (s)", numberInput("openTimeoutS", s.openTimeoutMs === undefined ? 60 : s.openTimeoutMs / 1000, 0, 3600, { "data-field": "openTimeoutMs" }),
          "An open sheet nobody answers is cancelled after this long (0: never), so a panel that left cannot keep it open.")),
      el("div.row2", {},
        field("Page (group)", input("group", s.group, { placeholder: "Main" }), "It stands on that page's grid, beside its buttons."),
        field("Order", numberInput("order", s.order, -1000000, 1000000), "Lower comes first."))),
    el("fieldset", { "data-field": "options" },
      el("legend", { text: "Options" }),
      rows,
      btn("Add option", ".btn-ghost.btn-small", { on: { click: () => addRow().querySelector("input").focus() } })),
    err,
    actions(
      isNew ? null : btn("Delete", ".btn-danger.push-left", { on: { click: () => deleteEntry("sheets", sheets, s, title(s)) } }),
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
    const group = f.group.value.trim();
    if (group || (!isNew && s.group)) body.group = group;
    const order = num(form, "order");
    if (order !== undefined) body.order = order;
    const timeout = num(form, "openTimeoutS");
    if (timeout !== undefined) body.openTimeoutMs = typeof timeout === "number" ? Math.round(timeout * 1000) : timeout;
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
      toast(isNew ? `Created sheet “${title(saved)}”` : "Saved", { kind: "ok" });
      show(`Sheet “${title(saved)}”`, sheetForm(saved), { replace: true });
    } catch (ex) {
      showFormError(form, err, ex);
    } finally {
      submit.disabled = false;
    }
  });

  form.querySelector(".dialog-actions").classList.add("sticky-actions");
  const wrap = el("div.editor-view");
  if (!isNew) wrap.append(handlersSection("sheet", s));
  wrap.append(form);
  return wrap;
}

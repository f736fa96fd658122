// A sheet on the grid: a key like a button's, placed by the sheet's `group` and `order`, that
// opens the sheet (or, in edit mode, its editor), with its handlers' health mark.

import { el } from "./dom.js";
import { icon } from "./icons.js";
import { showHealthMark } from "./health.js";
import { keepFitted, forget } from "./fit.js";
import { openSheetHere } from "./sheets.js";
import { title } from "./names.js";
import { isDisconnected, CANNOT_PRESS } from "./connection.js";

/** A sheet's key. `actions` as for a KeyView. */
export class SheetKey {
  constructor(s, actions) {
    this.id = s.id;
    this.actions = actions;
    this.labelEl = el("span.key-label", { "aria-hidden": "true" });
    this.sub = el("span.key-hint", { "aria-hidden": "true" });
    this.node = el("button.key.key-sheet", {
      type: "button", dataset: { sheet: s.id },
      on: { click: () => {
        if (actions.editing()) actions.openEditor("sheet", this.id);
        else if (!isDisconnected()) openSheetHere(this.id);
      } },
    }, el("span.key-sheet-icon", { "aria-hidden": "true" }, icon("sheet")), this.labelEl, this.sub,
    el("span.key-edit", { "aria-hidden": "true" }, icon("edit")));
    this.healthBtn = el("button.health-mark", { type: "button", hidden: true, on: { click: () => actions.openHealth(this.id, "sheet") } });
    this.desc = el("span.visually-hidden", { id: `sd-${s.id}` });
    this.node.setAttribute("aria-describedby", this.desc.id);
    this.cell = el("div.key-cell.sheet-cell", { dataset: { sheet: s.id, size: "1x1" } }, this.node, this.healthBtn, this.desc);
    this.update(s);
  }

  update(s) {
    this.s = s;
    const name = title(s);
    const n = (s.options || []).length;
    this.labelEl.textContent = name;
    this.sub.textContent = `${n} option${n === 1 ? "" : "s"}`;
    this.node.setAttribute("aria-label", name);
    this.node.setAttribute("aria-haspopup", "dialog");
    this.setEditing(this.actions.editing());
    showHealthMark(this.cell, this.healthBtn, name, s);
    keepFitted(this.labelEl, this.node);
    this.applyConnection();
  }

  /** Without the server a sheet cannot be opened here, and says so (connection.js). */
  applyConnection() {
    if (isDisconnected()) this.node.setAttribute("aria-disabled", "true");
    else this.node.removeAttribute("aria-disabled");
    this.desc.textContent = isDisconnected() ? CANNOT_PRESS : "";
  }

  setEditing(on) {
    this.node.classList.toggle("editing", on);
    this.node.title = on ? `Edit ${title(this.s)}` : "";
  }

  remove() {
    forget(this.node);
    this.cell.remove();
  }
}

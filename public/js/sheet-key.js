// A sheet on the grid: a key like a button's, placed by the sheet's `group` and `order`, that
// opens the sheet (or, in edit mode, its editor), with its handlers' health mark.

import { el, icon } from "./ui.js";
import { healthOf, openHealth } from "./health.js";
import { title } from "./store.js";
import { keepFitted, forget } from "./fit.js";
import { mode } from "./mode.js";
import { openSheetHere } from "./sheets.js";

export class SheetKey {
  constructor(s) {
    this.id = s.id;
    this.labelEl = el("span.key-label", { "aria-hidden": "true" });
    this.sub = el("span.key-hint", { "aria-hidden": "true" });
    this.node = el("button.key.key-sheet", {
      type: "button", dataset: { sheet: s.id },
      on: { click: () => (mode.editing ? mode.openEditor("sheet", this.id) : openSheetHere(this.id)) },
    }, el("span.key-sheet-icon", { "aria-hidden": "true" }, icon("sheet")), this.labelEl, this.sub,
    el("span.key-edit", { "aria-hidden": "true" }, icon("edit")));
    this.healthBtn = el("button.health-mark", { type: "button", hidden: true, on: { click: () => openHealth(this.id, "sheet") } });
    this.cell = el("div.key-cell.sheet-cell", { dataset: { sheet: s.id, size: "1x1" } }, this.node, this.healthBtn);
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
    this.setEditing(mode.editing);
    const h = healthOf(s);
    this.cell.dataset.health = h ? h.state : "ok";
    this.healthBtn.hidden = !h;
    if (h) {
      this.healthBtn.setAttribute("aria-label", `${name}: handler ${h.state}. Show why`);
      this.healthBtn.title = `handler ${h.state}: ${h.reason || ""}`;
      this.healthBtn.replaceChildren(el("span.health-dot", {}, icon(h.state === "disabled" ? "ban" : "alert")));
    }
    keepFitted(this.labelEl, this.node);
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

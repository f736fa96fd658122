// Edit mode's entry points: the button and sheet editors, handlers and deliveries, all shown in
// one modal dialog (editor-dialog.js), view after view.

import { editButton, createButton } from "./button-form.js";
import { editSheet, createSheet } from "./sheet-form.js";
import { showDeliveries } from "./deliveries.js";
import { closeEditor, initEditorDialog } from "./editor-dialog.js";

export function openEditor(kind, id) {
  if (kind === "sheet") editSheet(id);
  else editButton(id);
}

export { createButton, createSheet, showDeliveries, closeEditor, initEditorDialog };

// Named tokens (admin): the list with one-click revoke, and a form that makes one for a group
// and shows its kiosk link (`/?kiosk#token=…`: the fragment never reaches a server's log).

import { get, post, del, enc } from "./api.js";
import { el } from "./dom.js";
import { toast, showError } from "./toast.js";
import { confirmAction } from "./confirm.js";
import { fmtDateTime } from "./format.js";
import { groupedKeys } from "./store.js";
import { show, onReturn } from "./editor-dialog.js";
import { field, input, select, btn, actions, errorBox, NAME_RE } from "./form.js";

const ROLES = [["press", "Press: read and press"], ["read", "Read: watch only"], ["admin", "Admin: everything"]];

export function kioskLink(token) {
  return `${location.origin}/?kiosk#token=${token}`;
}

function tokenRow(t, reload) {
  const scope = t.groups ? `groups: ${t.groups.join(", ")}` : "every group";
  const used = t.lastUsedAt ? `last used ${fmtDateTime(t.lastUsedAt)}` : "never used";
  const revoke = btn("Revoke", ".btn-small.btn-danger", { "aria-label": `Revoke ${t.name}` });
  revoke.addEventListener("click", async () => {
    if (!(await confirmAction(`Revoke the token “${t.name}”? Panels using it stop at once.`, "Revoke"))) return;
    try {
      await del(`tokens/${enc(t.name)}`);
      toast(`Token ${t.name} revoked`, { kind: "ok" });
      reload();
    } catch (err) { showError(err, "Revoke"); }
  });
  return el("li.token", { dataset: { token: t.name } },
    el("div.grow", {}, el("strong", { text: t.name }), " ",
      el("span.muted", { text: `${t.role} · ${scope} · ${used}${t.expiresAt ? ` · expires ${fmtDateTime(t.expiresAt)}` : ""}` })),
    revoke);
}

function tokenForm(done) {
  const groups = groupedKeys().map((g) => g.name).filter(Boolean);
  const name = input("name", "", { required: true, placeholder: "lobby-kiosk" });
  const role = select("role", ROLES, "press");
  const group = select("group", [["", "Every group"], ...groups.map((g) => [g, g])], groups[0] || "");
  const error = errorBox();
  const result = el("div.token-result", { hidden: true });
  const make = btn("Make token", ".btn-primary", { type: "submit" });
  const form = el("form.editor-form", { novalidate: true },
    field("Name", name, "Shown in the log and as “by” in its events"), field("Role", role), field("Group", group), error,
    actions(make), result);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    error.hidden = true;
    if (!NAME_RE.test(name.value.trim())) {
      error.textContent = "A name is lower-case letters, digits, . _ or -";
      error.hidden = false;
      return;
    }
    const body = { name: name.value.trim(), role: role.value };
    if (group.value) body.groups = [group.value];
    try {
      const made = await post("tokens", body);
      const link = kioskLink(made.token);
      result.replaceChildren(
        el("p", { text: "The token is shown this once. The kiosk link opens the panel with it:" }),
        el("input.kiosk-link", { readonly: true, value: link, "aria-label": "Kiosk link" }),
        el("p.muted", { text: made.token }));
      result.hidden = false;
      done();
    } catch (err) { showError(err, "Token", form); }
  });
  return form;
}

export function showTokens() {
  const list = el("ul.token-list");
  const note = el("p.muted", { text: "Loading…" });
  async function load() {
    try {
      const res = await get("tokens");
      const tokens = (res && res.tokens) || [];
      note.textContent = tokens.length ? "" : "No named tokens yet.";
      list.replaceChildren(...tokens.map((t) => tokenRow(t, load)));
    } catch (err) {
      note.textContent = err.message;
      showError(err, "Tokens");
    }
  }
  show("Tokens", el("div.editor-view", {}, note, list, el("h3", { text: "New token" }), tokenForm(load)));
  onReturn(load);
  load();
}

// Named tokens (admin): the list with one-click revoke, and a form that makes one for any
// groups and shows its kiosk link (`/?kiosk#token=…`: the fragment never reaches a server's log)
// whole, with a Copy button and as a QR code (POST /api/v1/qr: libqrencode on the server) a
// tablet's camera can open.

import { get, post, del, enc, currentToken } from "./api.js";
import { el } from "./dom.js";
import { toast, showError } from "./toast.js";
import { confirmAction } from "./confirm.js";
import { fmtDateTime } from "./format.js";
import { groupedKeys } from "./store.js";
import { show, onReturn } from "./editor-dialog.js";
import { field, input, select, btn, actions, errorBox, checkbox, NAME_RE } from "./form.js";

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

/** The server's QR code of `text` (an SVG), put in the page as an element (the CSP keeps
 *  `data:` images out), or null when the server cannot make one. */
async function qrCode(text) {
  const res = await fetch("/api/v1/qr", {
    method: "POST", cache: "no-store",
    headers: { "content-type": "application/json", accept: "image/svg+xml", ...authHeader() },
    body: JSON.stringify({ text }),
  });
  if (!res.ok) return null;
  const doc = new DOMParser().parseFromString(await res.text(), "image/svg+xml");
  const svg = doc.documentElement;
  if (!svg || svg.nodeName !== "svg") return null;
  const node = document.importNode(svg, true);
  node.setAttribute("role", "img");
  node.setAttribute("aria-label", "QR code of the kiosk link");
  node.classList.add("qr-code");
  return node;
}

function authHeader() {
  const token = currentToken();
  return token ? { authorization: `Bearer ${token}` } : {};
}

/** Copies `text`; falls back to selecting it in `field` where the clipboard is not offered. */
async function copy(text, fieldNode) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    fieldNode.focus();
    fieldNode.select();
    try { return document.execCommand("copy"); } catch { return false; }
  }
}

function tokenForm(done) {
  const groups = groupedKeys().map((g) => g.name).filter(Boolean);
  const name = input("name", "", { required: true, placeholder: "lobby-kiosk" });
  const role = select("role", ROLES, "press");
  const groupBoxes = groups.map((g) => checkbox(`group:${g}`, false, g));
  const groupField = el("fieldset.token-groups", { "data-field": "groups" },
    el("legend", { text: "Groups" }),
    el("p.help", { text: groups.length ? "Tick none for every group." : "There are no groups: the token sees every button." }),
    el("div.check-grid", {}, ...groupBoxes));
  const error = errorBox();
  const result = el("div.token-result", { hidden: true, "aria-live": "polite" });
  const make = btn("Make token", ".btn-primary", { type: "submit" });
  const form = el("form.editor-form", { novalidate: true },
    field("Name", name, "Shown in the log and as “by” in its events"), field("Role", role), groupField, error,
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
    const chosen = groupBoxes.filter((b) => b.querySelector("input").checked).map((b) => b.textContent);
    if (chosen.length) body.groups = chosen;
    try {
      const made = await post("tokens", body);
      const link = kioskLink(made.token);
      const linkField = el("textarea.kiosk-link", { readonly: true, rows: 3, "aria-label": "Kiosk link", spellcheck: "false" });
      linkField.value = link;
      const copied = el("span.muted.copy-note", { role: "status" });
      const copyBtn = btn("Copy link", ".btn-primary.copy-link", { on: { click: async () => {
        copied.textContent = (await copy(link, linkField)) ? "Copied." : "Select the link and copy it.";
      } } });
      const qrBox = el("div.qr-box", {}, el("p.muted", { text: "Making the QR code…" }));
      result.replaceChildren(
        el("h3", { text: `Token “${made.name}”` }),
        el("p", { text: "The token is shown this once. The kiosk link opens the panel with it: copy it, or scan the code with the tablet." }),
        linkField, el("div.dialog-actions.start", {}, copyBtn, copied), qrBox,
        el("details", {}, el("summary", { text: "The token alone" }), el("p.muted.mono", { text: made.token })));
      result.hidden = false;
      qrCode(link).then((svg) => qrBox.replaceChildren(svg || el("p.muted", { text: "No QR code: the server could not make one." })))
        .catch(() => qrBox.replaceChildren(el("p.muted", { text: "No QR code: the server could not be reached." })));
      result.scrollIntoView({ block: "start", behavior: "instant" });
      done();
    } catch (err) { showError(err, "Token"); }
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

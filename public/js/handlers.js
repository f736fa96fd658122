// Handlers of a button or sheet: webhooks, scripts and OSC messages, with their health, a test
// delivery, a new secret, and the form that shows and changes all a handler has (method, body
// and header templates, timeouts, attempts, ordered; an OSC message's typed arguments).

import { get, post, patch, del, enc } from "./api.js";
import { el } from "./dom.js";
import { toast, showError } from "./toast.js";
import { confirmAction } from "./confirm.js";
import { show, back, onReturn } from "./editor-dialog.js";
import { field, input, numberInput, select, checkbox, errorBox, actions, btn, num, showFormError } from "./form.js";
import { showDeliveries } from "./deliveries.js";
import { kinds, kindLabel, handlerKind, kindWord, handlerTarget, placeholders } from "./handler-kinds.js";
import { oscFields } from "./osc-fields.js";
import { handlerEvents, naturalEvent } from "./vocab.js";
import { reloadListeners } from "./listeners.js";
import { optionLabel } from "./names.js";

const METHODS = ["POST", "PUT", "PATCH", "GET", "DELETE"];

export function handlersSection(ownerKind, owner) {
  const list = el("ul.handler-list");
  const status = el("p.muted", { text: "Loading handlers…" });
  const base = `${ownerKind === "sheet" ? "sheets" : "buttons"}/${enc(owner.id)}/handlers`;
  const section = el("section.handlers", { "aria-label": "Handlers" },
    el("div.section-head", {},
      el("h3", { text: "Handlers" }),
      btn("Add handler", ".btn-primary.btn-small", { on: { click: () => show("New handler", handlerForm(ownerKind, owner, null, refresh)) } })),
    el("p.help", { text: ownerKind === "sheet"
      ? "Run a webhook, a script or an OSC message when an option is chosen (or the sheet opens or is cancelled)."
      : "Run a webhook, a script or an OSC message when this button is tapped, held, double-tapped, flipped…" }),
    status, list);

  async function refresh() {
    try {
      const res = await get(base);
      const hs = (res && res.handlers) || [];
      status.hidden = hs.length > 0;
      status.textContent = "No handlers yet.";
      list.replaceChildren(...hs.map((h) => handlerCard(ownerKind, owner, h, refresh)));
      reloadListeners(); // what a key advertises follows its handlers
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
  queueMicrotask(() => onReturn(refresh));
  return section;
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
  const health = h.health && h.health.state && h.health.state !== "ok" ? h.health : null;
  return el("li.handler-card", { dataset: { handler: h.id, health: health ? health.state : "ok" } },
    el("div.handler-top", {},
      el("span.kind-chip", { dataset: { kind: handlerKind(h) }, text: kindLabel(handlerKind(h)) }),
      el("span.handler-target", { title: handlerTarget(h), text: handlerTarget(h) }),
      el("label.switch", {}, enabled, el("span.switch-track", { "aria-hidden": "true" }))),
    el("div.chips", {}, ...on),
    handlerDetails(h),
    health ? el("p.handler-health", { dataset: { state: health.state } },
      el("strong", { text: health.state === "disabled" ? "Disabled" : "Failing" }),
      el("span", { text: health.reason ? ` — ${health.reason}` : "" })) : null,
    el("div.handler-actions", {},
      btn("Test", ".btn-small", { on: { click: () => testHandler(h) } }),
      btn("Deliveries", ".btn-small", { on: { click: () => showDeliveries(h) } }),
      h.webhook ? btn("New secret", ".btn-small", { on: { click: () => rotateSecret(h) } }) : null,
      btn("Edit", ".btn-small", { on: { click: () => show("Edit handler", handlerForm(ownerKind, owner, h, refresh)) } }),
      btn("Delete", ".btn-small.btn-danger-ghost", { on: { click: async () => {
        if (!(await confirmAction(`Delete this ${kindWord(h)} handler (${handlerTarget(h)})?`))) return;
        try { await del(`handlers/${enc(h.id)}`); toast("Handler deleted", { kind: "ok" }); refresh(); } catch (err) { showError(err, "Delete handler"); }
      } } })));
}

/** What a card says besides the target: a body template, headers, arguments, timeouts, order. */
function handlerDetails(h) {
  const w = h.webhook;
  const run = w || h.script || h.osc || {};
  const bits = [];
  if (h.osc && h.osc.args && h.osc.args.length) bits.push(`args ${h.osc.args.map((a) => a.type).join("")}`);
  if (h.osc && h.osc.slip) bits.push("SLIP");
  if (w && w.body !== undefined) bits.push("body template");
  if (w && w.headers && Object.keys(w.headers).length) bits.push(`headers: ${Object.keys(w.headers).join(", ")}`);
  if (run.timeoutMs) bits.push(`timeout ${run.timeoutMs} ms`);
  if (run.maxAttempts) bits.push(`${run.maxAttempts} attempt${run.maxAttempts === 1 ? "" : "s"}`);
  if (run.expireAfterMs) bits.push(`expires after ${run.expireAfterMs} ms`);
  if (h.ordered === false) bits.push("not ordered");
  return bits.length ? el("p.handler-details", { text: bits.join(" · ") }) : null;
}

/** The caption under the URL: what is sent, by the method and whether a body template is set. */
function webhookCaption(method, templated) {
  if (method === "GET") return "A signed GET (Standard Webhooks), with no body.";
  return templated
    ? `A signed ${method} (Standard Webhooks) with the body template below, its placeholders filled in.`
    : `A signed ${method} (Standard Webhooks) with the event as JSON.`;
}

function webhookFieldset(w) {
  const headersText = Object.entries(w.headers || {}).map(([k, v]) => `${k}: ${v}`).join("\n");
  const method = w.method || "POST";
  const bodyText = w.body === undefined ? "" : JSON.stringify(w.body, null, 2);
  const url = el("textarea.url-input", { name: "url", rows: 2, placeholder: "https://example.com/hook", inputmode: "url",
    autocapitalize: "none", spellcheck: "false", value: w.url || "" });
  url.addEventListener("keydown", (e) => { if (e.key === "Enter") e.preventDefault(); }); // it wraps, it is one line
  const urlField = field("URL", url, webhookCaption(method, !!bodyText));
  return el("fieldset.webhook-only", {},
    el("legend", { text: "Webhook" }),
    el("div.method-url", {},
      field("Method", select("method", METHODS, method)),
      urlField),
    field("Body template (JSON)", el("textarea", { name: "body", rows: bodyText ? 5 : 3, spellcheck: "false",
      placeholder: '{"text": "{label}: {type}"}', value: bodyText }),
    `Optional: sent instead of the event. Strings may hold ${placeholders()}; "{event}" alone is the whole event. Empty: the event as JSON.`),
    field("Extra headers", el("textarea", { name: "headers", rows: 2, placeholder: "X-Api-Key: abc", spellcheck: "false", value: headersText }), "One “Name: value” per line; values may hold the same placeholders."),
    el("div.row3", {},
      field("Timeout (ms)", numberInput("timeoutMs", w.timeoutMs, 1000, 30000, { placeholder: "10000" })),
      field("Max attempts", numberInput("maxAttempts", w.maxAttempts, 1, 20, { placeholder: "7" })),
      field("Expire after (ms)", numberInput("expireAfterMs", w.expireAfterMs, 1000, 604800000, { placeholder: "never" }))));
}

function scriptFieldset(sc) {
  return el("fieldset.script-only", {},
    el("legend", { text: "Script" }),
    field("Script name", input("scriptName", sc.name, { placeholder: "notify.sh", autocapitalize: "none" }), "A file in the server's --scripts-dir."),
    field("Arguments", el("textarea", { name: "args", rows: 2, spellcheck: "false", placeholder: "{button}\n{type}", value: (sc.args || []).join("\n") }),
      "One per line. Placeholders: {button} {type} {seq} {t} {face} {option}."),
    el("div.row2", {},
      field("Timeout (ms)", numberInput("scriptTimeoutMs", sc.timeoutMs, 1, 300000, { placeholder: "10000" })),
      field("Max attempts", numberInput("scriptMaxAttempts", sc.maxAttempts, 1, 20, { placeholder: "1" }))));
}

/** The webhook as the form says, or { error } naming the field. */
function readWebhook(form, before) {
  const f = form.elements;
  const webhook = { url: f.url.value.replace(/\s+/g, ""), method: f.method.value };
  const bodyText = f.body.value.trim();
  if (bodyText) {
    try { webhook.body = JSON.parse(bodyText); } catch (e) {
      return { error: { message: `The body template is not JSON: ${e.message}`, field: "body" } };
    }
  } else if (before && before.body !== undefined) webhook.body = null; // cleared
  const headers = {};
  for (const line of f.headers.value.split("\n")) {
    if (!line.trim()) continue;
    const i = line.indexOf(":");
    if (i < 1) return { error: { message: `A header line needs “Name: value”: ${line}`, field: "headers" } };
    headers[line.slice(0, i).trim()] = line.slice(i + 1).trim();
  }
  if (Object.keys(headers).length || (before && before.headers && Object.keys(before.headers).length)) webhook.headers = headers;
  for (const k of ["timeoutMs", "maxAttempts", "expireAfterMs"]) { const v = num(form, k); if (v !== undefined) webhook[k] = v; }
  return { webhook };
}

function readScript(form) {
  const f = form.elements;
  const script = { name: f.scriptName.value.trim() };
  const args = f.args.value.split("\n").map((a) => a.trim()).filter(Boolean);
  if (args.length) script.args = args;
  const tm = num(form, "scriptTimeoutMs"); if (tm !== undefined) script.timeoutMs = tm;
  const ma = num(form, "scriptMaxAttempts"); if (ma !== undefined) script.maxAttempts = ma;
  return script;
}

function handlerForm(ownerKind, owner, h, refresh) {
  const isNew = !h;
  h = h || { on: [naturalEvent(ownerKind, owner)], enabled: true, ordered: true, webhook: { url: "" } };
  const type = handlerKind(h);
  const events = handlerEvents(ownerKind, owner);
  const err = errorBox();

  const typeSeg = el("div.segmented", { role: "radiogroup", "aria-label": "Handler type" },
    ...kinds().map(([v, l]) => el("label", {},
      el("input", { type: "radio", name: "htype", value: v, checked: type === v, disabled: !isNew }), el("span", { text: l }))));
  const webhookFields = webhookFieldset(h.webhook || {});
  const scriptFields = scriptFieldset(h.script || {});
  const osc = oscFields(h.osc || {});
  const optionSelect = ownerKind === "sheet"
    ? field("Option", select("option", [["", "Any option"], ...(owner.options || []).map((o) => [o.id, optionLabel(o)])], h.option || ""), "Only for this option (select events).")
    : null;

  const form = el("form.form", { novalidate: true },
    el("fieldset", {},
      el("legend", { text: "When" }),
      el("div.event-grid", { "data-field": "on" }, ...events.map(([t, l]) => checkbox(`on:${t}`, (h.on || []).includes(t), l))),
      optionSelect,
      checkbox("enabled", h.enabled !== false, "Enabled"),
      el("div.field", {}, checkbox("ordered", h.ordered !== false, "In order"),
        el("span.help", { text: "A delivery waiting for its retry holds back this handler's later ones." }))),
    el("div.field", {}, el("span.label", { text: "Do" }), typeSeg),
    webhookFields, scriptFields, osc.fieldset,
    err,
    actions(
      btn("Cancel", "", { on: { click: back } }),
      el("button.btn.btn-primary", { type: "submit", text: isNew ? "Add handler" : "Save" })));

  const sync = () => {
    const t = form.elements.htype.value;
    webhookFields.hidden = webhookFields.disabled = t !== "webhook";
    scriptFields.hidden = scriptFields.disabled = t !== "script";
    osc.fieldset.hidden = osc.fieldset.disabled = t !== "osc";
  };
  const caption = () => {
    const f = form.elements;
    const help = form.querySelector(`#${CSS.escape(f.url.id)}-help`);
    if (help) help.textContent = webhookCaption(f.method.value, !!f.body.value.trim());
    f.body.closest(".field").hidden = f.method.value === "GET" && !f.body.value.trim();
  };
  form.addEventListener("change", (e) => { if (e.target.name === "htype") sync(); if (e.target.name === "method") caption(); });
  form.addEventListener("input", (e) => { if (e.target.name === "body") caption(); });
  sync();
  caption();

  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const f = form.elements;
    const on = events.map(([t]) => t).filter((t) => f[`on:${t}`].checked);
    if (!on.length) { showFormError(form, err, { message: "Pick at least one event.", field: "on" }); return; }
    const body = { on, enabled: f.enabled.checked, ordered: f.ordered.checked };
    if (ownerKind === "sheet" && f.option.value) body.option = f.option.value;
    else if (ownerKind === "sheet" && !isNew && h.option) body.option = null;
    if (f.htype.value === "webhook") {
      const { webhook, error } = readWebhook(form, isNew ? null : h.webhook);
      if (error) { showFormError(form, err, error); return; }
      body.webhook = webhook;
    } else if (f.htype.value === "osc") {
      body.osc = osc.read(form);
    } else {
      body.script = readScript(form);
    }
    const base = `${ownerKind === "sheet" ? "sheets" : "buttons"}/${enc(owner.id)}/handlers`;
    await submitHandler(form, err, () => (isNew ? post(base, body) : patch(`handlers/${enc(h.id)}`, body)), isNew, refresh);
  });
  return el("div.editor-view", {}, form);
}

/** Sends the form's handler; shows a new webhook's secret once, or says it is saved. */
async function submitHandler(form, err, send, isNew, refresh) {
  const submit = form.querySelector("[type=submit]");
  submit.disabled = true;
  try {
    const saved = await send();
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


// The delivery log: each row reads "button · event → target · outcome", newest first, with
// older pages on demand; a row opens to its attempts and can be redelivered. Filters by kind,
// handler, button or sheet, and status (SPEC §7 "A panel for a live show"), all applied by the
// server; the server's own MQTT publishing (a row per touch) is left out unless asked for.

import { get, post, enc } from "./api.js";
import { el } from "./dom.js";
import { icon } from "./icons.js";
import { toast, showError } from "./toast.js";
import { fmtDateTime, fmtTime } from "./format.js";
import { subjectName, buttons, sheets } from "./store.js";
import { show, onReturn } from "./editor-dialog.js";
import { select, btn } from "./form.js";
import { handlerTarget, kindLabel } from "./handler-kinds.js";
import { serverWords } from "./vocab.js";
import { title } from "./names.js";

const PAGE = 50;
/** How each status filter reads; `failing`: still being retried after a failed attempt. */
const STATUS_WORDS = { failing: "failing (retrying)", in_flight: "sending" };

function words(s) { return String(s || "").replace(/_/g, " "); }

const OUTCOMES = {
  ok: "delivered", connect: "could not connect", timeout: "no answer in time", http_status: "refused by the receiver",
  exit_code: "the script failed", signal: "the script was killed", refused: "script not runnable", blocked: "blocked",
  expired: "expired",
};

/** The last attempt's outcome in words, or what the delivery is waiting for. */
function outcome(d) {
  const o = d.outcome && typeof d.outcome === "object" ? d.outcome : { outcome: d.outcome, statusCode: d.statusCode, exitCode: d.exitCode };
  if (o.outcome) {
    if (o.statusCode != null) return `HTTP ${o.statusCode}`;
    if (o.exitCode != null) return `exit ${o.exitCode}`;
    return OUTCOMES[o.outcome] || words(o.outcome);
  }
  if (d.status === "pending" && d.waitingFor) return `waiting for ${d.waitingFor}`;
  return { pending: "queued", in_flight: "sending", ok: "delivered" }[d.status] || words(d.status);
}

/** When a pending delivery is tried next ("next attempt in 4 s, 12:00:01"), or null. */
export function nextAttempt(d, now = Date.now()) {
  if (d.status !== "pending" || d.waitingFor || typeof d.nextAttemptAt !== "number") return null;
  const s = Math.round((d.nextAttemptAt - now) / 1000);
  if (s <= 0) return "next attempt due now";
  const wait = s < 90 ? `${s} s` : s < 5400 ? `${Math.round(s / 60)} min` : `${Math.round(s / 3600)} h`;
  return `next attempt in ${wait}, ${fmtTime(d.nextAttemptAt).slice(0, 8)}`;
}

/** The log, for handler `h` ({id, owner?, webhook|script|osc?}) or all of them (null). */
export function showDeliveries(h) {
  const statuses = serverWords("deliveryStatuses", ["pending", "in_flight", "ok", "failed", "expired", "blocked", "failing"]);
  const statusSel = select("status", [["", "Any status"], ...statuses.map((s) => [s, STATUS_WORDS[s] || words(s)])], "");
  const kindsAll = serverWords("deliveryKinds", ["webhook", "script", "osc", "mqtt"]);
  const handlerKinds = kindsAll.filter((k) => k !== "mqtt");
  // "" is every handler's kind but the server's own MQTT publishing: it is there when asked.
  const kindSel = select("kind", [["", "All handlers"], ...kindsAll.map((k) => [k, k === "mqtt" ? "MQTT publishing" : kindLabel(k)]),
    ["*", "All, with MQTT"]], "");
  const sources = [...[...buttons.values()].map((b) => [`button:${b.id}`, title(b)]),
    ...[...sheets.values()].map((x) => [`sheet:${x.id}`, `${title(x)} (sheet)`])];
  const sourceSel = select("source", [["", "Any"], ...sources], "");
  const handlerSel = select("handler", [["", "Any handler"]], "");
  if (!h) {
    // Every handler, named by where it is and where it delivers (the config lists them all).
    get("config").then((config) => {
      for (const x of (config && config.handlers) || []) {
        const owner = x.button ? subjectName({ button: x.button }) : subjectName({ sheet: x.sheet });
        handlerSel.append(el("option", { value: x.id, text: `${owner} · ${kindLabel(x.webhook ? "webhook" : x.osc ? "osc" : "script")} ${handlerTarget(x)}` }));
      }
    }).catch(() => { handlerSel.disabled = true; });
  }
  const list = el("ul.delivery-list");
  const note = el("p.muted", { text: "Loading…" });
  const older = btn("Older", ".older", { hidden: true });
  older.prepend(icon("down"));
  const what = !h ? "All handlers"
    : h.webhook || h.script || h.osc ? `For ${handlerTarget(h)}`
      : `For handler ${h.id}${h.owner ? ` of ${h.owner}` : ""}`;
  const labelled = (text, control) => el("label.filter", {}, el("span.filter-label", { text }), control);
  const filters = el("div.delivery-filters", { role: "group", "aria-label": "Filter deliveries" },
    h ? null : labelled("Kind", kindSel), h ? null : labelled("Handler", handlerSel), h ? null : labelled("From", sourceSel),
    labelled("Status", statusSel),
    btn("Refresh", ".btn-small", { on: { click: () => load() } }));
  const view = el("div.editor-view.deliveries-view", {},
    el("p.muted.delivery-scope", { text: what }), filters,
    note, list, el("div.dialog-actions.center", {}, older));
  let next = null;

  /** The query the filters make. */
  function query() {
    const q = new URLSearchParams({ limit: String(PAGE) });
    if (h) q.set("handler", h.id);
    else if (handlerSel.value) q.set("handler", handlerSel.value);
    if (h || handlerSel.value) { /* one handler: its kind is known */ } else if (kindSel.value === "") q.set("kind", handlerKinds.join(","));
    else if (kindSel.value !== "*") q.set("kind", kindSel.value);
    if (!h && sourceSel.value) {
      const [kind, id] = sourceSel.value.split(/:(.*)/s);
      q.set(kind, id);
    }
    if (statusSel.value) q.set("status", statusSel.value);
    return q;
  }

  async function load(append = false) {
    const q = query();
    if (append && next) q.set("before", next);
    older.disabled = true;
    try {
      const res = await get(`deliveries?${q}`);
      const ds = (res && res.deliveries) || [];
      next = res && res.next ? String(res.next) : null;
      older.hidden = !next;
      // Rows the user had open stay open (with fresh attempts) across a refresh.
      const open = new Set([...list.querySelectorAll("li.delivery")]
        .filter((li) => li.querySelector(".delivery-summary").getAttribute("aria-expanded") === "true")
        .map((li) => li.dataset.delivery));
      const rows = ds.map((d) => deliveryRow(d, () => load()));
      if (append) list.append(...rows); else list.replaceChildren(...rows);
      note.hidden = list.children.length > 0;
      const filtered = statusSel.value || sourceSel.value || handlerSel.value || (kindSel.value && kindSel.value !== "*");
      note.textContent = filtered ? "No deliveries match these filters." : "No deliveries yet. Press the button, or use Test.";
      for (const row of rows) if (open.has(row.dataset.delivery)) row.querySelector(".delivery-summary").click();
    } catch (err) {
      note.hidden = false;
      note.textContent = `Could not load deliveries: ${err.message}`;
      showError(err, "Deliveries");
    } finally {
      older.disabled = false;
    }
  }
  for (const control of [statusSel, kindSel, sourceSel, handlerSel]) control.addEventListener("change", () => load());
  older.addEventListener("click", () => load(true));
  load();
  show("Deliveries", view);
  onReturn(() => load());
}

function attemptsView(full) {
  const attempts = full.attempts || [];
  const next = nextAttempt(full);
  if (!attempts.length) {
    return el("p.muted", { text: next ? `No attempt yet: ${next}.` : "No attempt yet." });
  }
  return el("div", {}, next ? el("p.next-attempt", { text: `Pending: ${next}.` }) : null,
    el("ol.attempts", {}, ...attempts.map((a) => el("li.attempt", {},
    el("div.attempt-head", {},
      el("strong", { text: `#${a.number}` }),
      el("span.status", { dataset: { status: a.outcome === "ok" ? "ok" : "failed" }, text: OUTCOMES[a.outcome] || words(a.outcome) }),
      a.statusCode != null ? el("span", { text: `HTTP ${a.statusCode}` }) : null,
      a.exitCode != null ? el("span", { text: `exit ${a.exitCode}` }) : null,
      el("span.muted", { text: `${fmtDateTime(a.startedAt)} · ${a.durationMs} ms` })),
    a.output ? el("pre.output", { text: a.output }) : null))));
}

function deliveryRow(d, reload) {
  const details = el("div.delivery-details", { hidden: true });
  const target = d.target || d.handler || "";
  const toggle = el("button.delivery-summary", { type: "button", "aria-expanded": "false" },
    el("span.status", { dataset: { status: d.status || "" }, text: words(d.status || "?") }),
    el("span.delivery-main", {},
      el("span.delivery-line", {},
        el("strong", { text: subjectName(d) }), " · ",
        // seq 0 is the synthetic event of a handler's Test
        el("span.delivery-event", { text: d.eventSeq === 0 ? `${d.type || "event"} (test)` : d.type || `event #${d.eventSeq}` }),
        " → ", el("span.delivery-target", { title: target, text: target })),
      el("span.delivery-sub", { text: [outcome(d), nextAttempt(d), `${d.attempts ?? 0} attempt${d.attempts === 1 ? "" : "s"}`,
        d.createdAt ? fmtDateTime(d.createdAt) : null].filter(Boolean).join(" · ") })));
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
      details.replaceChildren(attemptsView(full),
        el("div.dialog-actions", {},
          el("span.muted.grow.delivery-id", { text: `${d.id} · event #${d.eventSeq}` }),
          btn("Redeliver", ".btn-small", { on: { click: async () => {
            try {
              await post(`deliveries/${enc(d.id)}/redeliver`);
              toast("Redelivery queued", { kind: "ok" });
              setTimeout(reload, 600);
            } catch (err) { showError(err, "Redeliver"); }
          } } })));
    } catch (err) {
      details.replaceChildren(el("p.form-error", { text: err.message }));
      showError(err, "Delivery");
    }
  }
  return el("li.delivery", { dataset: { delivery: d.id, status: d.status || "" } }, toggle, details);
}

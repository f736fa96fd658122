// The OSC part of the handler form (SPEC §10): the URL (osc.udp:// or osc.tcp://), the address,
// the typed arguments in order (rows added and removed) and, for TCP, SLIP framing. The server
// checks it all; its refusals name a field (`osc.address`, `osc.args[1].value`…) that is here.

import { el } from "./dom.js";
import { icon } from "./icons.js";
import { field, input, numberInput, select, checkbox, btn, num } from "./form.js";
import { placeholders } from "./handler-kinds.js";

/** The OSC type tags the server sends. T, F and N carry no value. */
const TYPES = [
  ["i", "i · int32"], ["h", "h · int64"], ["f", "f · float32"], ["d", "d · double"],
  ["s", "s · string"], ["T", "T · true"], ["F", "F · false"], ["N", "N · nil"],
];
const NO_VALUE = new Set(["T", "F", "N"]);

/** The JSON value of an argument as typed: a number for the numeric types when it is one, else
 *  the text (a placeholder such as {face}, or what the server refuses by name). */
function argValue(type, text) {
  if (type === "s") return text;
  const t = text.trim();
  if ((type === "i" || type === "h") && /^-?\d+$/.test(t)) return Number(t);
  if ((type === "f" || type === "d") && t !== "" && Number.isFinite(Number(t))) return Number(t);
  return t;
}

function shown(value) {
  if (value === null || value === undefined) return "";
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** Returns {fieldset, read(form)}: read gives the `osc` object to send. */
export function oscFields(o) {
  const rows = el("ol.osc-args");
  // Each row's cells carry the field names the server's errors use.
  const renumber = () => [...rows.children].forEach((row, i) => {
    row.querySelector(".osc-arg-type").dataset.field = `osc.args[${i}].type`;
    row.querySelector(".osc-arg-value").dataset.field = `osc.args[${i}].value`;
  });
  const addRow = (a) => {
    const type = select("oscArgType", TYPES, a.type);
    type.setAttribute("aria-label", "Argument type");
    const value = input("oscArgValue", shown(a.value), { "aria-label": "Argument value" });
    const sync = () => {
      const none = NO_VALUE.has(type.value);
      value.disabled = none;
      if (none) value.value = "";
      value.placeholder = none ? "no value" : type.value === "s" ? "text, {button}…" : "a number or {face}";
    };
    type.addEventListener("change", sync);
    sync();
    const row = el("li.osc-arg", {},
      el("span.osc-arg-type", {}, type),
      el("span.osc-arg-value", {}, value),
      el("button.icon-btn", { type: "button", "aria-label": "Remove argument", on: { click: () => { row.remove(); renumber(); } } }, icon("trash")));
    rows.append(row);
    renumber();
    return row;
  };
  for (const a of o.args || []) addRow(a);

  const url = input("oscUrl", o.url, { placeholder: "osc.udp://192.168.1.20:53000", inputmode: "url", autocapitalize: "none" });
  const urlField = field("URL", url, "osc.udp://HOST:PORT or osc.tcp://HOST:PORT");
  urlField.dataset.field = "osc.url";
  const address = input("oscAddress", o.address, { placeholder: "/cue/{option}/start", autocapitalize: "none" });
  const addressField = field("Address", address, `Starts with /. It and string arguments may hold ${placeholders()}.`);
  addressField.dataset.field = "osc.address";
  const slip = checkbox("oscSlip", !!o.slip, "SLIP framing (OSC 1.1, as ETC Eos on port 3037)");
  const slipField = el("div.field", { "data-field": "osc.slip" }, slip);
  const tcp = () => /^osc\.tcp:\/\//i.test(url.value.trim());
  const syncSlip = () => { slipField.hidden = !tcp(); };
  url.addEventListener("input", syncSlip);
  syncSlip();

  const fieldset = el("fieldset.osc-only", {},
    el("legend", { text: "OSC" }),
    urlField, addressField,
    el("div.field", { "data-field": "osc.args" },
      el("span.label", { text: "Arguments" }),
      rows,
      btn("Add argument", ".btn-ghost.btn-small.osc-add-arg", { on: { click: () => addRow({ type: "i", value: "" }).querySelector("select").focus() } }),
      el("span.help", { text: "In order. An argument that is exactly one placeholder, such as {face}, is sent as its type." })),
    slipField,
    el("div.row2", {},
      field("Max attempts", numberInput("oscMaxAttempts", o.maxAttempts, 1, 20, { placeholder: "7" })),
      field("Expire after (ms)", numberInput("oscExpireAfterMs", o.expireAfterMs, 1000, 604800000, { placeholder: "never" }))));

  return {
    fieldset,
    read(form) {
      const osc = { url: url.value.trim(), address: address.value.trim(), slip: tcp() && slip.querySelector("input").checked };
      osc.args = [...rows.children].map((row) => {
        const type = row.querySelector("select").value;
        return NO_VALUE.has(type) ? { type } : { type, value: argValue(type, row.querySelector("input").value) };
      });
      const attempts = num(form, "oscMaxAttempts"); if (attempts !== undefined) osc.maxAttempts = attempts;
      const expire = num(form, "oscExpireAfterMs"); if (expire !== undefined) osc.expireAfterMs = expire;
      return osc;
    },
  };
}

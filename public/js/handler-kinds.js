// The three kinds of handler (SPEC §5, §10): what each is called, which one a handler is, where
// it delivers, and the placeholders its templates may hold.

/** [kind, label, word in a sentence] in the editor's order. */
export const KINDS = [["webhook", "Webhook", "webhook"], ["script", "Script", "script"], ["osc", "OSC", "OSC"]];

/** "webhook", "script" or "osc". */
export function handlerKind(h) {
  return h.webhook ? "webhook" : h.osc ? "osc" : "script";
}

/** What a handler is called in a sentence ("webhook", "OSC"). */
export function kindWord(h) {
  const kind = handlerKind(h);
  return KINDS.find(([k]) => k === kind)[2];
}

/** Where its deliveries go, as the server's delivery log says it. */
export function handlerTarget(h) {
  if (h.webhook) return `${h.webhook.method || "POST"} ${h.webhook.url}`;
  if (h.script) return ["script", h.script.name, ...(h.script.args || [])].join(" ");
  if (h.osc) return ["osc", h.osc.url, h.osc.address].join(" ");
  return h.target || h.id;
}

/** The placeholders of a webhook's templates and of an OSC address and its arguments. */
export const PLACEHOLDERS = "{button} {type} {seq} {t} {face} {option} {label} {id}";

// The kinds of handler (SPEC §5, §10): what each is called, which one a handler is, where it
// delivers, and the placeholders its templates may hold. Which kinds and placeholders there are
// is the server's word (vocab.js); what they are called is the panel's.

import { serverWords } from "./vocab.js";

const NAMES = { webhook: ["Webhook", "webhook"], script: ["Script", "script"], osc: ["OSC", "OSC"] };

/** [kind, label, word in a sentence] in the server's order. */
export function kinds() {
  return serverWords("handlerKinds", ["webhook", "script", "osc"]).map((k) => [k, ...(NAMES[k] || [k, k])]);
}

/** What a kind is called ("OSC"). */
export function kindLabel(kind) { return (NAMES[kind] || [kind])[0]; }

/** "webhook", "script" or "osc". */
export function handlerKind(h) {
  return h.webhook ? "webhook" : h.osc ? "osc" : "script";
}

/** What a handler is called in a sentence ("webhook", "OSC"). */
export function kindWord(h) {
  return (NAMES[handlerKind(h)] || ["", handlerKind(h)])[1];
}

/** Where its deliveries go, without the kind (the card's chip names it): "POST https://…",
 *  "notify.sh {button}", "osc.udp://host:9000 /cue/1/start". */
export function handlerTarget(h) {
  if (h.webhook) return `${h.webhook.method || "POST"} ${h.webhook.url}`;
  if (h.script) return [h.script.name, ...(h.script.args || [])].join(" ");
  if (h.osc) return [h.osc.url, h.osc.address].join(" ");
  return h.target || h.id;
}

/** The placeholders a webhook's templates and an OSC address and its arguments may hold, as
 *  the server lists them. */
export function placeholders() {
  const list = serverWords("placeholders");
  return list.length ? list.join(" ") : "the placeholders (the server's vocabulary did not load)";
}

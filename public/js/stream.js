// The live feed: /api/v1/events/stream as Server-Sent Events (control events, and registry
// changes as `event: registry`). EventSource reconnects by itself
// and sends Last-Event-ID; when it gives up (a non-200 answer, e.g. 401) we check the API,
// which asks for a token if needed, and open a new one from the last seq seen.

import { API, api, currentToken, onTokenChange } from "./api.js";
import { ingest, lastSeq, applyRegistry } from "./store.js";

let es = null;
let retryTimer = null;
// EventSource hides the server's comment heartbeats (every 15 s), so a link that went
// silent (a stalled server, a dropped Wi-Fi without a close) looks like a quiet one. After
// SILENCE_MS with nothing on the stream, a quick request tells which; no answer in time
// means the stream is dead and is opened again (showing "reconnecting" meanwhile).
const SILENCE_MS = 20000;
const PROBE_TIMEOUT_MS = 4000;
let lastHeard = Date.now();
let silenceTimer = null;
let backoff = 1000;
let dropped = false;
let statusFn = () => {};
let resyncFn = async () => {};

function streamURL() {
  const q = new URLSearchParams();
  q.set("after", String(lastSeq()));
  const token = currentToken();
  if (token) q.set("access_token", token);
  return `${API}/events/stream?${q}`;
}

function connect() {
  clearTimeout(retryTimer);
  if (es) es.close();
  statusFn(dropped ? "reconnecting" : "connecting");
  const source = new EventSource(streamURL());
  es = source;
  lastHeard = Date.now();
  source.onopen = () => {
    if (es !== source) return;
    lastHeard = Date.now();
    backoff = 1000;
    statusFn("live");
    if (dropped) {
      dropped = false;
      resyncFn().catch(() => {});
    }
  };
  source.onmessage = (m) => {
    if (es !== source) return;
    lastHeard = Date.now();
    let ev;
    try { ev = JSON.parse(m.data); } catch { return; }
    ingest([ev], "stream");
  };
  // Registry changes (create, look, status, health, delete): no id, not in the history.
  source.addEventListener("registry", (m) => {
    if (es !== source) return;
    lastHeard = Date.now();
    let msg;
    try { msg = JSON.parse(m.data); } catch { return; }
    applyRegistry(msg);
  });
  source.onerror = () => {
    if (es !== source) return;
    dropped = true;
    if (source.readyState === EventSource.CLOSED) {
      statusFn("offline");
      scheduleRetry();
    } else {
      statusFn("reconnecting"); // the browser retries by itself, with Last-Event-ID
    }
  };
}

async function checkSilence() {
  if (!es || es.readyState !== EventSource.OPEN || Date.now() - lastHeard < SILENCE_MS) return;
  try {
    const res = await fetch("/healthz", { cache: "no-store", signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    if (res.ok) { lastHeard = Date.now(); return; }
  } catch { /* no answer in time */ }
  if (!es || es.readyState !== EventSource.OPEN || Date.now() - lastHeard < SILENCE_MS) return;
  dropped = true;
  statusFn("reconnecting");
  connect();
}

function scheduleRetry() {
  clearTimeout(retryTimer);
  retryTimer = setTimeout(async () => {
    try {
      await api("GET", "events?limit=1"); // a 401 here asks for a token
    } catch { /* still down: try again later */ }
    connect();
  }, backoff);
  backoff = Math.min(backoff * 2, 15000);
}

export function startStream({ onStatus, onResync }) {
  statusFn = onStatus || statusFn;
  resyncFn = onResync || resyncFn;
  onTokenChange(() => connect());
  window.addEventListener("online", () => { if (!es || es.readyState === EventSource.CLOSED) connect(); });
  clearInterval(silenceTimer);
  silenceTimer = setInterval(checkSilence, 5000);
  connect();
}

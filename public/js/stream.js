// The live feed: /api/v1/events/stream as Server-Sent Events (control events, and registry
// changes as `event: registry`). EventSource reconnects by itself
// and sends Last-Event-ID; when it gives up (a non-200 answer, e.g. 401) we check the API,
// which asks for a token if needed, and open a new one from the last seq seen.

import { API, api, currentToken, onTokenChange } from "./api.js";
import { ingest, lastSeq, applyRegistry } from "./store.js";

let es = null;
let retryTimer = null;
// EventSource hides the server's comment heartbeats (every 15 s), so a link that went
// silent (a stalled server, a Wi-Fi roam that left the stream half-open) looks like a quiet
// one. After SILENCE_MS with nothing on the stream, the newest event is asked for over a new
// connection: no answer in time, or an event the stream never brought, and the stream is
// opened again (from the last seq seen, showing "reconnecting" meanwhile).
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
  let alive;
  try {
    const res = await api("GET", "events?limit=1", undefined, { retryAuth: false, timeoutMs: PROBE_TIMEOUT_MS });
    const events = (res && res.events) || [];
    alive = !events.length || events[events.length - 1].seq <= lastSeq();
  } catch (err) {
    alive = err.status > 0; // the server answered (a refused token, say): the link is up
  }
  if (alive) { lastHeard = Date.now(); return; }
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

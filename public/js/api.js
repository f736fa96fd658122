// The HTTP client: JSON in and out, bearer token from localStorage, a token prompt on 401,
// and errors turned into ApiError with the server's words.

const TOKEN_KEY = "buttond.token";
export const API = "/api/v1";

export class ApiError extends Error {
  constructor(status, code, message, field, extra = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.field = field;
    Object.assign(this, extra);
  }
}

export function getToken() {
  try { return localStorage.getItem(TOKEN_KEY) || ""; } catch { return ""; }
}

export function setToken(token) {
  try {
    if (token) localStorage.setItem(TOKEN_KEY, token);
    else localStorage.removeItem(TOKEN_KEY);
  } catch { /* private mode: keep it in memory only */ }
  memoryToken = token || "";
  for (const fn of tokenListeners) fn(memoryToken);
}

// A kiosk link carries its token in the fragment (`/?kiosk#token=bdt_…`: never sent to a
// server, not in logs): it is kept like a typed one and taken out of the address bar, so
// neither the history nor a screenshot shows it. The app calls this before anything else.
export function takeTokenFromLink() {
  const params = new URLSearchParams(location.hash.replace(/^#/, ""));
  const token = params.get("token");
  if (!token) return;
  try {
    localStorage.setItem(TOKEN_KEY, token);
  } catch { /* private mode: memory only */ }
  params.delete("token");
  const rest = params.toString().replace(/=(&|$)/g, "$1");
  history.replaceState(history.state, "", location.pathname + location.search + (rest ? "#" + rest : ""));
  memoryToken = token;
}

let memoryToken = getToken();
const tokenListeners = new Set();
export function onTokenChange(fn) { tokenListeners.add(fn); }
export function currentToken() { return memoryToken || getToken(); }

// Told when the server refuses a change (403): the session's token may only press.
const forbiddenListeners = new Set();
export function onForbidden(fn) { forbiddenListeners.add(fn); }

// The token prompt is installed by the app; only one prompt is shown at a time.
let promptForToken = null;
let pendingPrompt = null;
export function setTokenPrompt(fn) { promptForToken = fn; }

async function askToken(reason) {
  if (!promptForToken) return null;
  if (!pendingPrompt) {
    pendingPrompt = promptForToken(reason).finally(() => { pendingPrompt = null; });
  }
  return pendingPrompt;
}

/** Calls the API. `body` (if not undefined) is sent as JSON. Resolves with parsed JSON or null (204).
 *  With `timeoutMs`, a server that does not answer in time is an error (code "timeout"). */
export async function api(method, path, body, { retryAuth = true, timeoutMs = 0 } = {}) {
  const headers = { accept: "application/json" };
  const token = currentToken();
  if (token) headers.authorization = `Bearer ${token}`;
  const init = { method, headers, cache: "no-store" };
  if (body !== undefined) {
    headers["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const abort = timeoutMs > 0 ? new AbortController() : null;
  const timer = abort ? setTimeout(() => abort.abort(), timeoutMs) : 0;
  if (abort) init.signal = abort.signal;
  let res;
  try {
    res = await fetch(path.startsWith("/") ? path : `${API}/${path}`, init);
  } catch (err) {
    if (abort && abort.signal.aborted) {
      throw new ApiError(0, "timeout", `No answer from the server within ${timeoutMs / 1000} s.`);
    }
    throw new ApiError(0, "network", "Cannot reach the server. Is buttond running?");
  } finally {
    clearTimeout(timer);
  }
  if (res.status === 401 && retryAuth) {
    const fresh = await askToken(token ? "That token was refused." : "");
    if (fresh) return api(method, path, body, { retryAuth: true, timeoutMs });
  }
  if (res.status === 204) return null;
  const text = await res.text();
  let data = null;
  if (text) {
    try { data = JSON.parse(text); } catch { data = null; }
  }
  if (res.status === 403 && method !== "GET") for (const fn of forbiddenListeners) fn(path);
  if (!res.ok) {
    const e = data && data.error ? data.error : {};
    let message = e.message || `${res.status} ${res.statusText || "error"}`;
    if (res.status === 403 && !e.message) message = "This token is not allowed to do that.";
    const retryAfter = res.headers.get("retry-after");
    throw new ApiError(res.status, e.code || `http_${res.status}`, message, e.field, { index: e.index, retryAfter });
  }
  return data;
}

/** Who this session is ({role: "read" | "press" | "admin", name?, groups?}), from
 *  GET /api/v1/session: asked, never guessed from a refused admin route (no 403 in the console).
 *  A server that does not answer is taken as it was. */
export async function session() {
  return api("GET", "session", undefined, { retryAuth: false });
}

/** "admin", "press" or "read" (an unknown answer is "press": nothing is offered that fails). */
export async function probeRole() {
  try {
    const s = await session();
    return s && ["admin", "press", "read"].includes(s.role) ? s.role : "press";
  } catch (err) {
    return err.status === 401 ? "press" : "admin";
  }
}

export const get = (p) => api("GET", p);
export const post = (p, b, options) => api("POST", p, b, options);
export const patch = (p, b) => api("PATCH", p, b);
export const put = (p, b) => api("PUT", p, b);
export const del = (p) => api("DELETE", p);

export const enc = encodeURIComponent;

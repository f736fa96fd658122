// The panel's service worker. It keeps the panel's own files (the page, CSS, JS modules, icons,
// the manifest) so the panel opens at once, from the cache, and refreshes them in the background.
// It never answers for the API, the event stream, /metrics or /healthz: those always go to the
// network untouched, so nothing is ever queued or replayed — a press that cannot reach the
// server fails at once, in the page.

const CACHE = "buttond-panel-v5";
const CORE = [
  "./", "manifest.webmanifest", "favicon.svg", "app/icon.svg", "app/icon-maskable.svg",
  "css/panel.css", "css/keys.css", "css/editor.css",
  "js/api.js", "js/app.js", "js/button-form.js", "js/colour.js", "js/confirm.js", "js/connection.js",
  "js/deliveries.js", "js/dom.js", "js/editor-dialog.js", "js/editor.js", "js/fit.js",
  "js/form.js", "js/format.js", "js/grid.js", "js/handler-kinds.js", "js/handlers.js",
  "js/health-dialog.js", "js/health-notes.js", "js/health.js", "js/icons.js", "js/key-flip.js",
  "js/key-input.js", "js/key-view.js", "js/kiosk.js", "js/listeners.js", "js/log.js",
  "js/look-fields.js", "js/modal.js", "js/names.js", "js/osc-fields.js", "js/pages.js",
  "js/pwa.js", "js/sheet-form.js", "js/sheet-key.js", "js/sheets.js", "js/store.js",
  "js/stream.js", "js/toast.js", "js/tokens.js", "js/vocab.js",
  "icons/ui/alert.svg", "icons/ui/ban.svg", "icons/ui/chevron.svg", "icons/ui/close.svg",
  "icons/ui/down.svg", "icons/ui/edit.svg", "icons/ui/exit.svg", "icons/ui/expand.svg",
  "icons/ui/plus.svg", "icons/ui/sheet.svg", "icons/ui/trash.svg", "icons/ui/up.svg",
];

const scope = () => new URL(self.registration.scope);

/** A file of the panel: same origin, inside the scope, and not the API or the server's own pages. */
function isPanelFile(url) {
  if (url.origin !== self.location.origin) return false;
  const base = scope().pathname;
  if (!url.pathname.startsWith(base)) return false;
  const path = url.pathname.slice(base.length);
  if (/^(api|metrics|healthz)(\/|$)/.test(path) || path.includes("/api/")) return false;
  return path !== "sw.js";
}

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    // One by one: a file missing on the server must not keep the worker from installing.
    await Promise.all(CORE.map(async (path) => {
      try {
        const res = await fetch(new Request(path, { cache: "no-cache" }));
        if (res.ok) await cache.put(new URL(path, scope()).href, res);
      } catch { /* offline while installing: cached on first use instead */ }
    }));
    await self.skipWaiting();
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const key of await caches.keys()) {
      if (key.startsWith("buttond-panel-") && key !== CACHE) await caches.delete(key);
    }
    await self.clients.claim();
  })());
});

let announced = false;
async function announceUpdate() {
  if (announced) return;
  announced = true;
  for (const client of await self.clients.matchAll({ type: "window" })) client.postMessage({ type: "panel-updated" });
}

self.addEventListener("fetch", (event) => {
  const req = event.request;
  if (req.method !== "GET") return;
  const url = new URL(req.url);
  if (!isPanelFile(url)) return;
  if ((req.headers.get("accept") || "").includes("text/event-stream")) return;
  // A navigation (/, /?kiosk, /index.html#…) is the page itself, whatever its query.
  const key = req.mode === "navigate" ? new URL("./", scope()).href : url.origin + url.pathname;
  event.respondWith((async () => {
    const cache = await caches.open(CACHE);
    const cached = await cache.match(key);
    const fresh = fetch(new Request(key, { cache: "no-cache" }))
      .then(async (res) => {
        if (res.ok && res.type === "basic") {
          const before = cached && cached.headers.get("etag");
          const after = res.headers.get("etag");
          await cache.put(key, res.clone());
          if (before && after && before !== after) announceUpdate();
        }
        return res;
      });
    if (cached) {
      event.waitUntil(fresh.catch(() => {}));
      return cached;
    }
    return fresh;
  })());
});

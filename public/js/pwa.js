// The installable app: registers the service worker (public/sw.js), which keeps the panel's own
// files so it opens at once, and never touches the API. When the worker sees that the panel's
// files changed on the server, it says so and a reload picks them up.

import { toast } from "./toast.js";

let told = false;

export function registerWorker() {
  if (!("serviceWorker" in navigator)) return;
  navigator.serviceWorker.addEventListener("message", (e) => {
    if (!e.data || e.data.type !== "panel-updated" || told) return;
    told = true;
    toast("A new version of the panel is ready.", {
      timeout: 0,
      action: { label: "Reload", run: () => location.reload() },
    });
  });
  navigator.serviceWorker.register("sw.js", { scope: "./" })
    .then(() => { document.body.dataset.worker = "registered"; })
    .catch((err) => {
      document.body.dataset.worker = "failed";
      console.warn("service worker not registered:", err && err.message);
    });
}

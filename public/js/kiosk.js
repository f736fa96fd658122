// Kiosk: /?kiosk or #kiosk — a wall tablet or a stage panel. The keys alone, full screen, no edit
// mode and no log, and the screen kept awake (Wake Lock API, taken again whenever the page is
// visible again: the browser drops the lock when it is hidden).

export function isKiosk() {
  return new URLSearchParams(location.search).has("kiosk") || /^#kiosk(\/|$)/.test(location.hash);
}

let lock = null;
let pending = false;

function state(s) { document.body.dataset.wakeLock = s; }

async function acquire() {
  if (!("wakeLock" in navigator)) { state("unsupported"); return; }
  if (pending || document.visibilityState !== "visible" || (lock && !lock.released)) return;
  pending = true;
  try {
    lock = await navigator.wakeLock.request("screen");
    state("held");
    lock.addEventListener("release", () => state("released"));
  } catch {
    state("denied"); // battery saver, or not allowed yet: tried again on the next touch
  } finally {
    pending = false;
  }
}

function fullScreen() {
  if (document.fullscreenElement) return;
  if (matchMedia("(display-mode: standalone), (display-mode: fullscreen)").matches) return;
  const root = document.documentElement;
  if (root.requestFullscreen) root.requestFullscreen({ navigationUI: "hide" }).catch(() => {});
}

export function startKiosk() {
  document.body.classList.add("kiosk");
  acquire();
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") acquire();
  });
  // Full screen needs a user gesture: the end of the first touch (after its press is sent).
  document.addEventListener("pointerup", () => {
    fullScreen();
    acquire();
  }, { passive: true });
}

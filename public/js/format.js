// Times as the panel shows them: the log's clock time to the millisecond, and a date with it.

export function fmtTime(ms) {
  const d = new Date(ms);
  const p = (n, w = 2) => String(n).padStart(w, "0");
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
}

export function fmtDateTime(ms) {
  if (!ms && ms !== 0) return "—";
  const d = new Date(ms);
  return `${d.toLocaleDateString()} ${fmtTime(ms)}`;
}

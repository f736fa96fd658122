-- Shared by the bench wrk scripts: prints one machine-readable line after the run.
-- Latencies are in microseconds.
function bench_report(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCHJSON {"requests":%d,"duration_us":%d,"bytes":%d,"connect_errors":%d,"read_errors":%d,' ..
    '"write_errors":%d,"timeouts":%d,"non2xx":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,"max_us":%d,"mean_us":%.1f}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.timeout, e.status,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean))
end

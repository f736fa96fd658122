-- Shared by the bench wrk scripts: prints one machine-readable line after the run.
-- Latencies are in microseconds. `pct` holds the latency at each percentile of a grid, so
-- that rounds of the same load can be merged into one distribution (bench/common.py).
local grid = {50, 75, 90, 95, 97, 98, 98.5, 99, 99.25, 99.5, 99.75, 99.9, 99.99}

function bench_report(summary, latency, requests)
  local e = summary.errors
  local pct = {}
  for _, p in ipairs(grid) do
    pct[#pct + 1] = string.format("[%s,%d]", p, latency:percentile(p))
  end
  io.write(string.format(
    'BENCHJSON {"requests":%d,"duration_us":%d,"bytes":%d,"connect_errors":%d,"read_errors":%d,' ..
    '"write_errors":%d,"timeouts":%d,"non2xx":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,"max_us":%d,"mean_us":%.1f,"pct":[%s]}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.timeout, e.status,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean,
    table.concat(pct, ",")))
end

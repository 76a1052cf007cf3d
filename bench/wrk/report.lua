-- Shared by get.lua and post.lua: at the end of a run, print one machine-readable line for
-- bench/api.bench.ts. Latencies in ms. "non2xx" is wrk's count of responses with status >= 400
-- (summary.errors.status; no response() hook, which would make wrk parse every response in Lua).
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests":%d,"durationMs":%.1f,"rps":%.1f,"p50Ms":%.3f,"p99Ms":%.3f,"non2xx":%d,"errors":%d}\n',
    summary.requests,
    summary.duration / 1000,
    summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000,
    latency:percentile(99) / 1000,
    e.status,
    e.connect + e.read + e.write + e.timeout))
end

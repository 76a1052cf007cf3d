-- wrk script for bench:stages (scenario.ts). From the environment: STAGES_METHOD and STAGES_BODY (optional),
-- STAGES_IDEMPOTENCY=1 for a unique Idempotency-Key per request (prefix STAGES_RUN, then the wrk thread
-- and a counter). done() prints one machine-readable line, STAGES_WRK {json}, which scenario.ts reads.
local method = os.getenv("STAGES_METHOD")
local body = os.getenv("STAGES_BODY")
if method and method ~= "" then wrk.method = method end
if body and body ~= "" then wrk.body = body end

local threads = {}

function setup(thread)
  thread:set("thread_id", #threads + 1)
  table.insert(threads, thread)
end

-- Defined only when keys are wanted: without a request() function wrk sends one pre-built request.
if os.getenv("STAGES_IDEMPOTENCY") == "1" then
  local prefix = os.getenv("STAGES_RUN") or tostring(os.time())
  local counter = 0
  function request()
    counter = counter + 1
    -- wrk.format uses the table given instead of wrk.headers (-H), so copy those in.
    local headers = {}
    for name, value in pairs(wrk.headers) do headers[name] = value end
    headers["Idempotency-Key"] = prefix .. "-" .. tostring(thread_id) .. "-" .. tostring(counter)
    return wrk.format(nil, nil, headers)
  end
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'STAGES_WRK {"requests":%d,"durationUs":%d,"bytes":%d,"connect":%d,"read":%d,"write":%d,'
      .. '"status":%d,"timeout":%d,"p50Us":%d,"p99Us":%d}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    math.floor(latency:percentile(50)), math.floor(latency:percentile(99))))
end

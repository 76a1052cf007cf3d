-- wrk -s bench/wrk/post.lua URL -- AUTHORIZATION BODY KEY_PREFIX
-- A JSON POST whose every request carries its own Idempotency-Key: KEY_PREFIX-<thread>-<counter>
-- (KEY_PREFIX should be unique per run: keys are remembered by the server across runs).
dofile(debug.getinfo(1, "S").source:sub(2):match("^(.*/)") .. "report.lua")

local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("thread_number", threads)
end

local prefix, body, counter
local headers = {}
function init(args)
  headers["Authorization"] = args[1]
  headers["Content-Type"] = "application/json"
  body = args[2]
  prefix = args[3] .. "-" .. thread_number .. "-"
  counter = 0
end

function request()
  counter = counter + 1
  headers["Idempotency-Key"] = prefix .. counter
  return wrk.format("POST", nil, headers, body)
end

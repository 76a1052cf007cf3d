-- wrk -s bench/wrk/post.lua URL -- AUTHORIZATION BODY KEY_PREFIX [ACCOUNTS]
-- A JSON POST whose every request carries its own Idempotency-Key: KEY_PREFIX-<thread>-<counter>
-- (KEY_PREFIX should be unique per run: keys are remembered by the server across runs).
-- With ACCOUNTS (comma-separated), each request replaces {debtor} and {creditor} in BODY with two
-- different accounts drawn at random from them.
dofile(debug.getinfo(1, "S").source:sub(2):match("^(.*/)") .. "report.lua")

local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("thread_number", threads)
end

local prefix, body, counter
local accounts = {}
local headers = {}
function init(args)
  headers["Authorization"] = args[1]
  headers["Content-Type"] = "application/json"
  body = args[2]
  prefix = args[3] .. "-" .. thread_number .. "-"
  counter = 0
  for account in string.gmatch(args[4] or "", "[^,]+") do table.insert(accounts, account) end
  math.randomseed(os.time() + thread_number)
end

local function payload()
  if #accounts < 2 then return body end
  local d = math.random(#accounts)
  local c = math.random(#accounts - 1)
  if c >= d then c = c + 1 end
  return (body:gsub("{debtor}", accounts[d]):gsub("{creditor}", accounts[c]))
end

function request()
  counter = counter + 1
  headers["Idempotency-Key"] = prefix .. counter
  return wrk.format("POST", nil, headers, payload())
end

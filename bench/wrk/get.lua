-- wrk -s bench/wrk/get.lua URL -- AUTHORIZATION
-- The same GET on every request (wrk builds it once), with an Authorization header.
dofile(debug.getinfo(1, "S").source:sub(2):match("^(.*/)") .. "report.lua")

function init(args)
  wrk.method = "GET"
  wrk.headers["Authorization"] = args[1]
end

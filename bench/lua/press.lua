-- POST /api/v1/buttons/{PREFIX}{i}/press {} round-robin over BUTTONS buttons (default b0..b63).
-- The raw C baseline gets the same script, so both pay the same client-side cost.
local dir = debug.getinfo(1, "S").source:sub(2):match("(.*/)") or "./"
dofile(dir .. "report.lua")

local prefix = os.getenv("BENCH_PREFIX") or "b"
local buttons = tonumber(os.getenv("BENCH_BUTTONS") or "64")
local body = os.getenv("BENCH_BODY") or "{}"
local next_thread = 0
local paths = {}
local i = 0

function setup(thread)
  thread:set("offset", next_thread)
  next_thread = next_thread + 1
end

function init(args)
  for k = 0, buttons - 1 do
    paths[k] = "/api/v1/buttons/" .. prefix .. k .. "/press"
  end
  i = (offset or 0) * 17
end

function request()
  i = i + 1
  return wrk.format("POST", paths[i % buttons], {["Content-Type"] = "application/json"}, body)
end

done = bench_report

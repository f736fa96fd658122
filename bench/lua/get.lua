-- Plain GET of the URL given on the command line; only adds the machine-readable report.
local dir = debug.getinfo(1, "S").source:sub(2):match("(.*/)") or "./"
dofile(dir .. "report.lua")
done = bench_report

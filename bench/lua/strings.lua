-- Toy's strings.split and strings.join, written the same way in Lua.
local sub, find = string.sub, string.find

local function split(s, sep)
  local out, n = {}, 0
  local start = 1
  while true do
    local i = find(s, sep, start, true)
    if not i then break end
    out[n] = sub(s, start, i - 1)
    n = n + 1
    start = i + #sep
  end
  out[n] = sub(s, start)
  return out, n + 1
end

local function join(parts, count, sep)
  local out = ""
  for i = 0, count - 1 do
    if i > 0 then out = out .. sep end
    out = out .. parts[i]
  end
  return out
end

local n = tonumber(arg and arg[1]) or 100000
local pieces, total, bytes = 0, 0, 0
for r = 0, n - 1 do
  local line = ""
  for k = 0, 19 do
    if k > 0 then line = line .. "," end
    line = line .. tostring(r * 20 + k)
  end
  local parts, count = split(line, ",")
  pieces = pieces + count
  for i = 0, count - 1 do total = total + tonumber(parts[i]) end
  local joined = join(parts, count, "; ")
  bytes = bytes + #line + #joined
end
io.write(string.format("%d %d %d\n", pieces, total, bytes))

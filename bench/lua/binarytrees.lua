local function bottom_up(depth)
  if depth > 0 then
    return { left = bottom_up(depth - 1), right = bottom_up(depth - 1) }
  end
  return { left = nil, right = nil }
end

local function check(t)
  if t.left == nil then return 1 end
  return 1 + check(t.left) + check(t.right)
end

local n = tonumber(arg and arg[1]) or 16
local min_depth = 4
local max_depth = n
if min_depth + 2 > max_depth then max_depth = min_depth + 2 end
local stretch = max_depth + 1
io.write(string.format("stretch tree of depth %d check: %d\n", stretch, check(bottom_up(stretch))))
local long_lived = bottom_up(max_depth)
local d = min_depth
while d <= max_depth do
  local iters = 2 ^ (max_depth - d + min_depth)
  local chk = 0
  for i = 1, iters do chk = chk + check(bottom_up(d)) end
  io.write(string.format("%d trees of depth %d check: %d\n", iters, d, chk))
  d = d + 2
end
io.write(string.format("long lived tree of depth %d check: %d\n", max_depth, check(long_lived)))

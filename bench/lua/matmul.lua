local function init(n, sign)
  local m = {}
  local tmp = 1.0 / n / n
  for i = 0, n - 1 do
    for j = 0, n - 1 do
      m[i * n + j] = tmp * (i - j) * (i + j) * sign
    end
  end
  return m
end

local function matmul(n, a, b)
  local c = {}
  for i = 0, n - 1 do
    for j = 0, n - 1 do
      local s = 0.0
      for k = 0, n - 1 do s = s + a[i * n + k] * b[k * n + j] end
      c[i * n + j] = s
    end
  end
  return c
end

local n = tonumber(arg and arg[1]) or 300
local a = init(n, 1.0)
local b = init(n, -1.0)
local c = matmul(n, a, b)
local trace = 0.0
for i = 0, n - 1 do trace = trace + c[i * n + i] end
local h = math.floor(n / 2)
io.write(string.format("%.9f %.9f\n", c[h * n + h], trace))

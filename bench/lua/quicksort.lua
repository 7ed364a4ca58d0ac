local floor = math.floor
local function qsort(a, lo, hi)
  if lo >= hi then return end
  local pivot = a[lo + floor((hi - lo) / 2)]
  local i, j = lo, hi
  while i <= j do
    while a[i] < pivot do i = i + 1 end
    while a[j] > pivot do j = j - 1 end
    if i <= j then
      local t = a[i]
      a[i] = a[j]
      a[j] = t
      i = i + 1
      j = j - 1
    end
  end
  qsort(a, lo, j)
  qsort(a, i, hi)
end

local n = tonumber(arg and arg[1]) or 1000000
local a = {}
local seed = 42
for i = 0, n - 1 do
  seed = seed * 16807 % 2147483647
  a[i] = seed
end
qsort(a, 0, n - 1)
local unsorted, h = 0, 0
for i = 0, n - 1 do
  if i > 0 and a[i - 1] > a[i] then unsorted = unsorted + 1 end
  h = (h * 31 + a[i]) % 1000000007
end
io.write(string.format("%d %d %d %d %d\n", a[0], a[floor(n / 2)], a[n - 1], unsorted, h))

local n = tonumber(arg and arg[1]) or 10000000
local composite = {}
for i = 0, n do composite[i] = false end
local count = 0
local i = 2
while i <= n do
  if not composite[i] then
    count = count + 1
    local j = i * i
    while j <= n do
      composite[j] = true
      j = j + i
    end
  end
  i = i + 1
end
io.write(string.format("%d\n", count))

local n = tonumber(arg and arg[1]) or 10
local perm, perm1, count = {}, {}, {}
for i = 0, n - 1 do perm[i] = 0; perm1[i] = i; count[i] = 0 end
local max_flips, checksum, perm_count, r = 0, 0, 0, n
while true do
  while r ~= 1 do count[r - 1] = r; r = r - 1 end
  for i = 0, n - 1 do perm[i] = perm1[i] end
  local flips = 0
  local k = perm[0]
  while k ~= 0 do
    local lo, hi = 0, k
    while lo < hi do
      local t = perm[lo]
      perm[lo] = perm[hi]
      perm[hi] = t
      lo = lo + 1
      hi = hi - 1
    end
    flips = flips + 1
    k = perm[0]
  end
  if flips > max_flips then max_flips = flips end
  if perm_count % 2 == 0 then checksum = checksum + flips else checksum = checksum - flips end
  while true do
    if r == n then
      io.write(string.format("%d\nPfannkuchen(%d) = %d\n", checksum, n, max_flips))
      return
    end
    local perm0 = perm1[0]
    for i = 0, r - 1 do perm1[i] = perm1[i + 1] end
    perm1[r] = perm0
    count[r] = count[r] - 1
    if count[r] > 0 then break end
    r = r + 1
  end
  perm_count = perm_count + 1
end

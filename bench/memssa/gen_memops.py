import sys
n = int(sys.argv[1])  # number of statement groups
out = ["struct S { a: int, b: int, c: float }"]
for g in range(10):
    out.append(f"var g{g} = {g};")
out.append("fn big(arr: [int], s: S, n: int) -> int {")
out.append("  var t = 0;")
depth = 0
k = 0
while k < n:
    # open a nest of 4 loops, put 25 statement groups, close
    for d in range(4):
        out.append(f"  var i{k}_{d} = 0;")
        out.append(f"  while i{k}_{d} < n {{")
    for j in range(25):
        if k >= n: break
        v = f"i{k - (k % 25) if False else k}"
        g = k % 10
        out.append(f"    t = t + arr[{k % 7}] + s.a + g{g};")
        out.append(f"    s.b = s.b + t; g{(g+3)%10} = t;")
        k += 1
    for d in reversed(range(4)):
        out.append(f"    i{k0}_{d} = i{k0}_{d} + 1;".replace("{k0}", "")) if False else None
    out.append("")
    # close loops: need the loop vars; recompute base
    base = None
    out.pop()
    # find last opened nest vars
    idx = max(i for i, l in enumerate(out) if l.startswith("  var i") and l.endswith("_0 = 0;"))
    name = out[idx].split()[1].rsplit("_", 1)[0]
    for d in reversed(range(4)):
        out.append(f"    {name}_{d} = {name}_{d} + 1;")
        out.append("  }")
out.append("  return t;")
out.append("}")
out.append("fn main() { let s = S { a: 1, b: 2, c: 0.5 }; print(big([1, 2, 3, 4, 5, 6, 7], s, 1)); }")
print("\n".join(out))

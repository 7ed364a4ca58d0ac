import sys


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
    pieces = total = nbytes = 0
    for r in range(n):
        line = ""
        for k in range(20):
            if k > 0:
                line += ","
            line += str(r * 20 + k)
        parts = line.split(",")
        pieces += len(parts)
        for p in parts:
            total += int(p)
        joined = "; ".join(parts)
        nbytes += len(line) + len(joined)
    print(pieces, total, nbytes)


main()

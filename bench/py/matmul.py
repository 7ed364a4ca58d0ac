import sys


def init(n, sign):
    m = [0.0] * (n * n)
    tmp = 1.0 / float(n) / float(n)
    for i in range(n):
        for j in range(n):
            m[i * n + j] = tmp * float(i - j) * float(i + j) * sign
    return m


def matmul(n, a, b):
    c = [0.0] * (n * n)
    for i in range(n):
        for j in range(n):
            s = 0.0
            for k in range(n):
                s += a[i * n + k] * b[k * n + j]
            c[i * n + j] = s
    return c


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    a = init(n, 1.0)
    b = init(n, -1.0)
    c = matmul(n, a, b)
    trace = 0.0
    for i in range(n):
        trace += c[i * n + i]
    print("%.9f %.9f" % (c[(n // 2) * n + n // 2], trace))


main()

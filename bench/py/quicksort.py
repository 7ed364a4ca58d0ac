import sys


def qsort(a, lo, hi):
    if lo >= hi:
        return
    pivot = a[lo + (hi - lo) // 2]
    i, j = lo, hi
    while i <= j:
        while a[i] < pivot:
            i += 1
        while a[j] > pivot:
            j -= 1
        if i <= j:
            t = a[i]
            a[i] = a[j]
            a[j] = t
            i += 1
            j -= 1
    qsort(a, lo, j)
    qsort(a, i, hi)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000000
    a = [0] * n
    seed = 42
    for i in range(n):
        seed = seed * 16807 % 2147483647
        a[i] = seed
    qsort(a, 0, n - 1)
    unsorted = 0
    h = 0
    for i in range(n):
        if i > 0 and a[i - 1] > a[i]:
            unsorted += 1
        h = (h * 31 + a[i]) % 1000000007
    print(a[0], a[n // 2], a[n - 1], unsorted, h)


main()

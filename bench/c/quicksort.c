#include <stdio.h>
#include <stdlib.h>
static void qsort_range(long *a, long lo, long hi) {
    if (lo >= hi) return;
    long pivot = a[lo + (hi - lo) / 2];
    long i = lo, j = hi;
    while (i <= j) {
        while (a[i] < pivot) i++;
        while (a[j] > pivot) j--;
        if (i <= j) { long t = a[i]; a[i] = a[j]; a[j] = t; i++; j--; }
    }
    qsort_range(a, lo, j);
    qsort_range(a, i, hi);
}
int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    long *a = calloc(n, sizeof(long));
    long seed = 42;
    for (long i = 0; i < n; i++) { seed = seed * 16807 % 2147483647; a[i] = seed; }
    qsort_range(a, 0, n - 1);
    long unsorted = 0, h = 0;
    for (long i = 0; i < n; i++) {
        if (i > 0 && a[i - 1] > a[i]) unsorted++;
        h = (h * 31 + a[i]) % 1000000007;
    }
    printf("%ld %ld %ld %ld %ld\n", a[0], a[n / 2], a[n - 1], unsorted, h);
    return 0;
}

/* Benchmark: sort 10^6 pseudo-random ints with qsort (C twin of sort.toy). */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
static int cmp(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}
int main(void) {
    long n = 1000000;
    int64_t *a = malloc(n * sizeof *a);
    uint64_t seed = 42;
    for (long i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        a[i] = ((int64_t)seed >> 33) % 1000000000;
    }
    qsort(a, n, sizeof *a, cmp);
    int ok = 1;
    for (long i = 1; i < n; i++) if (a[i - 1] > a[i]) ok = 0;
    printf("%s %ld %ld %ld\n", ok ? "true" : "false", (long)a[0], (long)a[n / 2], (long)a[n - 1]);
    free(a);
    return 0;
}

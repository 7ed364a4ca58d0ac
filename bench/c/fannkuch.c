#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 10;
    long *perm = calloc(n, sizeof(long)), *perm1 = calloc(n, sizeof(long)), *count = calloc(n, sizeof(long));
    for (long i = 0; i < n; i++) perm1[i] = i;
    long max_flips = 0, checksum = 0, perm_count = 0, r = n;
    for (;;) {
        while (r != 1) { count[r - 1] = r; r--; }
        for (long i = 0; i < n; i++) perm[i] = perm1[i];
        long flips = 0, k = perm[0];
        while (k != 0) {
            long lo = 0, hi = k;
            while (lo < hi) { long t = perm[lo]; perm[lo] = perm[hi]; perm[hi] = t; lo++; hi--; }
            flips++;
            k = perm[0];
        }
        if (flips > max_flips) max_flips = flips;
        if (perm_count % 2 == 0) checksum += flips; else checksum -= flips;
        for (;;) {
            if (r == n) {
                printf("%ld\nPfannkuchen(%ld) = %ld\n", checksum, n, max_flips);
                return 0;
            }
            long perm0 = perm1[0];
            for (long i = 0; i < r; i++) perm1[i] = perm1[i + 1];
            perm1[r] = perm0;
            count[r]--;
            if (count[r] > 0) break;
            r++;
        }
        perm_count++;
    }
}

/* Benchmark: sieve of Eratosthenes up to 10^7 (C twin of sieve.toy). */
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    long n = 10000000, count = 0;
    unsigned char *composite = calloc(n + 1, 1);
    for (long p = 2; p <= n; p++) {
        if (!composite[p]) {
            count++;
            for (long m = p * p; m <= n; m += p) composite[m] = 1;
        }
    }
    printf("%ld\n", count);
    free(composite);
    return 0;
}

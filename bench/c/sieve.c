#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 10000000;
    bool *composite = calloc(n + 1, sizeof(bool));
    long count = 0;
    for (long i = 2; i <= n; i++) {
        if (!composite[i]) {
            count++;
            for (long j = i * i; j <= n; j += i) composite[j] = true;
        }
    }
    printf("%ld\n", count);
    free(composite);
    return 0;
}

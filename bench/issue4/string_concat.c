/* Benchmark: build a 10^6-character string by appending one char at a time
   to a growable buffer (C twin of string_concat.toy / string_repeat.toy). */
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    size_t cap = 16, len = 0;
    char *s = malloc(cap);
    for (long i = 0; i < 1000000; i++) {
        if (len + 1 >= cap) { cap *= 2; s = realloc(s, cap); }
        s[len++] = 'x';
    }
    s[len] = 0;
    printf("%zu\n", len);
    free(s);
    return 0;
}

#include <stdio.h>
#include <stdlib.h>
typedef struct Node { struct Node *left, *right; } Node;
static Node *bottom_up(long depth) {
    Node *t = malloc(sizeof(Node));
    if (depth > 0) { t->left = bottom_up(depth - 1); t->right = bottom_up(depth - 1); }
    else { t->left = NULL; t->right = NULL; }
    return t;
}
static long check(const Node *t) { return t->left == NULL ? 1 : 1 + check(t->left) + check(t->right); }
static void release(Node *t) { if (t->left) { release(t->left); release(t->right); } free(t); }
int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 16;
    long min_depth = 4, max_depth = n;
    if (min_depth + 2 > max_depth) max_depth = min_depth + 2;
    long stretch = max_depth + 1;
    Node *s = bottom_up(stretch);
    printf("stretch tree of depth %ld check: %ld\n", stretch, check(s));
    release(s);
    Node *long_lived = bottom_up(max_depth);
    for (long d = min_depth; d <= max_depth; d += 2) {
        long iters = 1L << (max_depth - d + min_depth), chk = 0;
        for (long i = 0; i < iters; i++) { Node *t = bottom_up(d); chk += check(t); release(t); }
        printf("%ld trees of depth %ld check: %ld\n", iters, d, chk);
    }
    printf("long lived tree of depth %ld check: %ld\n", max_depth, check(long_lived));
    return 0;
}

#include <stdio.h>
#include <stdlib.h>
static double *init(long n, double sign) {
    double *m = calloc(n * n, sizeof(double));
    double tmp = 1.0 / (double)n / (double)n;
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) m[i * n + j] = tmp * (double)(i - j) * (double)(i + j) * sign;
    return m;
}
static double *matmul(long n, const double *a, const double *b) {
    double *c = calloc(n * n, sizeof(double));
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            double s = 0.0;
            for (long k = 0; k < n; k++) s += a[i * n + k] * b[k * n + j];
            c[i * n + j] = s;
        }
    return c;
}
int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 300;
    double *a = init(n, 1.0), *b = init(n, -1.0);
    double *c = matmul(n, a, b);
    double trace = 0.0;
    for (long i = 0; i < n; i++) trace += c[i * n + i];
    printf("%.9f %.9f\n", c[(n / 2) * n + n / 2], trace);
    return 0;
}

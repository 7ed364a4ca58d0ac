#include <stdio.h>
#include <stdlib.h>
#include <math.h>
typedef struct { double x, y, z, vx, vy, vz, mass; } Body;
#define PI 3.141592653589793
#define SOLAR_MASS (4.0 * PI * PI)
#define DAYS_PER_YEAR 365.24
#define N 5
static Body *planet(double x, double y, double z, double vx, double vy, double vz, double m) {
    Body *b = malloc(sizeof(Body));
    b->x = x; b->y = y; b->z = z;
    b->vx = vx * DAYS_PER_YEAR; b->vy = vy * DAYS_PER_YEAR; b->vz = vz * DAYS_PER_YEAR;
    b->mass = m * SOLAR_MASS;
    return b;
}
static void advance(Body **bodies, double dt) {
    for (int i = 0; i < N; i++) {
        Body *bi = bodies[i];
        for (int j = i + 1; j < N; j++) {
            Body *bj = bodies[j];
            double dx = bi->x - bj->x, dy = bi->y - bj->y, dz = bi->z - bj->z;
            double d2 = dx * dx + dy * dy + dz * dz;
            double mag = dt / (d2 * sqrt(d2));
            bi->vx -= dx * bj->mass * mag;
            bi->vy -= dy * bj->mass * mag;
            bi->vz -= dz * bj->mass * mag;
            bj->vx += dx * bi->mass * mag;
            bj->vy += dy * bi->mass * mag;
            bj->vz += dz * bi->mass * mag;
        }
    }
    for (int i = 0; i < N; i++) {
        Body *b = bodies[i];
        b->x += dt * b->vx;
        b->y += dt * b->vy;
        b->z += dt * b->vz;
    }
}
static double energy(Body **bodies) {
    double e = 0.0;
    for (int i = 0; i < N; i++) {
        Body *b = bodies[i];
        e += 0.5 * b->mass * (b->vx * b->vx + b->vy * b->vy + b->vz * b->vz);
        for (int j = i + 1; j < N; j++) {
            Body *b2 = bodies[j];
            double dx = b->x - b2->x, dy = b->y - b2->y, dz = b->z - b2->z;
            e -= (b->mass * b2->mass) / sqrt(dx * dx + dy * dy + dz * dz);
        }
    }
    return e;
}
static void offset_momentum(Body **bodies) {
    double px = 0.0, py = 0.0, pz = 0.0;
    for (int i = 0; i < N; i++) {
        px += bodies[i]->vx * bodies[i]->mass;
        py += bodies[i]->vy * bodies[i]->mass;
        pz += bodies[i]->vz * bodies[i]->mass;
    }
    bodies[0]->vx = -px / SOLAR_MASS;
    bodies[0]->vy = -py / SOLAR_MASS;
    bodies[0]->vz = -pz / SOLAR_MASS;
}
int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 5000000;
    Body *bodies[N] = {
        planet(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0),
        planet(4.84143144246472090e+00, -1.16032004402742839e+00, -1.03622044471123109e-01,
               1.66007664274403694e-03, 7.69901118419740425e-03, -6.90460016972063023e-05,
               9.54791938424326609e-04),
        planet(8.34336671824457987e+00, 4.12479856412430479e+00, -4.03523417114321381e-01,
               -2.76742510726862411e-03, 4.99852801234917238e-03, 2.30417297573763929e-05,
               2.85885980666130812e-04),
        planet(1.28943695621391310e+01, -1.51111514016986312e+01, -2.23307578892655734e-01,
               2.96460137564761618e-03, 2.37847173959480950e-03, -2.96589568540237556e-05,
               4.36624404335156298e-05),
        planet(1.53796971148509165e+01, -2.59193146099879641e+01, 1.79258772950371181e-01,
               2.68067772490389322e-03, 1.62824170038242295e-03, -9.51592254519715870e-05,
               5.15138902046611451e-05),
    };
    offset_momentum(bodies);
    printf("%.9f\n", energy(bodies));
    for (long s = 0; s < n; s++) advance(bodies, 0.01);
    printf("%.9f\n", energy(bodies));
    return 0;
}

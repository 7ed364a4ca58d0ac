/* measure REPORT CMD ARGS...: runs CMD with ARGS (stdin, stdout and stderr
 * inherited), writes "WALL_NS PEAK_RSS_KIB\n" to the file REPORT, and exits
 * with CMD's exit code (128 + the signal's number if a signal ended it).
 *
 * bench/run runs every timed program through it. Linux gives a child the
 * peak RSS of the process it was forked from until it calls exec, so a
 * child of the Python runner reports at least the runner's own 15 MiB. This
 * program is small, so its children's figures are their own. The wall time
 * is taken here too, around fork and wait, without the runner's start-up. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: measure REPORT CMD [ARGS...]\n");
        return 2;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid < 0) {
        perror("measure: fork");
        return 2;
    }
    if (pid == 0) {
        /* The child dies with this process (bench/run kills it on timeout). */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        execvp(argv[2], argv + 2);
        perror("measure: exec");
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) < 0) {
        perror("measure: wait4");
        return 2;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    long long ns = (t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec);
    FILE *f = fopen(argv[1], "w");
    if (!f) {
        perror("measure: report");
        return 2;
    }
    fprintf(f, "%lld %ld\n", ns, ru.ru_maxrss);
    fclose(f);
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    return 128 + WTERMSIG(status);
}

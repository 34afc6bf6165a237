/* measure.c - runs a command and records its wall time and peak memory (max RSS).
 * Used by bench/pass2.sh: build/bench/measure OUTFILE CMD [ARGS...] runs CMD with the same stdin,
 * stdout and stderr, then writes one line "WALL_US MAXRSS_KB STATUS CPU_US" to OUTFILE and exits with
 * CMD's exit code (128 + N if signal N killed it; 127 if CMD could not be started).
 * WALL_US: CLOCK_MONOTONIC microseconds from just before fork() to the end of wait4().
 * MAXRSS_KB: ru_maxrss from wait4(), the peak resident set of CMD or of the largest of the
 * children it waited for (as GNU time's %M; the kernel's figure, in kB on Linux).
 * STATUS: "exit N" or "signal N". CPU_US: user + system CPU time of CMD and the children it waited
 * for (wait4's rusage), in microseconds: steadier than wall time on a loaded host. The measurement is a fork, an exec and a wait4, nothing else:
 * the shell's own start-up is not counted (bash's `time` around a command would not count it
 * either, but bash cannot report max RSS). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static long long cpu_us(const struct rusage *ru) {
    return (long long)(ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * 1000000LL + ru->ru_utime.tv_usec +
           ru->ru_stime.tv_usec;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: measure OUTFILE CMD [ARGS...]\n");
        return 2;
    }
    FILE *out = fopen(argv[1], "w");
    if (!out) {
        fprintf(stderr, "measure: %s: %s\n", argv[1], strerror(errno));
        return 2;
    }
    long long t0 = now_us();
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "measure: fork: %s\n", strerror(errno));
        return 2;
    }
    if (pid == 0) {
        execvp(argv[2], argv + 2);
        fprintf(stderr, "measure: %s: %s\n", argv[2], strerror(errno));
        _exit(127);
    }
    int status;
    struct rusage ru;
    pid_t w;
    do {
        w = wait4(pid, &status, 0, &ru);
    } while (w < 0 && errno == EINTR);
    long long t1 = now_us();
    if (w < 0) {
        fprintf(stderr, "measure: wait4: %s\n", strerror(errno));
        return 2;
    }
    int code;
    if (WIFEXITED(status)) {
        code = WEXITSTATUS(status);
        fprintf(out, "%lld %ld exit %d %lld\n", t1 - t0, ru.ru_maxrss, code, cpu_us(&ru));
    } else {
        code = 128 + WTERMSIG(status);
        fprintf(out, "%lld %ld signal %d %lld\n", t1 - t0, ru.ru_maxrss, WTERMSIG(status), cpu_us(&ru));
    }
    if (fclose(out) != 0) {
        fprintf(stderr, "measure: %s: %s\n", argv[1], strerror(errno));
        return 2;
    }
    return code;
}

/* namedthreads: threads that name themselves and burn known CPU.
 *
 *   namedthreads [--exit] NAME:SECONDS...
 *
 * Prints "ready PID", waits for a line on stdin, then starts one thread per
 * argument, which names itself NAME (prctl PR_SET_NAME: task/TID/comm) and
 * spins until it has used SECONDS of its own CPU (CLOCK_THREAD_CPUTIME_ID).
 * Once every thread has, prints one "cpu NAME SECONDS WALL" line per thread
 * (its CPU as the kernel counted it, and how long the spin took: more than
 * its CPU when other work shared the cores), and the threads stay alive, idle, until
 * stdin reaches end of file: a thread that exited before proctree read it
 * again would lose its last slice (docs/METRICS.md, "Breakdown"). With
 * --exit the threads exit as soon as they are done instead (the process
 * stays until end of file): only their exit records can tell what they
 * did. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

#define MAX_THREADS 16

struct burner {
    char name[16];
    double seconds, used, wall; /* wall: how long the spin took */
    pthread_t thread;
};

static pthread_barrier_t burnt, stop;
static bool exit_when_done;

static double thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double monotonic(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *burn(void *arg)
{
    struct burner *b = arg;
    if (prctl(PR_SET_NAME, b->name) != 0)
        die("prctl");
    double start = monotonic();
    while (thread_cpu() < b->seconds)
        ;
    b->used = thread_cpu();
    b->wall = monotonic() - start;
    if (exit_when_done)
        return NULL;
    pthread_barrier_wait(&burnt);
    pthread_barrier_wait(&stop); /* idle until stdin ends */
    return NULL;
}

int main(int argc, char **argv)
{
    struct burner burners[MAX_THREADS];
    exit_when_done = argc > 1 && strcmp(argv[1], "--exit") == 0;
    if (exit_when_done) {
        argv++;
        argc--;
    }
    int n = argc - 1;
    if (n < 1 || n > MAX_THREADS) {
        fprintf(stderr, "usage: namedthreads [--exit] NAME:SECONDS... (1 to %d)\n", MAX_THREADS);
        return 2;
    }
    for (int i = 0; i < n; i++) {
        const char *colon = strchr(argv[i + 1], ':');
        if (!colon || colon == argv[i + 1] || (size_t)(colon - argv[i + 1]) >= sizeof(burners[i].name)) {
            fprintf(stderr, "namedthreads: \"%s\" is not NAME:SECONDS\n", argv[i + 1]);
            return 2;
        }
        memset(burners[i].name, 0, sizeof(burners[i].name));
        memcpy(burners[i].name, argv[i + 1], (size_t)(colon - argv[i + 1]));
        burners[i].seconds = atof(colon + 1);
    }
    say_ready();
    char line[16];
    if (!fgets(line, sizeof(line), stdin))
        return 0;
    pthread_barrier_init(&burnt, NULL, (unsigned)n + 1);
    pthread_barrier_init(&stop, NULL, (unsigned)n + 1);
    for (int i = 0; i < n; i++)
        if (pthread_create(&burners[i].thread, NULL, burn, &burners[i]) != 0)
            die("pthread_create");
    if (exit_when_done)
        for (int i = 0; i < n; i++)
            pthread_join(burners[i].thread, NULL);
    else
        pthread_barrier_wait(&burnt);
    for (int i = 0; i < n; i++) {
        char text[64];
        int len = snprintf(text, sizeof(text), "cpu %s %.6f %.6f\n", burners[i].name, burners[i].used, burners[i].wall);
        write_all(STDOUT_FILENO, text, (size_t)len);
    }
    wait_for_eof(STDIN_FILENO, "stdin");
    if (exit_when_done)
        return 0;
    pthread_barrier_wait(&stop);
    for (int i = 0; i < n; i++)
        pthread_join(burners[i].thread, NULL);
    return 0;
}

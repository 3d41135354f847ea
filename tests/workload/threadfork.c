/* threadfork NCHILD MIB: children forked by a worker thread, not by main.
 *
 * The kernel lists a process's children in the children file of the thread
 * that forked them (/proc/PID/task/TID/children), so a tree walk that reads
 * only /proc/PID/task/PID/children misses every child a worker thread made.
 * Servers fork from worker threads all the time.
 *
 * The main thread prints "ready PID" and starts one worker thread; the worker
 * forks NCHILD children and stays alive, reaping them (if the worker thread
 * exited, its children would move to the main thread's list). Each child
 * maps MIB MiB, writes every page so it is resident, prints "ready PID" in
 * one write, then reads stdin until end of file and exits. The main process
 * waits for the worker, which returns once every child has exited: closing
 * stdin stops the whole tree. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "workload.h"

static long nchild, mib;

/* Only async-signal-safe calls after fork() in a multithreaded process:
 * mmap, write, read, _exit (touch_memory maps, die uses _exit). */
static void child(void)
{
    touch_memory(mib);
    say_ready();
    wait_for_eof(STDIN_FILENO, "read stdin");
    _exit(0);
}

static void *worker(void *arg)
{
    (void)arg;
    for (long i = 0; i < nchild; i++)
        if (fork_or_die() == 0)
            child();
    reap_children(nchild);
    return NULL;
}

int main(int argc, char **argv)
{
    long long n, m;
    if (argc != 3 || !parse_number(argv[1], &n) || !parse_number(argv[2], &m) || n < 1 || n > 256 || m < 0 ||
        m > 4096) {
        fprintf(stderr, "usage: threadfork NCHILD MIB\n");
        return 2;
    }
    nchild = (long)n;
    mib = (long)m;
    say_ready();
    pthread_t t;
    int err = pthread_create(&t, NULL, worker, NULL);
    if (err) {
        fprintf(stderr, "pthread_create: %s\n", strerror(err));
        return 1;
    }
    pthread_join(t, NULL);
    return 0;
}

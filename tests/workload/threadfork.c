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
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static long nchild, mib;

static void die(const char *what)
{
    perror(what);
    _exit(1);
}

static void write_all(const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(STDOUT_FILENO, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            die("write");
        buf += n;
        len -= (size_t)n;
    }
}

static void say_ready(void)
{
    char line[64];
    int n = snprintf(line, sizeof line, "ready %ld\n", (long)getpid());
    write_all(line, (size_t)n);
}

static void wait_eof(void)
{
    char buf[256];
    for (;;) {
        ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
        if (n == 0)
            return;
        if (n < 0 && errno != EINTR)
            die("read stdin");
    }
}

/* Only async-signal-safe calls after fork() in a multithreaded process:
 * mmap, write, read, _exit. */
static void child(void)
{
    size_t len = (size_t)mib << 20;
    if (len) {
        char *mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (mem == MAP_FAILED)
            die("mmap");
        long page = sysconf(_SC_PAGESIZE);
        for (size_t off = 0; off < len; off += (size_t)page)
            ((volatile char *)mem)[off] = (char)(1 + off % 127);
    }
    say_ready();
    wait_eof();
    _exit(0);
}

static void *worker(void *arg)
{
    (void)arg;
    for (long i = 0; i < nchild; i++) {
        pid_t pid = fork();
        if (pid < 0)
            die("fork");
        if (pid == 0)
            child();
    }
    for (long i = 0; i < nchild; i++)
        while (wait(NULL) < 0)
            if (errno != EINTR)
                die("wait");
    return NULL;
}

int main(int argc, char **argv)
{
    char *e1, *e2;
    nchild = argc == 3 ? strtol(argv[1], &e1, 10) : -1;
    mib = argc == 3 ? strtol(argv[2], &e2, 10) : -1;
    if (argc != 3 || *e1 || *e2 || nchild < 1 || nchild > 256 || mib < 0 || mib > 4096) {
        fprintf(stderr, "usage: threadfork NCHILD MIB\n");
        return 2;
    }
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

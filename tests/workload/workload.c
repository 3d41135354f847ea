/* workload.c: the helpers shared by the workload programs (see workload.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* O_CLOEXEC, MAP_ANONYMOUS */
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

void die(const char *what)
{
    perror(what);
    _exit(1);
}

bool parse_number(const char *text, long long *value)
{
    char *end;
    *value = strtoll(text, &end, 10);
    return *end == '\0';
}

double clock_seconds(clockid_t clock)
{
    struct timespec ts;
    if (clock_gettime(clock, &ts) != 0)
        die("clock_gettime");
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void write_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, data, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            die("write");
        data += n;
        len -= (size_t)n;
    }
}

void say(const char *word, long value)
{
    char line[64];
    int n = snprintf(line, sizeof line, "%s %ld\n", word, value);
    write_all(STDOUT_FILENO, line, (size_t)n);
}

void say_ready(void)
{
    say("ready", (long)getpid());
}

void wait_for_eof(int fd, const char *what)
{
    char buf[256];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n == 0)
            return;
        if (n < 0 && errno != EINTR)
            die(what);
    }
}

void touch_memory(long mib)
{
    size_t len = (size_t)mib << 20;
    if (len == 0)
        return;
    char *mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED)
        die("mmap");
    /* Through a volatile pointer: the memory is never read, and an optimising
     * compiler could otherwise drop the stores. */
    volatile char *pages = mem;
    long page = sysconf(_SC_PAGESIZE);
    for (size_t off = 0; off < len; off += (size_t)page)
        pages[off] = (char)(1 + off % 127);
}

void open_zero_and_null(int *zero, int *null)
{
    *zero = open("/dev/zero", O_RDONLY | O_CLOEXEC);
    *null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (*zero < 0 || *null < 0)
        die("open");
}

void copy_bytes(int in, int out, long long len)
{
    static char buf[1 << 16];
    while (len > 0) {
        size_t want = len < (long long)sizeof buf ? (size_t)len : sizeof buf;
        ssize_t n = read(in, buf, want);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            die("read");
        write_all(out, buf, (size_t)n);
        len -= n;
    }
}

pid_t fork_or_die(void)
{
    pid_t pid = fork();
    if (pid < 0)
        die("fork");
    return pid;
}

void reap_children(long count)
{
    for (long i = 0; i < count; i++)
        while (wait(NULL) < 0)
            if (errno != EINTR)
                die("wait");
}

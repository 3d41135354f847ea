/* iopump BYTES: moves a known number of bytes through read(2) and write(2).
 *
 * The integration tests check proc_io_read_bytes / proc_io_write_bytes
 * (/proc/PID/io rchar/wchar), which count every byte a read-like or
 * write-like syscall moved. For each line on stdin this program reads exactly
 * BYTES bytes from /dev/zero and writes exactly BYTES bytes to /dev/null, then
 * prints "done N" (N = rounds so far) in one write. Apart from that, the only
 * bytes it moves are its stdin lines and those "done" lines, so a test knows
 * the interval's I/O to within a few bytes. It prints "ready PID" at start and
 * exits 0 at EOF on stdin. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* strtoll, O_CLOEXEC */
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char buf[1 << 16];

static void die(const char *what)
{
    perror(what);
    exit(1);
}

static void write_all(int fd, const char *data, size_t len)
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

static void say(const char *word, long value)
{
    char line[64];
    int n = snprintf(line, sizeof line, "%s %ld\n", word, value);
    write_all(STDOUT_FILENO, line, (size_t)n);
}

/* Read exactly len bytes from in and write them to out. */
static void pump(int in, int out, long long len)
{
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

int main(int argc, char **argv)
{
    char *end;
    long long bytes = argc == 2 ? strtoll(argv[1], &end, 10) : -1;
    if (argc != 2 || *end || bytes < 0) {
        fprintf(stderr, "usage: iopump BYTES\n");
        return 2;
    }
    int zero = open("/dev/zero", O_RDONLY | O_CLOEXEC);
    int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (zero < 0 || null < 0)
        die("open");
    say("ready", (long)getpid());

    long rounds = 0;
    char line[256];
    for (;;) {
        ssize_t n = read(STDIN_FILENO, line, sizeof line);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            die("read stdin");
        if (n == 0)
            return 0;
        /* One round per newline received (several may come in one read). */
        for (ssize_t i = 0; i < n; i++) {
            if (line[i] != '\n')
                continue;
            pump(zero, null, bytes);
            say("done", ++rounds);
        }
    }
}

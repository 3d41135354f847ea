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
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "workload.h"

int main(int argc, char **argv)
{
    long long bytes;
    if (argc != 2 || !parse_number(argv[1], &bytes) || bytes < 0) {
        fprintf(stderr, "usage: iopump BYTES\n");
        return 2;
    }
    int zero, null;
    open_zero_and_null(&zero, &null);
    say_ready();

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
            copy_bytes(zero, null, bytes);
            say("done", ++rounds);
        }
    }
}

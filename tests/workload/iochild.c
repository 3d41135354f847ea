/* iochild BYTES [FIFO]: a short-lived process that moves an exact number of bytes.
 *
 * The accounting tests start hundreds of these, each living far less than a
 * poll interval, and check that proctree's proc_io_read_bytes and
 * proc_io_write_bytes (/proc/PID/io rchar/wchar) add up to every byte they
 * moved: BYTES read from /dev/zero and BYTES written to /dev/null, in chunks
 * of at most 64 KiB. It prints nothing and reads nothing else, so apart from
 * the dynamic loader reading the libraries' ELF headers (under 1 KiB each)
 * its rchar and wchar are exactly BYTES.
 *
 * With FIFO, it then opens FIFO for reading and waits for end of file there
 * before exiting (the test opens the FIFO for writing and closes it without
 * writing a byte), so a test can see it alive with its I/O done. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* O_CLOEXEC */
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char buf[1 << 16];

static void die(const char *what)
{
    perror(what);
    _exit(1);
}

int main(int argc, char **argv)
{
    char *end;
    long long bytes = argc >= 2 ? strtoll(argv[1], &end, 10) : -1;
    if (argc < 2 || argc > 3 || *end || bytes < 0) {
        fprintf(stderr, "usage: iochild BYTES [FIFO]\n");
        return 2;
    }
    int zero = open("/dev/zero", O_RDONLY | O_CLOEXEC);
    int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (zero < 0 || null < 0)
        die("open");
    while (bytes > 0) {
        size_t want = bytes < (long long)sizeof buf ? (size_t)bytes : sizeof buf;
        ssize_t n = read(zero, buf, want);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            die("read");
        for (ssize_t off = 0; off < n;) {
            ssize_t w = write(null, buf + off, (size_t)(n - off));
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                die("write");
            off += w;
        }
        bytes -= n;
    }
    if (argc == 3) {
        int fifo = open(argv[2], O_RDONLY | O_CLOEXEC);
        if (fifo < 0)
            die("open fifo");
        for (;;) {
            ssize_t n = read(fifo, buf, sizeof buf);
            if (n == 0)
                break;
            if (n < 0 && errno != EINTR)
                die("read fifo");
        }
    }
    return 0;
}

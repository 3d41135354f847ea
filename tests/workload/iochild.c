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
#include <fcntl.h>
#include <stdio.h>

#include "workload.h"

int main(int argc, char **argv)
{
    long long bytes;
    if (argc < 2 || argc > 3 || !parse_number(argv[1], &bytes) || bytes < 0) {
        fprintf(stderr, "usage: iochild BYTES [FIFO]\n");
        return 2;
    }
    int zero, null;
    open_zero_and_null(&zero, &null);
    copy_bytes(zero, null, bytes);
    if (argc == 3) {
        int fifo = open(argv[2], O_RDONLY | O_CLOEXEC);
        if (fifo < 0)
            die("open fifo");
        wait_for_eof(fifo, "read fifo");
    }
    return 0;
}

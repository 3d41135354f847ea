/* fdtree NCHILD NFDS: a wide tree whose open descriptors are known.
 *
 * The descriptor tests need more processes than a host agent's open-files
 * limit allows proctree to keep files for (thousands), each holding a
 * known number of descriptors. The root forks NCHILD children; child i
 * opens i % (NFDS + 1) more descriptors on /dev/null, so the total is not
 * a multiple of anything proctree could get right by accident. Each child
 * then reports on a pipe that it is ready; once all have, the root prints
 * "ready PID" in one write. Every process then reads stdin until end of
 * file (they share the pipe), so closing it stops the whole tree. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "workload.h"

static void hold_descriptors(long count)
{
    for (long i = 0; i < count; i++)
        if (open("/dev/null", O_RDONLY) < 0)
            die("open /dev/null");
}

int main(int argc, char **argv)
{
    long long nchild, nfds;
    if (argc != 3 || !parse_number(argv[1], &nchild) || nchild < 0 || nchild > 10000 || !parse_number(argv[2], &nfds) ||
        nfds < 0 || nfds > 100) {
        fprintf(stderr, "usage: fdtree NCHILD NFDS (NCHILD <= 10000, NFDS <= 100)\n");
        return 2;
    }
    int ready[2];
    if (pipe(ready) < 0)
        die("pipe");
    for (long i = 0; i < nchild; i++) {
        if (fork_or_die() == 0) {
            close(ready[0]);
            hold_descriptors(i % (nfds + 1));
            write_all(ready[1], "r", 1);
            close(ready[1]);
            wait_for_eof(STDIN_FILENO, "read stdin");
            _exit(0);
        }
    }
    close(ready[1]);
    for (long got = 0; got < nchild;) {
        char buf[256];
        ssize_t n = read(ready[0], buf, sizeof(buf));
        if (n <= 0)
            die("read ready pipe");
        got += n;
    }
    close(ready[0]);
    say_ready();
    wait_for_eof(STDIN_FILENO, "read stdin");
    reap_children((long)nchild);
    return 0;
}

/* selhold [--comm NAME] NCHILD: an idle process tree for the selector tests.
 *
 * With --comm, first renames itself with prctl(PR_SET_NAME) (what a daemon
 * does to show its role in ps; children inherit the name over fork). Then it
 * forks NCHILD children. Every process of the tree prints "ready PID" in one
 * write, then reads stdin until end of file; the children then exit and the
 * parent reaps them and exits. Closing the pipe on its stdin stops the tree,
 * so a test never needs a signal to clean up. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "workload.h"

int main(int argc, char **argv)
{
    int arg = 1;
    if (argc >= 3 && strcmp(argv[1], "--comm") == 0) {
        if (prctl(PR_SET_NAME, argv[2], 0, 0, 0) < 0)
            die("prctl");
        arg = 3;
    }
    long long n;
    if (argc != arg + 1 || !parse_number(argv[arg], &n) || n < 0 || n > 256) {
        fprintf(stderr, "usage: selhold [--comm NAME] NCHILD\n");
        return 2;
    }
    for (long i = 0; i < n; i++) {
        if (fork_or_die() == 0) {
            say_ready();
            wait_for_eof(STDIN_FILENO, "read stdin");
            _exit(0);
        }
    }
    say_ready();
    wait_for_eof(STDIN_FILENO, "read stdin");
    reap_children((long)n);
    return 0;
}

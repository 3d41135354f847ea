/* ignchild CHILD_BYTES PARENT_BYTES: a parent that ignores SIGCHLD.
 *
 * With SIGCHLD ignored the kernel reaps the parent's children itself, and
 * does not add their usage to the parent's counters (cutime, io): what the
 * child did leaves the tree's inclusive counters for good. The accounting
 * test checks that the parent's own later work is still reported in full.
 *
 * Protocol, one line on stdin for each step (parent and child share stdin,
 * and only one of them reads it at a time):
 *   - the parent prints "ready PID", forks, and waits for the child to be
 *     gone (wait() fails with ECHILD once it is: nothing is left to reap);
 *   - the child prints "ready PID"; at a line it reads CHILD_BYTES from
 *     /dev/zero (to /dev/null) and prints "child N"; at the next line it
 *     exits and the kernel reaps it;
 *   - the parent prints "reaped 0"; at a line it reads PARENT_BYTES and
 *     prints "parent N"; it exits at end of file on stdin.
 * Stdin is read one byte at a time, so that neither takes the other's line,
 * and only those few bytes add to rchar. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "workload.h"

/* Read stdin up to and including one newline; false at end of file. */
static bool read_line(void)
{
    char ch;
    for (;;) {
        ssize_t n = read(STDIN_FILENO, &ch, 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            die("read stdin");
        if (n == 0)
            return false;
        if (ch == '\n')
            return true;
    }
}

static void child(int zero, int null, long long bytes)
{
    say_ready();
    if (!read_line())
        _exit(1);
    copy_bytes(zero, null, bytes);
    say("child", (long)bytes);
    read_line();
    _exit(0);
}

int main(int argc, char **argv)
{
    long long child_bytes, parent_bytes;
    if (argc != 3 || !parse_number(argv[1], &child_bytes) || child_bytes < 0 || !parse_number(argv[2], &parent_bytes) ||
        parent_bytes < 0) {
        fprintf(stderr, "usage: ignchild CHILD_BYTES PARENT_BYTES\n");
        return 2;
    }
    int zero, null;
    open_zero_and_null(&zero, &null);
    if (signal(SIGCHLD, SIG_IGN) == SIG_ERR)
        die("signal");
    say_ready();
    if (fork_or_die() == 0)
        child(zero, null, child_bytes);
    while (wait(NULL) >= 0 || errno == EINTR)
        continue;
    if (errno != ECHILD)
        die("wait");
    say("reaped", 0);
    if (!read_line())
        return 1;
    copy_bytes(zero, null, parent_bytes);
    say("parent", (long)parent_bytes);
    wait_for_eof(STDIN_FILENO, "read stdin");
    return 0;
}

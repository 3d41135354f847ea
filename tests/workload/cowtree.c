/* cowtree MIB: a parent's private memory shared by one child, then copied.
 *
 * The parent maps MIB MiB of private anonymous memory (small pages), writes
 * every page and prints "ready PID". Then one line on stdin at a time, its
 * first character the order (the parent never touches the memory again,
 * and allocates nothing, so the tree holds still between two orders):
 *   f  fork a child that shares every page and waits: "ready CHILD_PID"
 *   w  the child writes half of the pages, the first half then the second
 *      (copy on write: each page written its own, the parent's page
 *      wholly the parent's again): "written 0" once it has. The first
 *      also maps in the child the code that writes and replies (file
 *      pages: its statm moves); the second moves nothing of the child but
 *      its fault counts, and nothing of the parent's
 *   e  the child execs "sleep 3600": "execd 0" once the exec is done (its
 *      reply pipe is close-on-exec: the parent reads its end of file)
 *   x  the child exits and is reaped: "reaped 0"
 * At EOF on stdin the child, if any, is killed and reaped, and it exits 0.
 *
 * Why C: the test needs a copy on write that moves nothing but the child's
 * fault counts. An interpreter allocates and frees as it runs, which moves
 * both processes' statm and hides what the test is after. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "workload.h"

static char *region;
static size_t region_len;
static long page;

static char read_byte(int fd, const char *what)
{
    char c;
    for (;;) {
        ssize_t n = read(fd, &c, 1);
        if (n == 1)
            return c;
        if (n == 0)
            return 0;
        if (errno != EINTR)
            die(what);
    }
}

static void write_pages(size_t from, size_t to, char value)
{
    for (size_t at = from; at < to; at += (size_t)page)
        region[at] = value;
}

static _Noreturn void child(int orders, int replies)
{
    size_t written = 0;
    for (;;) {
        char c = read_byte(orders, "read orders");
        if (c == 'w') {
            size_t to = written < region_len / 2 ? region_len / 2 : region_len;
            write_pages(written, to, 2);
            written = to;
            write_all(replies, "w", 1);
        } else if (c == 'e') {
            execlp("sleep", "sleep", "3600", (char *)NULL);
            die("exec sleep");
        } else {
            _exit(0);
        }
    }
}

int main(int argc, char **argv)
{
    long long mib;
    if (argc != 2 || !parse_number(argv[1], &mib) || mib < 1 || mib > 65536) {
        fprintf(stderr, "usage: cowtree MIB (1..65536)\n");
        return 2;
    }
    page = sysconf(_SC_PAGESIZE);
    region_len = (size_t)mib << 20;
    region = mmap(NULL, region_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (region == MAP_FAILED)
        die("mmap");
    (void)madvise(region, region_len, MADV_NOHUGEPAGE); /* one fault per page copied */
    write_pages(0, region_len, 1);
    say_ready();
    pid_t kid = 0;
    int orders = -1, replies = -1;
    for (;;) {
        char c = read_byte(0, "read stdin");
        if (c == 0)
            break;
        if (c == '\n')
            continue;
        if (c == 'f' && !kid) {
            int o[2], r[2];
            if (pipe(o) != 0 || pipe2(r, O_CLOEXEC) != 0)
                die("pipe");
            kid = fork_or_die();
            if (kid == 0) {
                close(o[1]);
                close(r[0]);
                child(o[0], r[1]);
            }
            close(o[0]);
            close(r[1]);
            orders = o[1];
            replies = r[0];
            say("ready", (long)kid);
        } else if (c == 'w' && kid) {
            write_all(orders, "w", 1);
            if (read_byte(replies, "read replies") != 'w')
                die("the child did not write");
            say("written", 0);
        } else if (c == 'e' && kid) {
            write_all(orders, "e", 1);
            if (read_byte(replies, "read replies") != 0)
                die("the child did not exec");
            say("execd", 0);
        } else if (c == 'x' && kid) {
            write_all(orders, "x", 1);
            reap_children(1);
            close(orders);
            close(replies);
            kid = 0;
            say("reaped", 0);
        }
    }
    if (kid) {
        kill(kid, SIGKILL);
        reap_children(1);
    }
    return 0;
}

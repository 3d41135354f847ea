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
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static void die(const char *what)
{
    perror(what);
    _exit(1);
}

static void say_ready(void)
{
    char line[64];
    int n = snprintf(line, sizeof line, "ready %ld\n", (long)getpid());
    if (write(STDOUT_FILENO, line, (size_t)n) != n)
        die("write");
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

int main(int argc, char **argv)
{
    int arg = 1;
    if (argc >= 3 && strcmp(argv[1], "--comm") == 0) {
        if (prctl(PR_SET_NAME, argv[2], 0, 0, 0) < 0)
            die("prctl");
        arg = 3;
    }
    char *end;
    long n = argc == arg + 1 ? strtol(argv[arg], &end, 10) : -1;
    if (argc != arg + 1 || *end || n < 0 || n > 256) {
        fprintf(stderr, "usage: selhold [--comm NAME] NCHILD\n");
        return 2;
    }
    for (long i = 0; i < n; i++) {
        pid_t pid = fork();
        if (pid < 0)
            die("fork");
        if (pid == 0) {
            say_ready();
            wait_eof();
            _exit(0);
        }
    }
    say_ready();
    wait_eof();
    for (long i = 0; i < n; i++)
        while (wait(NULL) < 0)
            if (errno != EINTR)
                die("wait");
    return 0;
}

/* states NZOMBIES: one process of the tree in each state proctree counts.
 *
 * It forks a busy loop (R: running or waiting for a CPU), a child that
 * stops itself (T), NZOMBIES children that exit at once and are not
 * reaped (Z), and a child blocked in vfork() (D: the kernel waits, killable
 * but uninterruptible, until its vfork child execs or exits; that child
 * waits for the end of stdin). It says "ready PID" for itself and each
 * child as it forks them (the test waits for the states itself), then
 * waits for the end of stdin, kills and reaps them all, and exits. The parent itself sleeps
 * in read (S). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "workload.h"

/* The vfork child shares its parent's memory until it exits: it only
 * reads, then _exits. */
static void blocked_in_vfork(void)
{
    pid_t child = vfork();
    if (child < 0)
        die("vfork");
    if (child == 0) {
        char byte;
        while (read(STDIN_FILENO, &byte, 1) > 0)
            ;
        _exit(0);
    }
    _exit(0);
}

int main(int argc, char **argv)
{
    long long zombies;
    if (argc != 2 || !parse_number(argv[1], &zombies) || zombies < 0 || zombies > 64) {
        fprintf(stderr, "usage: states NZOMBIES\n");
        return 2;
    }
    say_ready();
    pid_t busy = fork_or_die();
    if (busy == 0)
        for (;;)
            ;
    say("ready", busy);
    pid_t stopped = fork_or_die();
    if (stopped == 0) {
        raise(SIGSTOP);
        _exit(0);
    }
    say("ready", stopped);
    for (long long i = 0; i < zombies; i++) {
        pid_t z = fork_or_die();
        if (z == 0)
            _exit(0);
        say("ready", z);
    }
    pid_t blocked = fork_or_die();
    if (blocked == 0)
        blocked_in_vfork();
    say("ready", blocked);
    wait_for_eof(STDIN_FILENO, "read stdin");
    kill(busy, SIGKILL);
    kill(stopped, SIGKILL);
    while (wait(NULL) > 0)
        ;
    return 0;
}

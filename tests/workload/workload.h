/* workload.h: the pieces every workload program needs, written once.
 *
 * The workloads are tiny processes whose output, memory and I/O the
 * integration tests know in advance, so each helper here keeps the exact
 * bytes, syscalls and exit statuses the tests rely on. A failing syscall is
 * fatal everywhere: the helpers print perror(what) and exit with status 1. */
#ifndef PROCTREE_TESTS_WORKLOAD_H
#define PROCTREE_TESTS_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

/* Print "WHAT: strerror(errno)" on stderr and exit 1. _exit, not exit: it is
 * called in children forked from a multithreaded process (threadfork), where
 * only async-signal-safe calls are allowed, and no workload leaves anything
 * in a stdio buffer that exit would flush. */
_Noreturn void die(const char *what);

/* Parse TEXT as a base-10 number (strtoll) that must use up the whole
 * string; false if anything follows the digits. The caller checks the range. */
bool parse_number(const char *text, long long *value);

/* Write all LEN bytes of DATA to FD, retrying after EINTR and short writes:
 * the tests read whole stdout lines, a lost tail would make one vanish. */
void write_all(int fd, const char *data, size_t len);

/* A clock's reading in seconds (CLOCK_MONOTONIC for pacing,
 * CLOCK_PROCESS_CPUTIME_ID for CPU burnt). */
double clock_seconds(clockid_t clock);

/* Print "WORD VALUE\n" on stdout in one write ("ready PID", "done N"): the
 * tests parse these lines as they come. */
void say(const char *word, long value);

/* Print "ready PID\n" for this process: the tests wait for one such line per
 * member of a tree before they measure it. */
void say_ready(void);

/* Read FD until end of file, discarding what comes; WHAT names FD in the
 * error message. Closing the other end (stdin pipe, FIFO) is how the tests
 * stop a workload without a signal. */
void wait_for_eof(int fd, const char *what);

/* Map MIB MiB of anonymous memory and write every page, so all of it is
 * resident and private (statm resident - shared). Never unmapped: the
 * process keeps it until it exits. Uses mmap, not malloc, so that it is
 * safe in a child forked from a multithreaded process. */
void touch_memory(long mib);

/* Open /dev/zero for reading and /dev/null for writing (close-on-exec), the
 * endpoints of copy_bytes for the I/O accounting workloads. */
void open_zero_and_null(int *zero, int *null);

/* Read exactly LEN bytes from IN and write them to OUT, in chunks of at most
 * 64 KiB, so a process's rchar and wchar both grow by exactly LEN. */
void copy_bytes(int in, int out, long long len);

/* fork(), dying with "fork" if it fails. */
pid_t fork_or_die(void);

/* Reap COUNT children, whichever exit first, retrying after EINTR. */
void reap_children(long count);

#endif

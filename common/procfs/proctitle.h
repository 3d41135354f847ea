/* proctitle: a process's title, as `ps -o args` shows it: its command
 * line (/proc/PID/cmdline) with the NULs between arguments as spaces.
 * Programs rewrite it at run time (PostgreSQL's "postgres: checkpointer",
 * nginx's "nginx: worker process"), so it tells apart processes of one
 * name. Another user's process chooses its bytes and their number: a
 * reader takes its first PT_TITLE_READ_MAX bytes, in one read, and a
 * title may hold any byte but NUL (those who write it out escape it). */
#ifndef PROCTREE_PROCTITLE_H
#define PROCTREE_PROCTITLE_H

#include <stddef.h>

/* Bytes of a command line read for its title (one page). */
#define PT_TITLE_READ_MAX 4096

/* The n bytes read of a command line, in text (n + 1 bytes of room),
 * made its title in place: the NULs that end it dropped, every other one
 * a space, NUL-terminated. Returns its length: 0 when it had nothing but
 * NULs (a kernel thread's, a zombie's, one cleared). */
size_t pt_proctitle_from_cmdline(char *text, size_t n);

/* What ps shows for a process with an empty command line: "[COMM]", cut
 * to outlen - 1 bytes (outlen >= 1). */
void pt_proctitle_of_comm(char *out, size_t outlen, const char *comm);

#endif

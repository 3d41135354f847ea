/* loop: proctree-execd's event loop, as Telegraf's inputs.execd drives it.
 *
 * One thread, one ppoll(): stdin (newlines ask for a batch, EOF means
 * Telegraf is stopping us), a signalfd (SIGHUP/SIGUSR1/SIGUSR2 ask for a
 * batch, SIGTERM/SIGINT stop, SIGCHLD reaps the launched tree), and the
 * collector's own deadlines (memory polls, discovery, the --interval
 * timer). */
#ifndef PROCTREE_EXECD_LOOP_H
#define PROCTREE_EXECD_LOOP_H

#include "proctree/collector.h"
#include "options.h"

/* Block the signals the loop takes through its signalfd. Call before
 * launching anything, so that no SIGCHLD can be missed. */
void execd_block_signals(void);

/* Run until stopped; returns the process exit status. summary_fd: where a
 * launched command's summary goes (--summary-file, opened by the caller
 * with the user's permissions), or -1: stdout, after a table's last row. */
int execd_loop(struct pt_collector *c, const struct execd_options *options, int summary_fd);

#endif

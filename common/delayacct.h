/* delayacct: whether the kernel counts every task's block-I/O delay now.
 *
 * kernel.task_delayacct (off by default since Linux 5.14) makes the
 * kernel time each task's waits for block I/O: stat's field 42 and the
 * exit records' blkio_delay_total grow only while it is 1, so while it is
 * 0 proc_blkio_delay_seconds is left out, never reported as 0. It can be
 * switched at any time, so it is read at each interval's end (one small
 * read for the whole collector, at the first report and not before, so that
 * a configuration refused says its error alone); the first reading that
 * finds it off, and each change, is said in one line. */
#ifndef PROCTREE_DELAYACCT_H
#define PROCTREE_DELAYACCT_H

#include <stdbool.h>

struct pt_delayacct {
    int said; /* the state last said: 0 off, 1 on; -1 nothing said yet */
};

void pt_delayacct_init(struct pt_delayacct *d);

/* Is <proc_root>/sys/kernel/task_delayacct 1 now? A missing or
 * unreadable file (a kernel without CONFIG_TASK_DELAY_ACCT, or from
 * before 5.14, when it was a boot option) is off. */
bool pt_delayacct_on(struct pt_delayacct *d, int proc_root_fd);

#endif

/* delayacct: whether, and for which tasks, the kernel counts the block-I/O
 * delay.
 *
 * kernel.task_delayacct (off by default since Linux 5.14) makes the
 * kernel time each task's waits for block I/O (stat's field 42, the exit
 * records' blkio_delay_total), but only of the tasks forked while it is 1:
 * the per-task record is made at fork, so a task older than the switch
 * stays at 0 whatever it waits (seen on this host's 6.18: a writer started
 * before `sysctl kernel.task_delayacct=1` kept 0 ticks through 120 MB of
 * synced writes). Only "delayacct" on the kernel command line counts
 * every task from boot.
 *
 * So while it is 0 proc_blkio_delay_seconds is left out, never reported
 * as 0, and while it is 1 a tree is shown only when every process of it
 * started after `since`: boot with the boot option, else the reading that
 * found it 1 (the switch came before that reading, at a time proctree
 * cannot know). It is read when the collector is made and at each
 * interval's end (one pread of a descriptor kept open, for the whole
 * collector: a sysctl's file says its value now at every read); its state is
 * said at the first report, so that a configuration refused says its
 * error alone, and at each change. */
#ifndef PROCTREE_DELAYACCT_H
#define PROCTREE_DELAYACCT_H

#include <stdbool.h>

struct pt_delayacct {
    int proc_root_fd; /* the collector's */
    int fd;           /* the sysctl, kept open; -errno when it could not be opened (-ENOENT: looked for again) */
    int state;        /* at the last reading: 0 off, 1 on; -1 none yet */
    int said;         /* the state last said, the same way */
    bool from_boot;   /* "delayacct" on the kernel command line, and not seen 0 since */
    double since;     /* while on: the kernel counts the tasks started after it
                         (pt_now's clock); -INFINITY: every task */
};

/* Reads <proc_root>/cmdline for the boot option, and the sysctl now
 * (pt_now()), saying nothing yet: a command launched after the collector
 * is made is a tree started after since. The sysctl's descriptor is kept
 * until pt_delayacct_close; proc_root_fd must outlive d. */
void pt_delayacct_init(struct pt_delayacct *d, int proc_root_fd);
void pt_delayacct_close(struct pt_delayacct *d);

/* Is <proc_root>/sys/kernel/task_delayacct 1 now (read at now, the
 * collector's clock)? A missing or unreadable file (a kernel without
 * CONFIG_TASK_DELAY_ACCT, or from before 5.14, when it was a boot option
 * only) is off. */
bool pt_delayacct_on(struct pt_delayacct *d, double now);

#endif

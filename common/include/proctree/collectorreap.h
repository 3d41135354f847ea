/* collectorreap: launch mode's children. proctree is the subreaper of the
 * command it launched, so every process of that tree ends as its child:
 * each is read one last time as a zombie, then reaped, and the command's
 * own status is kept for the frontend to exit with. */
#ifndef PROCTREE_COLLECTORREAP_H
#define PROCTREE_COLLECTORREAP_H

#include <stdbool.h>
#include <sys/types.h>

struct pt_collector;

/* Launch mode. Reap every exited child of this process, reading each
 * one's final counters from its zombie before reaping (waitid WNOWAIT), and
 * record the launched command's status. Call on SIGCHLD and at every tick. */
void pt_collector_reap(struct pt_collector *c);

/* True once the launched command has exited and no process of its tree is
 * left (this process has no children at all). *wait_status is then its
 * status as waitpid gave it (WIFSIGNALED and the rest read it): an exit
 * status of 200 and a death by signal 72 are told apart only there. */
bool pt_collector_launch_finished(struct pt_collector *c, int *wait_status);

/* The launched command's pid while it is a child of ours not yet reaped
 * (by pt_collector_reap, in the caller's thread: the pid, and so the id of
 * the process group it leads, is still its own), else 0: the pid to give
 * pt_launch_signal_tree (launchtree.h). */
pid_t pt_collector_launched_unreaped(const struct pt_collector *c);

#endif

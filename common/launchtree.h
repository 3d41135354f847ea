/* launchtree: the launched tree signalled as a whole. Its own file, as it
 * needs nothing of the command's cgroup: only the kernel's children files
 * of this process, the subreaper (launch.h), below which every orphan of
 * the tree stays. */
#ifndef PROCTREE_LAUNCHTREE_H
#define PROCTREE_LAUNCHTREE_H

#include <stddef.h>
#include <sys/types.h>

/* Send sig to the process group `group` and to every descendant of this
 * process, wherever it is (a job may move a child to another group or
 * session; as the subreaper we still find it below us). Returns how many
 * descendants were found, zombies included; 0 means the tree is gone. */
size_t pt_launch_signal_tree(pid_t group, int sig);

#endif

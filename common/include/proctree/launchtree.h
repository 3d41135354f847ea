/* launchtree: the launched tree signalled as a whole. Its own file, as it
 * needs nothing of the command's cgroup: only the kernel's children files
 * of this process, the subreaper (launch.h), below which every orphan of
 * the tree stays.
 *
 * Never a stranger: a pid read from /proc names whoever has it at the
 * moment of the kill, and a process of the tree reaped by its parent frees
 * its number for anyone. So a process group is signalled by number only
 * while its leader is a child of ours not yet reaped (that holds the
 * number), and every other process through a pidfd, after the process
 * behind it is shown to be our descendant. */
#ifndef PROCTREE_LAUNCHTREE_H
#define PROCTREE_LAUNCHTREE_H

#include <stddef.h>
#include <sys/types.h>

/* Send sig to every descendant of this process, wherever it is (a job may
 * move a child to another group or session; as the subreaper we still
 * find it below us), each by a pidfd opened and then checked to be still
 * the child of the process it was listed under (itself checked so, up to
 * us); and first to the process group `unreaped_leader` when not 0: the
 * caller's word that this is a child of ours it has not reaped (only the
 * reaper can know it; and a group whose leader is reaped may be anyone's
 * once its last member leaves: the tree's members are found by the walk).
 * Call from the thread that reaps. Returns how many descendants were
 * found, zombies included; 0 means the tree is gone. */
size_t pt_launch_signal_tree(pid_t unreaped_leader, int sig);

#endif

/* launch: start a command to follow, with this process as its subreaper.
 *
 * PR_SET_CHILD_SUBREAPER makes orphans of the launched tree (daemonised
 * grandchildren whose parent exited) come back to us instead of init, so
 * we can read their final usage from the zombie before reaping them, and
 * know when the whole tree is gone (waitid reports ECHILD). */
#ifndef PROCTREE_LAUNCH_H
#define PROCTREE_LAUNCH_H

#include <stddef.h>
#include <sys/types.h>

/* Fork and exec argv[0] (PATH search). The child gets default signal
 * dispositions, an empty signal mask, a process group of its own (whose id
 * is its pid: pt_launch_signal_tree reaches the whole job through it), and
 * stdin_fd / stdout_fd / stderr_fd as its standard streams (-1 = inherit
 * ours). Returns the pid, or -1 with a one-line reason in err when the
 * command cannot be executed (the child's exec error is passed back through
 * a close-on-exec pipe). */
pid_t pt_launch(char *const argv[], int stdin_fd, int stdout_fd, int stderr_fd, char *err, size_t errlen);

/* Send sig to the process group `group` and to every descendant of this
 * process, wherever it is (a job may move a child to another group or
 * session; as the subreaper we still find it below us). Returns how many
 * descendants were found, zombies included; 0 means the tree is gone. */
size_t pt_launch_signal_tree(pid_t group, int sig);

#endif

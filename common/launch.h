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
 * dispositions, an empty signal mask, and stdin_fd / stdout_fd as its
 * standard input and output (-1 = inherit ours). Returns the pid, or -1
 * with a one-line reason in err when the command cannot be executed (the
 * child's exec error is passed back through a close-on-exec pipe). */
pid_t pt_launch(char *const argv[], int stdin_fd, int stdout_fd, char *err, size_t errlen);

#endif

/* supervise: launch mode's two processes, so that the launched command
 * never outlives proctree-execd.
 *
 * Telegraf knows one pid, and sends it SIGKILL when it does not stop in
 * time; the OOM killer or a crash ends a process as abruptly. The launched
 * tree must end with it, or Telegraf's next run starts a second copy of
 * the job beside the first. So in launch mode proctree-execd splits at
 * start: the process Telegraf started, the supervisor, forks the one that
 * works, the worker (the collector, the command's parent and subreaper),
 * and then only
 *   - forwards to it every signal Telegraf may send (batch requests and
 *     stops: the worker reads stdin and writes stdout itself);
 *   - is a subreaper too: should the worker die, the launched tree comes
 *     to it, and it kills and reaps all of it and removes the command's
 *     cgroup;
 *   - as proctree's last process, puts its own cgroup back as it was
 *     where launch mode gave it up to the command's (launchleaf.h);
 *   - on a systemd host, forks the keeper of the command's scope
 *     (launch.h: pt_launch_cgroup_keeper), which is not of the worker's
 *     tree, and kills it with what is left once the worker has exited;
 *   - exits with the worker's status.
 * The worker asks the kernel for EXECD_ORPHANED_SIGNAL when the supervisor
 * dies (PR_SET_PDEATHSIG), and then kills the tree at once and exits
 * (loop.c). Only both dying together (a SIGKILL to the whole process
 * group or cgroup) leaves the tree running; a signal to the group is
 * taken by each once, as without the split.
 *
 * A stopped worker (SIGSTOP, SIGTSTP) acts on no signal until it is
 * continued, and a SIGKILLed supervisor can do nothing for it: the tree
 * and its cgroups would live until someone sent the worker SIGCONT. So
 * the kernel sends it: the death signal is SIGCONT, whose generation
 * alone resumes a stopped process (blocked, it still continues it, and
 * waits in the signalfd). As anyone may send SIGCONT, the worker takes it
 * for the supervisor's death only when its parent is no longer the
 * supervisor (the kernel reparents it before it sends the signal). */
#ifndef PROCTREE_EXECD_SUPERVISE_H
#define PROCTREE_EXECD_SUPERVISE_H

#include <signal.h>
#include <stdbool.h>

#include "proctree/launch.h"

/* Sent to the worker when the supervisor dies, stopped or not (above). */
#define EXECD_ORPHANED_SIGNAL SIGCONT

/* In the worker: the supervisor is gone (the process that forked us is no
 * longer our parent). False where there was never one. */
bool execd_orphaned(void);

/* Split, after cg is made (the supervisor removes it should the worker
 * die; nothing else of it is used there) and with execd_block_signals in
 * force. Returns in the worker: 0, or -1 (with a line logged) where the
 * fork failed and nothing was split. The supervisor never returns. */
int execd_supervise(struct pt_launch_cgroup *cg);

#endif

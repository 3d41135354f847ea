/* collectorreap: launch mode's children read as zombies, reaped, the
 * command's status kept. */
#include "proctree/collectorreap.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>

#include "util/buf.h"
#include "collector/collectorstate.h"
#include "procfs/pidns.h"

void pt_collector_reap(struct pt_collector *c)
{
    struct pt_buf buf = {0}; /* used only when the proc root is another namespace's */
    for (;;) {
        siginfo_t si;
        memset(&si, 0, sizeof(si));
        if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) != 0 || si.si_pid == 0)
            break;
        pid_t pid = si.si_pid;
        /* the proc root's pid of it (pidns.h): a zombie is still shown */
        pid_t in_root = c->launched ? pt_pidns_child_in_root(c->proc_root_fd, c->self, pid, &buf) : 0;
        /* Still a zombie: its stat and io hold its final usage. */
        if (in_root > 0)
            pt_target_final_read(c->launched, in_root);
        int status;
        if (waitpid(pid, &status, WNOHANG) != pid)
            break;
        if (c->launched) {
            if (in_root > 0)
                pt_target_reaped(c->launched, in_root);
            if (pid == c->launched_ours) {
                c->launched_exited = true;
                c->launched_wait_status = status;
                if (WIFSIGNALED(status))
                    pt_logf(PT_LOG_INFO, "launched command (pid %d) killed by signal %d", (int)pid, WTERMSIG(status));
                else
                    pt_logf(PT_LOG_INFO, "launched command (pid %d) exited with status %d", (int)pid,
                            WEXITSTATUS(status));
            }
        }
    }
    pt_buf_free(&buf);
}

bool pt_collector_launch_finished(struct pt_collector *c, int *status)
{
    if (!c->launched || !c->launched_exited)
        return false;
    siginfo_t si;
    memset(&si, 0, sizeof(si));
    /* ECHILD: no child left, alive or zombie: the whole tree is gone. */
    if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) == 0 || errno != ECHILD)
        return false;
    *status = c->launched_wait_status;
    return true;
}

pid_t pt_collector_launched_unreaped(const struct pt_collector *c)
{
    return c->launched && !c->launched_exited ? c->launched_ours : 0;
}

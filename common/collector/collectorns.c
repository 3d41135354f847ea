/* collectorns: the proc root of another pid namespace, translated and said. */
#include "collector/collectorns.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/escape.h"
#include "member/member.h"
#include "procfs/pidns.h"

int pt_collector_launched_in_root(struct pt_collector *c, struct pt_selector *selector, char *err, size_t errlen)
{
    struct pt_buf buf = {0};
    pid_t ours = selector->pid;
    selector->pid = pt_pidns_child_in_root(c->proc_root_fd, c->self, ours, &buf);
    pt_buf_free(&buf);
    if (selector->pid > 0)
        return 0;
    char q[PT_QUOTED_MAX];
    snprintf(err, errlen,
             "the proc root \"%s\" does not show the launched command (pid %d here) among this process's "
             "children: it is not this pid namespace's /proc nor an outer one's",
             pt_escape(c->proc_root, q, sizeof(q)), (int)ours);
    return -1;
}

void pt_collector_check_namespace(struct pt_collector *c, const char *name, const struct pt_selector *selector)
{
    if (c->self == getpid())
        return;
    char qn[PT_QUOTED_MAX], qc[PT_QUOTED_MAX];
    pt_escape(name, qn, sizeof(qn));
    if (selector->kind == PT_SELECT_CGROUP || selector->kind == PT_SELECT_UNIT) {
        pt_logf(PT_LOG_WARNING,
                "target \"%s\": the %s's processes cannot be found: the proc root is another pid "
                "namespace's, and cgroup.procs lists this one's pids (0 for the others); run in the host's pid "
                "namespace (--pid=host in Docker, hostPID: true in Kubernetes)",
                qn, selector->kind == PT_SELECT_UNIT ? "unit" : "cgroup");
        return;
    }
    pid_t pid = selector->pid;
    if (selector->kind != PT_SELECT_PID || !(kill(pid, 0) == 0 || errno == EPERM))
        return; /* no such pid here: the proc root's, as meant */
    struct pt_buf buf = {0};
    if (!pt_pidns_same_pid(c->proc_root_fd, c->self, pid, &buf)) {
        struct pt_stat st;
        bool shown = pt_member_read_stat_by_pid(c->proc_root_fd, pid, &buf, &st) == PT_READ_OK;
        pid_t there = pt_pidns_find_in_root(c->proc_root_fd, c->self, pid, &buf);
        char found[64] = "";
        if (there > 0)
            snprintf(found, sizeof(found), " (pid %d in the proc root)", (int)there);
        pt_logf(PT_LOG_WARNING,
                "target \"%s\": pid %d is taken in the proc root's pid namespace, where it is %s%s%s; in this "
                "process's namespace, another, pid %d is another process%s: give the pid the proc root shows",
                qn, (int)pid, shown ? "\"" : "", shown ? pt_escape(st.comm, qc, sizeof(qc)) : "no process",
                shown ? "\"" : "", (int)pid, found);
    }
    pt_buf_free(&buf);
}

void pt_collector_say_namespace(const struct pt_collector *c)
{
    if (c->self == getpid())
        return;
    char q[PT_QUOTED_MAX];
    if (c->self == 0)
        pt_logf(PT_LOG_INFO,
                "the proc root \"%s\" is the /proc of a pid namespace that does not hold this process (a "
                "container's, seen from outside): the pids of targets and pid files are taken as that namespace's, "
                "and --cgroup and --unit cannot name their processes there",
                pt_escape(c->proc_root, q, sizeof(q)));
    else
        pt_logf(PT_LOG_INFO,
                "the proc root \"%s\" is another pid namespace's (this process is pid %d there, %d here): the pids "
                "of targets and pid files are taken as the proc root's",
                pt_escape(c->proc_root, q, sizeof(q)), (int)c->self, (int)getpid());
}

#include "procfs/pidns.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "procfs/procfile.h"
#include "procfs/pidwalk.h"

/* include/linux/proc_ns.h: the initial namespaces' inode numbers, the
 * same on every kernel since namespaces became files (3.8). */
#define PT_PROC_USER_INIT_INO 0xEFFFFFFDU
#define PT_PROC_CGROUP_INIT_INO 0xEFFFFFFBU
#define PT_PROC_PID_INIT_INO 0xEFFFFFFCU

/* Is the proc root a proc filesystem (not a fixture tree)? */
static bool is_procfs(int proc_root_fd)
{
    struct statfs fs;
    return fstatfs(proc_root_fd, &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC;
}

pid_t pt_pidns_self(int proc_root_fd)
{
    char link[32];
    ssize_t n = readlinkat(proc_root_fd, "self", link, sizeof(link) - 1);
    if (n <= 0) /* a procfs resolves "self" in its namespace: ENOENT where we are not in it */
        return is_procfs(proc_root_fd) ? 0 : getpid();
    link[n] = '\0';
    char *end;
    long pid = strtol(link, &end, 10);
    return *end == '\0' && pid > 0 && pid <= PT_PID_LIMIT ? (pid_t)pid : getpid();
}

/* The identity (inode) of our namespace of kind ns ("pid", "user"):
 * through the proc root where it shows us (-1: none), else our own /proc;
 * 0 when neither can be read. */
static ino_t own_namespace(int proc_root_fd, const char *ns)
{
    char path[32];
    struct stat st;
    snprintf(path, sizeof(path), "self/ns/%s", ns);
    if (proc_root_fd >= 0 && fstatat(proc_root_fd, path, &st, 0) == 0)
        return st.st_ino;
    snprintf(path, sizeof(path), "/proc/self/ns/%s", ns);
    return stat(path, &st) == 0 ? st.st_ino : 0;
}

bool pt_pidns_is_hosts(int proc_root_fd)
{
    ino_t ns = own_namespace(proc_root_fd, "pid");
    return ns == 0 || ns == PT_PROC_PID_INIT_INO;
}

bool pt_pidns_user_is_hosts(int proc_root_fd)
{
    ino_t ns = own_namespace(proc_root_fd, "user");
    return ns == 0 || ns == PT_PROC_USER_INIT_INO;
}

bool pt_pidns_in_container(int proc_root_fd)
{
    ino_t cgroup = own_namespace(proc_root_fd, "cgroup");
    return !pt_pidns_is_hosts(proc_root_fd) || (cgroup != 0 && cgroup != PT_PROC_CGROUP_INIT_INO);
}

enum pt_pidns_events pt_pidns_events_fit(int proc_root_fd)
{
    if (!is_procfs(proc_root_fd))
        return PT_EVENTS_NOT_PROCFS;
    if (!pt_pidns_is_hosts(proc_root_fd))
        return PT_EVENTS_OTHER_PID_NS;
    /* in the initial pid namespace, only its own procfs shows us */
    if (pt_pidns_self(proc_root_fd) != getpid())
        return PT_EVENTS_OTHER_PROC_ROOT;
    if (!pt_pidns_user_is_hosts(proc_root_fd))
        return PT_EVENTS_OTHER_USER_NS;
    return PT_EVENTS_APPLY;
}

/* pid's NSpid in the proc root (pt_pidparse_nspid): its pid in each
 * namespace from the proc root's down to its own, outermost first. Fills
 * out (PT_NSPID_MAX) and returns how many; 0 when unknown (gone, no such
 * line, malformed). */
static int read_nspid(int proc_root_fd, pid_t pid, struct pt_buf *buf, pid_t *out)
{
    char path[32];
    snprintf(path, sizeof(path), "%d/status", (int)pid);
    ssize_t n = pt_procfs_read_file_at(proc_root_fd, path, buf);
    if (n <= 0)
        return 0;
    int count = pt_pidparse_nspid(buf->data, (size_t)n, out, PT_NSPID_MAX);
    return count > 0 ? count : 0;
}

/* How deep our namespace is below the proc root's: how many pids our
 * NSpid there has (1: the same namespace). 0 when unknown. */
static int our_depth(int proc_root_fd, pid_t root_self, struct pt_buf *buf)
{
    pid_t nspid[PT_NSPID_MAX];
    int n = read_nspid(proc_root_fd, root_self, buf, nspid);
    return n > 0 && nspid[n - 1] == getpid() ? n : 0;
}

/* Does the proc root's process pid have ours as its pid at depth? */
static bool is_ours_at(int proc_root_fd, pid_t pid, int depth, pid_t ours, struct pt_buf *buf)
{
    pid_t nspid[PT_NSPID_MAX];
    int n = read_nspid(proc_root_fd, pid, buf, nspid);
    return depth > 0 && n >= depth && nspid[depth - 1] == ours;
}

struct child_search {
    int proc_root_fd;
    int depth;
    pid_t ours, found;
    pid_t self;
    struct pt_buf *buf, list;
};

static int check_child(pid_t pid, void *arg)
{
    struct child_search *s = arg;
    if (is_ours_at(s->proc_root_fd, pid, s->depth, s->ours, s->buf)) {
        s->found = pid;
        return 1; /* stop */
    }
    return 0;
}

/* A child belongs to the thread that forked it: every thread's list. */
static void search_thread(pid_t tid, void *arg)
{
    struct child_search *s = arg;
    if (s->found)
        return;
    char path[64];
    snprintf(path, sizeof(path), "%d/task/%d/children", (int)s->self, (int)tid);
    ssize_t n = pt_procfs_read_file_at(s->proc_root_fd, path, &s->list);
    if (n > 0)
        pt_pidparse_children(s->list.data, (size_t)n, check_child, s);
}

pid_t pt_pidns_child_in_root(int proc_root_fd, pid_t root_self, pid_t ours, struct pt_buf *buf)
{
    if (root_self == getpid())
        return ours;
    struct child_search s = {proc_root_fd, our_depth(proc_root_fd, root_self, buf), ours, 0, root_self, buf, {0}};
    if (s.depth > 0) {
        char task[32];
        snprintf(task, sizeof(task), "%d/task", (int)root_self);
        pt_pidwalk_each(proc_root_fd, task, search_thread, &s);
    }
    pt_buf_free(&s.list);
    return s.found;
}

struct root_search {
    int proc_root_fd;
    int depth;
    pid_t ours;
    pid_t found;
    int matches;
    struct pt_buf *buf;
};

static void check_process(pid_t pid, void *arg)
{
    struct root_search *s = arg;
    if (is_ours_at(s->proc_root_fd, pid, s->depth, s->ours, s->buf)) {
        s->found = pid;
        s->matches++;
    }
}

pid_t pt_pidns_find_in_root(int proc_root_fd, pid_t root_self, pid_t ours, struct pt_buf *buf)
{
    if (root_self == getpid())
        return ours;
    struct root_search s = {proc_root_fd, our_depth(proc_root_fd, root_self, buf), ours, 0, 0, buf};
    if (s.depth > 0)
        pt_pidwalk_each(proc_root_fd, ".", check_process, &s);
    return s.matches == 1 ? s.found : 0;
}

bool pt_pidns_same_pid(int proc_root_fd, pid_t root_self, pid_t pid, struct pt_buf *buf)
{
    if (root_self == getpid())
        return true;
    return is_ours_at(proc_root_fd, pid, our_depth(proc_root_fd, root_self, buf), pid, buf);
}

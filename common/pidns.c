#include "pidns.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "procfile.h"
#include "procparse.h"

/* include/linux/proc_ns.h: the initial pid namespace's inode number, the
 * same on every kernel since namespaces became files (3.8). */
#define PT_PROC_PID_INIT_INO 0xEFFFFFFCU

pid_t pt_pidns_self(int proc_root_fd)
{
    char link[32];
    ssize_t n = readlinkat(proc_root_fd, "self", link, sizeof(link) - 1);
    if (n <= 0)
        return getpid();
    link[n] = '\0';
    char *end;
    long pid = strtol(link, &end, 10);
    return *end == '\0' && pid > 0 && pid <= PT_PID_MAX_LIMIT ? (pid_t)pid : getpid();
}

bool pt_pidns_is_hosts(int proc_root_fd)
{
    struct stat st;
    /* our own namespace's file, whichever proc shows us */
    if (fstatat(proc_root_fd, "self/ns/pid", &st, 0) != 0 && stat("/proc/self/ns/pid", &st) != 0)
        return true;
    return st.st_ino == PT_PROC_PID_INIT_INO;
}

int pt_pidns_nspid(int proc_root_fd, pid_t pid, struct pt_buf *buf, pid_t *out)
{
    char path[32];
    snprintf(path, sizeof(path), "%d/status", (int)pid);
    ssize_t n = pt_read_file_at(proc_root_fd, path, buf);
    if (n <= 0)
        return 0;
    int count = pt_parse_nspid(buf->data, (size_t)n, out, PT_NSPID_MAX);
    return count > 0 ? count : 0;
}

/* How deep our namespace is below the proc root's: how many pids our
 * NSpid there has (1: the same namespace). 0 when unknown. */
static int our_depth(int proc_root_fd, pid_t root_self, struct pt_buf *buf)
{
    pid_t nspid[PT_NSPID_MAX];
    int n = pt_pidns_nspid(proc_root_fd, root_self, buf, nspid);
    return n > 0 && nspid[n - 1] == getpid() ? n : 0;
}

/* Does the proc root's process pid have ours as its pid at depth? */
static bool is_ours_at(int proc_root_fd, pid_t pid, int depth, pid_t ours, struct pt_buf *buf)
{
    pid_t nspid[PT_NSPID_MAX];
    int n = pt_pidns_nspid(proc_root_fd, pid, buf, nspid);
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
    ssize_t n = pt_read_file_at(s->proc_root_fd, path, &s->list);
    if (n > 0)
        pt_parse_children(s->list.data, (size_t)n, check_child, s);
}

pid_t pt_pidns_child_in_root(int proc_root_fd, pid_t root_self, pid_t ours, struct pt_buf *buf)
{
    if (root_self == getpid())
        return ours;
    struct child_search s = {proc_root_fd, our_depth(proc_root_fd, root_self, buf), ours, 0, root_self, buf, {0}};
    if (s.depth > 0) {
        char task[32];
        snprintf(task, sizeof(task), "%d/task", (int)root_self);
        pt_for_each_pid_in(proc_root_fd, task, search_thread, &s);
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
        pt_for_each_pid_in(proc_root_fd, ".", check_process, &s);
    return s.matches == 1 ? s.found : 0;
}

bool pt_pidns_same_pid(int proc_root_fd, pid_t root_self, pid_t pid, struct pt_buf *buf)
{
    if (root_self == getpid())
        return true;
    return is_ours_at(proc_root_fd, pid, our_depth(proc_root_fd, root_self, buf), pid, buf);
}

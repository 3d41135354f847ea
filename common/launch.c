#include "launch.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base.h"
#include "escape.h"
#include "procfile.h"
#include "procparse.h"

/* ---- the launched command's cgroup ---------------------------------------- */

/* Each hierarchy's mount in a pt_cgroupfs, in the order the launched
 * command's cgroup is made: v2's first, as its directory is the target's. */
static char *hierarchy(struct pt_cgroupfs *fs, size_t h)
{
    return h == 0 ? fs->v2 : fs->v1[h - 1];
}

/* Hierarchy h's v1 controller, or NULL for v2's. */
static const char *controller_of(size_t h)
{
    return h == 0 ? NULL : pt_v1_controller_name((enum pt_v1_controller)(h - 1));
}

/* Our own cgroup's path in hierarchy h (v2's "0::PATH", a v1 controller's
 * "N:LIST:PATH" whose comma-separated LIST names it) from
 * /proc/self/cgroup's text, into out: 0, or -1 when it lists none. */
static int own_path(const char *text, size_t h, char *out, size_t outlen)
{
    const char *want = h == 0 ? "" : controller_of(h);
    size_t wlen = strlen(want);
    for (const char *line = text; *line;) {
        size_t len = strcspn(line, "\n");
        const char *list = memchr(line, ':', len);
        const char *path = list ? memchr(list + 1, ':', len - (size_t)(list + 1 - line)) : NULL;
        bool match = false;
        if (path && h == 0)
            match = list == line + 1 && line[0] == '0' && path == list + 1;
        for (const char *c = list + 1; path && h > 0 && c < path && !match;) {
            size_t clen = strcspn(c, ",:");
            match = clen == wlen && memcmp(c, want, wlen) == 0;
            c += clen + 1;
        }
        if (match) {
            snprintf(out, outlen, "%.*s", (int)(len - (size_t)(path + 1 - line)), path + 1);
            return 0;
        }
        line += len + (line[len] == '\n');
    }
    return -1;
}

/* A path the user gives names one cgroup to make: no ".", ".." or empty
 * component (which would name another cgroup, or the parent's own). */
static bool plain_path(const char *rel)
{
    for (const char *c = rel; *c;) {
        while (*c == '/')
            c++;
        size_t len = strcspn(c, "/");
        if (!*c)
            break;
        if ((len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.'))
            return false;
        c += len;
    }
    return true;
}

/* The one line of a launched command without a cgroup of its own. */
static void say_none(const char *why)
{
    pt_logf(PT_LOG_INFO,
            "the launched command gets no cgroup of its own (%s): no cgroup_* metrics (the kernel's exact CPU time, "
            "memory peak, OOM kills, pressure stalls); its tree is measured as before",
            why);
}

/* mount followed by the first len bytes of rel into hierarchy h of
 * where: false (and "") when that is too long. */
static bool set_where(struct pt_cgroupfs *where, size_t h, const char *mount, const char *rel, size_t len)
{
    char *out = hierarchy(where, h);
    size_t mlen = strlen(mount);
    out[0] = '\0';
    if (mlen + len >= PT_CGROUPFS_PATH_MAX)
        return false;
    memcpy(out, mount, mlen);
    memcpy(out + mlen, rel, len);
    out[mlen + len] = '\0';
    return true;
}

/* The proc root, the host's in a container (HOST_PROC), names our pid
 * but shows our cgroups as our own cgroup namespace does, and the sys
 * root's cgroup mounts there show the host's hierarchies from their roots:
 * joined, the command would escape the container's limits. So the
 * command's cgroup is placed by this process's own /proc and mounts alone,
 * and never through a mount below a sys root other than /sys. */
#define OWN_PROC "/proc"

/* Where the cgroup goes (cg->where) and its name (the last component):
 * DEFAULT: in our own cgroup of each hierarchy; PATH: in PATH's parent of
 * each. 0, or -1 with the reason in err. */
static int place(struct pt_launch_cgroup *cg, enum pt_launch_cgroup_mode mode, const char *path, const char *sys_root,
                 char *name, size_t namelen, size_t *primary, char *err, size_t errlen)
{
    struct pt_buf buf = {0}, mountinfo = {0};
    const char *not_below = strcmp(sys_root, "/sys") == 0 ? NULL : sys_root;
    int r = 0;
    *primary = 0;
    char rel[PT_CGROUPFS_PATH_MAX] = "";
    bool pinned = false;
    bool mounts = pt_read_file_at(AT_FDCWD, OWN_PROC "/self/mountinfo", &mountinfo) > 0;
    if (mode == PT_LAUNCH_CGROUP_DEFAULT) {
        /* our own cgroup may be another path in each hierarchy (a v1
         * controller's limits apply where it put us): the command's goes
         * below ours in each, where it stays within those limits */
        snprintf(name, namelen, "proctree-launch-%d", (int)getpid());
        ssize_t n = pt_read_file_at(AT_FDCWD, OWN_PROC "/self/cgroup", &buf);
        for (size_t h = 0; h < PT_LAUNCH_HIERARCHIES && n > 0 && mounts; h++) {
            char own[PT_CGROUPFS_PATH_MAX];
            if (own_path(buf.data, h, own, sizeof(own)) == 0 && own[0] == '/')
                pt_cgroupfs_own_dir(mountinfo.data, controller_of(h), own, not_below, hierarchy(&cg->where, h),
                                    PT_CGROUPFS_PATH_MAX);
        }
    } else {
        /* a cgroupfs directory is below a mount; anything else is a
         * cgroup path below the v2 mount (else below each v1 one) */
        struct pt_cgroupfs fs;
        int own_proc = open(OWN_PROC, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        pt_cgroupfs_find(&fs, own_proc, "/sys", &buf);
        if (own_proc >= 0)
            close(own_proc);
        if (strncmp(path, "0::", 3) == 0)
            path += 3;
        const char *in = NULL;
        for (size_t h = 0; h < PT_LAUNCH_HIERARCHIES && !in; h++)
            if ((in = pt_cgroupfs_below(hierarchy(&fs, h), path)))
                *primary = h, pinned = true;
        int len = snprintf(rel, sizeof(rel), "%s%s", in ? "" : "/", in ? in : path);
        char q[PT_QUOTED_MAX];
        const char *parent_end = strrchr(rel, '/');
        while (parent_end && parent_end > rel && parent_end[1] == '\0') /* "a/b/": b */
            rel[parent_end - rel] = '\0', parent_end = strrchr(rel, '/');
        if (len < 0 || (size_t)len >= sizeof(rel) || !plain_path(rel) || !parent_end || !parent_end[1]) {
            snprintf(err, errlen,
                     "\"%s\" names no cgroup to make (a new cgroup's path, without . or .., shorter than %d bytes)",
                     pt_escape(q, sizeof(q), path), PT_CGROUPFS_PATH_MAX);
            r = -1;
        } else {
            snprintf(name, namelen, "%s", parent_end + 1);
            /* a directory's parent, and the same path below the other
             * hierarchies' mounts; a cgroup path's parent as each mount
             * shows it */
            rel[parent_end - rel] = '\0';
            for (size_t h = 0; h < PT_LAUNCH_HIERARCHIES; h++)
                if (in && hierarchy(&fs, h)[0])
                    set_where(&cg->where, h, hierarchy(&fs, h), rel, strlen(rel));
                else if (!in && mounts)
                    pt_cgroupfs_own_dir(mountinfo.data, controller_of(h), rel[0] ? rel : "/", not_below,
                                        hierarchy(&cg->where, h), PT_CGROUPFS_PATH_MAX);
        }
    }
    /* unless PATH named one: the first hierarchy there is */
    while (!pinned && *primary < PT_LAUNCH_HIERARCHIES - 1 && !hierarchy(&cg->where, *primary)[0])
        ++*primary;
    if (r == 0 && !hierarchy(&cg->where, *primary)[0]) {
        snprintf(err, errlen, "%s",
                 pinned || mode == PT_LAUNCH_CGROUP_PATH
                     ? "no cgroup filesystem is mounted"
                     : "no cgroup filesystem mounted here shows this process's own cgroup");
        r = -1;
    }
    pt_buf_free(&buf);
    pt_buf_free(&mountinfo);
    return r;
}

/* Make name in hierarchy h and open its cgroup.procs; one hierarchy
 * reached by two mount points (cpu and cpuacct, mounted together) is made
 * once. 0 (made, or another mount's), or -errno. */
static int make_in(struct pt_launch_cgroup *cg, size_t h, const char *name, dev_t *devs, ino_t *inos)
{
    const char *parent = hierarchy(&cg->where, h);
    struct stat st;
    if (stat(parent, &st) != 0)
        return -errno;
    for (size_t i = 0; i < h; i++)
        if (inos[i] && devs[i] == st.st_dev && inos[i] == st.st_ino)
            return 0;
    char *dir = cg->made[cg->n_made];
    int n = snprintf(dir, PT_CGROUPFS_PATH_MAX, "%s/%s", parent, name);
    if (n < 0 || n >= PT_CGROUPFS_PATH_MAX)
        return -ENAMETOOLONG;
    if (mkdir(dir, 0755) != 0)
        return -errno;
    char procs[PT_CGROUPFS_PATH_MAX + 16];
    snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
    int fd = open(procs, O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        rmdir(dir);
        return -e;
    }
    cg->procs_fd[cg->n_made++] = fd;
    devs[h] = st.st_dev;
    inos[h] = st.st_ino;
    return 0;
}

static void close_procs(struct pt_launch_cgroup *cg)
{
    for (size_t i = 0; i < cg->n_made; i++) {
        if (cg->procs_fd[i] >= 0)
            close(cg->procs_fd[i]);
        cg->procs_fd[i] = -1;
    }
}

/* Remove every directory made, however many are left (one busy does not
 * keep the others); a process that is still exiting keeps its cgroup
 * busy for a moment. */
static void remove_made(struct pt_launch_cgroup *cg)
{
    close_procs(cg);
    for (size_t i = 0; i < cg->n_made; i++) {
        int tries = 50, r;
        while ((r = rmdir(cg->made[i])) != 0 && errno == EBUSY && --tries > 0)
            nanosleep(&(struct timespec){0, 10000000}, NULL);
        if (r != 0 && errno != ENOENT) {
            char q[PT_QUOTED_MAX];
            pt_logf(PT_LOG_WARNING, "cannot remove the launched command's cgroup \"%s\": %s",
                    pt_escape(q, sizeof(q), cg->made[i]), strerror(errno));
        }
    }
    cg->n_made = 0;
    cg->dir[0] = '\0';
    memset(&cg->where, 0, sizeof(cg->where));
}

int pt_launch_cgroup_make(struct pt_launch_cgroup *cg, enum pt_launch_cgroup_mode mode, const char *path,
                          const char *sys_root, char *err, size_t errlen)
{
    memset(cg, 0, sizeof(*cg));
    for (size_t h = 0; h < PT_LAUNCH_HIERARCHIES; h++)
        cg->procs_fd[h] = -1;
    if (mode == PT_LAUNCH_CGROUP_NONE)
        return 0;
    cg->required = mode == PT_LAUNCH_CGROUP_PATH;
    char name[PT_CGROUPFS_PATH_MAX], why[256];
    size_t primary;
    int r = place(cg, mode, path, sys_root ? sys_root : "/sys", name, sizeof(name), &primary, why, sizeof(why));
    dev_t devs[PT_LAUNCH_HIERARCHIES] = {0};
    ino_t inos[PT_LAUNCH_HIERARCHIES] = {0};
    for (size_t step = 0; r == 0 && step < PT_LAUNCH_HIERARCHIES; step++) {
        /* the primary first: its failure is the one that counts */
        size_t h = step == 0 ? primary : step <= primary ? step - 1 : step;
        char *at = hierarchy(&cg->where, h);
        if (!at[0])
            continue;
        int e = make_in(cg, h, name, devs, inos);
        /* another's cgroup is never joined: its usage is not the command's,
         * and it is not ours to remove */
        if (e == -EEXIST || (e && h == primary)) {
            char dir[PT_CGROUPFS_PATH_MAX * 2], q[PT_QUOTED_MAX];
            snprintf(dir, sizeof(dir), "%s/%s", at, name);
            pt_escape(q, sizeof(q), dir);
            if (e == -EEXIST)
                snprintf(why, sizeof(why), "\"%s\" exists already: another's, or left by a proctree that was killed",
                         q);
            else
                snprintf(why, sizeof(why), "cannot make \"%s\": %s", q,
                         e == -ENOENT ? "its parent cgroup does not exist" : strerror(-e));
            r = -1;
        } else if (e) {
            at[0] = '\0'; /* a controller we may not write: its metrics are missing, said at start */
        }
        if (step == 0 && r == 0 && cg->n_made)
            snprintf(cg->dir, sizeof(cg->dir), "%s", cg->made[0]);
    }
    if (r == 0)
        return 0;
    remove_made(cg);
    if (cg->required) {
        snprintf(err, errlen, "%s", why);
        return -1;
    }
    say_none(why);
    return 0;
}

void pt_launch_cgroup_remove(struct pt_launch_cgroup *cg)
{
    remove_made(cg);
}

/* ---- launching ------------------------------------------------------------ */

/* What the child passes back through the pipe when it does not exec. */
struct child_error {
    int join;  /* the index in cg->made of the cgroup it could not join, or -1 */
    int error; /* errno */
};

static void report(int fd, int join, int error)
{
    struct child_error e = {join, error};
    (void)!write(fd, &e, sizeof(e));
    _exit(127);
}

static pid_t launch_once(char *const argv[], int stdin_fd, int stdout_fd, int stderr_fd,
                         const struct pt_launch_cgroup *cg, struct child_error *failed, char *err, size_t errlen)
{
    /* The child reports a failed exec through this pipe; a successful exec
     * closes it (O_CLOEXEC), so the parent reads 0 bytes. */
    int pipefd[2];
    if (pipe2(pipefd, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        close(pipefd[0]);
        close(pipefd[1]);
        return -1;
    }
    if (pid == 0) {
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        for (int sig = 1; sig < NSIG; sig++)
            signal(sig, SIG_DFL);
        close(pipefd[0]);
        if (setpgid(0, 0) != 0 || (stdin_fd >= 0 && dup2(stdin_fd, STDIN_FILENO) < 0) ||
            (stdout_fd >= 0 && dup2(stdout_fd, STDOUT_FILENO) < 0) ||
            (stderr_fd >= 0 && dup2(stderr_fd, STDERR_FILENO) < 0))
            report(pipefd[1], -1, errno);
        /* Before exec, so that all of the command is in its cgroup ("0":
         * the writer itself); never exec'd elsewhere than asked. */
        for (size_t i = 0; cg && i < cg->n_made; i++)
            if (write(cg->procs_fd[i], "0", 1) != 1)
                report(pipefd[1], (int)i, errno);
        execvp(argv[0], argv);
        report(pipefd[1], -1, errno);
    }
    /* Also here: whichever of the two runs first, the group exists before
     * anyone signals it (EACCES once the child has exec'd is harmless). */
    setpgid(pid, pid);
    close(pipefd[1]);
    ssize_t n;
    do
        n = read(pipefd[0], failed, sizeof(*failed));
    while (n < 0 && errno == EINTR);
    close(pipefd[0]);
    if (n != (ssize_t)sizeof(*failed))
        return pid;
    /* It exits at once: reaped here, so that its cgroup can be removed and
     * no one takes it for a process of the tree. */
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
    char q[PT_QUOTED_MAX], qc[PT_QUOTED_MAX];
    if (failed->join >= 0)
        snprintf(err, errlen, "cannot put \"%s\" in the cgroup \"%s\": %s", pt_escape(q, sizeof(q), argv[0]),
                 pt_escape(qc, sizeof(qc), cg->made[failed->join]), strerror(failed->error));
    else
        snprintf(err, errlen, "cannot run \"%s\": %s", pt_escape(q, sizeof(q), argv[0]), strerror(failed->error));
    return -1;
}

pid_t pt_launch(char *const argv[], int stdin_fd, int stdout_fd, int stderr_fd, struct pt_launch_cgroup *cg, char *err,
                size_t errlen)
{
    if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) {
        snprintf(err, errlen, "cannot become a child subreaper: %s", strerror(errno));
        return -1;
    }
    struct child_error failed = {-1, 0};
    pid_t pid = launch_once(argv, stdin_fd, stdout_fd, stderr_fd, cg, &failed, err, errlen);
    if (pid < 0 && cg && failed.join >= 0 && !cg->required) {
        /* the cgroup filesystem let us make it but not join it (cgroup v2
         * refuses a process in a cgroup whose controllers its parent
         * delegates only to children, a threaded subtree, a security
         * module): as when it cannot be made, the command runs without */
        say_none(err);
        remove_made(cg);
        pid = launch_once(argv, stdin_fd, stdout_fd, stderr_fd, NULL, &failed, err, errlen);
    }
    if (cg)
        close_procs(cg);
    return pid;
}

/* The processes of our tree, breadth first, and a buffer for the
 * children lists read on the way. */
struct tree_walk {
    pid_t *pids;
    size_t n, cap;
    pid_t pid; /* whose threads are being listed */
    struct pt_buf buf;
};

static int add_pid(pid_t pid, void *arg)
{
    struct tree_walk *w = arg;
    if (w->n == w->cap) {
        w->cap = w->cap ? 2 * w->cap : 64;
        w->pids = pt_xrealloc_array(w->pids, w->cap, sizeof(*w->pids));
    }
    w->pids[w->n++] = pid;
    return 0;
}

static void add_thread_children(pid_t tid, void *arg)
{
    struct tree_walk *w = arg;
    char path[96];
    snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)w->pid, (int)tid);
    ssize_t n = pt_read_file_at(AT_FDCWD, path, &w->buf);
    if (n > 0)
        pt_parse_children(w->buf.data, (size_t)n, add_pid, w);
}

/* Append the children of every thread of pid (a child belongs to the
 * thread that forked it). A process that is gone adds nothing. */
static void add_children(struct tree_walk *w, pid_t pid)
{
    char task[64];
    snprintf(task, sizeof(task), "/proc/%d/task", (int)pid);
    w->pid = pid;
    pt_for_each_pid_in(AT_FDCWD, task, add_thread_children, w);
}

size_t pt_launch_signal_tree(pid_t group, int sig)
{
    if (group > 0)
        kill(-group, sig);
    /* Breadth first from ourselves; each process is signalled before its
     * children are listed, so a SIGKILLed one forks no more. */
    struct tree_walk w = {0};
    add_children(&w, getpid());
    for (size_t i = 0; i < w.n; i++) {
        kill(w.pids[i], sig);
        add_children(&w, w.pids[i]);
    }
    size_t found = w.n;
    free(w.pids);
    pt_buf_free(&w.buf);
    return found;
}

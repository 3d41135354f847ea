/* launchleaf: proctree's processes moved to a leaf of their own so that
 * the launched command's cgroup has the controllers (launchleaf.h says
 * why and when). */
#include "launch/launchleaf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/base.h"
#include "util/escape.h"
#include "procfs/procfile.h"

/* The controllers cgstat reads files of, in the order they are enabled;
 * cg->leaf_enabled's bits index it. */
static const char *const controllers[] = {"cpu", "io", "memory", "pids"};

/* The cost and the remedy, after why (NEVER_FMT's %s: the cgroup, %s: what it holds). */
#define NEVER_FMT                                                                                                      \
    "the launched command's cgroup has no controller, for good: by cgroup v2's no-internal-process rule none is "      \
    "enabled below a cgroup holding processes, and proctree's \"%s\" holds %s: no cgroup_memory_*, cgroup_pids, "      \
    "cgroup_io_*, cgroup_cpu_throttled_* (CPU time and stalls are there); a delegated subtree gives them (proctree "   \
    "alone in its cgroup, Delegate=yes, --launch-cgroup into one)"

/* Is word one of text's words (a cgroup.controllers or subtree_control)? */
static bool has_word(const char *text, const char *word)
{
    size_t wlen = strlen(word);
    for (const char *c = text; *c;) {
        c += strspn(c, " \n");
        size_t len = strcspn(c, " \n");
        if (len == wlen && memcmp(c, word, len) == 0)
            return true;
        c += len;
    }
    return false;
}

/* dir/name read whole into buf (NUL-terminated): its length, or -errno. */
static ssize_t read_in(const char *dir, const char *name, struct pt_buf *buf)
{
    char path[PT_CGROUPFS_PATH_MAX + 32];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    return pt_procfs_read_file_at(AT_FDCWD, path, buf);
}

/* text written to dir/name in one write: 0, or -errno. */
static int write_in(const char *dir, const char *name, const char *text)
{
    char path[PT_CGROUPFS_PATH_MAX + 32];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    size_t len = strlen(text);
    int r = write(fd, text, len) == (ssize_t)len ? 0 : -errno;
    close(fd);
    return r;
}

/* The pids of cgroup.procs other than ours: their number, or -errno. */
static long others_in(const char *dir, struct pt_buf *buf)
{
    ssize_t n = read_in(dir, "cgroup.procs", buf);
    if (n < 0)
        return n;
    long others = 0;
    pid_t self = getpid();
    for (const char *c = n > 0 ? buf->data : ""; *c;) {
        char *end;
        long pid = strtol(c, &end, 10);
        if (end == c)
            break;
        others += pid != (long)self; /* a pid of another pid namespace reads 0 */
        c = end + strspn(end, "\n");
    }
    return others;
}

/* Disable what was enabled, move us back, remove the leaf; each step
 * tried whatever failed before it. 0, or the first -errno with what it
 * was in *step. */
static int undo(struct pt_launch_cgroup *cg, const char **step)
{
    int r = 0;
    for (size_t i = PT_ARRAY_LEN(controllers); i-- > 0;) {
        if (!(cg->leaf_enabled & (1u << i)))
            continue;
        char minus[16];
        snprintf(minus, sizeof(minus), "-%s", controllers[i]);
        int e = write_in(cg->leaf_parent, "cgroup.subtree_control", minus);
        if (e == 0)
            cg->leaf_enabled &= ~(1u << i);
        else if (r == 0)
            r = e, *step = "cannot disable the controllers it enabled for its children";
    }
    int e = write_in(cg->leaf_parent, "cgroup.procs", "0");
    if (e != 0 && r == 0)
        r = e, *step = "cannot move back into it";
    /* rmdir, again while a process still exiting keeps the leaf busy */
    for (int tries = 50; e == 0; tries--) {
        if (rmdir(cg->leaf) == 0 || errno == ENOENT)
            break;
        if (errno != EBUSY || tries <= 1) {
            if (r == 0)
                r = -errno, *step = "cannot remove its leaf";
            break;
        }
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
    if (r == 0)
        cg->leaf[0] = '\0';
    return r;
}

/* Our process alone in dir: into the leaf, and the wanted controllers
 * enabled for dir's children. 1 when at least one is, else 0 with all
 * undone and what kept it in held (what dir holds, for NEVER_FMT). */
static int take(struct pt_launch_cgroup *cg, const char *dir, unsigned wanted, struct pt_buf *buf, char *held,
                size_t heldlen)
{
    long others = others_in(dir, buf);
    if (others != 0) {
        if (others > 0)
            snprintf(held, heldlen, "%ld other process%s", others, others == 1 ? "" : "es");
        else
            snprintf(held, heldlen, "proctree, whose cgroup.procs cannot be read (%s)", strerror((int)-others));
        return 0;
    }
    snprintf(cg->leaf_parent, sizeof(cg->leaf_parent), "%s", dir);
    int n = snprintf(cg->leaf, sizeof(cg->leaf), "%s/proctree-self-%d", dir, (int)getpid());
    const char *failed = NULL;
    int e = 0;
    if (n < 0 || (size_t)n >= sizeof(cg->leaf))
        e = -ENAMETOOLONG, failed = "cannot name a leaf";
    else if (mkdir(cg->leaf, 0755) != 0)
        e = -errno, failed = "cannot make a leaf";
    else if ((e = write_in(cg->leaf, "cgroup.procs", "0")) != 0)
        failed = "cannot move into a leaf";
    if (failed) {
        if (e != -EEXIST && e != -ENAMETOOLONG)
            rmdir(cg->leaf);
        snprintf(held, heldlen, "proctree, which %s (%s)", failed, strerror(-e));
        cg->leaf[0] = '\0';
        return 0;
    }
    bool joined = false; /* EBUSY: the kernel's word that the cgroup holds a process again */
    for (size_t i = 0; i < PT_ARRAY_LEN(controllers) && !joined; i++) {
        char plus[16];
        snprintf(plus, sizeof(plus), "+%s", controllers[i]);
        if (!(wanted & (1u << i)))
            continue;
        e = write_in(dir, "cgroup.subtree_control", plus);
        if (e == 0)
            cg->leaf_enabled |= 1u << i;
        joined = e == -EBUSY;
    }
    if (cg->leaf_enabled && !joined)
        return 1;
    const char *step = NULL;
    int u = undo(cg, &step);
    if (joined)
        snprintf(held, heldlen, "a process that joined it while proctree moved to a leaf of its own");
    else
        snprintf(held, heldlen, "proctree, which cannot enable a controller for its children (%s)", strerror(-e));
    if (u != 0) {
        char q[PT_QUOTED_MAX];
        pt_logf(PT_LOG_WARNING, "proctree's cgroup \"%s\": %s (%s): left as it is", pt_escape(dir, q, sizeof(q)), step,
                strerror(-u));
    }
    return 0;
}

void pt_launch_leaf_take(struct pt_launch_cgroup *cg)
{
    char dir[PT_CGROUPFS_PATH_MAX], q[PT_QUOTED_MAX];
    snprintf(dir, sizeof(dir), "%s", cg->where.v2);
    struct pt_buf buf = {0};
    /* the root has no cgroup.type, and may enable controllers while it
     * holds processes (not ours to change: the host's); a threaded
     * cgroup is left as it is */
    if (read_in(dir, "cgroup.type", &buf) <= 0 || strcmp(buf.data, "domain\n") != 0) {
        pt_buf_free(&buf);
        return;
    }
    unsigned wanted = 0;
    if (read_in(dir, "cgroup.controllers", &buf) > 0)
        for (size_t i = 0; i < PT_ARRAY_LEN(controllers); i++)
            wanted |= has_word(buf.data, controllers[i]) ? 1u << i : 0;
    /* (a cgroup that holds us enables nothing for its children) */
    if (wanted && read_in(dir, "cgroup.subtree_control", &buf) > 0)
        for (size_t i = 0; i < PT_ARRAY_LEN(controllers); i++)
            wanted &= has_word(buf.data, controllers[i]) ? ~(1u << i) : ~0u;
    char held[192] = "proctree, and offers it no controller to give on (its parent enables none for it)";
    if (wanted && take(cg, dir, wanted, &buf, held, sizeof(held))) {
        char list[64] = "";
        for (size_t i = 0, at = 0; i < PT_ARRAY_LEN(controllers); i++)
            if (cg->leaf_enabled & (1u << i))
                at += (size_t)snprintf(list + at, sizeof(list) - at, "%s%s", at ? ", " : "", controllers[i]);
        pt_logf(PT_LOG_INFO,
                "proctree's processes were the only ones in its cgroup \"%s\": they moved to proctree-self-%d there "
                "and %s enabled for its children, so that the launched command's cgroup has them (put back as it was "
                "at the end)",
                pt_escape(dir, q, sizeof(q)), (int)getpid(), list);
    } else {
        snprintf(cg->never, sizeof(cg->never), NEVER_FMT, pt_escape(dir, q, sizeof(q)), held);
    }
    pt_buf_free(&buf);
}

void pt_launch_leaf_restore(struct pt_launch_cgroup *cg)
{
    if (!cg->leaf[0])
        return;
    const char *step = NULL;
    int r = undo(cg, &step);
    if (r == 0)
        return;
    char q[PT_QUOTED_MAX];
    pt_logf(PT_LOG_WARNING, "proctree's cgroup \"%s\": %s (%s): left so", pt_escape(cg->leaf_parent, q, sizeof(q)),
            step, strerror(-r));
}

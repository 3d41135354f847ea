#include "launch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "base.h"
#include "escape.h"
#include "procfile.h"
#include "procparse.h"
#include "sdscope.h"

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

/* What a launched command without a cgroup of its own loses, after why. */
#define NONE_FMT                                                                                                       \
    "the launched command gets no cgroup of its own (%s): no cgroup_* metrics (the kernel's exact CPU time, memory "   \
    "peak, OOM kills, pressure stalls); its tree is measured as before"

/* The one line of a launched command without a cgroup of its own. */
static void say_none(const char *why)
{
    pt_logf(PT_LOG_INFO, NONE_FMT, why);
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

/* rmdir, again while a process that is still exiting keeps it busy for a
 * moment: 0 or -errno. */
static int remove_dir_at(int dirfd, const char *name)
{
    for (int tries = 50;; tries--) {
        if (unlinkat(dirfd, name, AT_REMOVEDIR) == 0 || errno == ENOENT)
            return 0;
        if (errno != EBUSY || tries <= 1)
            return -errno;
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
}

/* Remove the sub-cgroups of the directory open at fd (path: its name, for
 * the message), depth first: 0, or -errno with the one that stays in
 * failed. A symlink is never followed (O_NOFOLLOW), so the walk stays in
 * the made cgroup. */
static int remove_below(int fd, const char *path, int depth, char *failed, size_t failedlen)
{
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        snprintf(failed, failedlen, "%s", path);
        return -errno;
    }
    int r = 0;
    for (struct dirent *e; r == 0 && (e = readdir(d));) {
        if (e->d_type != DT_DIR || strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char sub[PT_CGROUPFS_PATH_MAX];
        int n = snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
        if (n < 0 || (size_t)n >= sizeof(sub)) {
            snprintf(failed, failedlen, "%s", path);
            r = -ENAMETOOLONG;
            break;
        }
        if (depth > PT_LAUNCH_SUBCGROUP_DEPTH) { /* its entries are depth levels down */
            snprintf(failed, failedlen, "%s", sub);
            r = -ELOOP; /* said as too deep */
            break;
        }
        int sfd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sfd < 0 && errno != ENOENT) {
            snprintf(failed, failedlen, "%s", sub);
            r = -errno;
        } else if (sfd >= 0 && (r = remove_below(sfd, sub, depth + 1, failed, failedlen)) == 0 &&
                   (r = remove_dir_at(dirfd(d), e->d_name)) != 0) {
            snprintf(failed, failedlen, "%s", sub);
        }
    }
    closedir(d);
    return r;
}

/* Remove every directory made, however many are left (one busy does not
 * keep the others), each with what the command made in it. */
static void remove_made(struct pt_launch_cgroup *cg)
{
    close_procs(cg);
    for (size_t i = 0; i < cg->n_made; i++) {
        char failed[PT_CGROUPFS_PATH_MAX] = "";
        int fd = open(cg->made[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int r = fd < 0 ? (errno == ENOENT ? 0 : -errno) : remove_below(fd, cg->made[i], 1, failed, sizeof(failed));
        if (fd >= 0 && r == 0)
            r = remove_dir_at(AT_FDCWD, cg->made[i]);
        if (r == 0)
            continue;
        char q[PT_QUOTED_MAX], qs[PT_QUOTED_MAX];
        pt_escape(q, sizeof(q), cg->made[i]);
        if (!failed[0] || strcmp(failed, cg->made[i]) == 0)
            pt_logf(PT_LOG_WARNING, "cannot remove the launched command's cgroup \"%s\": %s%s", q, strerror(-r),
                    r == -EBUSY ? " (a process is still in it: one that left the launched tree)" : "");
        else if (r == -ELOOP)
            pt_logf(PT_LOG_WARNING,
                    "cannot remove the launched command's cgroup \"%s\": its sub-cgroup \"%s\" (made by the command) "
                    "is more than %d levels down",
                    q, pt_escape(qs, sizeof(qs), failed), PT_LAUNCH_SUBCGROUP_DEPTH);
        else
            pt_logf(PT_LOG_WARNING,
                    "cannot remove the launched command's cgroup \"%s\": its sub-cgroup \"%s\" (made by the command) "
                    "stays: %s",
                    q, pt_escape(qs, sizeof(qs), failed),
                    r == -EBUSY ? "a process that left the launched tree is still in it" : strerror(-r));
    }
    cg->n_made = 0;
    cg->dir[0] = '\0';
    memset(&cg->where, 0, sizeof(cg->where));
}

/* ---- on a systemd host ---------------------------------------------------- */

/* Our own cgroup v2 path, from /proc/self/cgroup, into out: 0 or -1. */
static int own_v2_path(char *out, size_t outlen)
{
    struct pt_buf buf = {0};
    int r = pt_read_file_at(AT_FDCWD, OWN_PROC "/self/cgroup", &buf) > 0 ? own_path(buf.data, 0, out, outlen) : -1;
    pt_buf_free(&buf);
    return r == 0 && out[0] == '/' ? 0 : -1;
}

/* The slice our own cgroup is in, as the system manager names it: the
 * last of the *.slice components its path starts with
 * ("/user.slice/user-0.slice/session-1.scope": user-0.slice), "" when it
 * starts with none (the scope then goes where systemd puts it). A slice
 * holds none of our unit's limits but keeps the command within the
 * slice's. */
static void own_slice(const char *own, char *out, size_t outlen)
{
    out[0] = '\0';
    for (const char *c = own; *c == '/';) {
        size_t len = strcspn(c + 1, "/");
        if (len <= 6 || memcmp(c + 1 + len - 6, ".slice", 6) != 0)
            break;
        snprintf(out, outlen, "%.*s", (int)len, c + 1);
        c += 1 + len;
    }
}

/* Has systemd delegated dir to its unit (Delegate=yes)? It marks the
 * unit's cgroup with the xattr trusted.delegate=1 (and, where the kernel
 * has user.* xattrs on cgroups, user.delegate=1, which any user can read);
 * a cgroup below that one is in the delegated subtree too. mount is where
 * the walk up stops. */
static bool delegated(const char *dir, size_t mount_len)
{
    char at[PT_CGROUPFS_PATH_MAX];
    snprintf(at, sizeof(at), "%s", dir);
    for (size_t len = strlen(at); len > mount_len;) {
        static const char *const names[] = {"trusted.delegate", "user.delegate"};
        for (size_t i = 0; i < PT_ARRAY_LEN(names); i++) {
            char v[8];
            ssize_t n = getxattr(at, names[i], v, sizeof(v));
            if (n == 1 && v[0] == '1')
                return true;
        }
        char *slash = strrchr(at, '/');
        if (!slash)
            break;
        *slash = '\0';
        len = (size_t)(slash - at);
    }
    return false;
}

/* The kernel's controllers a cgroup lacks, of those cgstat reads ("" when
 * none), from its cgroup.controllers. */
static void missing_controllers(const char *dir, char *out, size_t outlen)
{
    static const char *const wanted[] = {"cpu", "io", "memory", "pids"};
    char file[PT_CGROUPFS_PATH_MAX + 32];
    snprintf(file, sizeof(file), "%s/cgroup.controllers", dir);
    struct pt_buf buf = {0};
    ssize_t n = pt_read_file_at(AT_FDCWD, file, &buf);
    out[0] = '\0';
    for (size_t i = 0, at = 0; i < PT_ARRAY_LEN(wanted); i++) {
        bool have = false;
        for (const char *c = n > 0 ? buf.data : ""; *c && !have;) {
            size_t len = strcspn(c, " \n");
            have = len == strlen(wanted[i]) && memcmp(c, wanted[i], len) == 0;
            c += len + (c[len] != '\0');
        }
        if (!have && at < outlen)
            at += (size_t)snprintf(out + at, outlen - at, "%s%s", at ? ", " : "", wanted[i]);
    }
    pt_buf_free(&buf);
}

/* DEFAULT on a systemd host: plan the scope, and say what the fallback
 * is. Returns true when the fallback is to make the cgroup below our own
 * as on other hosts (ours is delegated), false when it is none. */
static bool plan_scope(struct pt_launch_cgroup *cg, const char *not_below)
{
    char own[PT_CGROUPFS_PATH_MAX], q[PT_QUOTED_MAX];
    cg->scope = true;
    snprintf(cg->scope_name, sizeof(cg->scope_name), "proctree-launch-%d.scope", (int)getpid());
    snprintf(cg->not_below, sizeof(cg->not_below), "%s", not_below ? not_below : "");
    bool have_own = own_v2_path(own, sizeof(own)) == 0;
    if (have_own && geteuid() == 0)
        own_slice(own, cg->scope_slice, sizeof(cg->scope_slice));
    size_t dlen = strlen(cg->where.v2), olen = have_own ? strlen(own) : 0;
    size_t mount_len = olen > 1 && dlen >= olen ? dlen - olen : dlen;
    if (delegated(cg->where.v2, mount_len))
        return true;
    snprintf(cg->fallback, sizeof(cg->fallback),
             "it gets no cgroup of its own: \"%s\", proctree's, is not delegated to it (Delegate=yes) and systemd's "
             "rules let no one else make cgroups there; no cgroup_* metrics (exact CPU time, memory peak, OOM kills, "
             "stalls); run it as root, or give --launch-cgroup a delegated cgroup",
             pt_escape(q, sizeof(q), have_own ? own : cg->where.v2));
    return false;
}

/* The fallback made below our own delegated cgroup: what it lacks. */
static void describe_fallback(struct pt_launch_cgroup *cg)
{
    char missing[64], q[PT_QUOTED_MAX];
    missing_controllers(cg->dir, missing, sizeof(missing));
    pt_escape(q, sizeof(q), cg->dir);
    if (!missing[0])
        snprintf(cg->fallback, sizeof(cg->fallback), "it runs in \"%s\", below proctree's own delegated cgroup", q);
    else
        snprintf(cg->fallback, sizeof(cg->fallback),
                 "it runs in \"%s\", below proctree's own delegated cgroup, without the %s controllers (no such "
                 "cgroup_* metrics): the kernel enables none below a cgroup that holds processes, as proctree's does; "
                 "give --launch-cgroup a cgroup whose parent holds none and enables them",
                 q, missing);
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
    sys_root = sys_root ? sys_root : "/sys";
    int r = place(cg, mode, path, sys_root, name, sizeof(name), &primary, why, sizeof(why));
    bool unified = r == 0 && primary == 0 && cg->where.v2[0];
    for (size_t h = 1; h < PT_LAUNCH_HIERARCHIES && unified; h++)
        unified = !hierarchy(&cg->where, h)[0];
    if (unified && mode == PT_LAUNCH_CGROUP_DEFAULT && pt_sd_booted() &&
        !plan_scope(cg, strcmp(sys_root, "/sys") == 0 ? NULL : sys_root)) {
        memset(&cg->where, 0, sizeof(cg->where));
        return 0; /* nothing of ours to make: the scope, or none */
    }
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
    if (r == 0) {
        if (cg->scope)
            describe_fallback(cg);
        return 0;
    }
    remove_made(cg);
    if (cg->required) {
        snprintf(err, errlen, "%s", why);
        return -1;
    }
    if (cg->scope)
        snprintf(cg->fallback, sizeof(cg->fallback), NONE_FMT, why); /* said if the scope fails */
    else
        say_none(why);
    return 0;
}

void pt_launch_cgroup_keeper(struct pt_launch_cgroup *cg)
{
    if (!cg->scope)
        return;
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid != 0) {
        cg->keeper = pid > 0 ? pid : 0; /* without one, the scope is asked for the command alone */
        return;
    }
    /* nothing of ours kept open (Telegraf's pipes among them): ended by
     * SIGKILL, or with the caller */
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    for (int fd = 0; fd <= 2 && null >= 0; fd++)
        dup2(null, fd);
    close_range(3, ~0U, 0);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || getppid() != parent)
        _exit(0);
    prctl(PR_SET_NAME, PT_LAUNCH_KEEPER_NAME, 0, 0, 0); /* what ps shows in the scope */
    for (;;)
        pause();
}

void pt_launch_cgroup_keeper_end(struct pt_launch_cgroup *cg)
{
    if (cg->keeper <= 0)
        return;
    kill(cg->keeper, SIGKILL);
    while (waitpid(cg->keeper, NULL, 0) < 0 && errno == EINTR)
        ;
    cg->keeper = 0;
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

/* The child is in systemd's scope when /proc/PID/cgroup says so: its
 * path there, into out. 0, or -1 (with why) at the deadline. */
static int wait_in_scope(const struct pt_launch_cgroup *cg, pid_t pid, double deadline, char *out, size_t outlen,
                         char *why, size_t whylen)
{
    char file[64];
    snprintf(file, sizeof(file), OWN_PROC "/%d/cgroup", (int)pid);
    struct pt_buf buf = {0};
    size_t nlen = strlen(cg->scope_name);
    int r = -1;
    for (;;) {
        size_t len;
        if (pt_read_file_at(AT_FDCWD, file, &buf) > 0 && own_path(buf.data, 0, out, outlen) == 0 &&
            (len = strlen(out)) > nlen && out[len - nlen - 1] == '/' && strcmp(out + len - nlen, cg->scope_name) == 0) {
            r = 0;
            break;
        }
        if (pt_now() >= deadline) {
            snprintf(why, whylen, "systemd took the request, but the command was not in the scope within %.0f s",
                     PT_SDSCOPE_TIMEOUT);
            break;
        }
        nanosleep(&(struct timespec){0, 5000000}, NULL);
    }
    pt_buf_free(&buf);
    return r;
}

/* A user's manager can move only processes of its own subtree
 * (user.slice/user-UID.slice/user@UID.service/...): cgroup v2 lets a
 * process move only with write access to the common ancestor's
 * cgroup.procs. Asked from elsewhere (a system service run as a user),
 * its scope's job fails, so it is not asked: true, with why. */
static bool user_manager_cannot(char *why, size_t whylen)
{
    char own[PT_CGROUPFS_PATH_MAX] = "", want[64], q[PT_QUOTED_MAX];
    if (geteuid() == 0)
        return false;
    snprintf(want, sizeof(want), "/user@%u.service/", (unsigned)geteuid());
    if (own_v2_path(own, sizeof(own)) == 0 && strstr(own, want))
        return false;
    snprintf(why, whylen,
             "not root, and proctree's cgroup \"%s\" is outside the user's manager (user@%u.service), which can move "
             "no process from there",
             pt_escape(q, sizeof(q), own), (unsigned)geteuid());
    return true;
}

/* Ask systemd for the scope of the held child pid; once it is there, the
 * scope is the command's cgroup, and the fallback made is removed unused.
 * 0, or -1 with why. */
static int get_scope(struct pt_launch_cgroup *cg, pid_t pid, char *why, size_t whylen)
{
    char sock[PT_CGROUPFS_PATH_MAX], path[PT_CGROUPFS_PATH_MAX], dir[PT_CGROUPFS_PATH_MAX];
    double deadline = pt_now() + PT_SDSCOPE_TIMEOUT;
    const struct pt_sd_scope scope = {cg->scope_name,
                                      cg->scope_slice[0] ? cg->scope_slice : NULL,
                                      "a command launched by proctree-execd",
                                      {pid, cg->keeper},
                                      cg->keeper > 0 ? 2 : 1};
    if (user_manager_cannot(why, whylen) || pt_sd_manager_socket(sock, sizeof(sock), why, whylen) != 0 ||
        pt_sd_start_scope(sock, &scope, PT_SDSCOPE_TIMEOUT, why, whylen) != 0 ||
        wait_in_scope(cg, pid, deadline, path, sizeof(path), why, whylen) != 0)
        return -1;
    struct pt_buf mountinfo = {0};
    int r =
        pt_read_file_at(AT_FDCWD, OWN_PROC "/self/mountinfo", &mountinfo) > 0
            ? pt_cgroupfs_own_dir(mountinfo.data, NULL, path, cg->not_below[0] ? cg->not_below : NULL, dir, sizeof(dir))
            : -1;
    pt_buf_free(&mountinfo);
    char q[PT_QUOTED_MAX];
    if (r != 0) {
        snprintf(why, whylen, "no cgroup2 mount here shows its scope \"%s\"", pt_escape(q, sizeof(q), path));
        return -1;
    }
    remove_made(cg);
    snprintf(cg->dir, sizeof(cg->dir), "%s", dir);
    snprintf(cg->where.v2, sizeof(cg->where.v2), "%s", dir);
    *strrchr(cg->where.v2, '/') = '\0'; /* dir ends in "/NAME.scope" */
    pt_logf(PT_LOG_INFO,
            "the launched command runs in systemd's transient scope \"%s\", its cgroup (systemd removes it once it is "
            "empty)",
            pt_escape(q, sizeof(q), path));
    return 0;
}

/* The held child: 's' once it is in systemd's scope (it joins nothing
 * more), 'f' to join cg's fallback, if any. */
static void hold(int fd, struct pt_launch_cgroup *cg, pid_t pid)
{
    char why[512];
    char go = get_scope(cg, pid, why, sizeof(why)) == 0 ? 's' : 'f';
    if (go == 'f')
        pt_logf(PT_LOG_INFO, "systemd gave the launched command no scope of its own (%s): %s", why, cg->fallback);
    (void)!write(fd, &go, 1);
    close(fd);
}

static pid_t launch_once(char *const argv[], int stdin_fd, int stdout_fd, int stderr_fd, struct pt_launch_cgroup *cg,
                         struct child_error *failed, char *err, size_t errlen)
{
    /* The child reports a failed exec through this pipe; a successful exec
     * closes it (O_CLOEXEC), so the parent reads 0 bytes. */
    int pipefd[2], holdfd[2] = {-1, -1};
    if (pipe2(pipefd, O_CLOEXEC) != 0 || (cg && cg->scope && pipe2(holdfd, O_CLOEXEC) != 0)) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        close(pipefd[0]);
        close(pipefd[1]);
        if (holdfd[0] >= 0)
            close(holdfd[0]), close(holdfd[1]);
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
        /* held while systemd is asked for its scope */
        char go = 'f';
        if (holdfd[0] >= 0) {
            close(holdfd[1]);
            while (read(holdfd[0], &go, 1) < 0 && errno == EINTR)
                ;
        }
        /* Before exec, so that all of the command is in its cgroup ("0":
         * the writer itself); never exec'd elsewhere than asked. */
        for (size_t i = 0; cg && go != 's' && i < cg->n_made; i++)
            if (write(cg->procs_fd[i], "0", 1) != 1)
                report(pipefd[1], (int)i, errno);
        execvp(argv[0], argv);
        report(pipefd[1], -1, errno);
    }
    /* Also here: whichever of the two runs first, the group exists before
     * anyone signals it (EACCES once the child has exec'd is harmless). */
    setpgid(pid, pid);
    close(pipefd[1]);
    if (holdfd[0] >= 0) {
        close(holdfd[0]);
        hold(holdfd[1], cg, pid);
    }
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

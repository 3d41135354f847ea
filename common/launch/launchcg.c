/* launchcg: the launched command's cgroup directories: placed, made,
 * removed (launchcg.h says why each is done the way it is). */
#include "launch/launchcg.h"

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/base.h"
#include "util/escape.h"
#include "procfs/procfile.h"

/* Hierarchy h's v1 controller, or NULL for v2's. */
static const char *controller_of(size_t h)
{
    return h == 0 ? NULL : pt_cgroupfs_v1_controller_name((enum pt_v1_controller)(h - 1));
}

int pt_launch_cgroup_own_path(const char *text, size_t h, char *out, size_t outlen)
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
        for (const char *c = path ? list + 1 : NULL; c && h > 0 && c < path && !match;) {
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

/* mount followed by the first len bytes of rel into hierarchy h of
 * where: false (and "") when that is too long. */
static bool set_where(struct pt_cgroupfs *where, size_t h, const char *mount, const char *rel, size_t len)
{
    char *out = pt_launch_cgroup_hierarchy(where, h);
    size_t mlen = strlen(mount);
    out[0] = '\0';
    if (mlen + len >= PT_CGROUPFS_PATH_MAX)
        return false;
    memcpy(out, mount, mlen);
    memcpy(out + mlen, rel, len);
    out[mlen + len] = '\0';
    return true;
}

int pt_launch_cgroup_place(struct pt_launch_cgroup *cg, enum pt_launch_cgroup_mode mode, const char *path,
                           const char *sys_root, char *name, size_t namelen, size_t *primary, char *err, size_t errlen)
{
    struct pt_buf buf = {0}, mountinfo = {0};
    const char *not_below = strcmp(sys_root, "/sys") == 0 ? NULL : sys_root;
    int r = 0;
    *primary = 0;
    char rel[PT_CGROUPFS_PATH_MAX] = "";
    bool pinned = false;
    bool mounts = pt_procfs_read_file_at(AT_FDCWD, PT_LAUNCH_OWN_PROC "/self/mountinfo", &mountinfo) > 0;
    if (mode == PT_LAUNCH_CGROUP_DEFAULT) {
        /* our own cgroup may be another path in each hierarchy (a v1
         * controller's limits apply where it put us): the command's goes
         * below ours in each, where it stays within those limits */
        snprintf(name, namelen, "proctree-launch-%d", (int)getpid());
        ssize_t n = pt_procfs_read_file_at(AT_FDCWD, PT_LAUNCH_OWN_PROC "/self/cgroup", &buf);
        for (size_t h = 0; h < PT_LAUNCH_HIERARCHIES && n > 0 && mounts; h++) {
            char own[PT_CGROUPFS_PATH_MAX];
            if (pt_launch_cgroup_own_path(buf.data, h, own, sizeof(own)) == 0 && own[0] == '/')
                pt_cgroupfs_own_dir(mountinfo.data, controller_of(h), own, not_below,
                                    pt_launch_cgroup_hierarchy(&cg->where, h), PT_CGROUPFS_PATH_MAX);
        }
    } else {
        /* a cgroupfs directory is below a mount; anything else is a
         * cgroup path below the v2 mount (else below each v1 one) */
        struct pt_cgroupfs fs;
        int own_proc = open(PT_LAUNCH_OWN_PROC, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        pt_cgroupfs_find(&fs, own_proc, "/sys", &buf);
        if (own_proc >= 0)
            close(own_proc);
        if (strncmp(path, "0::", 3) == 0)
            path += 3;
        const char *in = NULL;
        for (size_t h = 0; h < PT_LAUNCH_HIERARCHIES && !in; h++)
            if ((in = pt_cgroupfs_below(pt_launch_cgroup_hierarchy(&fs, h), path)))
                *primary = h, pinned = true;
        int len = snprintf(rel, sizeof(rel), "%s%s", in ? "" : "/", in ? in : path);
        char q[PT_QUOTED_MAX];
        const char *parent_end = strrchr(rel, '/');
        while (parent_end && parent_end > rel && parent_end[1] == '\0') /* "a/b/": b */
            rel[parent_end - rel] = '\0', parent_end = strrchr(rel, '/');
        if (len < 0 || (size_t)len >= sizeof(rel) || !plain_path(rel) || !parent_end || !parent_end[1]) {
            snprintf(err, errlen,
                     "\"%s\" names no cgroup to make (a new cgroup's path, without . or .., shorter than %d bytes)",
                     pt_escape(path, q, sizeof(q)), PT_CGROUPFS_PATH_MAX);
            r = -1;
        } else {
            snprintf(name, namelen, "%s", parent_end + 1);
            /* a directory's parent, and the same path below the other
             * hierarchies' mounts; a cgroup path's parent as each mount
             * shows it */
            rel[parent_end - rel] = '\0';
            for (size_t h = 0; h < PT_LAUNCH_HIERARCHIES; h++)
                if (in && pt_launch_cgroup_hierarchy(&fs, h)[0])
                    set_where(&cg->where, h, pt_launch_cgroup_hierarchy(&fs, h), rel, strlen(rel));
                else if (!in && mounts)
                    pt_cgroupfs_own_dir(mountinfo.data, controller_of(h), rel[0] ? rel : "/", not_below,
                                        pt_launch_cgroup_hierarchy(&cg->where, h), PT_CGROUPFS_PATH_MAX);
        }
    }
    /* unless PATH named one: the first hierarchy there is */
    while (!pinned && *primary < PT_LAUNCH_HIERARCHIES - 1 && !pt_launch_cgroup_hierarchy(&cg->where, *primary)[0])
        ++*primary;
    if (r == 0 && !pt_launch_cgroup_hierarchy(&cg->where, *primary)[0]) {
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

int pt_launch_cgroup_make_in(struct pt_launch_cgroup *cg, size_t h, const char *name, dev_t *devs, ino_t *inos)
{
    const char *parent = pt_launch_cgroup_hierarchy(&cg->where, h);
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
    assert(cg->n_made < PT_LAUNCH_HIERARCHIES); /* one cgroup a hierarchy */
    cg->procs_fd[cg->n_made++] = fd;
    devs[h] = st.st_dev;
    inos[h] = st.st_ino;
    return 0;
}

void pt_launch_cgroup_close_procs(struct pt_launch_cgroup *cg)
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

/* A sub-cgroup on the walk down: its name in its parent's directory, and
 * the parent's level (NULL: the parent is the made cgroup). The removal
 * goes by directory descriptors and these names alone, so no length of
 * path stops it (a job may nest 255-byte names as deep as the bound);
 * the path is written out only for the message of one that stays. */
struct level {
    const char *name;
    const struct level *up;
};

/* top, then each name down to l, into out: as much as fits, "..." at its
 * end for what does not. */
static void describe(char *out, size_t outlen, const char *top, const struct level *l)
{
    const char *names[PT_LAUNCH_SUBCGROUP_DEPTH + 1];
    size_t n = 0;
    for (; l && n < PT_ARRAY_LEN(names); l = l->up)
        names[n++] = l->name;
    int w = snprintf(out, outlen, "%s", top);
    size_t len = w < 0 ? 0 : (size_t)w;
    while (n > 0 && len < outlen) {
        w = snprintf(out + len, outlen - len, "/%s", names[--n]);
        len += w < 0 ? outlen : (size_t)w;
    }
    if (len >= outlen && outlen > 4)
        memcpy(out + outlen - 4, "...", 4);
}

/* Remove the sub-cgroups of the directory open at fd (the made cgroup top,
 * or the sub-cgroup up below it), depth first: 0, or -errno with the one
 * that stays described in failed. A symlink is never followed
 * (O_NOFOLLOW), so the walk stays in the made cgroup. */
static int remove_below(int fd, const char *top, const struct level *up, int depth, char *failed, size_t failedlen)
{
    DIR *d = fdopendir(fd);
    if (!d) {
        int e = errno;
        close(fd);
        describe(failed, failedlen, top, up);
        return -e;
    }
    int r = 0;
    for (struct dirent *e; r == 0 && (e = readdir(d));) {
        if (e->d_type != DT_DIR || strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        struct level sub = {e->d_name, up};      /* e stays valid: d is read no further meanwhile */
        if (depth > PT_LAUNCH_SUBCGROUP_DEPTH) { /* its entries are depth levels down */
            describe(failed, failedlen, top, &sub);
            r = -ELOOP; /* said as too deep */
            break;
        }
        int sfd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sfd < 0 && errno != ENOENT) {
            r = -errno;
            describe(failed, failedlen, top, &sub);
        } else if (sfd >= 0 && (r = remove_below(sfd, top, &sub, depth + 1, failed, failedlen)) == 0 &&
                   (r = remove_dir_at(dirfd(d), e->d_name)) != 0) {
            describe(failed, failedlen, top, &sub);
        }
    }
    closedir(d);
    return r;
}

/* Every directory made is removed, however many are left (one busy does not
 * keep the others), each with what the command made in it. */
void pt_launch_cgroup_remove(struct pt_launch_cgroup *cg)
{
    pt_launch_cgroup_close_procs(cg);
    for (size_t i = 0; i < cg->n_made; i++) {
        char failed[PT_CGROUPFS_PATH_MAX] = "";
        int fd = open(cg->made[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int r =
            fd < 0 ? (errno == ENOENT ? 0 : -errno) : remove_below(fd, cg->made[i], NULL, 1, failed, sizeof(failed));
        if (fd >= 0 && r == 0)
            r = remove_dir_at(AT_FDCWD, cg->made[i]);
        if (r == 0)
            continue;
        char q[PT_QUOTED_MAX], qs[PT_QUOTED_MAX];
        pt_escape(cg->made[i], q, sizeof(q));
        if (!failed[0] || strcmp(failed, cg->made[i]) == 0)
            pt_logf(PT_LOG_WARNING, "cannot remove the launched command's cgroup \"%s\": %s%s", q, strerror(-r),
                    r == -EBUSY ? " (a process is still in it: one that left the launched tree)" : "");
        else if (r == -ELOOP)
            pt_logf(PT_LOG_WARNING,
                    "cannot remove the launched command's cgroup \"%s\": its sub-cgroup \"%s\" (made by the command) "
                    "is more than %d levels down",
                    q, pt_escape(failed, qs, sizeof(qs)), PT_LAUNCH_SUBCGROUP_DEPTH);
        else
            pt_logf(PT_LOG_WARNING,
                    "cannot remove the launched command's cgroup \"%s\": its sub-cgroup \"%s\" (made by the command) "
                    "stays: %s",
                    q, pt_escape(failed, qs, sizeof(qs)),
                    r == -EBUSY ? "a process that left the launched tree is still in it" : strerror(-r));
    }
    cg->n_made = 0;
    cg->dir[0] = '\0';
    memset(&cg->where, 0, sizeof(cg->where));
}

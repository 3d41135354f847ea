#include "cgroup/cgscan.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#include "util/base.h"
#include "util/dirents.h"
#include "procfs/pidparse.h"
#include "procfs/callerfiles.h"
#include "procfs/procfile.h"

bool pt_cgscan_on_cgroupfs(const struct pt_cgscan_fs *fs, int fd, long *type)
{
    struct statfs sf;
    struct stat st;
    if (fstatfs(fd, &sf) != 0 || fstat(fd, &st) != 0)
        return true; /* not known: the reads tell */
    *type = (long)sf.f_type;
    if (sf.f_type == CGROUP2_SUPER_MAGIC || sf.f_type == CGROUP_SUPER_MAGIC)
        return true;
    for (size_t i = 0; i < fs->n_devs; i++)
        if (fs->devs[i] == st.st_dev)
            return true;
    return false;
}

static int scanned_pid(pid_t pid, void *arg)
{
    struct pt_cgscan *s = arg;
    return s->fn(pid, s->group, s->arg);
}

/* The first path met with what, for the target to say. */
static void note(struct pt_cgscan *s, unsigned what, const char *name)
{
    if (s->notes->met & what)
        return;
    s->notes->met |= what;
    char *out = s->notes->path[__builtin_ctz(what)];
    size_t size = sizeof(s->notes->path[0]);
    if ((size_t)snprintf(out, size, "%s%s%s", s->path, name[0] ? "/" : "", name) >= size)
        strcpy(out + size - 4, "..."); /* a path that does not fit, shown cut */
}

/* The pids of a cgroup.procs read: n bytes, or -errno. */
static void take_procs(struct pt_cgscan *s, ssize_t n)
{
    if (n > 0)
        pt_pidparse_cgroup_procs(s->buf->data, (size_t)n, scanned_pid, s);
    else if (n == -EINVAL)
        note(s, PT_CGSCAN_NOT_REGULAR, "cgroup.procs");
}

static void scan_subs(struct pt_cgscan *s, int dir_fd, struct pt_cgscan_subs *subs, int depth);

/* ---- kept sub-cgroups ---------------------------------------------------- */

static void subs_free(struct pt_cgscan_subs *subs, struct pt_fd_budget *budget);

/* Close what n keeps, its seats given back; its own sub-cgroups
 * forgotten (they were below that directory). */
static void sub_close(struct pt_cgscan_sub *n, struct pt_fd_budget *budget)
{
    if (n->dir_fd >= 0)
        close(n->dir_fd);
    if (n->procs_fd >= 0)
        close(n->procs_fd);
    for (; n->seats > 0; n->seats--)
        if (budget)
            pt_fdbudget_give(budget, false);
    n->dir_fd = -1;
    n->procs_fd = -ENOENT;
    subs_free(&n->subs, budget);
}

static void subs_free(struct pt_cgscan_subs *subs, struct pt_fd_budget *budget)
{
    for (size_t i = 0; i < subs->n; i++) {
        sub_close(&subs->list[i], budget);
        free(subs->list[i].name);
    }
    free(subs->list);
    *subs = (struct pt_cgscan_subs){0};
}

/* The entry of name in subs, added when it has none (a sub-cgroup seen
 * for the first time: the only allocation), marked seen. */
static struct pt_cgscan_sub *sub_named(struct pt_cgscan_subs *subs, const char *name)
{
    for (size_t k = 0; k < subs->n; k++) {
        size_t i = (subs->next + k) % subs->n;
        if (strcmp(subs->list[i].name, name) == 0) {
            subs->next = i + 1;
            subs->list[i].seen = true;
            return &subs->list[i];
        }
    }
    if (subs->n == subs->cap) {
        subs->cap = subs->cap ? subs->cap * 2 : 4;
        subs->list = pt_xrealloc_array(subs->list, subs->cap, sizeof(*subs->list));
    }
    struct pt_cgscan_sub *n = &subs->list[subs->n++];
    *n = (struct pt_cgscan_sub){.name = pt_xstrdup(name), .dir_fd = -1, .procs_fd = -ENOENT, .seen = true};
    subs->next = subs->n;
    return n;
}

/* The entries the scan did not list are closed and forgotten, the
 * others kept in order. */
static void subs_sweep(struct pt_cgscan_subs *subs, struct pt_fd_budget *budget)
{
    size_t kept = 0;
    for (size_t i = 0; i < subs->n; i++) {
        if (subs->list[i].seen) {
            subs->list[i].seen = false;
            subs->list[kept++] = subs->list[i];
            continue;
        }
        sub_close(&subs->list[i], budget);
        free(subs->list[i].name);
    }
    subs->n = kept;
    subs->next = 0;
}

/* Is n's kept directory still the one name names in its parent (not
 * removed and made again, nor another moved there), and may it stay
 * (the budget does not want its seats back)? */
static bool sub_still_kept(struct pt_cgscan *s, struct pt_cgscan_sub *n, int parent_fd, const char *name)
{
    struct stat st;
    return fstatat(parent_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_dev == n->dev && st.st_ino == n->ino &&
           !(s->budget && pt_fdbudget_over(s->budget, PT_FD_OTHER));
}

/* dir_fd (just opened by name) and its cgroup.procs kept in n when the
 * budget has two seats: true, else n keeps nothing. */
static bool sub_keep(struct pt_cgscan *s, struct pt_cgscan_sub *n, int dir_fd)
{
    struct stat st;
    if (!s->budget || fstat(dir_fd, &st) != 0 || !pt_fdbudget_take(s->budget, false))
        return false;
    if (!pt_fdbudget_take(s->budget, false)) {
        pt_fdbudget_give(s->budget, false);
        return false;
    }
    n->dir_fd = dir_fd;
    n->dev = st.st_dev;
    n->ino = st.st_ino;
    n->seats = 2;
    n->procs_fd = pt_callerfiles_open_regular_at(dir_fd, "cgroup.procs", O_RDONLY);
    if (n->procs_fd < 0) { /* nothing to keep there: its seat back */
        pt_fdbudget_give(s->budget, false);
        n->seats = 1;
    }
    return true;
}

/* A kept sub-cgroup's cgroup.procs from its start: bytes, or -errno (a
 * file missing is looked for again, as a kept target's is). */
static ssize_t sub_read_procs(struct pt_cgscan *s, struct pt_cgscan_sub *n)
{
    if (n->procs_fd == -ENOENT) {
        n->procs_fd = pt_callerfiles_open_regular_at(n->dir_fd, "cgroup.procs", O_RDONLY);
        if (n->procs_fd >= 0 && !pt_fdbudget_take(s->budget, false)) {
            close(n->procs_fd); /* read by its name at each scan */
            n->procs_fd = -ENOENT;
            return pt_callerfiles_read_regular_at(n->dir_fd, "cgroup.procs", s->buf);
        }
        n->seats += n->procs_fd >= 0;
    }
    return n->procs_fd >= 0 ? pt_procfs_pread_all(n->procs_fd, s->buf) : n->procs_fd;
}

/* A sub-cgroup named name in the directory behind parent_fd: its
 * cgroup.procs, then its own sub-cgroups; through n's kept descriptors
 * (n NULL: nothing kept, all opened and closed now). */
static void scan_sub(struct pt_cgscan *s, int parent_fd, const char *name, struct pt_cgscan_sub *n, int depth)
{
    if (n && n->dir_fd >= 0 && !sub_still_kept(s, n, parent_fd, name))
        sub_close(n, s->budget);
    bool kept = n && n->dir_fd >= 0;
    int dir_fd = kept ? n->dir_fd : pt_callerfiles_open_at(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    if (dir_fd < 0)
        return;
    if (!kept && n)
        kept = sub_keep(s, n, dir_fd);
    if (kept) {
        ssize_t r = sub_read_procs(s, n);
        if (r == -ENODEV) { /* removed since its fstatat: as a fresh open would, it is not there */
            sub_close(n, s->budget);
            return;
        }
        take_procs(s, r);
        if (lseek(dir_fd, 0, SEEK_SET) == 0) /* its entries from the first */
            scan_subs(s, dir_fd, &n->subs, depth);
        return;
    }
    take_procs(s, pt_callerfiles_read_regular_at(dir_fd, "cgroup.procs", s->buf));
    scan_subs(s, dir_fd, NULL, depth);
    close(dir_fd);
}

/* Every sub-cgroup of the directory behind dir_fd, read from its offset:
 * on cgroup v2 a service's processes often live in leaf sub-cgroups
 * (".control" too). subs: the kept ones (NULL: none kept below). */
static void scan_subs(struct pt_cgscan *s, int dir_fd, struct pt_cgscan_subs *subs, int depth)
{
    _Alignas(struct dirent64) char entries[PT_DIRENTS_LEVEL];
    struct pt_dirents dir;
    pt_dirents_init(&dir, dir_fd, entries, sizeof(entries));
    const char *group = s->group;
    size_t len = strlen(s->path);
    bool listed = true;
    for (size_t i = 0; subs && i < subs->n; i++)
        subs->list[i].seen = false;
    for (const char *name; (name = pt_dirents_next_dir(&dir));) {
        if (depth >= PT_CGROUP_SCAN_DEPTH) {
            note(s, PT_CGSCAN_TOO_DEEP, "");
            listed = false;
            break;
        }
        struct pt_cgscan_sub *n = subs ? sub_named(subs, name) : NULL;
        s->group = depth == 0 && s->name_children ? (n ? n->name : name) : group;
        if ((size_t)snprintf(s->path + len, sizeof(s->path) - len, "/%s", name) >= sizeof(s->path) - len)
            strcpy(s->path + sizeof(s->path) - 4, "...");
        scan_sub(s, dir_fd, n ? n->name : name, n, depth + 1);
        s->path[len] = '\0';
        s->group = group;
    }
    if (subs && listed && dir.error == 0)
        subs_sweep(subs, s->budget);
}

/* The directory at path and its cgroup.procs into k: 0, or -errno
 * (-EXDEV, noted: on no cgroup filesystem). */
static int open_kept(struct pt_cgscan *s, const char *path, struct pt_cgscan_kept *k)
{
    int fd = pt_callerfiles_open(path, O_RDONLY | O_DIRECTORY);
    if (fd < 0)
        return fd;
    long type;
    if (!pt_cgscan_on_cgroupfs(&s->fs, fd, &type)) {
        note(s, PT_CGSCAN_NOT_CGROUPFS, "");
        close(fd);
        return -EXDEV;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int err = -errno;
        close(fd);
        return err;
    }
    *k = (struct pt_cgscan_kept){.open = true, .dir_fd = fd, .dev = st.st_dev, .ino = st.st_ino};
    k->procs_fd = pt_callerfiles_open_regular_at(fd, "cgroup.procs", O_RDONLY);
    return 0;
}

/* k open on the directory path names now. */
static int look_again(struct pt_cgscan *s, const char *path, struct pt_cgscan_kept *k)
{
    if (k->open) {
        struct stat st;
        if (pt_callerfiles_stat(path, &st) == 0 && st.st_dev == k->dev && st.st_ino == k->ino)
            return 0;
        pt_cgscan_kept_close(k); /* removed, or made again: another directory */
    }
    return open_kept(s, path, k);
}

/* The kept cgroup.procs from its start: bytes, or -errno (a file
 * missing is looked for again: it is made with the directory, but a
 * tree of HOST_SYS or a fixture may lag). */
static ssize_t read_procs(struct pt_cgscan *s, struct pt_cgscan_kept *k)
{
    if (k->procs_fd == -ENOENT)
        k->procs_fd = pt_callerfiles_open_regular_at(k->dir_fd, "cgroup.procs", O_RDONLY);
    return k->procs_fd >= 0 ? pt_procfs_pread_all(k->procs_fd, s->buf) : k->procs_fd;
}

int pt_cgscan_dir(struct pt_cgscan *s, const char *path, struct pt_cgscan_kept *kept)
{
    struct pt_cgscan_kept once = {0};
    struct pt_cgscan_kept *k = kept ? kept : &once;
    snprintf(s->path, sizeof(s->path), "%s", path);
    int r = look_again(s, path, k);
    if (r != 0)
        return r;
    ssize_t n = read_procs(s, k);
    if (n == -ENODEV) { /* removed since its stat */
        pt_cgscan_kept_close(k);
        if ((r = open_kept(s, path, k)) != 0)
            return r;
        n = read_procs(s, k);
    }
    take_procs(s, n);
    if (kept)
        k->budget = s->budget;
    if (lseek(k->dir_fd, 0, SEEK_SET) == 0) /* a kept directory's entries from the first */
        scan_subs(s, k->dir_fd, kept ? &k->subs : NULL, 0);
    if (!kept)
        pt_cgscan_kept_close(&once);
    return 0;
}

void pt_cgscan_kept_close(struct pt_cgscan_kept *kept)
{
    if (kept->open) {
        close(kept->dir_fd);
        if (kept->procs_fd >= 0)
            close(kept->procs_fd);
    }
    subs_free(&kept->subs, kept->budget);
    memset(kept, 0, sizeof(*kept));
}

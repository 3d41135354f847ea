#include "cgscan.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#include "dirents.h"
#include "pidparse.h"
#include "procfile.h"

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
        pt_parse_cgroup_procs(s->buf->data, (size_t)n, scanned_pid, s);
    else if (n == -EINVAL)
        note(s, PT_CGSCAN_NOT_REGULAR, "cgroup.procs");
}

static void scan_subs(struct pt_cgscan *s, int dir_fd, int depth);

/* A sub-cgroup: its cgroup.procs, then its own sub-cgroups. */
static void scan_sub(struct pt_cgscan *s, int dir_fd, int depth)
{
    take_procs(s, pt_read_regular_at(dir_fd, "cgroup.procs", s->buf));
    scan_subs(s, dir_fd, depth);
}

/* Every sub-cgroup of the directory behind dir_fd, read from its offset:
 * on cgroup v2 a service's processes often live in leaf sub-cgroups
 * (".control" too). */
static void scan_subs(struct pt_cgscan *s, int dir_fd, int depth)
{
    _Alignas(struct dirent64) char entries[PT_DIRENTS_LEVEL];
    struct pt_dirents dir;
    pt_dirents_init(&dir, dir_fd, entries, sizeof(entries));
    const char *group = s->group;
    size_t len = strlen(s->path);
    for (const char *name; (name = pt_dirents_next_dir(&dir));) {
        if (depth >= PT_CGROUP_SCAN_DEPTH) {
            note(s, PT_CGSCAN_TOO_DEEP, "");
            break;
        }
        int sub = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub >= 0) {
            s->group = depth == 0 && s->name_children ? name : group;
            if ((size_t)snprintf(s->path + len, sizeof(s->path) - len, "/%s", name) >= sizeof(s->path) - len)
                strcpy(s->path + sizeof(s->path) - 4, "...");
            scan_sub(s, sub, depth + 1);
            s->path[len] = '\0';
            s->group = group;
            close(sub);
        }
    }
}

/* The directory at path and its cgroup.procs into k: 0, or -errno
 * (-EXDEV, noted: on no cgroup filesystem). */
static int open_kept(struct pt_cgscan *s, const char *path, struct pt_cgscan_kept *k)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
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
    k->procs_fd = pt_open_regular_at(fd, "cgroup.procs", O_RDONLY);
    return 0;
}

/* k open on the directory path names now. */
static int look_again(struct pt_cgscan *s, const char *path, struct pt_cgscan_kept *k)
{
    if (k->open) {
        struct stat st;
        if (stat(path, &st) == 0 && st.st_dev == k->dev && st.st_ino == k->ino)
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
        k->procs_fd = pt_open_regular_at(k->dir_fd, "cgroup.procs", O_RDONLY);
    return k->procs_fd >= 0 ? pt_pread_all(k->procs_fd, s->buf) : k->procs_fd;
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
    if (lseek(k->dir_fd, 0, SEEK_SET) == 0) /* a kept directory's entries from the first */
        scan_subs(s, k->dir_fd, 0);
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
    memset(kept, 0, sizeof(*kept));
}

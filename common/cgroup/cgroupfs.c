#include "cgroup/cgroupfs.h"

#include <errno.h>

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "procfs/callerfiles.h"
#include "procfs/procfile.h"

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape_octal(char *s)
{
    char *out = s;
    for (; *s; s++) {
        if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
            *out++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
            s += 3;
        } else {
            *out++ = *s;
        }
    }
    *out = '\0';
}

/* Does a comma-separated option list hold option, whole? */
static bool has_option(const char *list, size_t len, const char *option)
{
    size_t olen = strlen(option);
    for (size_t i = 0; i + olen <= len; i++)
        if ((i == 0 || list[i - 1] == ',') && memcmp(list + i, option, olen) == 0 &&
            (i + olen == len || list[i + olen] == ','))
            return true;
    return false;
}

/* One line of mountinfo, split in place: "id parent maj:min root
 * mountpoint options [optional...] - fstype source super-options". */
struct mount_line {
    char *root, *point, *fstype, *super;
};

/* Split line (NUL-terminated, no newline) into m, root and mount point
 * unescaped: 0, or -1 when it is not of that form. */
static int split_mount_line(char *line, struct mount_line *m)
{
    char *sep = strstr(line, " - ");
    if (!sep)
        return -1;
    *sep = '\0';
    m->fstype = sep + 3;
    char *source = strchr(m->fstype, ' ');
    m->super = source ? strchr(source + 1, ' ') : NULL;
    if (!m->super)
        return -1;
    *source = '\0';
    m->super++;
    char *field = line;
    for (int i = 0; i < 3 && field; i++) { /* skip to the root */
        field = strchr(field, ' ');
        if (field)
            field++;
    }
    char *end = field ? strchr(field, ' ') : NULL;
    if (!end)
        return -1;
    *end = '\0';
    m->root = field;
    m->point = end + 1;
    end = strchr(m->point, ' ');
    if (!end)
        return -1;
    *end = '\0';
    unescape_octal(m->root);
    unescape_octal(m->point);
    return 0;
}

/* The next well-formed line of the mountinfo text at *cursor (a buffer
 * of ours, split in place), into m; false at the end. */
static bool next_mount(char **cursor, struct mount_line *m)
{
    while (*cursor && **cursor) {
        char *line = *cursor, *next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        *cursor = next;
        if (split_mount_line(line, m) == 0)
            return true;
    }
    return false;
}

/* Is m a mount of the hierarchy fstype ("cgroup2", or "cgroup" with the
 * super option option)? */
static bool mount_is(const struct mount_line *m, const char *fstype, const char *option)
{
    return strcmp(m->fstype, fstype) == 0 && (!option || has_option(m->super, strlen(m->super), option));
}

/* The first mount of fstype ("cgroup2", or "cgroup" with the super
 * option option) in mountinfo: 0 and its mount point in out, or -1. */
static int mount_of(int proc_root_fd, struct pt_buf *buf, const char *fstype, const char *option, char *out,
                    size_t outlen)
{
    if (pt_procfs_read_file_at(proc_root_fd, "self/mountinfo", buf) <= 0)
        return -1;
    struct mount_line m;
    for (char *cursor = buf->data; next_mount(&cursor, &m);) {
        if (mount_is(&m, fstype, option)) {
            snprintf(out, outlen, "%s", m.point);
            return 0;
        }
    }
    return -1;
}

bool pt_cgroupfs_shows_part(const char *mountinfo)
{
    struct pt_buf copy = {0};
    pt_buf_puts(&copy, mountinfo);
    bool part = false;
    struct mount_line m;
    for (char *cursor = copy.data; !part && next_mount(&cursor, &m);)
        part = (mount_is(&m, "cgroup", NULL) || mount_is(&m, "cgroup2", NULL)) && strcmp(m.root, "/") != 0;
    pt_buf_free(&copy);
    return part;
}

int pt_cgroupfs_own_dir(const char *mountinfo, const char *controller, const char *path, const char *not_below,
                        char *out, size_t outlen)
{
    struct pt_buf copy = {0};
    pt_buf_puts(&copy, mountinfo);
    size_t best = 0;
    int found = -1;
    struct mount_line m;
    for (char *cursor = copy.data; next_mount(&cursor, &m);) {
        if (!mount_is(&m, controller ? "cgroup" : "cgroup2", controller) ||
            (not_below && pt_cgroupfs_below(not_below, m.point)))
            continue;
        /* the mount shows the cgroups below its root; one above our
         * namespace's root is shown as "/.." */
        size_t rlen = strcmp(m.root, "/") == 0 ? 0 : strlen(m.root);
        bool shows = strncmp(path, m.root, rlen) == 0 && (path[rlen] == '/' || path[rlen] == '\0');
        bool above = strncmp(m.root, "/..", 3) == 0 && (m.root[3] == '/' || m.root[3] == '\0');
        if (!shows || above || (found == 0 && rlen <= best))
            continue;
        int n = snprintf(out, outlen, "%s%s", m.point, strcmp(path + rlen, "/") == 0 ? "" : path + rlen);
        if (n > 0 && (size_t)n < outlen) {
            found = 0;
            best = rlen;
        }
    }
    pt_buf_free(&copy);
    return found;
}

uint64_t pt_cgroupfs_inode(const struct pt_cgroup_dirs *dirs)
{
    struct stat st;
    const char *dir = dirs->v2[0]                 ? dirs->v2
                      : dirs->v1[PT_V1_MEMORY][0] ? dirs->v1[PT_V1_MEMORY]
                                                  : dirs->v1[PT_V1_CPUACCT];
    return dir[0] && pt_callerfiles_stat(dir, &st) == 0 ? (uint64_t)st.st_ino : 0;
}

bool pt_cgroupfs_is_cgroup(const char *dir)
{
    char probe[PATH_MAX + 16]; /* a path a user gives (--cgroup) */
    int n = snprintf(probe, sizeof(probe), "%s/cgroup.procs", dir);
    return n > 0 && (size_t)n < sizeof(probe) && access(probe, F_OK) == 0;
}

/* <sys_root>/fs/cgroup<below> into out when it is a cgroup. */
static bool found_at(const char *sys_root, const char *below, char *out, size_t outlen)
{
    char dir[PT_CGROUPFS_PATH_MAX + 32];
    int n = snprintf(dir, sizeof(dir), "%s/fs/cgroup%s", sys_root, below);
    if (n < 0 || (size_t)n >= sizeof(dir) || (size_t)n >= outlen || !pt_cgroupfs_is_cgroup(dir))
        return false;
    memcpy(out, dir, (size_t)n + 1);
    return true;
}

static const char *const v1_names[PT_V1_COUNT] = {
    [PT_V1_CPU] = "cpu",   [PT_V1_CPUACCT] = "cpuacct", [PT_V1_MEMORY] = "memory",
    [PT_V1_PIDS] = "pids", [PT_V1_BLKIO] = "blkio",
};

const char *pt_cgroupfs_v1_controller_name(enum pt_v1_controller c)
{
    return v1_names[c];
}

void pt_cgroupfs_find(struct pt_cgroupfs *fs, int proc_root_fd, const char *sys_root, struct pt_buf *buf)
{
    memset(fs, 0, sizeof(*fs));
    /* a v1 controller's root holds cgroup.procs too: tell them apart by
     * the v2-only cgroup.controllers (and on a unified host, a cgroup
     * named "memory" is no controller's hierarchy) */
    char probe[PT_CGROUPFS_PATH_MAX + 48];
    snprintf(probe, sizeof(probe), "%s/fs/cgroup/cgroup.controllers", sys_root);
    bool unified = access(probe, F_OK) == 0;
    for (int i = 0; i < PT_V1_COUNT; i++) {
        char below[32];
        snprintf(below, sizeof(below), "/%s", v1_names[i]);
        if (unified || !found_at(sys_root, below, fs->v1[i], sizeof(fs->v1[i])))
            mount_of(proc_root_fd, buf, "cgroup", v1_names[i], fs->v1[i], sizeof(fs->v1[i]));
    }
    if (!(unified && found_at(sys_root, "", fs->v2, sizeof(fs->v2))) &&
        !found_at(sys_root, "/unified", fs->v2, sizeof(fs->v2)))
        mount_of(proc_root_fd, buf, "cgroup2", NULL, fs->v2, sizeof(fs->v2));
    if (!found_at(sys_root, "/systemd", fs->systemd_v1, sizeof(fs->systemd_v1)))
        mount_of(proc_root_fd, buf, "cgroup", "name=systemd", fs->systemd_v1, sizeof(fs->systemd_v1));
}

const char *pt_cgroupfs_below(const char *mount, const char *dir)
{
    size_t n = strlen(mount);
    if (!mount[0] || strncmp(dir, mount, n) != 0 || (dir[n] != '\0' && dir[n] != '/'))
        return NULL;
    return dir + n;
}

/* mount + rel into out, "" when mount is none or it does not fit. */
static void same_path(const char *mount, const char *rel, char *out, size_t outlen)
{
    out[0] = '\0';
    char dir[PT_CGROUPFS_PATH_MAX * 2];
    int n = snprintf(dir, sizeof(dir), "%s%s", mount, rel);
    if (mount[0] && n > 0 && (size_t)n < outlen)
        memcpy(out, dir, (size_t)n + 1);
}

int pt_cgroupfs_paths_of(const struct pt_cgroupfs *fs, const char *dir, struct pt_cgroup_dirs *paths)
{
    const char *rel = pt_cgroupfs_below(fs->v2, dir);
    if (!rel)
        rel = pt_cgroupfs_below(fs->systemd_v1, dir);
    for (int i = 0; i < PT_V1_COUNT && !rel; i++)
        rel = pt_cgroupfs_below(fs->v1[i], dir);
    if (!rel)
        return -EXDEV;
    if (strlen(dir) >= PT_CGROUPFS_PATH_MAX)
        return -ENAMETOOLONG;
    same_path(fs->v2, rel, paths->v2, sizeof(paths->v2));
    for (int i = 0; i < PT_V1_COUNT; i++)
        same_path(fs->v1[i], rel, paths->v1[i], sizeof(paths->v1[i]));
    return 0;
}

/* path kept when that directory is a cgroup, else "". */
static void keep_if_cgroup(char *path)
{
    if (path[0] && !pt_cgroupfs_is_cgroup(path))
        path[0] = '\0';
}

int pt_cgroupfs_dirs_of(const struct pt_cgroupfs *fs, const char *dir, struct pt_cgroup_dirs *dirs)
{
    int rc = pt_cgroupfs_paths_of(fs, dir, dirs);
    if (rc != 0)
        return rc;
    keep_if_cgroup(dirs->v2);
    for (int i = 0; i < PT_V1_COUNT; i++)
        keep_if_cgroup(dirs->v1[i]);
    return 0;
}

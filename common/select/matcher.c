#include "select/matcher.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "util/base.h"
#include "cgroup/cgroupfs.h"
#include "cgroup/cgscan.h"
#include "cgroup/sdunit.h"
#include "util/escape.h"
#include "member/member.h"
#include "procfs/callerfiles.h"
#include "procfs/procfile.h"
#include "procfs/proctitle.h"
#include "util/ere.h"

/* ---- cgroups ------------------------------------------------------------ */

/* The devices of the hierarchies found (cgroupfs.h), once. */
static void find_fs_devs(struct pt_matcher *m)
{
    const char *dirs[2 + PT_V1_COUNT] = {m->fs.v2, m->fs.systemd_v1};
    for (int i = 0; i < PT_V1_COUNT; i++)
        dirs[2 + i] = m->fs.v1[i];
    struct stat st;
    for (size_t i = 0; i < 2 + PT_V1_COUNT; i++)
        if (dirs[i][0] && pt_callerfiles_stat(dirs[i], &st) == 0) {
            assert(m->n_fs_devs < PT_ARRAY_LEN(m->fs_dev)); /* found once */
            m->fs_dev[m->n_fs_devs++] = st.st_dev;
        }
}

/* The filesystems a directory to scan may be on (cgscan.h). */
static struct pt_cgscan_fs scan_fs(const struct pt_matcher *m)
{
    return (struct pt_cgscan_fs){.devs = m->fs_dev, .n_devs = m->n_fs_devs};
}

/* m->cgroup as it is, a symbolic link resolved (once: cgroup_* reads
 * its files by their path below the cgroup mounts), refused when it
 * exists on no cgroup filesystem. One that does not exist yet is looked
 * at by each scan. */
static int check_cgroup_dir(struct pt_matcher *m, char *err, size_t errlen)
{
    int fd = pt_callerfiles_open(m->cgroup, O_RDONLY | O_DIRECTORY);
    if (fd < 0)
        return 0;
    long type = 0;
    struct pt_cgscan_fs fs = scan_fs(m);
    bool ok = pt_cgscan_on_cgroupfs(&fs, fd, &type);
    close(fd);
    char *real = pt_callerfiles_realpath(m->cgroup);
    if (real && strcmp(real, m->cgroup) == 0) {
        free(real);
        real = NULL; /* no link: nothing to say or change */
    }
    if (!ok) {
        char q[PT_QUOTED_MAX], r[PT_QUOTED_MAX];
        snprintf(err, errlen,
                 "cgroup \"%s\"%s%s%s is on no cgroup filesystem (statfs type 0x%lx, not cgroup2 or cgroup): "
                 "refused, its cgroup.procs could name any process",
                 pt_escape(m->cgroup, q, sizeof(q)), real ? " (\"" : "", real ? pt_escape(real, r, sizeof(r)) : "",
                 real ? "\")" : "", type);
        free(real);
        return -1;
    }
    if (real) {
        free(m->cgroup);
        m->cgroup = pt_xstrdup(real);
        free(real);
    }
    return 0;
}

/* A directory that holds a cgroup.procs file is taken as it is (a path in
 * the cgroup filesystem, v2 or v1); anything else is a cgroup as
 * /proc/PID/cgroup shows it ("0::/system.slice/x.service", or only its
 * path), found below the cgroup2 mount (cgroupfs.h), or systemd's v1
 * hierarchy on a host without one. */
static int resolve_cgroup(struct pt_matcher *m, const char *path, char *err, size_t errlen)
{
    if (strncmp(path, "0::", 3) == 0) /* cgroup v2's hierarchy, no controller list */
        path += 3;
    if (path[0] == '/' && pt_cgroupfs_is_cgroup(path)) {
        m->cgroup = pt_xstrdup(path);
    } else {
        const char *mount = m->fs.v2[0] ? m->fs.v2 : m->fs.systemd_v1;
        if (!mount[0]) {
            char q[PT_QUOTED_MAX];
            snprintf(err, errlen, "cgroup \"%s\": no cgroup2 filesystem is mounted (nor systemd's v1 hierarchy)",
                     pt_escape(path, q, sizeof(q)));
            return -1;
        }
        size_t len = strlen(mount) + 1 + strlen(path) + 1;
        m->cgroup = pt_xalloc(len);
        snprintf(m->cgroup, len, "%s%s%s", mount, path[0] == '/' ? "" : "/", path);
    }
    return check_cgroup_dir(m, err, errlen);
}

/* ---- candidates ----------------------------------------------------- */

enum { HAVE_STAT = 1, HAVE_STATUS = 2, HAVE_CMDLINE = 4, HAVE_EXE = 8 };

void pt_matcher_candidate_init(struct pt_candidate *c, pid_t pid, int proc_root_fd, struct pt_buf *buf)
{
    c->pid = pid;
    c->proc_root_fd = proc_root_fd;
    c->buf = buf;
    c->have = 0;
}

static bool first_time(struct pt_candidate *c, unsigned what)
{
    if (c->have & what)
        return false;
    c->have |= what;
    return true;
}

static const struct pt_stat *candidate_stat(struct pt_candidate *c)
{
    if (first_time(c, HAVE_STAT))
        c->stat_ok = pt_member_read_stat_by_pid(c->proc_root_fd, c->pid, c->buf, &c->stat) == PT_READ_OK;
    return c->stat_ok ? &c->stat : NULL;
}

bool pt_matcher_candidate_is_user_process(struct pt_candidate *c)
{
    const struct pt_stat *st = candidate_stat(c);
    return st && !(st->flags & PT_PF_KTHREAD);
}

static int open_pid_file(const struct pt_candidate *c, const char *name)
{
    char path[64];
    snprintf(path, sizeof(path), "%d/%s", (int)c->pid, name);
    return pt_procfs_open_at(c->proc_root_fd, path);
}

/* The first PT_MATCH_TEXT_MAX bytes of the command line, in one read. */
static const char *candidate_cmdline(struct pt_candidate *c)
{
    if (!first_time(c, HAVE_CMDLINE))
        return c->cmdline_ok ? c->cmdline : NULL;
    c->cmdline_ok = false;
    int fd = open_pid_file(c, "cmdline");
    if (fd < 0)
        return NULL;
    ssize_t n = pread(fd, c->cmdline, PT_MATCH_TEXT_MAX, 0);
    close(fd);
    if (n <= 0)
        return NULL; /* zombies have no command line */
    c->cmdline_len = pt_proctitle_from_cmdline(c->cmdline, (size_t)n);
    c->cmdline_ok = true;
    return c->cmdline;
}

static bool candidate_uid(struct pt_candidate *c, uid_t *uid)
{
    if (first_time(c, HAVE_STATUS)) {
        struct pt_status st;
        int fd = open_pid_file(c, "status");
        ssize_t n = fd >= 0 ? pt_procfs_pread_record(fd, c->buf) : -1;
        if (fd >= 0)
            close(fd);
        c->status_ok = n > 0 && pt_kvparse_status(c->buf->data, (size_t)n, &st) == 0;
        if (c->status_ok)
            c->effective_uid = st.effective_uid;
    }
    *uid = c->effective_uid;
    return c->status_ok;
}

/* The executable's base name, " (deleted)" taken off. */
static const char *candidate_exe(struct pt_candidate *c)
{
    if (!first_time(c, HAVE_EXE))
        return c->exe_ok ? c->exe : NULL;
    char path[64], target[4096];
    snprintf(path, sizeof(path), "%d/exe", (int)c->pid);
    ssize_t n = readlinkat(c->proc_root_fd, path, target, sizeof(target) - 1);
    c->exe_ok = n > 0;
    if (!c->exe_ok)
        return NULL;
    target[n] = '\0';
    const char *deleted = " (deleted)";
    size_t dlen = strlen(deleted);
    if ((size_t)n > dlen && strcmp(target + n - dlen, deleted) == 0)
        target[n - dlen] = '\0';
    const char *base = strrchr(target, '/');
    base = base ? base + 1 : target;
    size_t len = strlen(base);
    c->exe_ok = len < sizeof(c->exe); /* NAME_MAX is 255 */
    if (!c->exe_ok)
        return NULL;
    memcpy(c->exe, base, len + 1);
    return c->exe;
}

bool pt_matcher_test(const struct pt_matcher *m, struct pt_candidate *c)
{
    switch (m->kind) {
    case PT_SELECT_MATCH: {
        const char *text = candidate_cmdline(c);
        return text && regexec(&m->regex, text, 0, NULL, 0) == 0;
    }
    case PT_SELECT_EXE: {
        /* comm is cut at 15 bytes and can be changed by the process; the
         * executable's name cannot. */
        const struct pt_stat *st = candidate_stat(c);
        if (st && strcmp(st->comm, m->exe) == 0)
            return true;
        const char *exe = candidate_exe(c);
        return exe && strcmp(exe, m->exe) == 0;
    }
    case PT_SELECT_USER: {
        uid_t uid;
        return candidate_uid(c, &uid) && uid == m->uid;
    }
    default:
        return false;
    }
}

/* ---- public ----------------------------------------------------------- */

static int parse_user(const char *text, uid_t *out)
{
    struct passwd *pw = getpwnam(text);
    if (pw) {
        *out = pw->pw_uid;
        return 0;
    }
    char *end;
    errno = 0;
    unsigned long v = strtoul(text, &end, 10);
    if (!*text || *end || errno || v >= (uid_t)-1)
        return -1;
    *out = (uid_t)v;
    return 0;
}

int pt_matcher_init(struct pt_matcher *m, const struct pt_selector *selector, int proc_root_fd, const char *sys_root,
                    char *err, size_t errlen)
{
    memset(m, 0, sizeof(*m));
    m->kind = selector->kind;
    switch (selector->kind) {
    case PT_SELECT_MATCH: {
        if (pt_ere_compile(&m->regex, selector->value, REG_NOSUB, err, errlen) != 0)
            return -1;
        m->has_regex = true;
        return 0;
    }
    case PT_SELECT_EXE:
        m->exe = pt_xstrdup(selector->value);
        return 0;
    case PT_SELECT_USER:
        if (parse_user(selector->value, &m->uid) != 0) {
            char q[PT_QUOTED_MAX];
            snprintf(err, errlen, "unknown user \"%s\"", pt_escape(selector->value, q, sizeof(q)));
            return -1;
        }
        return 0;
    case PT_SELECT_CGROUP:
    case PT_SELECT_UNIT: {
        struct pt_buf buf = {0};
        pt_cgroupfs_find(&m->fs, proc_root_fd, sys_root, &buf);
        pt_buf_free(&buf);
        find_fs_devs(m);
        if (selector->kind == PT_SELECT_CGROUP) {
            if (resolve_cgroup(m, selector->path, err, errlen) == 0)
                return 0;
            pt_matcher_free(m); /* a path made, then refused */
            return -1;
        }
        if (pt_sdunit_init(&m->unit, selector->value, &m->fs, err, errlen) != 0)
            return -1;
        m->has_unit = true;
        return 0;
    }
    default:
        snprintf(err, errlen, "not a matching selector");
        return -1;
    }
}

void pt_matcher_free(struct pt_matcher *m)
{
    if (m->has_regex)
        regfree(&m->regex);
    free(m->exe);
    free(m->cgroup);
    if (m->has_unit)
        pt_sdunit_free(&m->unit);
    pt_cgscan_kept_close(&m->kept);
    memset(m, 0, sizeof(*m));
}

int pt_matcher_scan_cgroup(struct pt_matcher *m, struct pt_buf *buf, int (*fn)(pid_t pid, const char *group, void *arg),
                           void *arg)
{
    struct pt_cgscan s = {
        .fn = fn,
        .arg = arg,
        .buf = buf,
        .fs = scan_fs(m),
        .notes = &m->notes,
        .group = PT_CGROUP_OWN,
        .budget = m->budget,
    };
    if (m->kind == PT_SELECT_CGROUP) {
        s.name_children = true;
        return pt_cgscan_dir(&s, m->cgroup, &m->kept);
    }
    if (pt_sdunit_resolve(&m->unit) == 0) {
        pt_cgscan_kept_close(&m->kept);
        return -ENOENT;
    }
    /* a unit's groups are its sub-cgroups; a glob's, the units it matched */
    s.name_children = !m->unit.glob;
    bool one_dir = !m->unit.glob && m->unit.n_dirs == 1;
    if (!one_dir)
        pt_cgscan_kept_close(&m->kept); /* kept for a unit of one directory only */
    for (size_t i = 0; i < m->unit.n_dirs; i++) {
        if (m->unit.glob)
            s.group = m->unit.keys[i];
        pt_cgscan_dir(&s, m->unit.dirs[i], one_dir ? &m->kept : NULL);
    }
    return 0;
}

void pt_matcher_set_budget(struct pt_matcher *m, struct pt_fd_budget *budget)
{
    m->budget = budget;
}

const struct pt_cgroupfs *pt_matcher_cgroupfs(const struct pt_matcher *m)
{
    return &m->fs;
}

const struct pt_sdunit *pt_matcher_unit(const struct pt_matcher *m)
{
    return &m->unit;
}

const char *pt_matcher_cgroup(const struct pt_matcher *m)
{
    return m->cgroup;
}

struct pt_cgscan_notes *pt_matcher_notes(struct pt_matcher *m)
{
    return &m->notes;
}

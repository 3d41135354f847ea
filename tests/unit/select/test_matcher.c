/* Unit tests for matcher: the --match, --exe, --user and --cgroup
 * selectors, on fake proc roots and cgroup trees (fixture.h). */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "openats.h"
#include "cgroup/cgroupfs.h"
#include "select/matcher.h"
#include "unit.h"

/* A fake proc root, open as the matcher takes it. */
struct proc {
    char *root;
    int fd;
    struct pt_buf buf;
};

static struct proc proc_new(void)
{
    struct proc p = {.root = fx_root_new()};
    p.fd = open(p.root, O_PATH | O_DIRECTORY | O_CLOEXEC);
    ck_assert_int_ge(p.fd, 0);
    return p;
}

static void proc_free(struct proc *p)
{
    close(p->fd);
    pt_buf_free(&p->buf);
    fx_root_free(p->root);
}

/* root/rel as a symbolic link to target (which need not exist). */
static void put_link(const char *root, const char *rel, const char *target)
{
    char *path;
    ck_assert_int_ge(asprintf(&path, "%s/%s", root, rel), 0);
    ck_assert_int_eq(symlink(target, path), 0);
    free(path);
}

/* A process with the given comm, and a command line of len bytes. */
static void put_cmdline(const struct proc *p, pid_t pid, const char *cmdline, size_t len)
{
    fx_put_proc(p->root, &(struct fx_proc){.pid = pid, .ppid = 1, .comm = "cmd"});
    char rel[32];
    snprintf(rel, sizeof(rel), "%d/cmdline", pid);
    fx_write(p->root, rel, cmdline, (long)len);
}

static void matcher_ok(struct pt_matcher *m, enum pt_selector_kind kind, const char *value, const char *path,
                       const struct proc *p)
{
    char err[256] = "";
    struct pt_selector selector = {.kind = kind, .value = value, .path = path};
    ck_assert_msg(pt_matcher_init(m, &selector, p->fd, "/nonexistent", err, sizeof(err)) == 0, "%s", err);
}

/* pt_matcher_init fails with a one-line reason holding want. */
static void matcher_fails(enum pt_selector_kind kind, const char *value, const char *path, const struct proc *p,
                          const char *want)
{
    char err[256] = "";
    struct pt_matcher m;
    struct pt_selector selector = {.kind = kind, .value = value, .path = path};
    ck_assert_int_eq(pt_matcher_init(&m, &selector, p->fd, "/nonexistent", err, sizeof(err)), -1);
    ck_assert_msg(strstr(err, want) != NULL, "\"%s\" lacks \"%s\"", err, want);
    ck_assert_ptr_null(strchr(err, '\n'));
}

static bool matches(const struct pt_matcher *m, struct proc *p, pid_t pid)
{
    struct pt_candidate c;
    pt_matcher_candidate_init(&c, pid, p->fd, &p->buf);
    return pt_matcher_test(m, &c);
}

/* ==== pt_matcher_init ==== */

START_TEST(test_init_errors)
{
    struct proc p = proc_new();
    matcher_fails(PT_SELECT_MATCH, "(", NULL, &p, "bad regular expression \"(\": ");
    matcher_fails(PT_SELECT_MATCH, "a\n[", NULL, &p, "bad regular expression \"a\\n[\": ");
    matcher_fails(PT_SELECT_USER, "no-such-user-proctree", NULL, &p, "unknown user \"no-such-user-proctree\"");
    matcher_fails(PT_SELECT_USER, "", NULL, &p, "unknown user \"\"");
    matcher_fails(PT_SELECT_USER, "-1", NULL, &p, "unknown user \"-1\"");
    matcher_fails(PT_SELECT_USER, "12x", NULL, &p, "unknown user \"12x\"");
    matcher_fails(PT_SELECT_USER, "4294967295", NULL, &p, "unknown user"); /* (uid_t)-1 is no uid */
    /* no mountinfo at all, then one without a cgroup2 line */
    matcher_fails(PT_SELECT_CGROUP, NULL, "/system.slice/x.service", &p, "no cgroup2 filesystem is mounted");
    fx_write(p.root, "self/mountinfo",
             "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
             "25 22 0:22 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n",
             -1);
    matcher_fails(PT_SELECT_CGROUP, NULL, "/system.slice/x.service", &p,
                  "cgroup \"/system.slice/x.service\": no cgroup2 filesystem is mounted");
    proc_free(&p);
}
END_TEST

START_TEST(test_init_users)
{
    struct proc p = proc_new();
    struct pt_matcher m;
    matcher_ok(&m, PT_SELECT_USER, "root", NULL, &p);
    ck_assert_uint_eq(m.uid, 0);
    pt_matcher_free(&m);
    matcher_ok(&m, PT_SELECT_USER, "4294967294", NULL, &p);
    ck_assert_uint_eq(m.uid, 4294967294u);
    pt_matcher_free(&m);
    proc_free(&p);
}
END_TEST

/* ==== --match ==== */

/* NULs between arguments read as spaces; trailing NULs are dropped. */
START_TEST(test_match_cmdline)
{
    struct proc p = proc_new();
    static const char cmdline[] = "python3\0-m\0http.server\0"
                                  "8000\0";
    put_cmdline(&p, 10, cmdline, sizeof(cmdline) - 1);
    static const char empty_args[] = "a\0\0b\0\0";
    put_cmdline(&p, 11, empty_args, sizeof(empty_args) - 1);
    put_cmdline(&p, 12, "", 0); /* a zombie's command line is empty */
    struct pt_matcher m;

    matcher_ok(&m, PT_SELECT_MATCH, "^python3 -m http\\.server 8000$", NULL, &p);
    ck_assert(matches(&m, &p, 10));
    ck_assert(!matches(&m, &p, 11));
    pt_matcher_free(&m);

    matcher_ok(&m, PT_SELECT_MATCH, "^a  b$", NULL, &p);
    ck_assert(matches(&m, &p, 11));
    ck_assert(!matches(&m, &p, 10));
    pt_matcher_free(&m);

    /* A matcher matching every text: still not a process without a
     * command line, nor one that is not there. */
    matcher_ok(&m, PT_SELECT_MATCH, ".*", NULL, &p);
    ck_assert(matches(&m, &p, 10));
    ck_assert(!matches(&m, &p, 12));
    ck_assert(!matches(&m, &p, 13));
    pt_matcher_free(&m);
    proc_free(&p);
}
END_TEST

/* Only the first PT_MATCH_TEXT_MAX bytes are looked at, however long the
 * command line another user's process chose. */
START_TEST(test_match_text_bound)
{
    struct proc p = proc_new();
    size_t len = PT_MATCH_TEXT_MAX + 100;
    char *cmdline = malloc(len);
    ck_assert_ptr_nonnull(cmdline);
    memset(cmdline, 'a', len);
    /* NEEDLE ends on the last byte looked at in pid 10, one byte past it in 11 */
    memcpy(cmdline + PT_MATCH_TEXT_MAX - 6, "NEEDLE", 6);
    put_cmdline(&p, 10, cmdline, len);
    memset(cmdline, 'a', len);
    memcpy(cmdline + PT_MATCH_TEXT_MAX - 5, "NEEDLE", 6);
    put_cmdline(&p, 11, cmdline, len);
    free(cmdline);

    struct pt_matcher m;
    matcher_ok(&m, PT_SELECT_MATCH, "NEEDLE", NULL, &p);
    ck_assert(matches(&m, &p, 10));
    ck_assert(!matches(&m, &p, 11));
    pt_matcher_free(&m);
    matcher_ok(&m, PT_SELECT_MATCH, "NEEDLE$", NULL, &p);
    ck_assert(matches(&m, &p, 10));
    pt_matcher_free(&m);
    proc_free(&p);
}
END_TEST

/* A candidate's files are read once, whatever number of matchers ask. */
START_TEST(test_candidate_reads_once)
{
    struct proc p = proc_new();
    put_cmdline(&p, 10, "old", 3);
    struct pt_matcher old_m, new_m;
    matcher_ok(&old_m, PT_SELECT_MATCH, "^old$", NULL, &p);
    matcher_ok(&new_m, PT_SELECT_MATCH, "^new$", NULL, &p);
    struct pt_candidate c;
    pt_matcher_candidate_init(&c, 10, p.fd, &p.buf);
    ck_assert(pt_matcher_test(&old_m, &c));
    fx_write(p.root, "10/cmdline", "new", -1);
    ck_assert(pt_matcher_test(&old_m, &c));
    ck_assert(!pt_matcher_test(&new_m, &c));
    ck_assert(matches(&new_m, &p, 10)); /* a new candidate reads again */
    pt_matcher_free(&old_m);
    pt_matcher_free(&new_m);
    proc_free(&p);
}
END_TEST

/* ==== --exe ==== */

START_TEST(test_exe)
{
    struct proc p = proc_new();
    fx_put_proc(p.root, &(struct fx_proc){.pid = 10, .comm = "nginx"});
    /* comm is cut at 15 bytes: the executable's name is whole */
    fx_put_proc(p.root, &(struct fx_proc){.pid = 11, .comm = "very-long-name-"});
    put_link(p.root, "11/exe", "/opt/app/bin/very-long-name-of-prog");
    /* an executable replaced by an upgrade */
    fx_put_proc(p.root, &(struct fx_proc){.pid = 12, .comm = "renamed"});
    put_link(p.root, "12/exe", "/usr/sbin/postgres (deleted)");
    /* no slash in the link, and a comm naming something else */
    fx_put_proc(p.root, &(struct fx_proc){.pid = 13, .comm = "worker"});
    put_link(p.root, "13/exe", "postgres");
    struct pt_matcher m;

    matcher_ok(&m, PT_SELECT_EXE, "nginx", NULL, &p);
    ck_assert(matches(&m, &p, 10));
    ck_assert(!matches(&m, &p, 11));
    ck_assert(!matches(&m, &p, 14)); /* no such process */
    pt_matcher_free(&m);

    matcher_ok(&m, PT_SELECT_EXE, "very-long-name-of-prog", NULL, &p);
    ck_assert(matches(&m, &p, 11));
    pt_matcher_free(&m);

    matcher_ok(&m, PT_SELECT_EXE, "postgres", NULL, &p);
    ck_assert(matches(&m, &p, 12));
    ck_assert(matches(&m, &p, 13));
    ck_assert(!matches(&m, &p, 10));
    pt_matcher_free(&m);

    /* whole names only: neither a prefix nor the path */
    matcher_ok(&m, PT_SELECT_EXE, "nginx-", NULL, &p);
    ck_assert(!matches(&m, &p, 10));
    pt_matcher_free(&m);
    matcher_ok(&m, PT_SELECT_EXE, "/usr/sbin/postgres", NULL, &p);
    ck_assert(!matches(&m, &p, 12));
    pt_matcher_free(&m);
    proc_free(&p);
}
END_TEST

/* ==== --user ==== */

static void put_status(const struct proc *p, pid_t pid, const char *uid_line)
{
    char rel[32], *text;
    snprintf(rel, sizeof(rel), "%d/status", pid);
    ck_assert_int_ge(asprintf(&text,
                              "Name:\tsvc\nUid:\t%s\nGid:\t0\t0\t0\t0\n"
                              "voluntary_ctxt_switches:\t1\nnonvoluntary_ctxt_switches:\t2\n",
                              uid_line),
                     0);
    fx_write(p->root, rel, text, -1);
    free(text);
}

/* The effective uid decides: a setuid program runs as its owner. */
START_TEST(test_user)
{
    struct proc p = proc_new();
    fx_put_proc(p.root, &(struct fx_proc){.pid = 10});
    put_status(&p, 10, "1000\t2000\t2000\t2000");
    fx_put_proc(p.root, &(struct fx_proc){.pid = 11});
    put_status(&p, 11, "2000\t1000\t1000\t1000");
    fx_put_proc(p.root, &(struct fx_proc){.pid = 12});
    fx_write(p.root, "12/status", "Name:\tbroken\nUid:\t2000\n", -1);
    struct pt_matcher m;
    matcher_ok(&m, PT_SELECT_USER, "2000", NULL, &p);
    ck_assert(matches(&m, &p, 10));
    ck_assert(!matches(&m, &p, 11));
    ck_assert(!matches(&m, &p, 12)); /* an unreadable status matches nobody */
    ck_assert(!matches(&m, &p, 13));
    pt_matcher_free(&m);
    matcher_ok(&m, PT_SELECT_USER, "1000", NULL, &p);
    ck_assert(matches(&m, &p, 11));
    ck_assert(!matches(&m, &p, 10));
    pt_matcher_free(&m);
    proc_free(&p);
}
END_TEST

START_TEST(test_kernel_threads_are_no_candidates)
{
    struct proc p = proc_new();
    fx_put_proc(p.root, &(struct fx_proc){.pid = 2, .comm = "kthreadd", .flags = PT_PF_KTHREAD});
    fx_put_proc(p.root, &(struct fx_proc){.pid = 10});
    struct pt_candidate c;
    pt_matcher_candidate_init(&c, 2, p.fd, &p.buf);
    ck_assert(!pt_matcher_candidate_is_user_process(&c));
    pt_matcher_candidate_init(&c, 10, p.fd, &p.buf);
    ck_assert(pt_matcher_candidate_is_user_process(&c));
    pt_matcher_candidate_init(&c, 11, p.fd, &p.buf);
    ck_assert(!pt_matcher_candidate_is_user_process(&c)); /* gone */
    proc_free(&p);
}
END_TEST

/* ==== --cgroup ==== */

/* The cgroup2 mount pt_cgroupfs_find takes from p's self/mountinfo ("":
 * none): with p's root as the sys root, which holds no fs/cgroup, every
 * hierarchy comes from mountinfo. */
static const char *cgroup2_mount(struct proc *p, struct pt_cgroupfs *fs)
{
    pt_cgroupfs_find(fs, p->fd, p->root, &p->buf);
    return fs->v2;
}

START_TEST(test_cgroup2_mount)
{
    struct proc p = proc_new();
    struct pt_cgroupfs fs;
    ck_assert_str_eq(cgroup2_mount(&p, &fs), ""); /* no mountinfo */

    /* The first cgroup2 line wins; v1 "cgroup" lines and optional fields
     * are passed over; the mount point's \ooo escapes are undone. */
    fx_write(p.root, "self/mountinfo",
             "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
             "25 22 0:22 / /sys/fs/cgroup/memory rw,nosuid shared:9 - cgroup cgroup rw,memory\n"
             "26 22 0:23 / /sys/fs/cgroup/with\\040space\\011tab\\134back\\012nl\\0411 rw shared:4 master:2 - cgroup2 "
             "cgroup2 rw,nsdelegate\n"
             "27 22 0:24 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n",
             -1);
    ck_assert_str_eq(cgroup2_mount(&p, &fs), "/sys/fs/cgroup/with space\ttab\\back\nnl!1");

    /* A hybrid host: cgroup2 at .../unified, the last line, no newline. */
    fx_write(p.root, "self/mountinfo",
             "25 22 0:22 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
             "27 22 0:24 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw",
             -1);
    ck_assert_str_eq(cgroup2_mount(&p, &fs), "/sys/fs/cgroup/unified");

    /* "cgroup2" as a mount point or source is not the file system type. */
    fx_write(p.root, "self/mountinfo", "30 22 0:25 / /cgroup2 rw - tmpfs cgroup2 rw\n", -1);
    ck_assert_str_eq(cgroup2_mount(&p, &fs), "");
    proc_free(&p);
}
END_TEST

/* What a scan delivers: each pid with its group, as "pid:group" lines
 * sorted, for --by cgroup. */
struct grouped {
    struct pid_list *list;
    char lines[64][300];
    int n;
};

static int collect_grouped(pid_t pid, const char *group, void *arg)
{
    struct grouped *g = arg;
    if (g->n < 64)
        snprintf(g->lines[g->n++], sizeof(g->lines[0]), "%d:%s", (int)pid, group);
    return collect_pid(pid, g->list);
}

static int compare_lines(const void *a, const void *b)
{
    return strcmp(a, b);
}

/* The pids a scan of m's cgroups delivers, sorted; their groups in
 * groups, one "pid:group" a line, sorted. Returns the scan's result. */
static int scan_groups(struct pt_matcher *m, struct proc *p, struct pid_list *list, char *groups, size_t len)
{
    struct grouped g = {.list = list};
    list->count = 0;
    list->stop_at = -1;
    int r = pt_matcher_scan_cgroup(m, &p->buf, collect_grouped, &g);
    qsort(list->pids, (size_t)list->count, sizeof(pid_t), compare_pids);
    qsort(g.lines, (size_t)g.n, sizeof(g.lines[0]), compare_lines);
    size_t used = 0;
    groups[0] = '\0';
    for (int i = 0; i < g.n && used < len; i++)
        used += (size_t)snprintf(groups + used, len - used, "%s\n", g.lines[i]);
    return r;
}

static void scan(struct pt_matcher *m, struct proc *p, struct pid_list *list)
{
    char groups[4096];
    scan_groups(m, p, list, groups, sizeof(groups));
}

static void assert_pids(const struct pid_list *list, const pid_t *want, int n)
{
    ck_assert_int_eq(list->count, n);
    for (int i = 0; i < n; i++)
        ck_assert_int_eq(list->pids[i], want[i]);
}

/* A cgroup's own processes and those of every sub-cgroup, at any depth;
 * a directory given as it is (it holds cgroup.procs). */
START_TEST(test_scan_cgroup_tree)
{
    struct proc p = proc_new();
    /* a tree below the cgroup2 mount the proc root's mountinfo shows: on
     * the filesystem of a hierarchy found */
    char *mountinfo;
    ck_assert_int_ge(asprintf(&mountinfo, "26 22 0:23 / %s/cg rw - cgroup2 cgroup2 rw\n", p.root), 0);
    fx_write(p.root, "self/mountinfo", mountinfo, -1);
    free(mountinfo);
    fx_write(p.root, "cg/cgroup.procs", "10\n11\n", -1);
    fx_write(p.root, "cg/cgroup.controllers", "cpu memory\n", -1);
    fx_write(p.root, "cg/a/cgroup.procs", "20\n", -1);
    /* v2 lists a process outside the reader's pid namespace as 0: passed
     * on (discovery counts it as one it cannot name), never the end */
    fx_write(p.root, "cg/a/b/cgroup.procs", "30\n0\n31\n", -1);
    fx_write(p.root, "cg/c/cgroup.procs", "", -1);
    fx_write(p.root, "cg/c/d/cgroup.procs", "40\n", -1);
    fx_write(p.root, "other/cgroup.procs", "99\n", -1);
    char *path;
    ck_assert_int_ge(asprintf(&path, "%s/cg", p.root), 0);
    struct pt_matcher m;
    struct pid_list list;
    matcher_ok(&m, PT_SELECT_CGROUP, NULL, path, &p);
    char groups[4096];
    scan_groups(&m, &p, &list, groups, sizeof(groups));
    assert_pids(&list, (const pid_t[]){0, 10, 11, 20, 30, 31, 40}, 7);
    /* each in the group of the cgroup directly below the target's */
    ck_assert_str_eq(groups, "0:a\n10:.\n11:.\n20:a\n30:a\n31:a\n40:c\n");
    pt_matcher_free(&m);

    free(path);
    ck_assert_int_ge(asprintf(&path, "%s/cg/a", p.root), 0);
    matcher_ok(&m, PT_SELECT_CGROUP, NULL, path, &p);
    scan(&m, &p, &list);
    assert_pids(&list, (const pid_t[]){0, 20, 30, 31}, 4);
    pt_matcher_free(&m);
    free(path);
    proc_free(&p);
}
END_TEST

/* A directory holding a cgroup.procs that names pid 1, on no cgroup
 * filesystem and on none of a hierarchy found: refused, it would be the
 * whole host (issue 24). */
START_TEST(test_cgroup_off_the_cgroup_fs_refused)
{
    struct proc p = proc_new();
    fx_write(p.root, "fake/cgroup.procs", "1\n", -1);
    char *path;
    ck_assert_int_ge(asprintf(&path, "%s/fake", p.root), 0);
    matcher_fails(PT_SELECT_CGROUP, NULL, path, &p, "is on no cgroup filesystem");
    free(path);
    proc_free(&p);
}
END_TEST

/* A cgroup named as /proc/PID/cgroup shows it is found below the cgroup2
 * mount of the proc root's mountinfo, escapes and all. */
START_TEST(test_scan_cgroup_below_mount)
{
    struct proc p = proc_new();
    char *mountinfo;
    ck_assert_int_ge(asprintf(&mountinfo, "26 22 0:23 / %s/cgroup\\040fs rw - cgroup2 cgroup2 rw\n", p.root), 0);
    fx_write(p.root, "self/mountinfo", mountinfo, -1);
    free(mountinfo);
    fx_write(p.root, "cgroup fs/system.slice/x.service/cgroup.procs", "50\n", -1);
    fx_write(p.root, "cgroup fs/system.slice/x.service/leaf/cgroup.procs", "51\n52\n", -1);
    fx_write(p.root, "cgroup fs/system.slice/y.service/cgroup.procs", "60\n", -1);
    struct pt_matcher m;
    struct pid_list list;
    matcher_ok(&m, PT_SELECT_CGROUP, NULL, "/system.slice/x.service", &p);
    scan(&m, &p, &list);
    assert_pids(&list, (const pid_t[]){50, 51, 52}, 3);
    pt_matcher_free(&m);

    /* the whole line of /proc/PID/cgroup, hierarchy "0" and no controller */
    matcher_ok(&m, PT_SELECT_CGROUP, NULL, "0::/system.slice/y.service", &p);
    scan(&m, &p, &list);
    assert_pids(&list, (const pid_t[]){60}, 1);
    pt_matcher_free(&m);

    /* a cgroup that is not there (yet): nobody, no error */
    matcher_ok(&m, PT_SELECT_CGROUP, NULL, "/system.slice/z.service", &p);
    scan(&m, &p, &list);
    ck_assert_int_eq(list.count, 0);
    pt_matcher_free(&m);
    proc_free(&p);
}
END_TEST

/* ==== --unit ==== */

/* A unit matcher on a fake host whose cgroup filesystem is below
 * root/sys/fs/cgroup (the sys root's convention, no mountinfo). */
static int unit_init(struct pt_matcher *m, const char *name, const struct proc *p, char *err, size_t errlen)
{
    char *sys;
    ck_assert_int_ge(asprintf(&sys, "%s/sys", p->root), 0);
    struct pt_selector selector = {.kind = PT_SELECT_UNIT, .value = name};
    int r = pt_matcher_init(m, &selector, p->fd, sys, err, errlen);
    free(sys);
    return r;
}

static void unit_ok(struct pt_matcher *m, const char *name, const struct proc *p)
{
    char err[256] = "";
    ck_assert_msg(unit_init(m, name, p, err, sizeof(err)) == 0, "%s", err);
}

static void unit_fails(const char *name, const struct proc *p, const char *want)
{
    char err[256] = "";
    struct pt_matcher m;
    ck_assert_int_eq(unit_init(&m, name, p, err, sizeof(err)), -1);
    ck_assert_msg(strstr(err, want) != NULL, "\"%s\" lacks \"%s\"", err, want);
    ck_assert_ptr_null(strchr(err, '\n'));
}

/* A cgroup of the fake host holding pids (one a line). */
static void put_cgroup(const struct proc *p, const char *rel, const char *pids)
{
    char path[512];
    snprintf(path, sizeof(path), "sys/fs/cgroup/%s/cgroup.procs", rel);
    fx_write(p->root, path, pids, -1);
}

static void remove_tree(const struct proc *p, const char *rel)
{
    char *cmd;
    ck_assert_int_ge(asprintf(&cmd, "rm -rf '%s/sys/fs/cgroup/%s'", p->root, rel), 0);
    ck_assert_int_eq(system(cmd), 0);
    free(cmd);
}

/* A unified host (cgroup.controllers at the root). */
static struct proc unified_host(void)
{
    struct proc p = proc_new();
    fx_write(p.root, "sys/fs/cgroup/cgroup.controllers", "cpu io memory pids\n", -1);
    put_cgroup(&p, "", "1\n");
    put_cgroup(&p, "init.scope", "1\n");
    return p;
}

START_TEST(test_unit_names)
{
    struct proc p = unified_host();
    unit_fails("", &p, "unit \"\": an empty name");
    unit_fails("system.slice/x.service", &p, "has no '/'");
    unit_fails("multi-user.target", &p, "units of this type have no processes");
    char long_name[300];
    memset(long_name, 'a', sizeof(long_name) - 1);
    long_name[sizeof(long_name) - 1] = '\0';
    unit_fails(long_name, &p, "longer than a unit name can be");
    unit_fails("bad\nname.timer", &p, "unit \"bad\\nname.timer\""); /* escaped in the line */
    proc_free(&p);

    /* no hierarchy at all (no sys, no mountinfo) */
    struct proc bare = proc_new();
    unit_fails("x.service", &bare, "no cgroup2 filesystem nor systemd's v1 hierarchy");
    proc_free(&bare);
}
END_TEST

/* A service where systemd puts it, named as systemctl takes it (no
 * suffix: a service); its sub-cgroups are its groups. */
START_TEST(test_unit_service)
{
    struct proc p = unified_host();
    put_cgroup(&p, "system.slice", "");
    put_cgroup(&p, "system.slice/web.service", "100\n");
    put_cgroup(&p, "system.slice/web.service/.control", "101\n");
    put_cgroup(&p, "system.slice/web.service/workers", "110\n");
    put_cgroup(&p, "system.slice/web.service/workers/pool", "111\n112\n");
    put_cgroup(&p, "system.slice/other.service", "200\n");
    struct pt_matcher m;
    struct pid_list list;
    char groups[4096];
    unit_ok(&m, "web", &p);
    ck_assert_str_eq(pt_matcher_unit(&m)->name, "web.service");
    ck_assert_int_eq(scan_groups(&m, &p, &list, groups, sizeof(groups)), 0);
    assert_pids(&list, (const pid_t[]){100, 101, 110, 111, 112}, 5);
    ck_assert_str_eq(groups, "100:.\n101:.control\n110:workers\n111:workers\n112:workers\n");

    /* stopped: no cgroup, no unit file on this host */
    remove_tree(&p, "system.slice/web.service");
    ck_assert_int_eq(scan_groups(&m, &p, &list, groups, sizeof(groups)), -ENOENT);
    ck_assert_int_eq(list.count, 0);
    ck_assert_str_eq(pt_sdunit_state(pt_matcher_unit(&m)), "unknown");
    /* started again where it was (a restart) */
    put_cgroup(&p, "system.slice/web.service", "120\n");
    scan(&m, &p, &list);
    assert_pids(&list, (const pid_t[]){120}, 1);
    pt_matcher_free(&m);
    proc_free(&p);
}
END_TEST

/* Instances in their template's slice ('-' escaped as systemd does),
 * nested slices, a unit in a slice of its own, a user's unit: found where
 * systemd puts them, or by the walk; a unit's own sub-cgroups are never
 * walked, so a directory named like the unit inside another unit is not
 * it. */
START_TEST(test_unit_places)
{
    struct proc p = unified_host();
    put_cgroup(&p, "system.slice/system-foo\\x2dbar.slice/foo-bar@one.service", "300\n");
    put_cgroup(&p, "shop.slice/shop-web.slice/cart.service", "310\n");
    put_cgroup(&p, "user.slice/user-1000.slice/user@1000.service/app.slice/editor.service", "320\n");
    put_cgroup(&p, "system.slice/decoy.service/hidden.service", "330\n");
    struct pt_matcher m;
    struct pid_list list;
    const struct {
        const char *name;
        pid_t pid;
    } cases[] = {
        {"foo-bar@one.service", 300}, {"cart.service", 310},   {"shop-web.slice", 310},
        {"shop.slice", 310},          {"editor.service", 320}, {"user-1000.slice", 320},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        unit_ok(&m, cases[i].name, &p);
        scan(&m, &p, &list);
        ck_assert_msg(list.count == 1 && list.pids[0] == cases[i].pid, "%s: %d pids", cases[i].name, list.count);
        pt_matcher_free(&m);
    }
    unit_ok(&m, "hidden.service", &p);
    scan(&m, &p, &list);
    ck_assert_int_eq(list.count, 0);
    pt_matcher_free(&m);
    proc_free(&p);
}
END_TEST

/* A glob sums every unit it matches, each unit a group; a slice that
 * matches is not entered, so nothing in it counts twice. */
START_TEST(test_unit_glob)
{
    struct proc p = unified_host();
    put_cgroup(&p, "system.slice/php7-fpm.service", "400\n");
    put_cgroup(&p, "system.slice/php7-fpm.service/pool", "401\n");
    put_cgroup(&p, "system.slice/php8-fpm.service", "410\n");
    put_cgroup(&p, "system.slice/php8-cli.service", "420\n");
    put_cgroup(&p, "app.slice", "");
    put_cgroup(&p, "app.slice/app-a.slice/x.service", "430\n");
    struct pt_matcher m;
    struct pid_list list;
    char groups[4096];
    unit_ok(&m, "php*-fpm.service", &p);
    scan_groups(&m, &p, &list, groups, sizeof(groups));
    assert_pids(&list, (const pid_t[]){400, 401, 410}, 3);
    ck_assert_str_eq(groups, "400:php7-fpm.service\n401:php7-fpm.service\n410:php8-fpm.service\n");
    pt_matcher_free(&m);

    unit_ok(&m, "app*.slice", &p);
    scan(&m, &p, &list);
    assert_pids(&list, (const pid_t[]){430}, 1);
    pt_matcher_free(&m);

    /* none running: -ENOENT, "unknown" */
    unit_ok(&m, "nothing*", &p);
    ck_assert_int_eq(scan_groups(&m, &p, &list, groups, sizeof(groups)), -ENOENT);
    pt_matcher_free(&m);
    proc_free(&p);
}
END_TEST

/* A hybrid host: v2 at unified/ (no controller), systemd's v1 hierarchy
 * beside it; a legacy host: name=systemd alone. The unit is found in
 * whichever holds it. */
START_TEST(test_unit_hybrid_and_legacy)
{
    struct proc p = proc_new();
    fx_write(p.root, "sys/fs/cgroup/memory/cgroup.procs", "1\n", -1);
    put_cgroup(&p, "unified", "1\n");
    fx_write(p.root, "sys/fs/cgroup/unified/cgroup.controllers", "", -1);
    put_cgroup(&p, "unified/system.slice/db.service", "500\n");
    put_cgroup(&p, "systemd", "1\n");
    put_cgroup(&p, "systemd/system.slice/db.service", "500\n");
    struct pt_matcher m;
    struct pid_list list;
    unit_ok(&m, "db.service", &p);
    ck_assert_msg(strstr(pt_matcher_unit(&m)->fs.v2, "/sys/fs/cgroup/unified") != NULL, "%s",
                  pt_matcher_unit(&m)->fs.v2);
    scan(&m, &p, &list);
    assert_pids(&list, (const pid_t[]){500}, 1);
    pt_matcher_free(&m);

    remove_tree(&p, "unified");
    unit_ok(&m, "db.service", &p);
    ck_assert_str_eq(pt_matcher_unit(&m)->fs.v2, "");
    scan(&m, &p, &list);
    assert_pids(&list, (const pid_t[]){500}, 1);
    pt_matcher_free(&m);
    proc_free(&p);
}
END_TEST

/* A unit that is not running is walked for again only every
 * PT_SDUNIT_REWALK resolutions; its default place at each. */
START_TEST(test_unit_rewalk)
{
    struct proc p = unified_host();
    struct pt_matcher m;
    struct pid_list list;
    unit_ok(&m, "late.service", &p);
    scan(&m, &p, &list); /* walked: nothing */
    ck_assert_int_eq(list.count, 0);
    put_cgroup(&p, "custom.slice/late.service", "600\n");
    for (int i = 1; i < PT_SDUNIT_REWALK; i++) {
        scan(&m, &p, &list);
        ck_assert_int_eq(list.count, 0); /* not walked for */
    }
    scan(&m, &p, &list);
    assert_pids(&list, (const pid_t[]){600}, 1);
    /* where systemd puts it by default: found at once */
    remove_tree(&p, "custom.slice");
    scan(&m, &p, &list);
    ck_assert_int_eq(list.count, 0);
    put_cgroup(&p, "system.slice/late.service", "610\n");
    scan(&m, &p, &list);
    assert_pids(&list, (const pid_t[]){610}, 1);
    pt_matcher_free(&m);
    proc_free(&p);
}
END_TEST

/* A --cgroup's directory and its cgroup.procs are kept open between
 * scans and read again from their start: a scan opens only the
 * sub-cgroups. A cgroup made again at its path (another directory: the
 * old one moved away keeps its inode) is opened again; one removed is
 * gone (-ENOENT); one made again later is found. */
START_TEST(test_scan_cgroup_kept_open)
{
    struct proc p = unified_host();
    char *mountinfo; /* the fixture's hierarchy found (on the filesystem of the temp dir) */
    ck_assert_int_ge(asprintf(&mountinfo, "26 22 0:23 / %s/sys/fs/cgroup rw - cgroup2 cgroup2 rw\n", p.root), 0);
    fx_write(p.root, "self/mountinfo", mountinfo, -1);
    free(mountinfo);
    put_cgroup(&p, "svc", "10\n");
    put_cgroup(&p, "svc/leaf", "20\n");
    char *path, *old;
    ck_assert_int_ge(asprintf(&path, "%s/sys/fs/cgroup/svc", p.root), 0);
    ck_assert_int_ge(asprintf(&old, "%s/sys/fs/cgroup/svc.old", p.root), 0);
    struct pt_matcher m;
    struct pid_list list;
    char groups[4096];
    matcher_ok(&m, PT_SELECT_CGROUP, NULL, path, &p);
    scan(&m, &p, &list);
    assert_pids(&list, (const pid_t[]){10, 20}, 2);
    long before = unit_openats();
    scan(&m, &p, &list);
    assert_pids(&list, (const pid_t[]){10, 20}, 2);
    ck_assert_int_eq(unit_openats() - before, 2); /* leaf and its cgroup.procs, not svc's */
    remove_tree(&p, "svc/leaf");
    put_cgroup(&p, "svc", "10\n11\n"); /* written in place, as the kernel's */
    before = unit_openats();
    scan(&m, &p, &list);
    assert_pids(&list, (const pid_t[]){10, 11}, 2);
    ck_assert_int_eq(unit_openats() - before, 0);

    ck_assert_int_eq(rename(path, old), 0);
    put_cgroup(&p, "svc", "30\n");
    before = unit_openats();
    scan(&m, &p, &list);
    assert_pids(&list, (const pid_t[]){30}, 1);
    ck_assert_int_eq(unit_openats() - before, 2); /* the new directory and its cgroup.procs */
    remove_tree(&p, "svc");
    ck_assert_int_eq(scan_groups(&m, &p, &list, groups, sizeof(groups)), -ENOENT);
    ck_assert_int_eq(list.count, 0);
    put_cgroup(&p, "svc", "40\n");
    scan(&m, &p, &list);
    assert_pids(&list, (const pid_t[]){40}, 1);
    pt_matcher_free(&m);
    remove_tree(&p, "svc.old");
    free(path);
    free(old);
    proc_free(&p);
}
END_TEST

/* The sub-cgroups of a --cgroup are kept open like its own directory,
 * within the budget (two descriptors each): after the first scan, a scan
 * opens nothing while they stay, and reads what a fresh open would:
 * cgroup.procs written in place; a sub-cgroup made again under its name
 * (the old directory moved away: another inode) opened again; one
 * removed forgotten, its seats given back; one past the budget read by
 * its name; kept ones given back when members want the seats. */
START_TEST(test_scan_sub_cgroups_kept_open)
{
    struct proc p = unified_host();
    char *mountinfo;
    ck_assert_int_ge(asprintf(&mountinfo, "26 22 0:23 / %s/sys/fs/cgroup rw - cgroup2 cgroup2 rw\n", p.root), 0);
    fx_write(p.root, "self/mountinfo", mountinfo, -1);
    free(mountinfo);
    put_cgroup(&p, "svc", "10\n");
    put_cgroup(&p, "svc/web", "20\n");
    put_cgroup(&p, "svc/db", "30\n");
    put_cgroup(&p, "svc/db/replica", "31\n");
    char *path, *from, *to;
    ck_assert_int_ge(asprintf(&path, "%s/sys/fs/cgroup/svc", p.root), 0);
    ck_assert_int_ge(asprintf(&from, "%s/sys/fs/cgroup/svc/web", p.root), 0);
    ck_assert_int_ge(asprintf(&to, "%s/sys/fs/cgroup/web.old", p.root), 0);
    struct pt_fd_budget budget = {.limit = 100};
    struct pt_matcher m;
    struct pid_list list;
    char groups[4096];
    matcher_ok(&m, PT_SELECT_CGROUP, NULL, path, &p);
    pt_matcher_set_budget(&m, &budget);
    scan_groups(&m, &p, &list, groups, sizeof(groups));
    assert_pids(&list, (const pid_t[]){10, 20, 30, 31}, 4);
    ck_assert_str_eq(groups, "10:.\n20:web\n30:db\n31:db\n");
    ck_assert_uint_eq(budget.kept, 6); /* web, db, db/replica: a directory and its cgroup.procs each */
    for (int i = 0; i < 3; i++) {
        long before = unit_openats();
        scan_groups(&m, &p, &list, groups, sizeof(groups));
        ck_assert_int_eq(unit_openats() - before, 0);
        assert_pids(&list, (const pid_t[]){10, 20, 30, 31}, 4);
        ck_assert_str_eq(groups, "10:.\n20:web\n30:db\n31:db\n");
    }
    /* written in place, as the kernel's */
    put_cgroup(&p, "svc/db/replica", "31\n32\n");
    long before = unit_openats();
    scan(&m, &p, &list);
    assert_pids(&list, (const pid_t[]){10, 20, 30, 31, 32}, 5);
    ck_assert_int_eq(unit_openats() - before, 0);

    /* web made again under its name: the kept one is no longer it */
    ck_assert_int_eq(rename(from, to), 0);
    put_cgroup(&p, "svc/web", "21\n");
    before = unit_openats();
    scan_groups(&m, &p, &list, groups, sizeof(groups));
    ck_assert_int_eq(unit_openats() - before, 2);
    assert_pids(&list, (const pid_t[]){10, 21, 30, 31, 32}, 5);
    ck_assert_str_eq(groups, "10:.\n21:web\n30:db\n31:db\n32:db\n");
    ck_assert_uint_eq(budget.kept, 6);
    before = unit_openats();
    scan(&m, &p, &list);
    ck_assert_int_eq(unit_openats() - before, 0);

    /* db/replica removed: forgotten, its seats back */
    remove_tree(&p, "svc/db/replica");
    scan(&m, &p, &list);
    assert_pids(&list, (const pid_t[]){10, 21, 30}, 3);
    ck_assert_uint_eq(budget.kept, 4);

    /* a new sub-cgroup past the budget: read by its name at each scan */
    budget.limit = 4;
    put_cgroup(&p, "svc/cache", "40\n");
    for (int i = 0; i < 2; i++) {
        before = unit_openats();
        scan(&m, &p, &list);
        assert_pids(&list, (const pid_t[]){10, 21, 30, 40}, 4);
        ck_assert_int_eq(unit_openats() - before, 2);
        ck_assert_uint_eq(budget.kept, 4);
    }
    /* members come and want the seats (a statm and a stat each,
     * fdbudget.h): as many given back at the next scan */
    pt_fdbudget_join(&budget);
    scan(&m, &p, &list);
    assert_pids(&list, (const pid_t[]){10, 21, 30, 40}, 4);
    ck_assert_uint_eq(budget.kept, 2);
    pt_fdbudget_join(&budget);
    scan(&m, &p, &list);
    assert_pids(&list, (const pid_t[]){10, 21, 30, 40}, 4);
    ck_assert_uint_eq(budget.kept, 0);
    pt_fdbudget_leave(&budget);
    pt_fdbudget_leave(&budget);

    budget.limit = 100;
    scan(&m, &p, &list);
    ck_assert_uint_eq(budget.kept, 6);
    pt_matcher_free(&m);
    ck_assert_uint_eq(budget.kept, 0);
    remove_tree(&p, "web.old");
    free(path);
    free(from);
    free(to);
    proc_free(&p);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("matcher");

    TCase *tc = unit_tcase(suite, "init");
    tcase_add_test(tc, test_init_errors);
    tcase_add_test(tc, test_init_users);

    tc = unit_tcase(suite, "match");
    tcase_add_test(tc, test_match_cmdline);
    tcase_add_test(tc, test_match_text_bound);
    tcase_add_test(tc, test_candidate_reads_once);

    tc = unit_tcase(suite, "exe_user");
    tcase_add_test(tc, test_exe);
    tcase_add_test(tc, test_user);
    tcase_add_test(tc, test_kernel_threads_are_no_candidates);

    tc = unit_tcase(suite, "cgroup");
    tcase_add_test(tc, test_cgroup2_mount);
    tcase_add_test(tc, test_scan_cgroup_tree);
    tcase_add_test(tc, test_scan_cgroup_below_mount);
    tcase_add_test(tc, test_cgroup_off_the_cgroup_fs_refused);
    tcase_add_test(tc, test_scan_cgroup_kept_open);
    tcase_add_test(tc, test_scan_sub_cgroups_kept_open);

    tc = unit_tcase(suite, "unit");
    tcase_add_test(tc, test_unit_names);
    tcase_add_test(tc, test_unit_service);
    tcase_add_test(tc, test_unit_places);
    tcase_add_test(tc, test_unit_glob);
    tcase_add_test(tc, test_unit_hybrid_and_legacy);
    tcase_add_test(tc, test_unit_rewalk);

    return unit_run(suite);
}

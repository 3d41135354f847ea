#include "tree/targetcg.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "util/base.h"
#include "util/escape.h"
#include "procfs/callerfiles.h"

void pt_targetcg_init(const struct pt_target *t, struct pt_target_cgroups *cg)
{
    bool launched = t->selector.kind == PT_SELECT_CHILD;
    /* the matcher found the hierarchies; a launched command's cgroup may
     * be at another path in each (launch.h) */
    const struct pt_cgroupfs *fs = launched ? t->selector.cgroupfs : pt_matcher_cgroupfs(&t->matcher);
    pt_cgacct_init(&cg->target, fs, t->budget);
    pt_cgacct_init(&cg->groups, fs, t->budget);
    cg->on = true;
    if (!launched)
        return;
    /* The command's own cgroup, made just before it started: all it
     * holds is the command's, so it counts whole (from 0), as a cgroup
     * that appears after the first set does, which the empty set makes
     * it. No scan runs for a launched command: pt_targetcg_found
     * names its one cgroup (selector.path) here, once. */
    pt_cgacct_set(&cg->target, NULL, 0);
    pt_targetcg_found(t, cg, pt_now());
}

void pt_targetcg_free(struct pt_target_cgroups *cg)
{
    if (!cg->on)
        return;
    pt_cgacct_free(&cg->target);
    pt_cgacct_free(&cg->groups);
}

/* The target's own cgroup directories: a --cgroup's one, a launched
 * command's of its own, a --unit's as found by the last scan (a glob's:
 * every unit matched). */
static size_t target_dirs(const struct pt_target *t, const char *const **dirs, const char *const **keys)
{
    static const char *one[1];
    if (t->selector.kind == PT_SELECT_CGROUP || t->selector.kind == PT_SELECT_CHILD) {
        one[0] = t->selector.kind == PT_SELECT_CHILD ? t->selector.path : pt_matcher_cgroup(&t->matcher);
        *dirs = one;
        *keys = NULL;
        return 1;
    }
    const struct pt_sdunit *u = pt_matcher_unit(&t->matcher);
    *dirs = (const char *const *)u->dirs;
    *keys = u->keys;
    return u->n_dirs;
}

/* A glob of units, whose --by cgroup lines are its units: each line's
 * cgroup is one of the target's, read from its set (one kept set of
 * descriptors per cgroup, not two). */
static bool lines_are_units(const struct pt_target *t)
{
    return t->selector.kind == PT_SELECT_UNIT && pt_matcher_unit(&t->matcher)->glob;
}

/* The directory of a --by cgroup group into out: a glob's unit (by its
 * line key, sdunit.h), or the cgroup of that name below the target's.
 * "" for "." and "other". */
static void group_dir(const struct pt_target *t, const char *group, char *out, size_t len)
{
    const char *const *dirs, *const *keys;
    size_t n = target_dirs(t, &dirs, &keys);
    out[0] = '\0';
    if (strcmp(group, PT_CGROUP_OWN) == 0 || strcmp(group, PT_GROUP_OTHER) == 0)
        return;
    bool glob = lines_are_units(t);
    for (size_t i = 0; i < n; i++) {
        if (glob && strcmp(keys[i], group) == 0) {
            snprintf(out, len, "%s", dirs[i]);
            return;
        }
    }
    if (!glob && n == 1)
        snprintf(out, len, "%s/%s", dirs[0], group);
}

/* name's cgroup named in the set of the groups' cgroups: 1, or 0 when
 * it has none or was named already. */
static size_t name_group(const struct pt_target *t, struct pt_target_cgroups *cg, const char *name)
{
    char dir[PT_CGROUPFS_PATH_MAX + PT_GROUP_NAME_MAX];
    group_dir(t, name, dir, sizeof(dir));
    return dir[0] && pt_cgacct_name(&cg->groups, dir);
}

/* The cgroups of the groups that have a line: those in use, then those
 * the last scan found, as many as there are lines (--by-limit). A
 * cgroup past them would go to "other", whose line carries no cgroup's
 * values: it is never opened, its descriptors never taken. */
static void set_group_dirs(const struct pt_target *t, struct pt_target_cgroups *cg)
{
    const struct pt_groups *gs = &t->ledger.groups;
    const char *names = t->discovery.scan_groups.data;
    size_t len = t->discovery.scan_groups.len, n = 0;
    pt_cgacct_begin_set(&cg->groups);
    for (uint32_t i = 0; i < gs->limit; i++)
        if (gs->list[i].in_use)
            n += name_group(t, cg, gs->list[i].name);
    for (size_t at = 0; at < len && n < gs->limit; at += strlen(names + at) + 1)
        n += name_group(t, cg, names + at);
    pt_cgacct_end_set(&cg->groups);
}

/* A cgroup whose files cannot be had by their path, said once for the
 * target's cgroups and once for its groups'. */
static void say_unreadable(const struct pt_target *t, const struct pt_cgacct *a, bool *said, const char *whose)
{
    int error;
    const char *dir = *said ? NULL : pt_cgacct_unreadable(a, &error);
    if (!dir)
        return;
    *said = true;
    char q[PT_QUOTED_MAX], over[64];
    snprintf(over, sizeof(over), "over %d bytes", PT_CGROUPFS_PATH_MAX - 1);
    pt_targetstate_logf(t, PT_LOG_WARNING,
                        "cgroup_* metrics of %s: the path \"%s\" is %s: its cgroup files are not read, "
                        "cgroup_* left out (its processes are followed)",
                        whose, pt_escape(dir, q, sizeof(q)),
                        error == -ENAMETOOLONG ? over
                                               : "below no cgroup mount (a symbolic link made after the start?)");
}

/* v1 blkio counting no block I/O, said once, when a cgroup of the target
 * (or of its breakdown) has blkio files that were set aside for it. */
static void say_blkio_uncounted(const struct pt_target *t, struct pt_target_cgroups *cg)
{
    const char *root = pt_cgacct_blkio_uncounted(&cg->target);
    if (!root)
        root = pt_cgacct_blkio_uncounted(&cg->groups);
    if (cg->said_blkio || !root)
        return;
    cg->said_blkio = true;
    pt_log_absent("cgroup_io_*");
    char q[PT_QUOTED_MAX], again[96] = "";
    if (t->selector.kind != PT_SELECT_CHILD) /* a launched command's cgroup is not looked at again */
        snprintf(again, sizeof(again), " (looked at again every %d discoveries)", PT_CGACCT_REPROBE_SETS);
    pt_targetstate_logf(
        t, PT_LOG_INFO,
        "cgroup_io_read_bytes and cgroup_io_write_bytes are left out, not 0: the kernel counts no block "
        "I/O in cgroup v1 blkio here (\"%s/blkio.throttle.io_service_bytes\" lists no disk; since Linux "
        "6.10 a disk's I/O is counted only once a blkio.throttle limit was set for it, in any cgroup)%s",
        pt_escape(root, q, sizeof(q)), again);
}

void pt_targetcg_found(const struct pt_target *t, struct pt_target_cgroups *cg, double now)
{
    if (!cg->on)
        return;
    const char *const *dirs, *const *keys;
    size_t n = target_dirs(t, &dirs, &keys);
    pt_cgacct_set(&cg->target, dirs, n);
    say_unreadable(t, &cg->target, &cg->said_unreadable, "the target");
    if (t->options.breakdown == PT_BY_CGROUP && !lines_are_units(t)) {
        set_group_dirs(t, cg);
        say_unreadable(t, &cg->groups, &cg->said_group_unreadable, "a line of the breakdown by cgroup");
    }
    say_blkio_uncounted(t, cg);
    char missing[512], more[96];
    if (pt_cgacct_gained(&cg->target, missing, sizeof(missing)) &&
        pt_ratelimit_say(&cg->gained_said, now, "like it", more, sizeof(more))) {
        pt_targetstate_logf(t, PT_LOG_INFO,
                            "cgroup_* metrics: the kernel offers %s for its cgroup now: reported from now%s", missing,
                            more);
    }
    if (cg->said_missing || !pt_cgacct_missing(&cg->target, missing, sizeof(missing)))
        return; /* said once, when a cgroup is first open (it may appear later) */
    cg->said_missing = true;
    if (missing[0])
        pt_log_absent("some cgroup_*");
    if (missing[0] && t->selector.kind == PT_SELECT_CHILD && t->selector.cgroup_never)
        pt_targetstate_logf(t, PT_LOG_INFO, "%s", t->selector.cgroup_never);
    else if (missing[0] && t->selector.kind == PT_SELECT_CHILD)
        /* made by proctree for the command: never looked for again */
        pt_targetstate_logf(
            t, PT_LOG_INFO,
            "cgroup_* metrics: the kernel offers no %s for the launched command's cgroup (none in cgroup "
            "v1, a controller not "
            "enabled above it, or an older kernel): their metrics are left out",
            missing);
    else if (missing[0])
        pt_targetstate_logf(
            t, PT_LOG_INFO,
            "cgroup_* metrics: the kernel offers no %s for its cgroup yet (a controller not enabled there, "
            "or an older kernel): their metrics are left out until it does (looked for again every %d "
            "discoveries)",
            missing, PT_CGACCT_REPROBE_SETS);
}

/* The path of the hierarchy where (targetstate.h) in dirs. */
static const char *where_in(const struct pt_cgroup_dirs *dirs, int where)
{
    return where == 1 ? dirs->v2 : where == 2 ? dirs->v1[PT_V1_MEMORY] : dirs->v1[PT_V1_CPUACCT];
}

bool pt_targetcg_restarted(const struct pt_target *t, struct pt_target_cgroups *cg)
{
    const char *dir = NULL;
    if (t->selector.kind == PT_SELECT_CGROUP) {
        dir = pt_matcher_cgroup(&t->matcher);
    } else if (t->selector.kind == PT_SELECT_UNIT) {
        const struct pt_sdunit *u = pt_matcher_unit(&t->matcher);
        dir = !u->glob && u->n_dirs == 1 ? u->dirs[0] : NULL;
    }
    const struct pt_cgroupfs *fs = pt_matcher_cgroupfs(&t->matcher);
    struct pt_cgroup_dirs dirs;
    struct stat st;
    uint64_t id = 0;
    /* The hierarchy its id was taken in is looked at alone while the
     * cgroup is there (one stat): a cgroup that some hierarchies lack is
     * not looked for in each of them at every discovery. */
    if (dir && cg->root_where && pt_cgroupfs_paths_of(fs, dir, &dirs) == 0 &&
        pt_callerfiles_stat(where_in(&dirs, cg->root_where), &st) == 0) {
        id = (uint64_t)st.st_ino;
    } else {
        cg->root_where = 0;
        if (!dir || pt_cgroupfs_dirs_of(fs, dir, &dirs) != 0)
            return false;
        id = pt_cgroupfs_inode(&dirs); /* v2's, else v1 memory's, else cpuacct's */
        if (id == 0)
            return false; /* not there now: what comes next is compared with the id last seen */
        cg->root_where = dirs.v2[0] ? 1 : dirs.v1[PT_V1_MEMORY][0] ? 2 : 3;
    }
    bool restarted = cg->root_id && id != cg->root_id;
    cg->root_id = id;
    return restarted;
}

void pt_targetcg_poll(const struct pt_target *t, struct pt_target_cgroups *cg)
{
    if (!cg->on)
        return;
    pt_cgacct_poll(&cg->target);
    if (t->options.breakdown == PT_BY_CGROUP)
        pt_cgacct_poll(&cg->groups);
}

/* Each cgroup whose memory.peak could no longer be reset, said once:
 * its peak is the lifetime's from then, under that name. */
static void say_unreset(const struct pt_target *t, struct pt_cgacct *a)
{
    int error;
    for (const char *dir; (dir = pt_cgacct_next_unreset(a, &error));) {
        char q[PT_QUOTED_MAX];
        pt_targetstate_logf(
            t, PT_LOG_WARNING,
            "cgroup \"%s\": its memory.peak could not be reset (%s): from the next interval its peak is "
            "cgroup_memory_peak_lifetime, the highest since the cgroup was made, not cgroup_memory_peak",
            pt_escape(dir, q, sizeof(q)), strerror(error));
    }
}

const struct pt_cgvalues *pt_targetcg_end(const struct pt_target *t, struct pt_target_cgroups *cg, double seconds)
{
    if (!cg->on)
        return NULL;
    /* each cgroup's times at most what the interval can hold (cgacct.h):
     * the CPUs its tasks can run on, the ledger's bound (read once at the
     * start: sysconf's count of the CPUs online opens a file at each call) */
    pt_cgacct_bound(&cg->target, seconds, t->ledger.cpus);
    pt_cgacct_bound(&cg->groups, seconds, t->ledger.cpus);
    pt_cgacct_end_interval(&cg->target, &cg->sum);
    say_unreset(t, &cg->target);
    if (t->options.breakdown == PT_BY_CGROUP) {
        struct pt_cgvalues ignored;
        pt_cgacct_end_interval(&cg->groups, &ignored);
        say_unreset(t, &cg->groups);
    }
    return &cg->sum;
}

const struct pt_cgvalues *pt_targetcg_values(const struct pt_target *t, const char *group)
{
    char dir[PT_CGROUPFS_PATH_MAX + PT_GROUP_NAME_MAX];
    if (!t->cg.on)
        return NULL;
    group_dir(t, group, dir, sizeof(dir));
    return dir[0] ? pt_cgacct_values_of(lines_are_units(t) ? &t->cg.target : &t->cg.groups, dir) : NULL;
}

#include "tree/targetunit.h"

#include <stdio.h>
#include <string.h>

#include "util/escape.h"
#include "procfs/procfile.h"
#include "cgroup/sdunit.h"

static const struct pt_sdunit *unit_of(const struct pt_target *t)
{
    return t->selector.kind == PT_SELECT_UNIT ? pt_matcher_unit(&t->matcher) : NULL;
}

/* At the first scan: the cgroups read have no systemd's layout. */
static void say_no_systemd(const struct pt_target *t, struct pt_target_unit *unit, const struct pt_sdunit *u)
{
    char q[PT_QUOTED_MAX], root[PT_QUOTED_MAX];
    unit->said |= PT_SAID_UNIT_SYSTEMD;
    if (pt_sdunit_systemd_manages(u))
        return;
    pt_targetstate_logf(t, PT_LOG_WARNING,
                        "unit \"%s\": no systemd manages the cgroups read here (\"%s\" has neither init.scope nor "
                        "system.slice): systemd is not running on this host, or these are a container's own cgroups "
                        "(a host's need the host's /sys: HOST_SYS, --sys-root; collectd: SysRoot); no unit has a "
                        "cgroup, its line counts no process",
                        pt_escape(u->name, q, sizeof(q)),
                        pt_escape(u->fs.v2[0] ? u->fs.v2 : u->fs.systemd_v1, root, sizeof(root)));
}

static void say_limit(const struct pt_target *t, struct pt_target_unit *unit, const struct pt_sdunit *u)
{
    char q[PT_QUOTED_MAX];
    unit->said |= PT_SAID_UNIT_LIMIT;
    pt_targetstate_logf(
        t, PT_LOG_WARNING,
        "unit glob \"%s\" matches %zu units, more than the %d one glob takes (PT_SDUNIT_MATCHES_MAX): the "
        "first %zu found are followed, the others are left out; split the glob",
        pt_escape(u->name, q, sizeof(q)), u->n_matched, PT_SDUNIT_MATCHES_MAX, u->n_dirs);
}

/* "the system manager's" or "user@UID.service's", for dir. */
static void manager_of(const struct pt_sdunit *u, const char *dir, char *out, size_t len)
{
    char manager[PT_UNIT_NAME_MAX], q[PT_QUOTED_MAX];
    if (pt_sdunit_users(u, dir, manager, sizeof(manager)))
        snprintf(out, len, "the user manager \"%s\"'s", pt_escape(manager, q, sizeof(q)));
    else
        snprintf(out, len, "the system manager's");
}

/* The system manager runs no unit of a single name: a user manager's is
 * followed, said when it is taken. */
static void say_user_taken(const struct pt_target *t, const struct pt_sdunit *u)
{
    char q[PT_QUOTED_MAX], dir[PT_QUOTED_MAX], now_of[PT_QUOTED_MAX + 32];
    manager_of(u, u->dirs[0], now_of, sizeof(now_of));
    pt_targetstate_logf(t, PT_LOG_INFO,
                        "unit \"%s\": the system manager runs no unit of this name: %s is followed (\"%s\"), "
                        "until the system manager's starts",
                        pt_escape(u->name, q, sizeof(q)), now_of, pt_escape(u->dirs[0], dir, sizeof(dir)));
}

bool pt_targetunit_scanned(const struct pt_target *t, struct pt_target_unit *unit)
{
    const struct pt_sdunit *u = unit_of(t);
    if (!u)
        return false;
    if (!(unit->said & PT_SAID_UNIT_SYSTEMD))
        say_no_systemd(t, unit, u);
    if (u->n_matched > u->n_dirs && !(unit->said & PT_SAID_UNIT_LIMIT))
        say_limit(t, unit, u);
    bool changed = !u->glob && u->n_dirs && u->changed;
    if (changed && !u->moved && u->last_user)
        say_user_taken(t, u);
    pt_pidmap_clear(&unit->scanned);
    for (size_t i = 0; i < t->discovery.n_pending && !(unit->said & PT_SAID_UNIT_OUTSIDE); i++)
        pt_pidmap_put(&unit->scanned, t->discovery.pending[i], 1);
    return changed && u->moved;
}

void pt_targetunit_say_moved(const struct pt_target *t, const char *more)
{
    const struct pt_sdunit *u = unit_of(t);
    char q[PT_QUOTED_MAX], dir[PT_QUOTED_MAX], was[PT_QUOTED_MAX], now_of[PT_QUOTED_MAX + 32],
        was_of[PT_QUOTED_MAX + 32];
    if (!u || !u->n_dirs)
        return;
    manager_of(u, u->dirs[0], now_of, sizeof(now_of));
    manager_of(u, u->previous, was_of, sizeof(was_of));
    pt_targetstate_logf(t, PT_LOG_INFO, "unit \"%s\": %s is followed now (\"%s\"), was %s (\"%s\")%s%s",
                        pt_escape(u->name, q, sizeof(q)), now_of, pt_escape(u->dirs[0], dir, sizeof(dir)), was_of,
                        pt_escape(u->previous, was, sizeof(was)),
                        pt_targetstate_live_members(t) ? ": the processes found there leave the target" : "", more);
}

/* The cgroup path of pid in the hierarchy at mount (v2's "0::" line, or
 * name=systemd's) into out; false when it cannot be read. */
static bool cgroup_of(const struct pt_target *t, bool v2, pid_t pid, char *out, size_t len)
{
    char path[32];
    snprintf(path, sizeof(path), "%d/cgroup", (int)pid);
    ssize_t n = pt_procfs_read_file_at(t->proc_root_fd, path, t->buf);
    for (const char *line = n > 0 ? t->buf->data : NULL; line && *line;) {
        const char *end = strchr(line, '\n'), *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        size_t line_len = end ? (size_t)(end - line) : strlen(line);
        if (c2 && (size_t)(c2 - line) < line_len) {
            bool wanted = v2 ? c2 == c1 + 1 && strncmp(line, "0:", 2) == 0
                             : (size_t)(c2 - c1 - 1) == strlen("name=systemd") &&
                                   strncmp(c1 + 1, "name=systemd", strlen("name=systemd")) == 0;
            size_t rest = line_len - (size_t)(c2 + 1 - line);
            if (wanted && rest < len) {
                memcpy(out, c2 + 1, rest);
                out[rest] = '\0';
                return true;
            }
        }
        line = end ? end + 1 : NULL;
    }
    return false;
}

/* Is the cgroup path rel (as /proc/PID/cgroup shows it) one of the unit's
 * directories or below one? */
static bool in_unit(const struct pt_sdunit *u, const char *mount, const char *rel)
{
    for (size_t i = 0; i < u->n_dirs; i++) {
        const char *below = pt_cgroupfs_below(mount, u->dirs[i]);
        size_t n = below ? strlen(below) : 0;
        if (below && strncmp(rel, below, n) == 0 && (rel[n] == '\0' || rel[n] == '/'))
            return true;
    }
    return false;
}

void pt_targetunit_discovered(const struct pt_target *t, struct pt_target_unit *unit)
{
    const struct pt_sdunit *u = unit_of(t);
    if (!u || !u->n_dirs || (unit->said & PT_SAID_UNIT_OUTSIDE))
        return;
    bool v2 = pt_cgroupfs_below(u->fs.v2, u->dirs[0]) != NULL;
    const char *mount = v2 ? u->fs.v2 : u->fs.systemd_v1;
    size_t outside = 0, members = 0;
    bool more = false; /* places beyond the two said */
    char where[2][PT_CGROUPFS_PATH_MAX] = {"", ""}, rel[PT_CGROUPFS_PATH_MAX];
    for (size_t i = 0; i < t->membership.n_members; i++) {
        const struct pt_member *m = &t->membership.members[i];
        if (m->gone)
            continue;
        members++;
        /* one the scan listed is in; one that joined since by a fork is
         * where its parent was, unless it moved: its own file says */
        if (pt_pidmap_get(&unit->scanned, m->pid) >= 0 || !cgroup_of(t, v2, m->pid, rel, sizeof(rel)))
            continue;
        /* a path above our cgroup namespace's root cannot be placed */
        if (rel[0] != '/' || strncmp(rel, "/..", 3) == 0 || in_unit(u, mount, rel))
            continue;
        outside++;
        if (!where[0][0])
            snprintf(where[0], sizeof(where[0]), "%s", rel);
        else if (!where[1][0] && strcmp(where[0], rel) != 0)
            snprintf(where[1], sizeof(where[1]), "%s", rel);
        else
            more |= strcmp(where[0], rel) != 0 && strcmp(where[1], rel) != 0;
    }
    if (!outside)
        return;
    unit->said |= PT_SAID_UNIT_OUTSIDE;
    pt_pidmap_clear(&unit->scanned);
    char q[PT_QUOTED_MAX], w0[PT_QUOTED_MAX], w1[PT_QUOTED_MAX];
    pt_targetstate_logf(t, PT_LOG_INFO,
                        "%zu of its %zu processes run outside unit \"%s\"'s cgroups (in \"%s\"%s%s%s%s): processes of "
                        "its tree moved to other cgroups stay in it, in proc_* and not in cgroup_* (said once)",
                        outside, members, pt_escape(u->name, q, sizeof(q)), pt_escape(where[0], w0, sizeof(w0)),
                        where[1][0] ? ", \"" : "", where[1][0] ? pt_escape(where[1], w1, sizeof(w1)) : "",
                        where[1][0] ? "\"" : "", more ? ", ..." : "");
}

void pt_targetunit_free(struct pt_target_unit *unit)
{
    pt_pidmap_free(&unit->scanned);
}

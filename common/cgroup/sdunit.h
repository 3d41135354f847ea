/* sdunit: a systemd unit, or a glob of units, as the cgroup directories
 * that hold its processes, found without D-Bus.
 *
 * systemd keeps a unit's processes in a cgroup directory named after the
 * unit, below its slice's (CGROUP_DELEGATION.md):
 *     system.slice/nginx.service
 *     system.slice/system-postgresql.slice/postgresql@15-main.service
 *     user.slice/user-1000.slice/user@1000.service/app.slice/foo.service
 * in the cgroup2 hierarchy and, on legacy and hybrid hosts, in systemd's
 * name=systemd v1 one (cgroupfs.h). A unit that is not running has no
 * directory; a restart removes it and makes it again at the same place.
 *
 * A name is looked for where its slice puts it by default, then by a
 * walk that enters only slices and user managers (user@UID.service):
 * a unit's own sub-cgroups, however many a delegated service makes, are
 * never walked. The directory found is kept and tried next time, after
 * the default place; while a unit has none, the walk is made again only
 * every PT_SDUNIT_REWALK resolutions.
 *
 * Two managers may each run a unit of one name: the system's and a
 * user's (user@UID.service/.../NAME). A name is the system manager's unit
 * when it runs one; a user's unit is taken only while it does not, and
 * while one is taken the walk is made again every PT_SDUNIT_REWALK
 * resolutions, so that a system unit that starts later replaces it
 * (u->moved says so). A glob takes every unit it matches, each with its
 * own line key: the unit's name for the system manager's, and
 * "user@UID.service:NAME" for a user manager's, so that two units of one
 * name are two lines, each with its own cgroup's accounting.
 *
 * A glob is matched by a walk at every resolution: units that match may
 * start at any time. It takes PT_SDUNIT_MATCHES_MAX units at most; the
 * walk counts the others (n_matched). The directories' memory is kept
 * from one resolution to the next: steady state allocates nothing. */
#ifndef PROCTREE_SDUNIT_H
#define PROCTREE_SDUNIT_H

#include <stdbool.h>
#include <stddef.h>

#include "util/bounds.h"
#include "cgroup/cgroupfs.h"

/* systemd's UNIT_NAME_MAX, its terminating NUL included. */
#define PT_UNIT_NAME_MAX 256
/* Resolutions between two walks for a unit that has no cgroup. */
#define PT_SDUNIT_REWALK 30
/* Units a glob sums at most: as many as a walk may open slices, far
 * more than a host runs (each costs its directory's path and, with
 * cgroup_* metrics, its cgroup's files: cgacct.h). */
#define PT_SDUNIT_MATCHES_MAX 4096
/* A directory found: a hierarchy's mount, slices, a unit's name. */
#define PT_SDUNIT_PATH_MAX (PT_CGROUPFS_PATH_MAX + PT_UNIT_NAME_MAX * 4)

struct pt_sdunit {
    char name[PT_UNIT_NAME_MAX]; /* as given; ".service" added to a name of no unit type */
    bool glob;                   /* name has *, ? or [ */
    struct pt_cgroupfs fs;
    /* the cgroup directories of the last resolution, full paths, and each
     * one's line key (a glob's groups): pointers into paths */
    char **dirs;
    const char **keys;
    size_t n_dirs;
    size_t n_matched; /* a glob: the units its last walk matched, beyond the limit too */
    /* the single unit's directory when last found ("" never), and whether
     * it is a user manager's */
    char last[PT_SDUNIT_PATH_MAX];
    bool last_user;
    /* the last resolution found it where it was not the time it was
     * found before (changed: the first time too), and moved: it was
     * found elsewhere before (a system unit that replaced a user's),
     * at previous */
    bool changed, moved;
    char previous[PT_SDUNIT_PATH_MAX];
    unsigned since_walk; /* resolutions since the last walk that found no system manager's unit */
    /* kept between resolutions */
    struct pt_buf paths; /* each directory, then its key, NUL-terminated */
    size_t *at;          /* each directory's offset in paths */
    size_t cap_dirs;
};

/* 0, or -1 with a one-line reason in err: a name that cannot be a unit's
 * (empty, a '/', too long, a type that has no cgroup such as .target),
 * or no cgroup hierarchy. */
int pt_sdunit_init(struct pt_sdunit *u, const char *name, const struct pt_cgroupfs *fs, char *err, size_t errlen);
void pt_sdunit_free(struct pt_sdunit *u);

/* Find the unit's directories now (u->dirs, u->n_dirs): their number. */
size_t pt_sdunit_resolve(struct pt_sdunit *u);

/* Is dir (one of u->dirs) a user manager's unit? The manager's name
 * (user@UID.service) into manager, "" for the system's. */
bool pt_sdunit_users(const struct pt_sdunit *u, const char *dir, char *manager, size_t len);

/* Does a systemd manage the cgroup hierarchies u reads? systemd makes
 * init.scope (its own process) and system.slice at the root of each
 * hierarchy it manages, at its start, and never removes them; without
 * either, no unit has a cgroup there (no systemd runs, or the hierarchy
 * is a container's own). */
bool pt_sdunit_systemd_manages(const struct pt_sdunit *u);

/* For a unit that has no cgroup: "inactive" when systemd has a unit file
 * for it (or its template) in the system's unit directories, "unknown"
 * when none (a user's units, and transient units once stopped, have
 * none there). */
const char *pt_sdunit_state(const struct pt_sdunit *u);

#endif

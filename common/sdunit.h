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
 * never walked. The directory found is kept and tried first next time;
 * while a unit has none, the walk is made again only every
 * PT_SDUNIT_REWALK resolutions (its default place and the last one are
 * tried at each). A glob is matched by a walk at every resolution:
 * units that match may start at any time. */
#ifndef PROCTREE_SDUNIT_H
#define PROCTREE_SDUNIT_H

#include <stdbool.h>
#include <stddef.h>

#include "cgroupfs.h"

/* systemd's UNIT_NAME_MAX, its terminating NUL included. */
#define PT_UNIT_NAME_MAX 256
/* Resolutions between two walks for a unit that has no cgroup. */
#define PT_SDUNIT_REWALK 30
/* Directories one walk may open: a delegated subtree (a container's)
 * may hold slices made by others. */
#define PT_SDUNIT_WALK_MAX 4096
/* Units a glob sums at most. */
#define PT_SDUNIT_MATCHES_MAX 256

struct pt_sdunit {
    char name[PT_UNIT_NAME_MAX]; /* as given; ".service" added to a name of no unit type */
    bool glob;                   /* name has *, ? or [ */
    struct pt_cgroupfs fs;
    /* the cgroup directories of the last resolution, full paths; each
     * one's base name is its unit's name */
    char **dirs;
    size_t n_dirs;
    char *last;          /* the single unit's directory when last found, or NULL */
    unsigned since_walk; /* resolutions that found nothing since the last walk */
};

/* 0, or -1 with a one-line reason in err: a name that cannot be a unit's
 * (empty, a '/', too long, a type that has no cgroup such as .target),
 * or no cgroup hierarchy. */
int pt_sdunit_init(struct pt_sdunit *u, const char *name, const struct pt_cgroupfs *fs, char *err, size_t errlen);
void pt_sdunit_free(struct pt_sdunit *u);

/* Find the unit's directories now (u->dirs, u->n_dirs): their number. */
size_t pt_sdunit_resolve(struct pt_sdunit *u);

/* For a unit that has no cgroup: "inactive" when systemd has a unit file
 * for it (or its template) in the system's unit directories, "unknown"
 * when none (a user's units, and transient units once stopped, have
 * none there). */
const char *pt_sdunit_state(const struct pt_sdunit *u);

#endif

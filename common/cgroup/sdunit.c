#include "cgroup/sdunit.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/base.h"
#include "util/dirents.h"
#include "util/escape.h"
#include "procfs/callerfiles.h"
#include "procfs/procfile.h"

/* The unit types systemd gives a cgroup, and those it never does. */
static const char *const with_cgroup[] = {".service", ".scope", ".slice", ".socket", ".mount", ".swap"};
static const char *const without_cgroup[] = {".target", ".timer", ".path", ".device", ".automount"};

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static const char *type_of(const char *name, const char *const *types, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (ends_with(name, types[i]))
            return types[i];
    return NULL;
}

int pt_sdunit_init(struct pt_sdunit *u, const char *name, const struct pt_cgroupfs *fs, char *err, size_t errlen)
{
    char q[PT_QUOTED_MAX];
    memset(u, 0, sizeof(*u));
    const char *no_cgroup = type_of(name, without_cgroup, PT_ARRAY_LEN(without_cgroup));
    const char *why = !name[0]                              ? "an empty name"
                      : strchr(name, '/')                   ? "a unit name has no '/'"
                      : strlen(name) + 8 >= sizeof(u->name) ? "longer than a unit name can be"
                      : no_cgroup                           ? "units of this type have no processes"
                      : !fs->v2[0] && !fs->systemd_v1[0] ? "no cgroup2 filesystem nor systemd's v1 hierarchy is mounted"
                                                         : NULL;
    if (why) {
        snprintf(err, errlen, "unit \"%s\": %s", pt_escape(name, q, sizeof(q)), why);
        return -1;
    }
    /* as systemctl does: a name of no unit type is a service's */
    bool typed = type_of(name, with_cgroup, PT_ARRAY_LEN(with_cgroup)) != NULL;
    snprintf(u->name, sizeof(u->name), "%s%s", name, typed ? "" : ".service");
    u->glob = strpbrk(u->name, "*?[") != NULL;
    u->fs = *fs;
    return 0;
}

void pt_sdunit_free(struct pt_sdunit *u)
{
    free(u->dirs);
    free(u->keys);
    free(u->at);
    pt_buf_free(&u->paths);
    memset(u, 0, sizeof(*u));
}

static void forget_dirs(struct pt_sdunit *u)
{
    u->n_dirs = 0;
    u->n_matched = 0;
    pt_buf_reset(&u->paths);
}

/* A directory found, and its line key: kept in paths (the pointers are
 * set once the resolution is done: paths may move as it grows). */
static void add_dir(struct pt_sdunit *u, const char *path, const char *manager)
{
    u->n_matched++;
    if (u->n_dirs == PT_SDUNIT_MATCHES_MAX)
        return;
    if (u->n_dirs == u->cap_dirs) {
        u->cap_dirs = u->cap_dirs ? u->cap_dirs * 2 : 8;
        u->at = pt_xrealloc_array(u->at, u->cap_dirs, sizeof(*u->at));
        u->dirs = pt_xrealloc_array(u->dirs, u->cap_dirs, sizeof(*u->dirs));
        u->keys = pt_xrealloc_array(u->keys, u->cap_dirs, sizeof(*u->keys));
    }
    u->at[u->n_dirs++] = u->paths.len;
    pt_buf_append(&u->paths, path, strlen(path) + 1);
    const char *slash = strrchr(path, '/');
    if (manager && manager[0]) {
        pt_buf_puts(&u->paths, manager);
        pt_buf_putc(&u->paths, ':');
    }
    pt_buf_append(&u->paths, slash ? slash + 1 : path, strlen(slash ? slash + 1 : path) + 1);
}

static void point_dirs(struct pt_sdunit *u)
{
    for (size_t i = 0; i < u->n_dirs; i++) {
        u->dirs[i] = u->paths.data + u->at[i];
        u->keys[i] = u->dirs[i] + strlen(u->dirs[i]) + 1;
    }
}

/* Where systemd puts a unit by default, below a hierarchy's root: a
 * slice in its parents' ("a-b.slice" in "a.slice"), an instance of a
 * template in its template's slice ("system-getty.slice", with '-'
 * escaped as systemd does), anything else in system.slice. */
static void default_place(const char *name, char *out, size_t outlen)
{
    size_t used = 0;
    out[0] = '\0';
    if (ends_with(name, ".slice")) {
        if (strcmp(name, "-.slice") == 0)
            return; /* the root slice is the hierarchy's root */
        size_t stem = strlen(name) - strlen(".slice");
        for (size_t i = 0; i < stem; i++)
            if (name[i] == '-' && used < outlen)
                used += (size_t)snprintf(out + used, outlen - used, "%.*s.slice/", (int)i, name);
        if (used < outlen)
            snprintf(out + used, outlen - used, "%s", name);
        return;
    }
    used = (size_t)snprintf(out, outlen, "system.slice/");
    const char *at = ends_with(name, ".service") ? strchr(name, '@') : NULL;
    if (at) {
        used += (size_t)snprintf(out + used, outlen - used, "system-");
        for (const char *p = name; p < at && used + 5 < outlen; p++)
            used += (size_t)(*p == '-' ? snprintf(out + used, outlen - used, "\\x2d")
                                       : snprintf(out + used, outlen - used, "%c", *p));
        used += (size_t)snprintf(out + used, outlen - used, ".slice/");
    }
    if (used < outlen)
        snprintf(out + used, outlen - used, "%s", name);
}

/* A walk below a hierarchy: slices and user managers are entered, every
 * other directory is a unit (or a unit's own sub-cgroup) and is not. A
 * single name's walk goes on past a user manager's unit of that name,
 * for the system manager's; the first user's is kept meanwhile. */
struct walk {
    struct pt_sdunit *u;
    unsigned opened;
    char manager[PT_UNIT_NAME_MAX]; /* the user manager walked in, or "" */
    char path[PT_SDUNIT_PATH_MAX];
    char user_match[PT_SDUNIT_PATH_MAX]; /* a single name: a user's unit found, or "" */
};

static bool is_user_manager(const char *name)
{
    return strncmp(name, "user@", 5) == 0 && ends_with(name, ".service");
}

static bool enters(const char *name)
{
    return ends_with(name, ".slice") || is_user_manager(name);
}

static bool matches(const struct pt_sdunit *u, const char *name)
{
    return u->glob ? fnmatch(u->name, name, FNM_PERIOD) == 0 : strcmp(u->name, name) == 0;
}

/* The walk is done: a single name's system unit is found. */
static bool found_system(const struct walk *w)
{
    return !w->u->glob && w->u->n_dirs;
}

static void walk_dir(struct walk *w, int dir_fd, size_t len, int depth)
{
    _Alignas(struct dirent64) char entries[PT_DIRENTS_LEVEL];
    struct pt_dirents dir;
    pt_dirents_init(&dir, dir_fd, entries, sizeof(entries));
    for (const char *name; !found_system(w) && (name = pt_dirents_next_dir(&dir));) {
        int n = snprintf(w->path + len, sizeof(w->path) - len, "/%s", name);
        if (n < 0 || (size_t)n >= sizeof(w->path) - len)
            continue;
        if (matches(w->u, name)) {
            if (w->u->glob || !w->manager[0])
                add_dir(w->u, w->path, w->manager);
            else if (!w->user_match[0])
                snprintf(w->user_match, sizeof(w->user_match), "%s", w->path);
            continue; /* its processes are its own: nothing below is another match's */
        }
        if (!enters(name) || depth >= PT_SDUNIT_WALK_DEPTH || w->opened >= PT_SDUNIT_WALK_MAX)
            continue;
        int sub = pt_callerfiles_open_at(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
        if (sub < 0)
            continue;
        w->opened++;
        char outer[sizeof(w->manager)];
        memcpy(outer, w->manager, sizeof(outer));
        if (is_user_manager(name))
            snprintf(w->manager, sizeof(w->manager), "%s", name);
        walk_dir(w, sub, len + (size_t)n, depth + 1);
        memcpy(w->manager, outer, sizeof(outer));
        close(sub);
    }
    w->path[len] = '\0';
}

/* The hierarchies systemd may manage, the cgroup2 one first. */
static const char *hierarchy(const struct pt_sdunit *u, int i)
{
    return i == 0 ? u->fs.v2 : u->fs.systemd_v1;
}

/* prefer: a user's unit taken before, kept when the walk finds no
 * system manager's unit (not another user's of the same name) */
static void walk(struct pt_sdunit *u, const char *prefer)
{
    struct walk w = {.u = u};
    snprintf(w.user_match, sizeof(w.user_match), "%s", prefer ? prefer : "");
    for (int i = 0; i < 2 && !u->n_dirs; i++) {
        const char *root = hierarchy(u, i);
        if (!root[0])
            continue;
        int fd = pt_callerfiles_open(root, O_RDONLY | O_DIRECTORY);
        if (fd < 0)
            continue;
        size_t len = (size_t)snprintf(w.path, sizeof(w.path), "%s", root);
        if (len < sizeof(w.path))
            walk_dir(&w, fd, len, 0);
        close(fd);
    }
    if (!u->n_dirs && w.user_match[0])
        add_dir(u, w.user_match, NULL);
}

bool pt_sdunit_users(const struct pt_sdunit *u, const char *dir, char *manager, size_t len)
{
    const char *below = NULL;
    for (int i = 0; i < 2 && !below; i++)
        below = pt_cgroupfs_below(hierarchy(u, i), dir);
    /* the innermost user manager among its parents: ".../user@UID.service/..." */
    const char *found = NULL, *found_end = NULL;
    for (const char *p = below ? strstr(below, "/user@") : NULL; p; p = strstr(p + 1, "/user@")) {
        const char *end = strchr(p + 1, '/');
        if (end && end - p > 1 + 5 + 8 && strncmp(end - 8, ".service", 8) == 0)
            found = p + 1, found_end = end;
    }
    if (manager && len)
        snprintf(manager, len, "%.*s", found ? (int)(found_end - found) : 0, found ? found : "");
    return found != NULL;
}

/* A single name where the system manager puts it by default. */
static void add_default_place(struct pt_sdunit *u)
{
    char place[PT_UNIT_NAME_MAX * 4], path[PT_SDUNIT_PATH_MAX];
    default_place(u->name, place, sizeof(place));
    for (int i = 0; i < 2 && !u->n_dirs; i++) {
        const char *root = hierarchy(u, i);
        int n = snprintf(path, sizeof(path), "%s%s%s", root, place[0] ? "/" : "", place);
        if (root[0] && n > 0 && (size_t)n < sizeof(path) && pt_cgroupfs_is_cgroup(path))
            add_dir(u, path, NULL);
    }
}

/* A single name: the system manager's unit where it was or where it goes
 * by default; else, at a walk, any system manager's unit of that name,
 * or a user's; between walks, the user's unit taken last. */
static void resolve_one(struct pt_sdunit *u)
{
    bool last_there = u->last[0] && pt_cgroupfs_is_cgroup(u->last);
    if (last_there && !u->last_user)
        add_dir(u, u->last, NULL); /* where it was: the usual case, a restart included */
    if (!u->n_dirs)
        add_default_place(u);
    if (!u->n_dirs && u->since_walk % PT_SDUNIT_REWALK == 0)
        walk(u, last_there ? u->last : NULL);
    else if (!u->n_dirs && last_there)
        add_dir(u, u->last, NULL); /* the user's unit, until the next walk */
    point_dirs(u);
    bool users = u->n_dirs && pt_sdunit_users(u, u->dirs[0], NULL, 0);
    u->since_walk = u->n_dirs && !users ? 0 : u->since_walk + 1;
    u->changed = u->moved = false;
    if (!u->n_dirs || strcmp(u->last, u->dirs[0]) == 0)
        return;
    u->changed = true;
    u->moved = u->last[0] != '\0';
    memcpy(u->previous, u->last, sizeof(u->previous));
    snprintf(u->last, sizeof(u->last), "%s", u->dirs[0]);
    u->last_user = users;
}

size_t pt_sdunit_resolve(struct pt_sdunit *u)
{
    forget_dirs(u);
    if (u->glob) {
        walk(u, NULL);
        point_dirs(u);
    } else {
        resolve_one(u);
    }
    return u->n_dirs;
}

bool pt_sdunit_systemd_manages(const struct pt_sdunit *u)
{
    char path[PT_CGROUPFS_PATH_MAX + 32];
    for (int i = 0; i < 2; i++) {
        const char *root = hierarchy(u, i);
        for (int j = 0; j < 2 && root[0]; j++) {
            snprintf(path, sizeof(path), "%s/%s", root, j == 0 ? "init.scope" : "system.slice");
            if (pt_cgroupfs_is_cgroup(path))
                return true;
        }
    }
    return false;
}

/* Where systemd keeps the unit files of the system's manager. */
static const char *const unit_dirs[] = {
    "/etc/systemd/system",         "/run/systemd/system",           "/run/systemd/transient",  "/run/systemd/generator",
    "/run/systemd/generator.late", "/usr/local/lib/systemd/system", "/usr/lib/systemd/system", "/lib/systemd/system",
};

const char *pt_sdunit_state(const struct pt_sdunit *u)
{
    /* an instance's file may be its template's: "a@b.service" -> "a@.service" */
    char template[PT_UNIT_NAME_MAX];
    const char *at = strchr(u->name, '@'), *dot = strrchr(u->name, '.');
    snprintf(template, sizeof(template), "%.*s%s", at && dot > at ? (int)(at - u->name + 1) : 0, u->name,
             at && dot > at ? dot : "");
    char path[PT_UNIT_NAME_MAX + 64];
    for (size_t i = 0; i < PT_ARRAY_LEN(unit_dirs) && !u->glob; i++) {
        snprintf(path, sizeof(path), "%s/%s", unit_dirs[i], u->name);
        if (access(path, F_OK) == 0)
            return "inactive";
        snprintf(path, sizeof(path), "%s/%s", unit_dirs[i], template);
        if (template[0] && access(path, F_OK) == 0)
            return "inactive";
    }
    return "unknown";
}

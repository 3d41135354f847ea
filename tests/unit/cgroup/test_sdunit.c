/* Unit tests for sdunit.c on fake cgroup trees: a glob's limit and the
 * count beyond it, the system manager's unit before a user's of the same
 * name (and again when it starts later), one line key per unit of a glob,
 * and whether a systemd manages the hierarchy at all. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "cgroup/sdunit.h"
#include "unit.h"

static const char *const USERS = "user.slice/user-1000.slice/user@1000.service/app.slice";

struct host {
    char *root;
    struct pt_cgroupfs fs;
};

/* A unified host: its cgroup2 at root/sys/fs/cgroup, systemd's init.scope
 * there when systemd is. */
static struct host host_new(bool systemd)
{
    struct host h = {.root = fx_root_new()};
    memset(&h.fs, 0, sizeof(h.fs));
    fx_write(h.root, "sys/fs/cgroup/cgroup.procs", "1\n", -1);
    if (systemd)
        fx_write(h.root, "sys/fs/cgroup/init.scope/cgroup.procs", "1\n", -1);
    snprintf(h.fs.v2, sizeof(h.fs.v2), "%s/sys/fs/cgroup", h.root);
    return h;
}

static void put_cgroup(const struct host *h, const char *rel, const char *pids)
{
    char path[1024];
    snprintf(path, sizeof(path), "sys/fs/cgroup/%s/cgroup.procs", rel);
    fx_write(h->root, path, pids, -1);
}

static void remove_cgroup(const struct host *h, const char *rel)
{
    char *cmd;
    ck_assert_int_ge(asprintf(&cmd, "rm -rf '%s/sys/fs/cgroup/%s'", h->root, rel), 0);
    ck_assert_int_eq(system(cmd), 0);
    free(cmd);
}

static void unit_ok(struct pt_sdunit *u, const char *name, const struct host *h)
{
    char err[256] = "";
    ck_assert_msg(pt_sdunit_init(u, name, &h->fs, err, sizeof(err)) == 0, "%s", err);
}

/* The directory found, below the hierarchy ("" for none). */
static const char *found(const struct pt_sdunit *u, const struct host *h)
{
    ck_assert_uint_le(u->n_dirs, 1);
    return u->n_dirs ? pt_cgroupfs_below(h->fs.v2, u->dirs[0]) : "";
}

/* 300 units: all of them (the old limit took 256, silently); 4,100: the
 * limit's, and the walk's count of all it matched, for the line that says
 * so. Resolving again allocates no new directory array. */
START_TEST(test_glob_limit)
{
    struct host h = host_new(true);
    char rel[128];
    for (int i = 0; i < 300; i++) {
        snprintf(rel, sizeof(rel), "system.slice/many-%d.service", i);
        put_cgroup(&h, rel, "");
    }
    struct pt_sdunit u;
    unit_ok(&u, "many-*.service", &h);
    ck_assert_uint_eq(pt_sdunit_resolve(&u), 300);
    ck_assert_uint_eq(u.n_matched, 300);
    char **dirs = u.dirs;
    ck_assert_uint_eq(pt_sdunit_resolve(&u), 300);
    ck_assert_ptr_eq(u.dirs, dirs);
    for (int i = 300; i < PT_SDUNIT_MATCHES_MAX + 4; i++) {
        snprintf(rel, sizeof(rel), "system.slice/many-%d.service", i);
        put_cgroup(&h, rel, "");
    }
    ck_assert_uint_eq(pt_sdunit_resolve(&u), PT_SDUNIT_MATCHES_MAX);
    ck_assert_uint_eq(u.n_matched, PT_SDUNIT_MATCHES_MAX + 4);
    for (size_t i = 0; i < u.n_dirs; i++)
        ck_assert_msg(strncmp(u.keys[i], "many-", 5) == 0 && strstr(u.dirs[i], u.keys[i]), "%s %s", u.dirs[i],
                      u.keys[i]);
    pt_sdunit_free(&u);
    fx_root_free(h.root);
}
END_TEST

/* A user's unit of the name is taken while the system manager runs none,
 * and the system manager's replaces it when it starts: at its default
 * place at once, elsewhere at the next walk. The system's is kept then,
 * the user's never taken back while the system's runs. */
START_TEST(test_system_unit_first)
{
    struct host h = host_new(true);
    char user_dir[256];
    snprintf(user_dir, sizeof(user_dir), "%s/same.service", USERS);
    put_cgroup(&h, user_dir, "100\n");
    struct pt_sdunit u;
    unit_ok(&u, "same.service", &h);
    ck_assert_uint_eq(pt_sdunit_resolve(&u), 1);
    ck_assert_str_eq(found(&u, &h), "/user.slice/user-1000.slice/user@1000.service/app.slice/same.service");
    char manager[64];
    ck_assert(pt_sdunit_users(&u, u.dirs[0], manager, sizeof(manager)));
    ck_assert_str_eq(manager, "user@1000.service");
    ck_assert(u.changed && !u.moved);
    pt_sdunit_resolve(&u);
    ck_assert(!u.changed); /* kept */

    put_cgroup(&h, "system.slice/same.service", "200\n");
    ck_assert_uint_eq(pt_sdunit_resolve(&u), 1);
    ck_assert_str_eq(found(&u, &h), "/system.slice/same.service");
    ck_assert(!pt_sdunit_users(&u, u.dirs[0], manager, sizeof(manager)));
    ck_assert_str_eq(manager, "");
    ck_assert(u.changed && u.moved);
    ck_assert_ptr_nonnull(strstr(u.previous, "user@1000.service/app.slice/same.service"));
    for (int i = 0; i < 2 * PT_SDUNIT_REWALK; i++) {
        pt_sdunit_resolve(&u);
        ck_assert_str_eq(found(&u, &h), "/system.slice/same.service");
    }

    /* stopped: the user's again, until the system's starts in a slice of
     * its own, which a walk finds within PT_SDUNIT_REWALK resolutions */
    remove_cgroup(&h, "system.slice/same.service");
    pt_sdunit_resolve(&u);
    ck_assert_str_eq(found(&u, &h), "/user.slice/user-1000.slice/user@1000.service/app.slice/same.service");
    put_cgroup(&h, "custom.slice/same.service", "300\n");
    int n = 0;
    while (strcmp(found(&u, &h), "/custom.slice/same.service") != 0 && n <= PT_SDUNIT_REWALK) {
        pt_sdunit_resolve(&u);
        n++;
    }
    ck_assert_int_le(n, PT_SDUNIT_REWALK);
    ck_assert(u.moved);
    pt_sdunit_free(&u);

    /* both there at the start: the system manager's, whatever the walk
     * meets first */
    unit_ok(&u, "same.service", &h);
    pt_sdunit_resolve(&u);
    ck_assert_str_eq(found(&u, &h), "/custom.slice/same.service");
    pt_sdunit_free(&u);
    fx_root_free(h.root);
}
END_TEST

/* Two users' units of one name and no system one: the one taken first is
 * kept at the next walks (no flapping between them). */
START_TEST(test_user_unit_kept)
{
    struct host h = host_new(true);
    put_cgroup(&h, "user.slice/user-1000.slice/user@1000.service/app.slice/same.service", "100\n");
    put_cgroup(&h, "user.slice/user-1001.slice/user@1001.service/app.slice/same.service", "101\n");
    struct pt_sdunit u;
    unit_ok(&u, "same.service", &h);
    pt_sdunit_resolve(&u);
    char first[PT_SDUNIT_PATH_MAX];
    snprintf(first, sizeof(first), "%s", u.dirs[0]);
    for (int i = 0; i < 3 * PT_SDUNIT_REWALK; i++) {
        pt_sdunit_resolve(&u);
        ck_assert_str_eq(u.dirs[0], first);
        ck_assert(!u.changed);
    }
    pt_sdunit_free(&u);
    fx_root_free(h.root);
}
END_TEST

/* A glob over a system unit and a user's of one name: two directories,
 * two keys. */
START_TEST(test_glob_keys)
{
    struct host h = host_new(true);
    char user_dir[256];
    snprintf(user_dir, sizeof(user_dir), "%s/twin.service", USERS);
    put_cgroup(&h, user_dir, "100\n");
    put_cgroup(&h, "system.slice/twin.service", "200\n");
    put_cgroup(&h, "system.slice/twin-b.service", "300\n");
    struct pt_sdunit u;
    unit_ok(&u, "twin*", &h);
    ck_assert_uint_eq(pt_sdunit_resolve(&u), 3);
    const char *want[][2] = {
        {"/system.slice/twin.service", "twin.service"},
        {"/system.slice/twin-b.service", "twin-b.service"},
        {"/user.slice/user-1000.slice/user@1000.service/app.slice/twin.service", "user@1000.service:twin.service"},
    };
    for (size_t w = 0; w < 3; w++) {
        bool seen = false;
        for (size_t i = 0; i < u.n_dirs; i++)
            if (strcmp(pt_cgroupfs_below(h.fs.v2, u.dirs[i]), want[w][0]) == 0) {
                ck_assert_str_eq(u.keys[i], want[w][1]);
                seen = true;
            }
        ck_assert_msg(seen, "%s not found", want[w][0]);
    }
    pt_sdunit_free(&u);
    fx_root_free(h.root);
}
END_TEST

/* init.scope or system.slice at the root: a systemd manages it; neither
 * (a host without systemd, a container's own cgroups): none. */
START_TEST(test_systemd_manages)
{
    struct host with = host_new(true), without = host_new(false);
    struct pt_sdunit u;
    unit_ok(&u, "x.service", &with);
    ck_assert(pt_sdunit_systemd_manages(&u));
    pt_sdunit_free(&u);
    unit_ok(&u, "x.service", &without);
    ck_assert(!pt_sdunit_systemd_manages(&u));
    put_cgroup(&without, "system.slice", "");
    ck_assert(pt_sdunit_systemd_manages(&u));
    pt_sdunit_free(&u);
    fx_root_free(with.root);
    fx_root_free(without.root);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("sdunit");
    TCase *tc = unit_tcase(suite, "sdunit");
    tcase_add_test(tc, test_glob_limit);
    tcase_add_test(tc, test_system_unit_first);
    tcase_add_test(tc, test_user_unit_kept);
    tcase_add_test(tc, test_glob_keys);
    tcase_add_test(tc, test_systemd_manages);
    return unit_run(suite);
}

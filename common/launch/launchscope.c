/* launchscope: the launched command's cgroup on a systemd host
 * (launchscope.h says why). */
#include "launch/launchscope.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "util/base.h"
#include "util/escape.h"
#include "procfs/procfile.h"
#include "launch/sdscope.h"

/* Our own cgroup v2 path, from /proc/self/cgroup, into out: 0 or -1. */
static int own_v2_path(char *out, size_t outlen)
{
    struct pt_buf buf = {0};
    int r = pt_procfs_read_file_at(AT_FDCWD, PT_LAUNCH_OWN_PROC "/self/cgroup", &buf) > 0
                ? pt_launch_cgroup_own_path(buf.data, 0, out, outlen)
                : -1;
    pt_buf_free(&buf);
    return r == 0 && out[0] == '/' ? 0 : -1;
}

/* The slice our own cgroup is in, as the system manager names it: the
 * last of the *.slice components its path starts with
 * ("/user.slice/user-0.slice/session-1.scope": user-0.slice), "" when it
 * starts with none (the scope then goes where systemd puts it). A slice
 * holds none of our unit's limits but keeps the command within the
 * slice's. */
static void own_slice(const char *own, char *out, size_t outlen)
{
    out[0] = '\0';
    for (const char *c = own; *c == '/';) {
        size_t len = strcspn(c + 1, "/");
        if (len <= 6 || memcmp(c + 1 + len - 6, ".slice", 6) != 0)
            break;
        snprintf(out, outlen, "%.*s", (int)len, c + 1);
        c += 1 + len;
    }
}

/* Has systemd delegated dir to its unit (Delegate=yes)? It marks the
 * unit's cgroup with the xattr trusted.delegate=1 (and, where the kernel
 * has user.* xattrs on cgroups, user.delegate=1, which any user can read);
 * a cgroup below that one is in the delegated subtree too. mount is where
 * the walk up stops. */
static bool delegated(const char *dir, size_t mount_len)
{
    char at[PT_CGROUPFS_PATH_MAX];
    snprintf(at, sizeof(at), "%s", dir);
    for (size_t len = strlen(at); len > mount_len;) {
        static const char *const names[] = {"trusted.delegate", "user.delegate"};
        for (size_t i = 0; i < PT_ARRAY_LEN(names); i++) {
            char v[8];
            ssize_t n = getxattr(at, names[i], v, sizeof(v));
            if (n == 1 && v[0] == '1')
                return true;
        }
        char *slash = strrchr(at, '/');
        if (!slash)
            break;
        *slash = '\0';
        len = (size_t)(slash - at);
    }
    return false;
}

/* The kernel's controllers a cgroup lacks, of those cgstat reads ("" when
 * none), from its cgroup.controllers. */
static void missing_controllers(const char *dir, char *out, size_t outlen)
{
    static const char *const wanted[] = {"cpu", "io", "memory", "pids"};
    char file[PT_CGROUPFS_PATH_MAX + 32];
    snprintf(file, sizeof(file), "%s/cgroup.controllers", dir);
    struct pt_buf buf = {0};
    ssize_t n = pt_procfs_read_file_at(AT_FDCWD, file, &buf);
    out[0] = '\0';
    for (size_t i = 0, at = 0; i < PT_ARRAY_LEN(wanted); i++) {
        bool have = false;
        for (const char *c = n > 0 ? buf.data : ""; *c && !have;) {
            size_t len = strcspn(c, " \n");
            have = len == strlen(wanted[i]) && memcmp(c, wanted[i], len) == 0;
            c += len + (c[len] != '\0');
        }
        if (!have && at < outlen)
            at += (size_t)snprintf(out + at, outlen - at, "%s%s", at ? ", " : "", wanted[i]);
    }
    pt_buf_free(&buf);
}

bool pt_launch_scope_plan(struct pt_launch_cgroup *cg, const char *not_below)
{
    char own[PT_CGROUPFS_PATH_MAX], q[PT_QUOTED_MAX];
    cg->scope = true;
    snprintf(cg->scope_name, sizeof(cg->scope_name), "proctree-launch-%d.scope", (int)getpid());
    snprintf(cg->not_below, sizeof(cg->not_below), "%s", not_below ? not_below : "");
    bool have_own = own_v2_path(own, sizeof(own)) == 0;
    if (have_own && geteuid() == 0)
        own_slice(own, cg->scope_slice, sizeof(cg->scope_slice));
    size_t dlen = strlen(cg->where.v2), olen = have_own ? strlen(own) : 0;
    size_t mount_len = olen > 1 && dlen >= olen ? dlen - olen : dlen;
    if (delegated(cg->where.v2, mount_len))
        return true;
    snprintf(cg->fallback, sizeof(cg->fallback),
             "it gets no cgroup of its own: \"%s\", proctree's, is not delegated to it (Delegate=yes) and systemd's "
             "rules let no one else make cgroups there; no cgroup_* metrics (exact CPU time, memory peak, OOM kills, "
             "stalls); run it as root, or give --launch-cgroup a delegated cgroup",
             pt_escape(have_own ? own : cg->where.v2, q, sizeof(q)));
    return false;
}

void pt_launch_scope_describe_fallback(struct pt_launch_cgroup *cg)
{
    char missing[64], q[PT_QUOTED_MAX];
    missing_controllers(cg->dir, missing, sizeof(missing));
    pt_escape(cg->dir, q, sizeof(q));
    if (!missing[0])
        snprintf(cg->fallback, sizeof(cg->fallback), "it runs in \"%s\", below proctree's own delegated cgroup", q);
    else
        snprintf(cg->fallback, sizeof(cg->fallback),
                 "it runs in \"%s\", below proctree's own delegated cgroup, without the %s controllers (no such "
                 "cgroup_* metrics): the kernel enables none below a cgroup that holds processes, as proctree's does; "
                 "give --launch-cgroup a cgroup whose parent holds none and enables them",
                 q, missing);
}

/* The child is in systemd's scope when /proc/PID/cgroup says so: its
 * path there, into out. 0, or -1 (with why) at the deadline. */
static int wait_in_scope(const struct pt_launch_cgroup *cg, pid_t pid, double deadline, char *out, size_t outlen,
                         char *why, size_t whylen)
{
    char file[64];
    snprintf(file, sizeof(file), PT_LAUNCH_OWN_PROC "/%d/cgroup", (int)pid);
    struct pt_buf buf = {0};
    size_t nlen = strlen(cg->scope_name);
    int r = -1;
    for (;;) {
        size_t len;
        if (pt_procfs_read_file_at(AT_FDCWD, file, &buf) > 0 &&
            pt_launch_cgroup_own_path(buf.data, 0, out, outlen) == 0 && (len = strlen(out)) > nlen &&
            out[len - nlen - 1] == '/' && strcmp(out + len - nlen, cg->scope_name) == 0) {
            r = 0;
            break;
        }
        if (pt_now() >= deadline) {
            snprintf(why, whylen, "systemd took the request, but the command was not in the scope within %.0f s",
                     PT_SDSCOPE_TIMEOUT);
            break;
        }
        nanosleep(&(struct timespec){0, 5000000}, NULL);
    }
    pt_buf_free(&buf);
    return r;
}

/* A user's manager can move only processes of its own subtree
 * (user.slice/user-UID.slice/user@UID.service/...): cgroup v2 lets a
 * process move only with write access to the common ancestor's
 * cgroup.procs. Asked from elsewhere (a system service run as a user),
 * its scope's job fails, so it is not asked: true, with why. */
static bool user_manager_cannot(char *why, size_t whylen)
{
    char own[PT_CGROUPFS_PATH_MAX] = "", want[64], q[PT_QUOTED_MAX];
    if (geteuid() == 0)
        return false;
    snprintf(want, sizeof(want), "/user@%u.service/", (unsigned)geteuid());
    if (own_v2_path(own, sizeof(own)) == 0 && strstr(own, want))
        return false;
    snprintf(why, whylen,
             "not root, and proctree's cgroup \"%s\" is outside the user's manager (user@%u.service), which can move "
             "no process from there",
             pt_escape(own, q, sizeof(q)), (unsigned)geteuid());
    return true;
}

int pt_launch_scope_get(struct pt_launch_cgroup *cg, pid_t pid, char *why, size_t whylen)
{
    char sock[PT_CGROUPFS_PATH_MAX], path[PT_CGROUPFS_PATH_MAX], dir[PT_CGROUPFS_PATH_MAX];
    double deadline = pt_now() + PT_SDSCOPE_TIMEOUT;
    const struct pt_sd_scope scope = {cg->scope_name,
                                      cg->scope_slice[0] ? cg->scope_slice : NULL,
                                      "a command launched by proctree-execd",
                                      {pid, cg->keeper},
                                      cg->keeper > 0 ? 2 : 1};
    if (user_manager_cannot(why, whylen) || pt_sdscope_manager_socket(sock, sizeof(sock), why, whylen) != 0 ||
        pt_sdscope_start(sock, &scope, PT_SDSCOPE_TIMEOUT, why, whylen) != 0 ||
        wait_in_scope(cg, pid, deadline, path, sizeof(path), why, whylen) != 0)
        return -1;
    struct pt_buf mountinfo = {0};
    int r =
        pt_procfs_read_file_at(AT_FDCWD, PT_LAUNCH_OWN_PROC "/self/mountinfo", &mountinfo) > 0
            ? pt_cgroupfs_own_dir(mountinfo.data, NULL, path, cg->not_below[0] ? cg->not_below : NULL, dir, sizeof(dir))
            : -1;
    pt_buf_free(&mountinfo);
    char q[PT_QUOTED_MAX];
    if (r != 0) {
        snprintf(why, whylen, "no cgroup2 mount here shows its scope \"%s\"", pt_escape(path, q, sizeof(q)));
        return -1;
    }
    pt_launch_cgroup_remove(cg);
    snprintf(cg->dir, sizeof(cg->dir), "%s", dir);
    snprintf(cg->where.v2, sizeof(cg->where.v2), "%s", dir);
    *strrchr(cg->where.v2, '/') = '\0'; /* dir ends in "/NAME.scope" */
    pt_logf(PT_LOG_INFO,
            "the launched command runs in systemd's transient scope \"%s\", its cgroup (systemd removes it once it is "
            "empty)",
            pt_escape(path, q, sizeof(q)));
    return 0;
}

/* sdscope: ask systemd for a transient scope that holds one process.
 *
 * On a systemd host a cgroup is systemd's to make: a process may make
 * sub-cgroups only where its unit is delegated (CGROUP_DELEGATION.md), and
 * even there the kernel enables no controller below a cgroup that holds
 * processes (cgroup v2's no-internal-process rule), so a cgroup made below
 * our own busy one has no memory, io nor pids files. A transient scope
 * (StartTransientUnit) is systemd's own: placed in a slice, with the
 * controllers its *Accounting= properties ask for enabled above it, and
 * removed by systemd when it empties.
 *
 * The call goes over the manager's private socket (/run/systemd/private,
 * $XDG_RUNTIME_DIR/systemd/private for a user's manager), which systemctl
 * and systemd-run use as root: a peer-to-peer D-Bus connection, no bus
 * daemon. It is spoken by libsystemd's sd-bus, maintained and fuzzed by
 * systemd, opened at run time (dlopen of libsystemd.so.0, docs/DESIGN.md
 * says why): a host without it, which has no systemd to ask, needs nothing.
 * Every step, connect to reply, ends at one deadline; the manager's signals
 * are skipped. */
#ifndef PROCTREE_SDSCOPE_H
#define PROCTREE_SDSCOPE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Seconds the call may take, connect to reply. */
#define PT_SDSCOPE_TIMEOUT 10.0

/* The library sd-bus is opened from (libsystemd0's soname). */
#define PT_SD_LIBRARY "libsystemd.so.0"

/* systemd is PID 1 here: sd_booted's test (/run/systemd/system is a
 * directory), and PID 1 of our pid namespace calls itself systemd, so that
 * the pid we pass names the same process for it. */
bool pt_sdscope_booted(void);

/* The private socket of the manager that may move a process of ours: the
 * system manager's for root, else our user's. 0, or -1 with why in err. */
int pt_sdscope_manager_socket(char *out, size_t outlen, char *err, size_t errlen);

struct pt_sd_scope {
    const char *name;        /* "x.scope" */
    const char *slice;       /* NULL: the manager's default */
    const char *description; /* never a command line: anyone may read it */
    pid_t pids[2];
    size_t n_pids;
};

/* StartTransientUnit(name, "fail", PIDs=pids, Memory/CPU/IO/TasksAccounting
 * = yes, CollectMode=inactive-or-failed, Description, Slice) over socket.
 * Returns 0 once systemd has queued the start (the pid is moved when the
 * job runs: the caller waits for /proc/PID/cgroup to show it), or -1 with
 * a one-line reason in err: no libsystemd, no connection, a refused
 * authentication, a message sd-bus refuses, the deadline, the connection
 * closed, or systemd's error name and message, escaped. */
int pt_sdscope_start(const char *socket, const struct pt_sd_scope *scope, double timeout, char *err, size_t errlen);

#endif

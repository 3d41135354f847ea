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
 * daemon, no libsystemd. Only the one method call is spoken (AUTH
 * EXTERNAL, then a METHOD_CALL and its reply; the manager's signals are
 * skipped), every read and write with a deadline, every length bounded. */
#ifndef PROCTREE_SDSCOPE_H
#define PROCTREE_SDSCOPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Seconds the call may take, connect to reply. */
#define PT_SDSCOPE_TIMEOUT 10.0

/* systemd is PID 1 here: sd_booted's test (/run/systemd/system is a
 * directory), and PID 1 of our pid namespace calls itself systemd, so that
 * the pid we pass names the same process for it. */
bool pt_sd_booted(void);

/* The private socket of the manager that may move a process of ours: the
 * system manager's for root, else our user's. 0, or -1 with why in err. */
int pt_sd_manager_socket(char *out, size_t outlen, char *err, size_t errlen);

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
 * a one-line reason in err (systemd's error name and message, escaped). */
int pt_sd_start_scope(const char *socket, const struct pt_sd_scope *scope, double timeout, char *err, size_t errlen);

/* ---- the reply's parsing, without a socket (fuzz/fuzz_sdscope.c) ---- */

/* A message of systemd's is read whole into a buffer of this size: a
 * longer one is refused. */
#define PT_SD_REPLY_MAX (64 << 10)
/* D-Bus's fixed header: byte order ('l' or 'B'), type, flags, version,
 * then the body's length, the serial and the header fields' length (u32
 * each, in that byte order). */
#define PT_SD_HEADER_SIZE 16

/* The whole length of the message that starts with the fixed header head:
 * PT_SD_HEADER_SIZE .. PT_SD_REPLY_MAX, or 0 when head is not that of a
 * D-Bus message of at most PT_SD_REPLY_MAX bytes. */
size_t pt_sd_message_size(const uint8_t head[PT_SD_HEADER_SIZE]);

/* What the client takes from a message: every pointer points into it. */
struct pt_sd_reply {
    uint8_t type;              /* the header's: 2 method return, 3 error, 4 signal, ... */
    uint32_t reply_serial;     /* the REPLY_SERIAL field, 0 without one */
    const char *error_name;    /* the ERROR_NAME field, NUL-terminated within the header fields; or NULL */
    const char *error_message; /* type 3: the body's first string, NUL-terminated within it; or NULL */
};

/* One whole message of len bytes as received (len must be its
 * pt_sd_message_size), in either byte order: its header fields walked,
 * each at an 8-byte boundary with a one-type signature of u, s, o or g
 * and a value within the fields; any other type, or a length past the
 * fields, is malformed. 0, or -1 when malformed (out then holds nothing
 * to use). The pt_sd_start_scope client's reader; exposed so that it can
 * be tried without a socket. */
int pt_sd_parse_message(const uint8_t *msg, size_t len, struct pt_sd_reply *out);

#endif

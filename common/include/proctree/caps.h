/* caps: the capabilities proctree uses, raised where they are only
 * permitted, and in words why one it lacks is missing.
 *
 * Of another user's process, smaps_rollup needs ptrace access
 * (CAP_SYS_PTRACE), fd/ (mode 0500) the file permission check
 * (CAP_DAC_READ_SEARCH), io (0400) both; the exit records need
 * CAP_NET_ADMIN. Given to the binary as file capabilities they are to be
 * permitted only (setcap ...=p): with the effective bit (=ep) the kernel
 * refuses to exec a binary whose permitted set it cannot grant whole (a
 * container whose bounding set lacks one of them), and an agent that
 * cannot start one input stops altogether. Permitted only, the exec always
 * succeeds, and pt_caps_raise makes effective what was granted; the
 * launched command gets none of them (they are never inheritable nor
 * ambient).
 *
 * What is missing is told apart by what the kernel shows: not in the
 * bounding set (the container was not given it), no-new-privileges (the
 * kernel then ignores file capabilities), a nosuid mount (the same), held
 * in a user namespace of its own (it does not reach the host's processes),
 * or simply not given (a change of user clears them, and the binary
 * carries none).
 *
 * Capabilities belong to the process: the state is one snapshot for the
 * process, read at the first use and again by pt_caps_raise. */
#ifndef PROCTREE_CAPS_H
#define PROCTREE_CAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proctree/buf.h"

enum pt_cap { PT_CAP_SYS_PTRACE, PT_CAP_DAC_READ_SEARCH, PT_CAP_NET_ADMIN, PT_CAP_COUNT };
/* A set of them: bits of an unsigned. */
#define PT_CAP_BIT(cap) (1u << (cap))

enum pt_cap_state {
    PT_CAP_EFFECTIVE,    /* held (or raised by pt_caps_raise) */
    PT_CAP_NOT_BOUNDED,  /* not in the bounding set: the container was not given it */
    PT_CAP_NO_NEW_PRIVS, /* the binary carries it; no-new-privileges makes the kernel ignore that */
    PT_CAP_NOSUID,       /* the binary carries it on a nosuid mount, where the kernel ignores that */
    PT_CAP_NOT_GRANTED,  /* the binary carries it, and the kernel did not grant it (a user namespace?) */
    PT_CAP_NOT_GIVEN,    /* neither held nor carried by the binary */
    PT_CAP_DROPPED,      /* lent by the binary, given up for good (pt_caps_drop_lent) */
};

struct pt_caps {
    enum pt_cap_state state[PT_CAP_COUNT];
    bool on_file[PT_CAP_COUNT]; /* the binary carries it as a file capability */
    bool own_user_ns;           /* held in a user namespace of its own: it does not reach the host's processes */
    unsigned uid;               /* the effective uid */
};

/* Raise the capabilities proctree uses that are permitted but not
 * effective (proctree-execd, at start: file capabilities set =p), then
 * read the snapshot again. */
void pt_caps_raise(void);

/* Make the capabilities pt_caps_raise raised only permitted again, so
 * that what runs next runs with the permissions of the user who started
 * proctree (launch mode: the command's cgroup, its output file, the exec
 * and its PATH search; a file capability's CAP_DAC_READ_SEARCH would
 * otherwise let a user run a program in a directory closed to him, and
 * tell from the errors what exists there). The exec itself drops the
 * permitted set of a user without capabilities of his own (the command's
 * binary carries none); this covers what comes before it. Returns false
 * when they could not be lowered (nothing is then to run). pt_caps_raise
 * raises them again; the snapshot is not changed. */
bool pt_caps_lower(void);

/* Around an open of something the caller chose (a pid file, a cgroup
 * path, a file below a sys root): the capabilities pt_caps_raise raised
 * are made permitted only, and the set lowered is returned for
 * pt_caps_resume to raise again. 0, without a system call, where none is
 * raised (collectd, root, a binary that carries none): the caller's own
 * permissions are then all there is. PT_CAPS_PAUSE_FAILED when they could
 * not be lowered: the open must not be made. */
#define PT_CAPS_PAUSE_FAILED UINT32_MAX
uint32_t pt_caps_pause(void);
void pt_caps_resume(uint32_t paused);

/* The BPF source's load (collectorsource.c): CAP_BPF and CAP_PERFMON
 * made effective where they are only permitted (the binary's file
 * capabilities, setcap ...=p), for the load and attach alone; the bits
 * raised are returned (0, with no system call, where they are held or
 * not permitted: root, collectd), for pt_caps_drop_bpf to take out of the
 * effective and permitted sets for good once the program is attached: a
 * pass of its iterator needs neither. */
uint32_t pt_caps_raise_bpf(void);
void pt_caps_drop_bpf(uint32_t raised);

/* Did this process raise any capability the binary lends it (file
 * capabilities, permitted only), rather than hold it as the caller's own? */
bool pt_caps_lent(void);

/* Give the lent capabilities up for good: out of the effective, permitted
 * and inheritable sets, so nothing can raise them again; the snapshot then
 * says PT_CAP_DROPPED. For a proc root the caller chose that cannot be
 * confined (caps.c's callers say when). False when the kernel refused. */
bool pt_caps_drop_lent(void);

/* This process's snapshot. */
const struct pt_caps *pt_caps_current(void);

/* Why cap is not usable, in words that say what to do, into out; NULL
 * when it is held and reaches the host's processes. */
const char *pt_caps_why_missing(const struct pt_caps *caps, enum pt_cap cap, char *out, size_t outlen);

/* Those of set that are not usable, grouped by reason ("CAP_A and CAP_B:
 * why; CAP_C: why"), appended to out. Returns the set of them. */
unsigned pt_caps_describe_missing(const struct pt_caps *caps, unsigned set, struct pt_buf *out);

/* One warning line, once, naming every capability the binary carries (or,
 * running as root, any proctree uses) that could not be had, why, and
 * what is left out for it. */
void pt_caps_say_missing(void);

/* The set pt_caps_say_missing named: a later line about a refused read
 * need not say it again. */
unsigned pt_caps_said(void);

#endif

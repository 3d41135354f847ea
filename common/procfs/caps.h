/* caps, the library's part: the snapshot of what is held and why not, and
 * the capabilities paused or given up around the library's own opens
 * (proctree/caps.h says which proctree uses and why). */
#ifndef PROCTREE_PROCFS_CAPS_H
#define PROCTREE_PROCFS_CAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proctree/caps.h"
#include "util/buf.h"

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

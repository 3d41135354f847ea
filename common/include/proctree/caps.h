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
 * process, read at the first use and again by pt_caps_raise.
 *
 * This is the frontends' part; procfs/caps.h, which includes it, the
 * library's rest (the snapshot, and the raising and lowering around
 * the library's own opens). */
#ifndef PROCTREE_CAPS_H
#define PROCTREE_CAPS_H

#include <stdbool.h>

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

#endif

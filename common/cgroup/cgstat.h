/* cgstat: the kernel's own accounting of one cgroup, read from its files:
 * cgroup v2's, and where a controller lives on a v1 hierarchy (hybrid and
 * legacy hosts) that controller's, with the same meaning.
 *
 * What is read from where is decided by what the kernel offers for the
 * cgroup, file by file, when it is opened: a v2 file first, its v1 twin
 * when the v2 one is missing or lacks the key. A quantity that no file
 * gives is not offered (pt_cgstat_offered), and is then never reported,
 * rather than reported as 0. Nothing is ever written to a v1 file (a
 * write to memory.max_usage_in_bytes resets it for everyone); v2's
 * memory.peak is written, through a descriptor of our own, which since
 * Linux 6.12 resets the peak for that descriptor only.
 *
 * Descriptors: every file there when the cgroup is opened is kept open
 * and read again with one pread, as the descriptor budget allows
 * (fdbudget.h: memory in use, read at every poll, counts as a hot file,
 * the others, read once an interval, as cold ones); a file not there
 * then is looked for only at cgacct.h's looks again
 * (pt_cgstat_look_again), which open nothing else. Past the budget a
 * file is opened, read and closed at each read, and memory.peak, which must be the same descriptor across
 * a reset, is read unreset: the lifetime peak. A kept descriptor whose
 * read fails (its file removed with its controller) is closed, and the
 * file opened by its path at the next read.
 *
 * A reset that fails after one was taken (the peak would then span more
 * than the interval) stops the resets for good: from the next read the
 * cgroup's peak is its lifetime's, and reset_error says why. */
#ifndef PROCTREE_CGSTAT_H
#define PROCTREE_CGSTAT_H

#include <stdbool.h>
#include <stdint.h>

#include "util/buf.h"
#include "cgroup/cgroupfs.h"
#include "util/fdbudget.h"
#include "report/quantities.h"

/* The files read at each interval's end besides memory in use and the
 * peak (cgstat.c's enum file). */
#define PT_CGSTAT_FILES 14

struct pt_cgstat {
    struct pt_cgroup_dirs dirs;
    struct pt_fd_budget *budget; /* or NULL: keep every descriptor */
    int fd[PT_CGSTAT_FILES];     /* each file kept open, or -1 */
    uint32_t present;            /* the files there at the open (bits by enum file): only they are read */
    int current_file;            /* which file gives memory in use (cgstat.c), or -1 */
    int current_fd;              /* it, kept open, or -1 */
    int peak_fd;                 /* v2 memory.peak kept open, or -1 */
    bool peak_unkept;            /* memory.peak is there, past the budget: read at each read */
    bool peak_resets;
    int reset_error;              /* errno of a reset refused after one was taken, or 0 */
    uint32_t offered;             /* bits 1u << enum pt_cgq */
    uint64_t value[PT_CGQ_COUNT]; /* the last read */
    uint32_t read;                /* bits of value set by the last read */
};

/* Each mask is wide enough for what it indexes; all of offered and read
 * is (1u << PT_CGQ_COUNT) - 1, which needs one bit more (cgacct.c). */
_Static_assert(PT_CGSTAT_FILES <= PT_MASK_BITS(struct pt_cgstat, present), "enum file outgrows present");
_Static_assert(PT_CGQ_COUNT < PT_MASK_BITS(struct pt_cgstat, offered), "enum pt_cgq outgrows offered");
_Static_assert(PT_CGQ_COUNT < PT_MASK_BITS(struct pt_cgstat, read), "enum pt_cgq outgrows read");

/* Open the cgroup whose files are in dirs, its kept descriptors taken
 * from budget (NULL: no budget): 0, or -1 when none of its files can be
 * read (the cgroup is gone). */
int pt_cgstat_open(struct pt_cgstat *s, const struct pt_cgroup_dirs *dirs, struct pt_fd_budget *budget,
                   struct pt_buf *buf);
void pt_cgstat_close(struct pt_cgstat *s);

/* The poll: memory in use now, in bytes. 0, or -1 when it cannot be had. */
int pt_cgstat_read_current(struct pt_cgstat *s, struct pt_buf *buf, uint64_t *bytes);

/* Every quantity offered, into value (and read). The peak is reset for
 * the next read where the kernel resets it per descriptor. -1 when the
 * cgroup is gone (its files read as nothing). */
int pt_cgstat_read(struct pt_cgstat *s, struct pt_buf *buf);

/* The looks again at what the cgroup lacks (cgacct.h, every
 * PT_CGACCT_REPROBE_SETS sets): each file not there at the open opened
 * where it would be (where: the cgroup's paths in every hierarchy, made
 * or not, pt_cgroupfs_paths_of), and taken when it gives what no file of
 * the cgroup gives yet; memory in use and the peak likewise when none is
 * offered. Nothing else is opened, read or closed: a cgroup whose files
 * are still missing costs one failed open each. Returns the quantities
 * offered since, the cumulative ones' values now in value. */
uint32_t pt_cgstat_look_again(struct pt_cgstat *s, const struct pt_cgroup_dirs *where, struct pt_buf *buf);

#endif

/* membersource: a member's interval counters from the source its target
 * reads: the task iterator's snapshot of this pass (taskiter.h), where it
 * holds the member, else the member's own /proc files (member.h,
 * memberthreads.h). Both give the same numbers (taskfold.h says how); a
 * member the snapshot lacks (joined since, reaped, or one the iterator
 * does not show) is read from its files, which also tell that it is gone.
 *
 * served is set when the snapshot answered, for the collector's count
 * of them (collector_bpf_reads). */
#ifndef PROCTREE_MEMBERSOURCE_H
#define PROCTREE_MEMBERSOURCE_H

#include <stdbool.h>
#include <stdint.h>

#include "util/buf.h"
#include "member/memberstate.h"

/* What the reads need to know of the host: USER_HZ and the page size. */
struct pt_membersource_units {
    long ticks_per_second;
    long page_size;
};

/* statm, in pages (pt_member_read_statm); and m->polled_fds, its
 * descriptors where the snapshot counted them. */
enum pt_read pt_membersource_statm(struct pt_member *m, int proc_root_fd, struct pt_buf *buf,
                                   struct pt_membersource_units units, struct pt_statm *out, bool *served);

/* stat and io (pt_member_read_counters). */
enum pt_read pt_membersource_counters(struct pt_member *m, int proc_root_fd, struct pt_buf *buf, bool blkio,
                                      struct pt_membersource_units units, bool *served);

/* Its children (pt_member_read_children): fn(pid, arg) for each. */
enum pt_read pt_membersource_children(struct pt_member *m, int proc_root_fd, struct pt_buf *buf,
                                      int (*fn)(pid_t pid, void *arg), void *arg, bool *no_children_files);

/* Its open descriptors (pt_member_count_fds). The snapshot counts them
 * once the files have (their permissions decide, again after an exec);
 * its fd/ then gives its kept descriptor back. */
enum pt_read pt_membersource_fds(struct pt_member *m, int proc_root_fd, struct pt_membersource_units units,
                                 int64_t *count);

/* The per-thread counts (pt_member_read_tcounts). */
enum pt_read pt_membersource_tcounts(struct pt_member *m, int proc_root_fd, struct pt_buf *buf, unsigned want,
                                     struct pt_membersource_units units, int64_t now[PT_TC_COUNT], unsigned *got,
                                     bool *served);

#endif

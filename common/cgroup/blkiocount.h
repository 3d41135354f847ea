/* blkiocount: whether cgroup v1's blkio controller counts any block I/O.
 *
 * v1 blkio's stat files (blkio.throttle.io_service_bytes, which
 * cgroup_io_* are read from, and io_serviced) are the throttle policy's
 * counters, kept only for a disk whose queue has that policy on. Since
 * Linux 6.10 ("blk-throttle: delay initialization until configuration")
 * a disk's policy is switched on by the first blkio.throttle.* limit
 * written for it, in any cgroup, and stays on until the disk goes (a
 * limit removed leaves it on); before, every disk had it from its start.
 * A disk without it has its I/O counted in no cgroup: the files read
 * "Total 0" however much a cgroup reads and writes. Measured on Linux
 * 6.18, hybrid, no limit set since boot: 100 MiB written and read again
 * with O_DIRECT from a blkio cgroup of our own left its file and the
 * root's at "Total 0"; once a read_bps_device limit was written for the
 * disk (in that cgroup), every cgroup's file counted its bytes, also
 * after the limit was removed.
 *
 * The kernel prints a device's lines only for the disks it counts: the
 * hierarchy's root has them for every such disk (a cgroup below only
 * for those it did I/O on since), so a root whose file lists no device
 * is the kernel counting nothing, anywhere. */
#ifndef PROCTREE_BLKIOCOUNT_H
#define PROCTREE_BLKIOCOUNT_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

/* Does the v1 blkio hierarchy that holds dir (any cgroup directory of
 * it) count no block I/O at all? True when its root (dir, or the cgroup
 * above it, that has cgroup.sane_behavior, which only a hierarchy's root
 * has) has a blkio.throttle.io_service_bytes that lists no device; root
 * then gets that root's path (cut at rootlen). False when it lists one,
 * and when it cannot be told: the root not in view (a container's mount
 * of its own cgroup), no such file (a kernel without
 * CONFIG_BLK_DEV_THROTTLING: no cgroup has it either). */
bool pt_blkiocount_none(const char *dir, struct pt_buf *buf, char *root, size_t rootlen);

#endif

/* targetgpu: a target's GPU use (struct pt_target_gpu, targetstate.h),
 * summed over its members from the host's GPUs (gpu.h). Only this file
 * writes it: its functions are handed the part, the target only to read
 * (the CPU its reads take is the caller's to tell the interval).
 *
 * Memory: a sample is the sum over the live members of NVML's memory of
 * their pids (every device, compute and graphics) and of their DRM
 * clients' (each client once, however many members hold it). NVML is
 * sampled at every discovery (1 s by default: 26 µs a device) and at the
 * interval's end; DRM at the interval's end only (a walk of every
 * member's descriptors), its last sums standing in between. _min and
 * _max are the lowest and highest samples.
 *
 * Busy time, at the interval's end: NVML's SM seconds of the members'
 * pids since the last end (nvml.h: each sample's smUtil share of its
 * period), summed over devices, plus the growth of each DRM client's
 * drm-engine-* nanoseconds, summed over its engines (an engine with only
 * drm-cycles-/drm-total-cycles-: its busy share of the cycles times the
 * wall time between the two reads). A client first seen counts whole
 * when the member holding it was born in the tree, else from that read.
 *
 * Processes: the live members NVML lists or that hold a DRM client, at
 * the interval's end.
 *
 * The DRM read of an end takes at most PT_DRM_READS_MAX fdinfo reads
 * (gpu.h), clients found by their identity in a hash (drmclients.h).
 * A tree past them has the read cut short: that interval's memory, busy
 * time and processes are left out (never a partial sum), and so are the
 * memory samples until the next whole read; its busy time goes into the
 * next interval's, unless two reads in a row were cut (the clients the
 * second did not reach were forgotten: that busy time is left out too).
 * One W! line per target says the bound was reached, the first time.
 *
 * With a breakdown by process name or cgroup each group's line has its
 * members' (a client shared across groups in the first holder's, in
 * tree order). Nothing at all where the host has no GPU (pt_gpu_on). */
#ifndef PROCTREE_TARGETGPU_H
#define PROCTREE_TARGETGPU_H

#include "gpu/gpu.h"
#include "report/lines.h"
#include "tree/targetstate.h"

/* A sample of the members' GPU memory from NVML's last refresh (the
 * collector's discovery). */
void pt_targetgpu_sample(const struct pt_target *t, struct pt_target_gpu *gpu, const struct pt_gpu *g);
/* At the interval's end, after g's refresh with busy time: the members'
 * DRM clients read, a memory sample, the busy time and the users. */
void pt_targetgpu_end_reads(const struct pt_target *t, struct pt_target_gpu *gpu, const struct pt_gpu *g);
/* The amounts of the tree's line (group -1) or of group's line: busy
 * time and users; and its memory samples' extrema (PT_G_GPU's: the
 * tree's the interval keeps, pt_interval_set_gpu), none where the host
 * has no GPU. */
void pt_targetgpu_put(const struct pt_target_gpu *gpu, int32_t group, struct pt_line *line);
struct pt_extrema pt_targetgpu_memory(const struct pt_target_gpu *gpu, int32_t group);
/* The interval's end: its samples and busy time forgotten. */
void pt_targetgpu_end_interval(struct pt_target_gpu *gpu);
void pt_targetgpu_free(struct pt_target_gpu *gpu);

#endif

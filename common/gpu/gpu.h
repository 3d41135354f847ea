/* gpu: the host's GPUs as proctree reads them, probed once at start.
 *
 * NVIDIA's through NVML (nvml.h), opened only where the host has an
 * NVIDIA device (/dev/nvidiactl, or the proc root's driver/nvidia): a
 * table of the processes its devices list, with their GPU memory summed
 * over the devices and, at an interval's end, the seconds their SMs were
 * busy since the last. Every other GPU through DRM fdinfo (drmfdinfo.h):
 * a process's descriptors that are DRM devices (the character major the
 * proc root's "devices" names "drm", learnt once), read only where a DRM
 * render node exists (the sys root's class/drm/renderD*: a host whose
 * only DRM device is a server's display controller has none). Where
 * neither is found nothing else is ever done, and the GPU metrics are
 * absent. */
#ifndef PROCTREE_GPU_H
#define PROCTREE_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "gpu/drmfdinfo.h"
#include "gpu/nvml.h"

/* The largest fdinfo read (a DRM client's is under 2 KiB). */
#define PT_DRM_FDINFO_MAX 16384
/* The most DRM fdinfo reads of one tree at one interval's end. A process
 * holds one to a few DRM descriptors per device it uses, so 4,096 is
 * hundreds of GPU processes in one tree, past any real GPU job; yet a
 * driver's fdinfo walks the client's buffers under its locks (tens of
 * microseconds each on amdgpu and i915), so 4,096 of them are already
 * about 0.1 s of an interval's end, and the clients kept for the next
 * end (drmclients.h) at most twice that many, a few MiB. A tree past it
 * has its GPU sums left out, never reported short (targetgpu.h). */
#define PT_DRM_READS_MAX 4096

/* One process NVML lists (or has samples of). */
struct pt_gpu_proc {
    pid_t pid;
    uint64_t bytes; /* GPU memory, summed over the devices */
    double busy;    /* seconds of SM time since the last interval's end */
};

struct pt_gpu {
    bool nvml_on, drm_on;
    unsigned drm_major;
    struct pt_nvml nvml;
    /* the last refresh's processes, by pid */
    struct pt_gpu_proc *procs;
    size_t n, cap;
    bool memory_known; /* every device listed its processes */
    bool busy_known;   /* every device gave its samples (at an end) */
};

/* Where to look: the proc root (its "devices", "driver/nvidia"), the sys
 * root (class/drm) and the device directory (nvidiactl), each a path; a
 * test gives its fixture's. The NVML library: nvml.h's choice, or
 * nvml_path. One I! line says what was found. */
void pt_gpu_probe(struct pt_gpu *g, const char *proc_root, const char *sys_root, const char *dev_root,
                  const char *nvml_path);
void pt_gpu_free(struct pt_gpu *g);

static inline bool pt_gpu_on(const struct pt_gpu *g)
{
    return g->nvml_on || g->drm_on;
}

/* NVML's processes again (memory); at an interval's end with busy, their
 * SM time since the last end too. Nothing without NVML. */
void pt_gpu_refresh(struct pt_gpu *g, bool busy);

/* pid's entry of the last refresh, or NULL. */
const struct pt_gpu_proc *pt_gpu_find(const struct pt_gpu *g, pid_t pid);

/* The DRM major of the "devices" file in buf[0..len): the character
 * device named "drm"; 0 when none. */
unsigned pt_gpu_drm_major_parse(const char *buf, size_t len);

/* pt_gpu_drm_scan's end: every descriptor looked at; or a DRM descriptor
 * found with no read left, the rest of the process's not looked at. */
enum { PT_DRM_SCAN_DONE = 0, PT_DRM_SCAN_CUT = 1 };

/* Each DRM client among the descriptors of process pid (under the proc
 * root proc_root_fd) whose device's major is major: fn called with its
 * fdinfo parsed. fd/ is walked once, to its end, wherever a DRM
 * descriptor lies in it. A descriptor is looked at with statx without
 * syncing (AT_STATX_DONT_SYNC: a file on a remote or FUSE filesystem is
 * not asked for); a DRM one's fdinfo read once, at most
 * PT_DRM_FDINFO_MAX bytes, each read taking one of *reads_left (a DRM
 * descriptor met with none left ends the walk: PT_DRM_SCAN_CUT).
 * PT_DRM_SCAN_DONE, or -errno when the process's fd/ cannot be read
 * (gone, denied). */
int pt_gpu_drm_scan(int proc_root_fd, pid_t pid, unsigned major, size_t *reads_left,
                    void (*fn)(const struct pt_drm_client *c, void *arg), void *arg);

#endif

/* drmfdinfo: the parser of a DRM client's /proc/PID/fdinfo/N (Linux 5.19+,
 * the kernel's Documentation/gpu/drm-usage-stats.rst): which client it
 * is, each engine's busy time (or its cycles), each memory region's size.
 *
 * Only lines of the form "drm-KEY:<blanks>VALUE[ UNIT]\n" are taken, each
 * wholly inside the buffer (a last line cut short is dropped); anything
 * else (pos:, flags:, a driver's own keys, a malformed line) is skipped.
 * Keys are parsed strictly: an engine or region name of 1 to
 * PT_DRM_NAME_MAX - 1 bytes of [A-Za-z0-9_.-], a number in uint64 that
 * ends the value or is followed by one blank and a known unit ("ns" for
 * engines; "B", "KiB", "MiB", "GiB" for memory), nothing after. A key
 * seen twice keeps its first value. At most PT_DRM_ENGINES_MAX engines
 * and PT_DRM_REGIONS_MAX regions are kept, the first ones. Values are
 * clamped (PT_DRM_VALUE_MAX) so that sums over many clients never wrap.
 * Allocates nothing; never reads past len. */
#ifndef PROCTREE_DRMFDINFO_H
#define PROCTREE_DRMFDINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PT_DRM_NAME_MAX 32
#define PT_DRM_ENGINES_MAX 16
#define PT_DRM_REGIONS_MAX 8
/* 2^60: ns of 36 years, bytes of an exbibyte */
#define PT_DRM_VALUE_MAX (UINT64_C(1) << 60)

/* One engine: drm-engine-NAME (ns busy), or drm-cycles-NAME with
 * drm-total-cycles-NAME (busy and elapsed cycles). */
enum pt_drm_engine_has { PT_DRM_HAS_NS = 1, PT_DRM_HAS_CYCLES = 2, PT_DRM_HAS_TOTAL_CYCLES = 4 };
struct pt_drm_engine {
    char name[PT_DRM_NAME_MAX];
    unsigned has; /* enum pt_drm_engine_has bits */
    uint64_t ns, cycles, total_cycles;
};

/* One memory region: drm-total-, drm-resident- and the older drm-memory-
 * (which is resident) NAME, in bytes. */
enum pt_drm_region_has { PT_DRM_HAS_TOTAL = 1, PT_DRM_HAS_RESIDENT = 2, PT_DRM_HAS_MEMORY = 4 };
struct pt_drm_region {
    char name[PT_DRM_NAME_MAX];
    unsigned has; /* enum pt_drm_region_has bits */
    uint64_t total, resident, memory;
};

struct pt_drm_client {
    char driver[PT_DRM_NAME_MAX]; /* drm-driver */
    char pdev[PT_DRM_NAME_MAX];   /* drm-pdev, "" when absent (ids then unique host-wide) */
    uint64_t client_id;           /* drm-client-id */
    size_t n_engines, n_regions;
    struct pt_drm_engine engine[PT_DRM_ENGINES_MAX];
    struct pt_drm_region region[PT_DRM_REGIONS_MAX];
};

/* 0 when buf[0..len) is a DRM client's fdinfo: drm-driver and
 * drm-client-id both present and well formed; -1 otherwise. */
int pt_drmfdinfo_parse(const char *buf, size_t len, struct pt_drm_client *out);

/* The client's memory in bytes, summed over its regions: each region's
 * resident size, else its drm-memory- size, else its total. false when
 * the client names no region. */
bool pt_drmfdinfo_client_memory(const struct pt_drm_client *c, uint64_t *bytes);

#endif

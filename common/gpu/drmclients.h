/* drmclients: the DRM clients a tree held at the last interval's end,
 * found by their identity (drm-pdev, drm-client-id) in a hash: an
 * interval's end looks each client it reads up once, so a tree of N
 * clients costs O(N), not a search of every client known per client.
 *
 * Invariants: at most one entry per identity; slots is a power of two at
 * least twice cap (open addressing, linear probing, load <= 1/2, so an
 * empty slot ends every probe); each used slot holds an index + 1 into
 * v[0..n). Memory grows only with the clients (base.h's out-of-memory
 * policy): a steady set allocates nothing. The identities come from
 * fdinfo, so a probe is bounded by the entries, which the caller bounds
 * (gpu.h's PT_DRM_READS_MAX reads per end, sweep's max_unseen). */
#ifndef PROCTREE_DRMCLIENTS_H
#define PROCTREE_DRMCLIENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpu/drmfdinfo.h"

/* A client as of the read that last reached it: its identity and its
 * engines' counts then. */
struct pt_drm_known {
    char pdev[PT_DRM_NAME_MAX];
    uint64_t client_id;
    double read_at;  /* pt_now() */
    bool seen;       /* in this read already: a holder after the first adds nothing */
    unsigned unseen; /* reads in a row that did not reach it */
    size_t n_engines;
    struct pt_drm_engine engine[PT_DRM_ENGINES_MAX];
};

struct pt_drm_clients {
    struct pt_drm_known *v;
    size_t n, cap;
    uint32_t *slots; /* index + 1 into v; 0: empty */
    size_t n_slots;
};

/* The entry of (pdev, client_id), or NULL. */
struct pt_drm_known *pt_drmclients_find(const struct pt_drm_clients *s, const char *pdev, uint64_t client_id);
/* A new entry for (pdev, client_id), which must not be in s: zeroed but
 * for its identity. Pointers into s given before are stale after it. */
struct pt_drm_known *pt_drmclients_add(struct pt_drm_clients *s, const char *pdev, uint64_t client_id);
/* After a read: every entry it did not see counts one more read unseen
 * and is forgotten past max_unseen of them (0: at once); seen is reset
 * for the next read. */
void pt_drmclients_sweep(struct pt_drm_clients *s, unsigned max_unseen);
void pt_drmclients_free(struct pt_drm_clients *s);

#endif

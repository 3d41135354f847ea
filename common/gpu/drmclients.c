#include "gpu/drmclients.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "util/base.h"

/* FNV-1a over the device name, the id folded in and mixed (splitmix64's
 * finaliser): consecutive ids of one device spread over the table. */
static size_t slot_of(const char *pdev, uint64_t client_id, size_t n_slots)
{
    uint64_t h = UINT64_C(14695981039346656037);
    for (size_t i = 0; i < PT_DRM_NAME_MAX && pdev[i]; i++)
        h = (h ^ (unsigned char)pdev[i]) * UINT64_C(1099511628211);
    h ^= client_id + UINT64_C(0x9e3779b97f4a7c15);
    h = (h ^ (h >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    h = (h ^ (h >> 27)) * UINT64_C(0x94d049bb133111eb);
    h ^= h >> 31;
    return (size_t)h & (n_slots - 1);
}

static bool is(const struct pt_drm_known *k, const char *pdev, uint64_t client_id)
{
    return k->client_id == client_id && strncmp(k->pdev, pdev, PT_DRM_NAME_MAX) == 0;
}

static void index_all(struct pt_drm_clients *s)
{
    memset(s->slots, 0, s->n_slots * sizeof(*s->slots));
    for (size_t i = 0; i < s->n; i++) {
        size_t j = slot_of(s->v[i].pdev, s->v[i].client_id, s->n_slots);
        while (s->slots[j])
            j = (j + 1) & (s->n_slots - 1);
        s->slots[j] = (uint32_t)(i + 1);
    }
}

struct pt_drm_known *pt_drmclients_find(const struct pt_drm_clients *s, const char *pdev, uint64_t client_id)
{
    if (s->n == 0)
        return NULL;
    for (size_t j = slot_of(pdev, client_id, s->n_slots);; j = (j + 1) & (s->n_slots - 1)) {
        uint32_t at = s->slots[j];
        if (!at)
            return NULL;
        if (is(&s->v[at - 1], pdev, client_id))
            return &s->v[at - 1];
    }
}

struct pt_drm_known *pt_drmclients_add(struct pt_drm_clients *s, const char *pdev, uint64_t client_id)
{
    assert(!pt_drmclients_find(s, pdev, client_id));
    if (s->n == s->cap) {
        assert(s->cap < UINT32_MAX / 4); /* the caller keeps it far below */
        s->cap = s->cap ? 2 * s->cap : 16;
        s->v = pt_xrealloc_array(s->v, s->cap, sizeof(*s->v));
        s->n_slots = 2 * s->cap;
        free(s->slots);
        s->slots = pt_xalloc(s->n_slots * sizeof(*s->slots));
        index_all(s);
    }
    struct pt_drm_known *k = &s->v[s->n++];
    memset(k, 0, sizeof(*k));
    strncpy(k->pdev, pdev, sizeof(k->pdev) - 1);
    k->client_id = client_id;
    size_t j = slot_of(k->pdev, client_id, s->n_slots);
    while (s->slots[j])
        j = (j + 1) & (s->n_slots - 1);
    s->slots[j] = (uint32_t)s->n;
    return k;
}

void pt_drmclients_sweep(struct pt_drm_clients *s, unsigned max_unseen)
{
    size_t out = 0;
    for (size_t i = 0; i < s->n; i++) {
        struct pt_drm_known *k = &s->v[i];
        k->unseen = k->seen ? 0 : k->unseen + 1;
        k->seen = false;
        if (k->unseen > max_unseen)
            continue;
        if (out != i)
            s->v[out] = *k;
        out++;
    }
    if (out == s->n)
        return;
    s->n = out;
    index_all(s);
}

void pt_drmclients_free(struct pt_drm_clients *s)
{
    free(s->v);
    free(s->slots);
    memset(s, 0, sizeof(*s));
}

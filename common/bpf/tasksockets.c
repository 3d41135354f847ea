#include "bpf/tasksockets.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/base.h"

static void clear(struct pt_tasksockets *s)
{
    s->count = 0;
    s->groups_count = 0;
    pt_pidmap_clear(&s->group_of);
}

/* A group's entry and its n socket records, at src. */
static void add_group(struct pt_tasksockets *s, const struct pt_taskrec *group, const char *src, size_t n)
{
    if (s->groups_count == s->groups_cap) {
        s->groups_cap = s->groups_cap ? s->groups_cap * 2 : 64;
        s->groups = pt_xrealloc_array(s->groups, s->groups_cap, sizeof(*s->groups));
    }
    if (s->cap - s->count < n) {
        while (s->cap - s->count < n)
            s->cap = s->cap ? s->cap * 2 : 256;
        s->recs = pt_xrealloc_array(s->recs, s->cap, sizeof(*s->recs));
    }
    if (n > 0) /* recs may be NULL yet: memcpy's arguments never may */
        memcpy(s->recs + s->count, src, n * sizeof(*s->recs));
    s->groups[s->groups_count] = (struct pt_tasksockets_group){
        .first = s->count,
        .count = n,
        .cut = group->group.sockets_cut != 0,
        .has_fds = group->group.has_fds != 0,
        .fds = group->group.fds,
        .any = group->group.sockets_any,
        .netns = group->group.netns,
    };
    pt_pidmap_put(&s->group_of, (pid_t)group->tgid, (uint32_t)s->groups_count++);
    s->count += n;
}

/* Are the n socket records at src a group's, tgid's, as the program
 * writes them? */
static bool sockets_of(const char *src, size_t n, uint32_t tgid)
{
    for (size_t k = 0; k < n; k++) {
        struct pt_taskrec_sock r;
        memcpy(&r, src + k * sizeof(r), sizeof(r));
        if (r.kind != PT_TR_SOCKET || r.tgid != tgid)
            return false;
    }
    return true;
}

int pt_tasksockets_take(struct pt_tasksockets *s, char *bytes, size_t *len)
{
    clear(s);
    size_t at = 0, packed = 0, end = *len;
    while (at < end) {
        if (end - at < sizeof(struct pt_taskrec))
            goto bad;
        if (packed != at)
            memmove(bytes + packed, bytes + at, sizeof(struct pt_taskrec));
        const struct pt_taskrec *r = (const struct pt_taskrec *)(const void *)(bytes + packed);
        at += sizeof(*r);
        packed += sizeof(*r);
        if (r->kind != PT_TR_GROUP)
            continue;
        uint64_t n = r->group.sockets;
        if (n > PT_TASKREC_SOCK_MAX || (end - at) / sizeof(struct pt_taskrec_sock) < n ||
            !sockets_of(bytes + at, (size_t)n, r->tgid))
            goto bad;
        add_group(s, r, bytes + at, (size_t)n);
        at += (size_t)n * sizeof(struct pt_taskrec_sock);
    }
    *len = packed;
    return 0;
bad:
    clear(s);
    return -EIO;
}

size_t pt_tasksockets_of(const struct pt_tasksockets *s, pid_t tgid, const struct pt_taskrec_sock **out, bool *cut)
{
    long i = s ? pt_pidmap_get(&s->group_of, tgid) : -1;
    const struct pt_tasksockets_group *g = i < 0 ? NULL : &s->groups[i];
    *out = g && g->count ? s->recs + g->first : NULL;
    if (cut)
        *cut = g && g->cut;
    return g ? g->count : 0;
}

const struct pt_tasksockets_group *pt_tasksockets_group(const struct pt_tasksockets *s, pid_t tgid)
{
    long i = s ? pt_pidmap_get(&s->group_of, tgid) : -1;
    return i < 0 ? NULL : &s->groups[i];
}

void pt_tasksockets_free(struct pt_tasksockets *s)
{
    free(s->recs);
    free(s->groups);
    pt_pidmap_free(&s->group_of);
    memset(s, 0, sizeof(*s));
}

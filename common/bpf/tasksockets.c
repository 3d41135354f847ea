#include "bpf/tasksockets.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/base.h"

static void clear(struct pt_tasksockets *s)
{
    s->recs = NULL;
    s->count = 0;
    s->groups_count = 0;
    pt_pidmap_clear(&s->group_of);
}

/* A group's entry: its n socket records from first on. */
static void add_group(struct pt_tasksockets *s, const struct pt_taskrec *group, size_t first, size_t n)
{
    if (s->groups_count == s->groups_cap) {
        s->groups_cap = s->groups_cap ? s->groups_cap * 2 : 64;
        s->groups = pt_xrealloc_array(s->groups, s->groups_cap, sizeof(*s->groups));
    }
    s->groups[s->groups_count] = (struct pt_tasksockets_group){
        .first = first,
        .count = n,
        .cut = group->group.sockets_cut != 0,
        .has_fds = group->group.has_fds != 0,
        .fds = group->group.fds,
        .any = group->group.sockets_any,
        .netns = group->group.netns,
    };
    pt_pidmap_put(&s->group_of, (pid_t)group->tgid, (uint32_t)s->groups_count++);
}

/* Are the n socket records at r a group's, tgid's, as the program writes
 * them? */
static bool sockets_of(const struct pt_taskrec_sock *r, size_t n, uint32_t tgid)
{
    for (size_t k = 0; k < n; k++)
        if (r[k].kind != PT_TR_SOCKET || r[k].tgid != tgid)
            return false;
    return true;
}

int pt_tasksockets_take(struct pt_tasksockets *s, const char *bytes, size_t len, const struct pt_taskrec_sock *recs,
                        size_t used)
{
    clear(s);
    if (len % sizeof(struct pt_taskrec) != 0 || (used > 0 && !recs))
        goto bad;
    for (size_t at = 0; at < len; at += sizeof(struct pt_taskrec)) {
        const struct pt_taskrec *r = (const struct pt_taskrec *)(const void *)(bytes + at);
        if (r->kind != PT_TR_GROUP)
            continue;
        uint64_t first = r->group.sockets_first, n = r->group.sockets;
        if (first > used || n > used - first || (n > 0 && !sockets_of(recs + first, (size_t)n, r->tgid)))
            goto bad;
        add_group(s, r, (size_t)first, (size_t)n);
    }
    s->recs = recs;
    s->count = used;
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
    free(s->groups);
    pt_pidmap_free(&s->group_of);
    memset(s, 0, sizeof(*s));
}

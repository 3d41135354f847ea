#include "member/memberlist.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/base.h"
#include "member/member.h"

struct pt_member *pt_memberlist_add(struct pt_memberlist *ml, const struct pt_member *m)
{
    if (pt_pidmap_get(&ml->parent_missing, m->pid) >= 0)
        ml->need_order = ml->need_compaction = true; /* a child of it is in the list before it */
    if (!pt_memberlist_live(ml, m->ppid))
        pt_pidmap_put(&ml->parent_missing, m->ppid, 1);
    if (ml->n_members == ml->cap_members) {
        ml->cap_members = ml->cap_members ? ml->cap_members * 2 : 16;
        ml->members = pt_xrealloc_array(ml->members, ml->cap_members, sizeof(*ml->members));
    }
    ml->members[ml->n_members] = *m;
    ml->memory_gen++; /* it shares pages with its parent, or maps what others do */
    pt_pidmap_put(&ml->position_of, m->pid, (uint32_t)ml->n_members);
    return &ml->members[ml->n_members++];
}

struct pt_member *pt_memberlist_live(const struct pt_memberlist *ml, pid_t pid)
{
    long i = pt_pidmap_get(&ml->position_of, pid);
    assert(i < (long)ml->n_members);
    if (i < 0 || ml->members[i].gone)
        return NULL;
    return &ml->members[i];
}

void pt_memberlist_left(struct pt_memberlist *ml)
{
    ml->need_compaction = true;
    ml->memory_gen++; /* what it shared is shared by fewer */
}

void pt_memberlist_moved(struct pt_memberlist *ml)
{
    ml->memory_gen++;
}

/* The index found again from the list, as it is now. */
static void reindex(struct pt_memberlist *ml)
{
    pt_pidmap_clear(&ml->position_of);
    for (size_t i = 0; i < ml->n_members; i++)
        pt_pidmap_put(&ml->position_of, ml->members[i].pid, (uint32_t)i);
}

/* The live members in tree order: each one's depth below the list's
 * roots (its live parent's + 1, following parents through the index; a
 * cycle that hostile ppids may make is cut at n), then a stable sort by
 * depth, which puts every parent before its children. Allocates: done
 * only when a parent joined after its child. */
static void order(struct pt_memberlist *ml)
{
    size_t n = ml->n_members;
    size_t *depth = pt_xrealloc_array(NULL, n + 1, sizeof(*depth));
    size_t max = 0;
    for (size_t i = 0; i < n; i++) {
        size_t d = 0;
        for (const struct pt_member *p = pt_memberlist_live(ml, ml->members[i].ppid); p && d < n;
             p = pt_memberlist_live(ml, p->ppid))
            d++;
        depth[i] = d;
        max = d > max ? d : max;
    }
    struct pt_member *sorted = pt_xrealloc_array(NULL, n + 1, sizeof(*sorted));
    size_t out = 0;
    for (size_t d = 0; d <= max && out < n; d++)
        for (size_t i = 0; i < n; i++)
            if (depth[i] == d)
                sorted[out++] = ml->members[i];
    memcpy(ml->members, sorted, n * sizeof(*sorted));
    free(sorted);
    free(depth);
}

void pt_memberlist_compact(struct pt_memberlist *ml)
{
    if (!ml->need_compaction)
        return;
    size_t kept = 0;
    for (size_t i = 0; i < ml->n_members; i++)
        if (!ml->members[i].gone)
            ml->members[kept++] = ml->members[i];
    ml->n_members = kept;
    reindex(ml);
    if (ml->need_order) { /* the order follows parents through the index */
        order(ml);
        reindex(ml);
    }
    pt_pidmap_clear(&ml->parent_missing);
    for (size_t i = 0; i < kept; i++)
        if (!pt_memberlist_live(ml, ml->members[i].ppid))
            pt_pidmap_put(&ml->parent_missing, ml->members[i].ppid, 1);
    ml->need_compaction = ml->need_order = false;
}

void pt_memberlist_free(struct pt_memberlist *ml)
{
    for (size_t i = 0; i < ml->n_members; i++)
        pt_member_close(&ml->members[i]);
    free(ml->members);
    pt_pidmap_free(&ml->position_of);
    pt_pidmap_free(&ml->parent_missing);
    memset(ml, 0, sizeof(*ml));
}

const char *pt_memberlist_check(const struct pt_memberlist *ml, char *why, size_t whylen)
{
    for (size_t i = 0; i < ml->n_members; i++) {
        const struct pt_member *m = &ml->members[i];
        if (m->gone) {
            if (!ml->need_compaction) {
                snprintf(why, whylen, "member %d is gone and no compaction is due", (int)m->pid);
                return "a gone member is told";
            }
            continue;
        }
        long at = pt_pidmap_get(&ml->position_of, m->pid);
        const struct pt_member *parent = pt_memberlist_live(ml, m->ppid);
        if (at != (long)i) {
            snprintf(why, whylen, "member %d is at %zu, its index says %ld", (int)m->pid, i, at);
            return "the index finds every live member";
        }
        if (parent && parent > m && !ml->need_order) {
            snprintf(why, whylen, "member %d comes before its parent %d", (int)m->pid, (int)m->ppid);
            return "tree order";
        }
    }
    return NULL;
}

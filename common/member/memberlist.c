#include "member/memberlist.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proctree/base.h"
#include "member/member.h"

struct pt_member *pt_memberlist_add(struct pt_memberlist *ml, const struct pt_member *m)
{
    if (ml->n_members == ml->cap_members) {
        ml->cap_members = ml->cap_members ? ml->cap_members * 2 : 16;
        ml->members = pt_xrealloc_array(ml->members, ml->cap_members, sizeof(*ml->members));
    }
    ml->members[ml->n_members] = *m;
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
    pt_pidmap_clear(&ml->position_of);
    for (size_t i = 0; i < kept; i++)
        pt_pidmap_put(&ml->position_of, ml->members[i].pid, (uint32_t)i);
    ml->need_compaction = false;
}

void pt_memberlist_free(struct pt_memberlist *ml)
{
    for (size_t i = 0; i < ml->n_members; i++)
        pt_member_close(&ml->members[i]);
    free(ml->members);
    pt_pidmap_free(&ml->position_of);
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
        if (parent && parent > m) {
            snprintf(why, whylen, "member %d comes before its parent %d", (int)m->pid, (int)m->ppid);
            return "tree order";
        }
    }
    return NULL;
}

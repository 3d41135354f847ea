#include "tree/targetudp.h"

void pt_targetudp_start(const struct pt_target *t, struct pt_udpbytes *u, const struct pt_udpcount *counts)
{
    pt_udpbytes_free(u);
    pt_udpbytes_start(u, counts, pt_target_partitions(t) ? (size_t)t->ledger.groups.limit + 1 : 0);
}

void pt_targetudp_take(const struct pt_target *t, struct pt_memberlist *list, struct pt_udpbytes *u)
{
    if (!u->counts)
        return;
    bool groups = pt_target_partitions(t);
    for (size_t i = 0; i < list->n_members; i++) {
        struct pt_member *m = &list->members[i];
        if (!m->gone) /* a zombie's are final: taken as any member's */
            pt_udpbytes_take(u, m->pid, m->starttime, groups ? m->acct.group : -1, &m->udp);
    }
    pt_udpbytes_take_departed(u);
}

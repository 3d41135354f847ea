#include "bpf/udpbytes.h"

#include <stdlib.h>
#include <string.h>

#include "util/base.h"

void pt_udpbytes_start(struct pt_udpbytes *u, const struct pt_udpcount *counts, size_t groups)
{
    u->counts = counts;
    if (!counts || !groups)
        return;
    u->groups = groups;
    u->group = pt_xalloc(groups * sizeof(*u->group));
}

/* now's growth over taken into the sums; taken becomes now. An entry
 * never shrinks while its member is followed: one that did was made
 * again (its process followed no more, then again) and counts from 0. */
static void credit(struct pt_udpbytes *u, int32_t group, const struct pt_udpcount_bytes *now,
                   struct pt_udpcount_bytes *taken)
{
    uint64_t sent = now->sent >= taken->sent ? now->sent - taken->sent : now->sent;
    uint64_t received = now->received >= taken->received ? now->received - taken->received : now->received;
    *taken = *now;
    u->tree.sent += sent;
    u->tree.received += received;
    if (group >= 0 && (size_t)group < u->groups) {
        u->group[group].sent += sent;
        u->group[group].received += received;
    }
}

void pt_udpbytes_take(struct pt_udpbytes *u, pid_t pid, uint64_t starttime, int32_t group,
                      struct pt_udpcount_bytes *taken)
{
    struct pt_udpcount_bytes now;
    if (u->counts && pt_udpcount_get(u->counts, pid, starttime, &now))
        credit(u, group, &now, taken);
}

void pt_udpbytes_left(struct pt_udpbytes *u, pid_t pid, uint64_t starttime, int32_t group,
                      const struct pt_udpcount_bytes *taken)
{
    if (!u->counts)
        return;
    if (u->n_departed == PT_UDPBYTES_DEPARTED_MAX) {
        /* a storm of exits: this one's last bytes at once, one lookup */
        struct pt_udpcount_bytes now, was = *taken;
        if (pt_udpcount_lookup(u->counts, pid, starttime, &now))
            credit(u, group, &now, &was);
        return;
    }
    if (u->n_departed == u->cap_departed) {
        u->cap_departed = u->cap_departed ? 2 * u->cap_departed : 16;
        u->departed = pt_xrealloc_array(u->departed, u->cap_departed, sizeof(*u->departed));
    }
    u->departed[u->n_departed++] =
        (struct pt_udpbytes_departed){.starttime = starttime, .taken = *taken, .pid = pid, .group = group};
}

void pt_udpbytes_take_departed(struct pt_udpbytes *u)
{
    for (size_t i = 0; i < u->n_departed; i++) {
        struct pt_udpbytes_departed *d = &u->departed[i];
        pt_udpbytes_take(u, d->pid, d->starttime, d->group, &d->taken);
    }
    u->n_departed = 0;
    u->taken = u->counts != NULL;
}

static double bytes(uint64_t v)
{
    return (double)v; /* exact below 2^53: 9 PB an interval */
}

void pt_udpbytes_put(const struct pt_udpbytes *u, int32_t group, struct pt_line *line)
{
    if (!u->taken || (group >= 0 && (size_t)group >= u->groups))
        return;
    const struct pt_udpcount_bytes *b = group >= 0 ? &u->group[group] : &u->tree;
    pt_lines_put(line, PT_A_NET_UDP_SENT, bytes(b->sent));
    pt_lines_put(line, PT_A_NET_UDP_RECEIVED, bytes(b->received));
}

void pt_udpbytes_end_interval(struct pt_udpbytes *u)
{
    u->taken = false;
    u->tree = (struct pt_udpcount_bytes){0, 0};
    if (u->groups)
        memset(u->group, 0, u->groups * sizeof(*u->group));
}

void pt_udpbytes_free(struct pt_udpbytes *u)
{
    free(u->group);
    free(u->departed);
    memset(u, 0, sizeof(*u));
}

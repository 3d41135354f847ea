#include "net/netnsbytes.h"

#include <stdlib.h>
#include <string.h>

#include "util/base.h"
#include "util/saturate.h"

bool pt_netnsbytes_is_loopback(const char *name)
{
    return strcmp(name, "lo") == 0;
}

/* The interface of the base named name: the one at index i first (the
 * kernel lists them in ifindex order, which changes only as interfaces
 * come and go), else any. */
static const struct pt_netdev_if *in_base(const struct pt_netnsbytes *l, size_t i, const char *name)
{
    if (i < l->n_base && strcmp(l->base[i].name, name) == 0)
        return &l->base[i];
    for (size_t k = 0; k < l->n_base; k++)
        if (strcmp(l->base[k].name, name) == 0)
            return &l->base[k];
    return NULL;
}

static void add(uint64_t *sum, uint64_t v)
{
    *sum = (uint64_t)pt_sat_add((int64_t)*sum, (int64_t)v); /* each at most PT_MAX_COUNT (2^62) */
}

void pt_netnsbytes_take(struct pt_netnsbytes *l, uint64_t ns, const struct pt_netdev_if *ifs, size_t n)
{
    if (n > PT_NETDEV_MAX)
        n = PT_NETDEV_MAX;
    if (!l->base)
        l->base = pt_xalloc(PT_NETDEV_MAX * sizeof(*l->base));
    bool same = ns != 0 && ns == l->ns;
    l->known = same;
    l->rx_bytes = l->rx_packets = l->tx_bytes = l->tx_packets = 0;
    l->unknown = 0;
    for (size_t i = 0; same && i < n; i++) {
        const struct pt_netdev_if *now = &ifs[i];
        if (pt_netnsbytes_is_loopback(now->name))
            continue;
        const struct pt_netdev_if *was = in_base(l, i, now->name);
        if (!was || now->rx_bytes < was->rx_bytes || now->rx_packets < was->rx_packets ||
            now->tx_bytes < was->tx_bytes || now->tx_packets < was->tx_packets) {
            l->unknown++; /* new, or made again: its counters are its base */
            continue;
        }
        add(&l->rx_bytes, now->rx_bytes - was->rx_bytes);
        add(&l->rx_packets, now->rx_packets - was->rx_packets);
        add(&l->tx_bytes, now->tx_bytes - was->tx_bytes);
        add(&l->tx_packets, now->tx_packets - was->tx_packets);
    }
    memmove(l->base, ifs, n * sizeof(*ifs));
    l->n_base = n;
    l->ns = ns;
}

void pt_netnsbytes_forget(struct pt_netnsbytes *l)
{
    l->ns = 0;
    l->n_base = 0;
    l->known = false;
    l->rx_bytes = l->rx_packets = l->tx_bytes = l->tx_packets = 0;
    l->unknown = 0;
}

void pt_netnsbytes_free(struct pt_netnsbytes *l)
{
    free(l->base);
    memset(l, 0, sizeof(*l));
}

#include "net/tcpbytes.h"

#include <stdlib.h>
#include <string.h>

#include "util/base.h"

static size_t hash(uint64_t key)
{
    key ^= key >> 33; /* splitmix64's finalizer: inodes come in runs */
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    key *= 0xc4ceb9fe1a85ec53ULL;
    key ^= key >> 33;
    return (size_t)key;
}

static uint64_t inode_of(const struct pt_tcp_entry *e)
{
    return e->inode;
}

static uint64_t cookie_of(const struct pt_tcp_entry *e)
{
    return e->cookie;
}

/* The live entry whose key is key in slots, or NULL. */
static struct pt_tcp_entry *find(const struct pt_tcpbytes *l, const uint32_t *slots, uint64_t key,
                                 uint64_t (*key_of)(const struct pt_tcp_entry *))
{
    if (!l->n_slots || key == 0)
        return NULL;
    size_t mask = l->n_slots - 1;
    for (size_t i = hash(key) & mask; slots[i]; i = (i + 1) & mask) {
        struct pt_tcp_entry *e = &l->v[slots[i] - 1];
        if (!e->dead && key_of(e) == key)
            return e;
    }
    return NULL;
}

static void put(struct pt_tcpbytes *l, uint32_t *slots, uint64_t key, size_t index)
{
    if (key == 0)
        return;
    size_t mask = l->n_slots - 1, i = hash(key) & mask;
    while (slots[i])
        i = (i + 1) & mask;
    slots[i] = (uint32_t)index + 1;
}

/* Both hashes made again for v[0..n), at least twice cap slots. */
static void rehash(struct pt_tcpbytes *l)
{
    size_t want = 16;
    while (want < 2 * l->cap)
        want *= 2;
    if (want != l->n_slots) {
        free(l->by_inode);
        free(l->by_cookie);
        l->n_slots = want;
        l->by_inode = pt_xalloc(want * sizeof(*l->by_inode));
        l->by_cookie = pt_xalloc(want * sizeof(*l->by_cookie));
    } else {
        memset(l->by_inode, 0, want * sizeof(*l->by_inode));
        memset(l->by_cookie, 0, want * sizeof(*l->by_cookie));
    }
    for (size_t i = 0; i < l->n; i++) {
        put(l, l->by_inode, l->v[i].inode, i);
        put(l, l->by_cookie, l->v[i].cookie, i);
    }
}

void pt_tcpbytes_init(struct pt_tcpbytes *l, size_t max)
{
    memset(l, 0, sizeof(*l));
    l->max = max;
}

void pt_tcpbytes_free(struct pt_tcpbytes *l)
{
    free(l->v);
    free(l->by_inode);
    free(l->by_cookie);
    memset(l, 0, sizeof(*l));
}

void pt_tcpbytes_walk(struct pt_tcpbytes *l)
{
    l->walk++;
    l->next = 0;
}

bool pt_tcpbytes_holds(const struct pt_tcpbytes *l, uint64_t inode)
{
    return find(l, l->by_inode, inode, inode_of) != NULL;
}

int pt_tcpbytes_note(struct pt_tcpbytes *l, uint64_t inode, bool whole, int32_t group, size_t *at)
{
    if (at)
        *at = SIZE_MAX;
    if (inode == 0)
        return 0;
    /* the live entry of inode, the one find would give (a note adds none
     * for an inode a live entry has) */
    struct pt_tcp_entry *e = l->next < l->n && l->v[l->next].inode == inode && !l->v[l->next].dead
                                 ? &l->v[l->next]
                                 : find(l, l->by_inode, inode, inode_of);
    if (e) {
        e->walk = l->walk;
        l->next = (size_t)(e - l->v) + 1;
        if (at)
            *at = (size_t)(e - l->v);
        return 0;
    }
    if (l->n >= l->max)
        return -1;
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 16;
        if (l->cap > l->max)
            l->cap = l->max;
        l->v = pt_xrealloc_array(l->v, l->cap, sizeof(*l->v));
        rehash(l);
    }
    size_t i = l->n++;
    l->v[i] = (struct pt_tcp_entry){.inode = inode, .whole = whole, .walk = l->walk, .group = group};
    put(l, l->by_inode, inode, i);
    l->next = i + 1;
    if (at)
        *at = i;
    return 1;
}

void pt_tcpbytes_dump(struct pt_tcpbytes *l)
{
    l->dump++;
}

static uint64_t growth(uint64_t now, uint64_t before)
{
    return now > before ? now - before : 0;
}

/* s's counters into e: their growth since e last took them. */
static void count(struct pt_tcpbytes *l, struct pt_tcp_entry *e, const struct pt_tcpsock *s, uint64_t *sent,
                  uint64_t *received)
{
    uint64_t ds = 0, dr = 0;
    if (e->cookie != s->cookie) {
        /* first taken, or a new socket behind a reused inode (one that
         * appeared since the walk before: whole) */
        bool first = e->cookie == 0, whole = first ? e->whole : true;
        e->cookie = s->cookie;
        if (first)
            put(l, l->by_cookie, s->cookie, (size_t)(e - l->v));
        else
            rehash(l); /* its old cookie's slot names it no more: rare, an inode reused */
        e->sent = whole ? 0 : s->sent;
        e->received = whole ? 0 : s->received;
    }
    e->whole = false;
    if (s->has_bytes) {
        ds = growth(s->sent, e->sent);
        dr = growth(s->received, e->received);
        e->sent = s->sent > e->sent ? s->sent : e->sent;
        e->received = s->received > e->received ? s->received : e->received;
    }
    l->sent += ds;
    l->received += dr;
    if (sent)
        *sent = ds;
    if (received)
        *received = dr;
}

/* The entry s names: by its cookie (an orphaned socket's inode is 0),
 * else by its inode. */
static struct pt_tcp_entry *entry_of(const struct pt_tcpbytes *l, const struct pt_tcpsock *s)
{
    struct pt_tcp_entry *e = find(l, l->by_cookie, s->cookie, cookie_of);
    if (!e && s->inode)
        e = find(l, l->by_inode, s->inode, inode_of);
    return e;
}

/* s into e (NULL: not the tree's): its growth, once a dump. */
static const struct pt_tcp_entry *take(struct pt_tcpbytes *l, struct pt_tcp_entry *e, const struct pt_tcpsock *s,
                                       uint64_t *sent, uint64_t *received)
{
    if (sent)
        *sent = 0;
    if (received)
        *received = 0;
    if (!e)
        return NULL;
    if (e->dump == l->dump && e->cookie == s->cookie)
        return e; /* told twice in one dump (a socket moved between the families' dumps) */
    count(l, e, s, sent, received);
    e->dump = l->dump;
    return e;
}

const struct pt_tcp_entry *pt_tcpbytes_take(struct pt_tcpbytes *l, const struct pt_tcpsock *s, uint64_t *sent,
                                            uint64_t *received)
{
    return take(l, entry_of(l, s), s, sent, received);
}

const struct pt_tcp_entry *pt_tcpbytes_take_at(struct pt_tcpbytes *l, size_t at, const struct pt_tcpsock *s,
                                               uint64_t *sent, uint64_t *received)
{
    /* the entry entry_of would find by the cookie, the only live one that
     * holds it; else the lookups decide (first taken, an inode reused) */
    struct pt_tcp_entry *e = at < l->n ? &l->v[at] : NULL;
    if (!e || e->dead || e->cookie == 0 || e->cookie != s->cookie || e->inode != s->inode)
        e = entry_of(l, s);
    return take(l, e, s, sent, received);
}

const struct pt_tcp_entry *pt_tcpbytes_destroyed(struct pt_tcpbytes *l, const struct pt_tcpsock *s, uint64_t *sent,
                                                 uint64_t *received)
{
    if (sent)
        *sent = 0;
    if (received)
        *received = 0;
    struct pt_tcp_entry *e = entry_of(l, s);
    if (!e)
        return NULL;
    count(l, e, s, sent, received);
    e->dead = true;
    return e;
}

void pt_tcpbytes_sweep(struct pt_tcpbytes *l)
{
    l->connections = 0;
    size_t out = 0;
    for (size_t i = 0; i < l->n; i++) {
        const struct pt_tcp_entry *e = &l->v[i];
        bool walked = e->walk == l->walk, dumped = e->dump == l->dump;
        if (e->dead || (!walked && !dumped))
            continue;
        if (walked && dumped)
            l->connections++;
        if (out != i)
            l->v[out] = *e;
        out++;
    }
    if (out != l->n) {
        l->n = out;
        rehash(l);
    }
}

void pt_tcpbytes_end(struct pt_tcpbytes *l)
{
    l->sent = l->received = 0;
}

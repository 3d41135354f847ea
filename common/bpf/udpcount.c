#include "bpf/udpcount.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/base.h"

#ifdef PT_HAVE_BPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "udpcount.skel.h"
#endif

struct pt_udpcount_entry {
    struct pt_udpkey key;
    struct pt_udpval val;
};

struct pt_udpcount {
#ifdef PT_HAVE_BPF
    struct pt_udpcount_bpf *skel;
#endif
    int map_fd;
    struct pt_udpcount_entry *snap; /* the last read's, sorted by key */
    size_t n, cap;
    struct pt_udpkey *keys; /* a read's scratch */
    struct pt_udpval *vals;
    size_t scratch_cap;
};

static int compare(const void *a, const void *b)
{
    const struct pt_udpkey *x = a, *y = b; /* the key is each entry's first member */
    if (x->tgid != y->tgid)
        return x->tgid < y->tgid ? -1 : 1;
    return x->start < y->start ? -1 : x->start > y->start;
}

static struct pt_udpkey key_of(pid_t tgid, uint64_t starttime)
{
    struct pt_udpkey k;
    memset(&k, 0, sizeof(k));
    k.tgid = (uint32_t)tgid;
    k.start = starttime;
    return k;
}

bool pt_udpcount_get(const struct pt_udpcount *u, pid_t tgid, uint64_t starttime, struct pt_udpcount_bytes *out)
{
    struct pt_udpkey k = key_of(tgid, starttime);
    const struct pt_udpcount_entry *e = u->n ? bsearch(&k, u->snap, u->n, sizeof(*u->snap), compare) : NULL;
    *out = e ? (struct pt_udpcount_bytes){e->val.sent, e->val.received} : (struct pt_udpcount_bytes){0, 0};
    return e != NULL;
}

size_t pt_udpcount_entries(const struct pt_udpcount *u)
{
    return u->n;
}

#ifdef PT_HAVE_BPF
struct pt_udpcount *pt_udpcount_open(int members_fd, int btf_fd, char *why, size_t whylen)
{
    libbpf_set_print(NULL); /* as the task iterator's: the reason is returned, not printed */
    char btf_path[64];
    snprintf(btf_path, sizeof(btf_path), "/proc/self/fd/%d", btf_fd);
    LIBBPF_OPTS(bpf_object_open_opts, opts, .btf_custom_path = btf_fd >= 0 ? btf_path : NULL);
    struct pt_udpcount *u = pt_xalloc(sizeof(*u));
    u->map_fd = -1;
    u->skel = pt_udpcount_bpf__open_opts(&opts);
    if (!u->skel) {
        snprintf(why, whylen, "its object did not open: %s", strerror(errno));
        goto fail;
    }
    long tick = sysconf(_SC_CLK_TCK);
    u->skel->rodata->ns_per_tick = tick > 0 ? UINT64_C(1000000000) / (uint64_t)tick : 10000000;
    int err = bpf_map__reuse_fd(u->skel->maps.members, members_fd);
    if (!err)
        err = pt_udpcount_bpf__load(u->skel);
    if (err) {
        char text[128];
        libbpf_strerror(err, text, sizeof(text));
        snprintf(why, whylen, "the kernel refused to load it: %s", text);
        goto fail;
    }
    u->map_fd = bpf_map__fd(u->skel->maps.udp_bytes);
    return u;
fail:
    pt_udpcount_close(u);
    return NULL;
}

int pt_udpcount_attach(struct pt_udpcount *u, char *why, size_t whylen)
{
    int err = pt_udpcount_bpf__attach(u->skel);
    if (err) {
        pt_udpcount_bpf__detach(u->skel);
        char text[128];
        libbpf_strerror(err, text, sizeof(text));
        snprintf(why, whylen, "the kernel refused to attach the UDP counters' tracepoint programs: %s", text);
    }
    return err;
}

void pt_udpcount_close(struct pt_udpcount *u)
{
    if (!u)
        return;
    pt_udpcount_bpf__destroy(u->skel);
    free(u->snap);
    free(u->keys);
    free(u->vals);
    free(u);
}

uint64_t pt_udpcount_lost(const struct pt_udpcount *u)
{
    return u->skel && u->skel->bss ? u->skel->bss->lost : 0;
}

bool pt_udpcount_lookup(const struct pt_udpcount *u, pid_t tgid, uint64_t starttime, struct pt_udpcount_bytes *out)
{
    struct pt_udpkey k = key_of(tgid, starttime);
    struct pt_udpval v;
    bool there = bpf_map_lookup_elem(u->map_fd, &k, &v) == 0;
    *out = there ? (struct pt_udpcount_bytes){v.sent, v.received} : (struct pt_udpcount_bytes){0, 0};
    return there;
}

/* Room for want entries more in the scratch arrays. */
static void room(struct pt_udpcount *u, size_t want)
{
    if (u->scratch_cap >= want)
        return;
    u->scratch_cap = want;
    u->keys = pt_xrealloc_array(u->keys, want, sizeof(*u->keys));
    u->vals = pt_xrealloc_array(u->vals, want, sizeof(*u->vals));
}

/* The map's entries into keys and vals, batches of them a call; a kernel
 * without batched lookups (before Linux 5.6) one key at a time. A batch
 * of a hash map ends at a bucket's end: one that would not hold the
 * bucket (ENOSPC) is asked again larger. */
static int read_entries(struct pt_udpcount *u, size_t *count)
{
    size_t n = 0, ask = 256;
    struct pt_udpkey token; /* the kernel's position: a bucket's index, within a key's size */
    bool first = true;
    for (;;) {
        room(u, n + ask);
        uint32_t got = (uint32_t)ask;
        int r = bpf_map_lookup_batch(u->map_fd, first ? NULL : &token, &token, u->keys + n, u->vals + n, &got, NULL);
        int err = r ? errno : 0;
        if (err == ENOSPC && got == 0 && ask < PT_UDPREC_MAX) {
            ask *= 2;
            continue;
        }
        n += got;
        first = false;
        if (err == ENOENT || n >= PT_UDPREC_MAX)
            break;
        if (err == EINVAL || err == ENOTSUP || err == EOPNOTSUPP)
            goto one_by_one;
        if (err)
            return -err;
    }
    *count = n;
    return 0;
one_by_one:
    n = 0;
    room(u, PT_UDPREC_MAX);
    const struct pt_udpkey *prev = NULL;
    while (n < PT_UDPREC_MAX && bpf_map_get_next_key(u->map_fd, prev, &u->keys[n]) == 0) {
        prev = &u->keys[n];
        if (bpf_map_lookup_elem(u->map_fd, prev, &u->vals[n]) == 0)
            n++;
    }
    *count = n;
    return 0;
}

int pt_udpcount_read(struct pt_udpcount *u)
{
    size_t n = 0;
    u->n = 0;
    int err = read_entries(u, &n);
    if (err)
        return err;
    if (u->cap < n) {
        u->cap = n;
        u->snap = pt_xrealloc_array(u->snap, n, sizeof(*u->snap));
    }
    for (size_t i = 0; i < n; i++)
        u->snap[i] = (struct pt_udpcount_entry){u->keys[i], u->vals[i]};
    if (n > 1)
        qsort(u->snap, n, sizeof(*u->snap), compare);
    u->n = n;
    return 0;
}

void pt_udpcount_retire(struct pt_udpcount *u, bool (*followed)(pid_t tgid, void *arg), void *arg)
{
    for (size_t i = 0; i < u->n; i++)
        if (!followed((pid_t)u->snap[i].key.tgid, arg))
            bpf_map_delete_elem(u->map_fd, &u->snap[i].key);
}
#else
struct pt_udpcount *pt_udpcount_open(int members_fd, int btf_fd, char *why, size_t whylen)
{
    (void)members_fd;
    (void)btf_fd;
    snprintf(why, whylen, "this build has no BPF source (built without libbpf, clang or bpftool)");
    return NULL;
}

int pt_udpcount_attach(struct pt_udpcount *u, char *why, size_t whylen)
{
    (void)u;
    snprintf(why, whylen, "this build has no BPF source");
    return -ENOSYS;
}

void pt_udpcount_close(struct pt_udpcount *u)
{
    free(u);
}

uint64_t pt_udpcount_lost(const struct pt_udpcount *u)
{
    (void)u;
    return 0;
}

bool pt_udpcount_lookup(const struct pt_udpcount *u, pid_t tgid, uint64_t starttime, struct pt_udpcount_bytes *out)
{
    (void)u;
    (void)tgid;
    (void)starttime;
    *out = (struct pt_udpcount_bytes){0, 0};
    return false;
}

int pt_udpcount_read(struct pt_udpcount *u)
{
    u->n = 0;
    return -ENOSYS;
}

void pt_udpcount_retire(struct pt_udpcount *u, bool (*followed)(pid_t tgid, void *arg), void *arg)
{
    (void)u;
    (void)followed;
    (void)arg;
}
#endif

#include "cgroup/cgacct.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup/blkiocount.h"
#include "util/base.h"
#include "util/saturate.h"

/* Does v1 blkio count nothing now? Asked at the start and at the looks
 * again while it does not: a limit written later switches it on. */
static void ask_blkio(struct pt_cgacct *a)
{
    const char *mount = a->fs.v1[PT_V1_BLKIO];
    a->blkio_none = mount[0] && pt_blkiocount_none(mount, &a->buf, a->blkio_root, sizeof(a->blkio_root));
    if (!a->blkio_none)
        a->blkio_set_aside = false;
}

void pt_cgacct_init(struct pt_cgacct *a, const struct pt_cgroupfs *fs, struct pt_fd_budget *budget)
{
    memset(a, 0, sizeof(*a));
    a->fs = *fs;
    a->budget = budget;
    ask_blkio(a);
}

/* A cgroup's blkio directory dropped from dirs while v1 blkio counts
 * nothing: its files would read 0 whatever the cgroup did. existing:
 * dirs holds directories that are there (then one set aside is told). */
static void set_aside_blkio(struct pt_cgacct *a, struct pt_cgroup_dirs *dirs, bool existing)
{
    char *dir = dirs->v1[PT_V1_BLKIO];
    if (!a->blkio_none || !dir[0])
        return;
    dir[0] = '\0';
    a->blkio_set_aside |= existing;
}

static void close_entry(struct pt_cgentry *e)
{
    if (e->open)
        pt_cgstat_close(&e->stat);
    e->open = false;
}

void pt_cgacct_free(struct pt_cgacct *a)
{
    for (size_t i = 0; i < a->n; i++) {
        close_entry(&a->entries[i]);
        free(a->entries[i].dir);
    }
    free(a->entries);
    pt_buf_free(&a->buf);
    memset(a, 0, sizeof(*a));
}

/* Open e's cgroup; whole: a cgroup made since we last looked, whose
 * counters count from 0 (else from now). */
static void open_entry(struct pt_cgacct *a, struct pt_cgentry *e, bool whole)
{
    struct pt_cgroup_dirs dirs;
    memset(&e->current, 0, sizeof(e->current));
    e->error = pt_cgroupfs_dirs_of(&a->fs, e->dir, &dirs);
    if (e->error == 0)
        set_aside_blkio(a, &dirs, true);
    if (e->error != 0 || pt_cgstat_open(&e->stat, &dirs, a->budget, &a->buf) != 0)
        return;
    e->open = true;
    e->ino = pt_cgroupfs_inode(&dirs);
    for (int q = 0; q < PT_CGQ_CUMULATIVE_END; q++)
        e->base[q] = whole ? 0 : e->stat.value[q];
}

static struct pt_cgentry *find(const struct pt_cgacct *a, const char *dir)
{
    for (size_t i = 0; i < a->n; i++)
        if (strcmp(a->entries[i].dir, dir) == 0)
            return &a->entries[i];
    return NULL;
}

/* An open cgroup looked at again for the files it lacks (a v1
 * directory made at its path since, a controller enabled for it since:
 * systemd's MemoryAccounting=yes on a running unit): only those are
 * opened (pt_cgstat_look_again), its kept ones left as they are. What
 * it gains counts from now. */
static void reprobe(struct pt_cgacct *a, struct pt_cgentry *e)
{
    if ((e->stat.offered | PT_CGQ_PEAKS) == (1u << PT_CGQ_COUNT) - 1)
        return; /* nothing to look for */
    struct pt_cgroup_dirs where;
    if (pt_cgroupfs_paths_of(&a->fs, e->dir, &where) != 0)
        return;
    set_aside_blkio(a, &where, false);
    uint32_t more = pt_cgstat_look_again(&e->stat, &where, &a->buf);
    /* (a key a kept file gained since the open is its base already: the
     * value of the last read, which counted it) */
    for (int q = 0; q < PT_CGQ_CUMULATIVE_END; q++)
        if ((more >> q) & 1u)
            e->base[q] = e->stat.value[q];
    a->gained |= more;
}

void pt_cgacct_begin_set(struct pt_cgacct *a)
{
    /* what is missing is looked for again now and then, never per poll */
    bool probe = a->started && ++a->sets % PT_CGACCT_REPROBE_SETS == 0;
    if (probe && a->blkio_none)
        ask_blkio(a);
    for (size_t i = 0; i < a->n && probe; i++)
        if (a->entries[i].open)
            reprobe(a, &a->entries[i]);
    for (size_t i = 0; i < a->n; i++)
        a->entries[i].named = false;
}

bool pt_cgacct_name(struct pt_cgacct *a, const char *dir)
{
    struct pt_cgentry *e = find(a, dir);
    if (e && e->named)
        return false;
    if (!e) {
        if (a->n == a->cap) {
            a->cap = a->cap ? 2 * a->cap : 4;
            a->entries = pt_xrealloc_array(a->entries, a->cap, sizeof(*a->entries));
        }
        e = &a->entries[a->n++];
        memset(e, 0, sizeof(*e));
        e->dir = pt_xstrdup(dir);
    }
    e->named = true;
    if (e->leaving) {
        /* back before the interval's end: the same cgroup (its inode)
         * counts on from now, what it did before it left carried */
        struct pt_cgroup_dirs dirs;
        bool same = pt_cgroupfs_dirs_of(&a->fs, e->dir, &dirs) == 0 && pt_cgroupfs_inode(&dirs) == e->ino;
        e->leaving = e->reported = false;
        open_entry(a, e, !same);
    } else if (!e->open) {
        open_entry(a, e, a->started);
    }
    return true;
}

/* e's growth since the last interval's end (or its open) from its read
 * just made, carried to the interval's end. */
static void carry_growth(struct pt_cgentry *e)
{
    for (int q = 0; q < PT_CGQ_CUMULATIVE_END; q++) {
        if (!((e->stat.read >> q) & 1u))
            continue;
        uint64_t v = e->stat.value[q];
        /* never negative: a counter below its base was made again */
        e->carry[q] = (uint64_t)pt_sat_add((int64_t)e->carry[q], (int64_t)(v >= e->base[q] ? v - e->base[q] : v));
        e->base[q] = v;
        e->carried |= 1u << q;
    }
}

/* An open cgroup no longer named: read one last time, so that what it
 * did since the last interval's end is in the next one (where the kernel
 * still lets it be read: a cgroup dropped from the set while it exists; a
 * removed one's descriptors read ENODEV), then closed. It is reported at
 * the next end, then forgotten. A directory made again at its path since
 * (another inode) is not read: its files are another cgroup's. */
static void leave(struct pt_cgacct *a, struct pt_cgentry *e)
{
    if (pt_cgroupfs_inode(&e->stat.dirs) == e->ino && pt_cgstat_read(&e->stat, &a->buf) == 0)
        carry_growth(e);
    close_entry(e);
    e->leaving = true;
}

/* Is e done with: unnamed, and closed, or left and reported? */
static bool forgotten(const struct pt_cgentry *e)
{
    return !e->named && (!e->leaving || e->reported);
}

/* The open cgroups no longer named leave; those done with are
 * forgotten, the others kept in order. */
static void sweep(struct pt_cgacct *a)
{
    size_t kept = 0;
    for (size_t i = 0; i < a->n; i++) {
        if (a->entries[i].open && !a->entries[i].named)
            leave(a, &a->entries[i]);
        if (!forgotten(&a->entries[i])) {
            a->entries[kept++] = a->entries[i];
            continue;
        }
        close_entry(&a->entries[i]);
        free(a->entries[i].dir);
    }
    a->n = kept;
}

void pt_cgacct_end_set(struct pt_cgacct *a)
{
    sweep(a);
    a->started = true;
}

void pt_cgacct_set(struct pt_cgacct *a, const char *const *dirs, size_t n)
{
    pt_cgacct_begin_set(a);
    for (size_t j = 0; j < n; j++)
        pt_cgacct_name(a, dirs[j]);
    pt_cgacct_end_set(a);
}

void pt_cgacct_poll(struct pt_cgacct *a)
{
    int64_t sum = 0;
    bool all = true, any = false;
    for (size_t i = 0; i < a->n; i++) {
        struct pt_cgentry *e = &a->entries[i];
        uint64_t bytes;
        if (e->leaving)
            continue; /* no longer the target's */
        if (!e->open || pt_cgstat_read_current(&e->stat, &a->buf, &bytes) != 0) {
            all = false;
            continue;
        }
        pt_extrema_add(&e->current, (int64_t)bytes);
        sum = pt_sat_add(sum, (int64_t)bytes);
        any = true;
    }
    if (all && any)
        pt_extrema_add(&a->current, sum);
}

/* Each group of time quantities that one bound holds (pt_cgacct_bound):
 * user and system together, the throttling, each stall's some and full. */
static const struct {
    int q[2];
    bool per_cpu;
} bounded[] = {
    {{PT_CGQ_CPU_USER_US, PT_CGQ_CPU_SYSTEM_US}, true},
    {{PT_CGQ_THROTTLED_US, -1}, true},
    {{PT_CGQ_CPU_SOME_US, -1}, false},
    {{PT_CGQ_CPU_FULL_US, -1}, false},
    {{PT_CGQ_MEMORY_SOME_US, -1}, false},
    {{PT_CGQ_MEMORY_FULL_US, -1}, false},
    {{PT_CGQ_IO_SOME_US, -1}, false},
    {{PT_CGQ_IO_FULL_US, -1}, false},
};

/* e's time quantities of the interval in e->last, with what was deferred
 * before, held to what the interval can hold; the rest deferred again. A
 * group's excess is deferred from each of its quantities in proportion,
 * so that user and system keep their split. A full's deferred part stays
 * at most its some's: the grown totals keep full <= some, and taking the
 * part over one bound from each keeps the order. */
static void bound_times(struct pt_cgentry *e, double seconds, unsigned cpus, bool last)
{
    for (size_t g = 0; g < PT_ARRAY_LEN(bounded); g++) {
        uint64_t total = 0;
        for (int k = 0; k < 2 && bounded[g].q[k] >= 0; k++) {
            int q = bounded[g].q[k];
            if (!((e->last.known >> q) & 1u))
                continue; /* unknown now: what was deferred waits */
            e->last.value[q] += e->deferred[q];
            e->deferred[q] = 0;
            total += e->last.value[q];
        }
        double cap_us = seconds * 1e6 * (bounded[g].per_cpu ? (double)cpus : 1.0);
        if (last || !(seconds > 0) || (double)total <= cap_us)
            continue;
        uint64_t cap = (uint64_t)cap_us, kept = 0;
        for (int k = 0; k < 2 && bounded[g].q[k] >= 0; k++) {
            int q = bounded[g].q[k];
            if (!((e->last.known >> q) & 1u))
                continue;
            bool second = k == 1 || bounded[g].q[1] < 0;
            /* the first in proportion, rounded down; the second what is left */
            uint64_t share = second ? cap - kept : (uint64_t)((double)e->last.value[q] * (double)cap / (double)total);
            if (share > e->last.value[q])
                share = e->last.value[q];
            e->deferred[q] = e->last.value[q] - share;
            e->last.value[q] = share;
            kept += share;
        }
    }
}

/* Read e: its values of the interval into e->last, what it carried
 * (cgroups that left, or were made again, in the interval) added. A
 * cgroup made again at its path (another inode) is opened again and
 * counts from its start; one gone reports what it carried. True when it
 * was read now (its gauges are known). */
static bool end_entry(struct pt_cgacct *a, struct pt_cgentry *e)
{
    memset(&e->last, 0, sizeof(e->last));
    e->last.current = e->current;
    memset(&e->current, 0, sizeof(e->current));
    if (e->open) {
        struct pt_cgroup_dirs dirs = e->stat.dirs;
        if (pt_cgroupfs_inode(&dirs) != e->ino) {
            /* the old cgroup's files went with it (ENODEV): it is not read */
            close_entry(e);
            open_entry(a, e, true);
        } else if (pt_cgstat_read(&e->stat, &a->buf) != 0) {
            close_entry(e); /* gone: opened again at the next set */
        }
    }
    bool read = e->open;
    if (read)
        carry_growth(e);
    for (int q = 0; q < PT_CGQ_CUMULATIVE_END; q++)
        e->last.value[q] = e->carry[q];
    e->last.known = e->carried;
    memset(e->carry, 0, sizeof(e->carry));
    e->carried = 0;
    e->reported = e->leaving;
    bound_times(e, a->bound_seconds, a->bound_cpus, e->leaving || !read);
    if (!read)
        return false;
    const struct pt_cgstat *s = &e->stat;
    for (int q = PT_CGQ_CUMULATIVE_END; q < PT_CGQ_COUNT; q++) {
        if ((s->read >> q) & 1u) {
            e->last.value[q] = s->value[q];
            e->last.known |= 1u << q;
        }
    }
    if (!e->last.current.any)
        e->last.known &= ~(1u << PT_CGQ_MEMORY_CURRENT);
    return true;
}

void pt_cgacct_bound(struct pt_cgacct *a, double seconds, unsigned cpus)
{
    a->bound_seconds = seconds;
    a->bound_cpus = cpus ? cpus : 1;
}

void pt_cgacct_end_interval(struct pt_cgacct *a, struct pt_cgvalues *sum)
{
    const uint32_t all = (1u << PT_CGQ_COUNT) - 1, cumulative = (1u << PT_CGQ_CUMULATIVE_END) - 1;
    sweep(a); /* those that left before the last end */
    memset(sum, 0, sizeof(*sum));
    /* a cgroup read now has a say in every quantity; one that gave only
     * what it carried (it left) in those amounts alone; one that gave
     * nothing (gone unread) in none, as one dropped from the set */
    uint32_t known = all;
    bool any = false, now = false;
    for (size_t i = 0; i < a->n; i++) {
        struct pt_cgentry *e = &a->entries[i];
        bool read = end_entry(a, e);
        if (!read && !e->last.known)
            continue;
        known &= read ? e->last.known : e->last.known | ~cumulative;
        any = true;
        now |= read;
        for (int q = 0; q < PT_CGQ_COUNT; q++)
            sum->value[q] = (uint64_t)pt_sat_add((int64_t)sum->value[q], (int64_t)e->last.value[q]);
    }
    sum->known = !any ? 0 : now ? known & all : known & cumulative;
    sum->current = a->current;
    if (!sum->current.any)
        sum->known &= ~(1u << PT_CGQ_MEMORY_CURRENT);
    memset(&a->current, 0, sizeof(a->current));
}

const struct pt_cgvalues *pt_cgacct_values_of(const struct pt_cgacct *a, const char *dir)
{
    const struct pt_cgentry *e = find(a, dir);
    return e ? &e->last : NULL;
}

const char *pt_cgacct_unreadable(const struct pt_cgacct *a, int *error)
{
    for (size_t i = 0; i < a->n; i++)
        if (a->entries[i].error) {
            *error = a->entries[i].error;
            return a->entries[i].dir;
        }
    return NULL;
}

const char *pt_cgacct_next_unreset(struct pt_cgacct *a, int *error)
{
    for (size_t i = 0; i < a->n; i++) {
        struct pt_cgentry *e = &a->entries[i];
        if (e->open && e->stat.reset_error && !e->told_unreset) {
            e->told_unreset = true;
            *error = e->stat.reset_error;
            return e->dir;
        }
    }
    return NULL;
}

/* The file of each quantity (cgstat.c reads them), as the kernel names
 * it, for the start line's account of what is missing. */
static const char *const sources[PT_CGQ_COUNT] = {
    [PT_CGQ_CPU_USER_US] = "cpu.stat user_usec",
    [PT_CGQ_CPU_SYSTEM_US] = "cpu.stat system_usec",
    [PT_CGQ_THROTTLED_US] = "cpu.stat throttled_usec",
    [PT_CGQ_THROTTLED_PERIODS] = "cpu.stat nr_throttled",
    [PT_CGQ_CPU_SOME_US] = "cpu.pressure",
    [PT_CGQ_CPU_FULL_US] = "cpu.pressure full",
    [PT_CGQ_MEMORY_SOME_US] = "memory.pressure",
    [PT_CGQ_MEMORY_FULL_US] = "memory.pressure",
    [PT_CGQ_IO_SOME_US] = "io.pressure",
    [PT_CGQ_IO_FULL_US] = "io.pressure",
    [PT_CGQ_OOMS] = "memory.events oom",
    [PT_CGQ_OOM_KILLS] = "memory.events oom_kill",
    [PT_CGQ_HIGH_EVENTS] = "memory.events high",
    [PT_CGQ_MAX_EVENTS] = "memory.events max",
    [PT_CGQ_IO_READ_BYTES] = "io.stat",
    [PT_CGQ_IO_WRITE_BYTES] = "io.stat",
    [PT_CGQ_MEMORY_CURRENT] = "memory.current",
    [PT_CGQ_MEMORY_PEAK] = "memory.peak (reset per descriptor, Linux 6.12)",
    [PT_CGQ_MEMORY_PEAK_LIFETIME] = "memory.peak",
    [PT_CGQ_PIDS] = "pids.current",
};

/* The files of the quantities in mask, into out ("" for none). */
static void describe(uint32_t mask, char *out, size_t len)
{
    /* one peak is enough: the interval's, or else the lifetime's */
    if ((mask & PT_CGQ_PEAKS) != PT_CGQ_PEAKS)
        mask &= ~PT_CGQ_PEAKS;
    size_t used = 0;
    const char *last = "";
    out[0] = '\0';
    for (int q = 0; q < PT_CGQ_COUNT && used + 1 < len; q++) {
        const char *src = sources[q];
        if (!((mask >> q) & 1u) || strcmp(src, last) == 0)
            continue;
        int n = snprintf(out + used, len - used, "%s%s", used ? ", " : "", src);
        if (n < 0 || (size_t)n >= len - used)
            break; /* cut: what fits */
        used += (size_t)n;
        last = src;
    }
}

bool pt_cgacct_missing(const struct pt_cgacct *a, char *out, size_t len)
{
    uint32_t offered = 0;
    bool any = false;
    for (size_t i = 0; i < a->n; i++)
        if (a->entries[i].open)
            offered |= a->entries[i].stat.offered, any = true;
    out[0] = '\0';
    if (!any)
        return false;
    if (pt_cgacct_blkio_uncounted(a))
        offered |= 1u << PT_CGQ_IO_READ_BYTES | 1u << PT_CGQ_IO_WRITE_BYTES; /* said apart, with why */
    describe(~offered & ((1u << PT_CGQ_COUNT) - 1), out, len);
    return true;
}

const char *pt_cgacct_blkio_uncounted(const struct pt_cgacct *a)
{
    return a->blkio_none && a->blkio_set_aside ? a->blkio_root : NULL;
}

bool pt_cgacct_gained(struct pt_cgacct *a, char *out, size_t len)
{
    uint32_t gained = a->gained;
    a->gained = 0;
    describe(gained, out, len);
    return gained != 0;
}

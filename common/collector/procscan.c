#include "collector/procscan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "select/matcher.h"
#include "member/member.h"
#include "tree/target.h"
#include "procfs/pidwalk.h"

void pt_procscan_init(struct pt_procscan *s, int proc_root_fd, pid_t self)
{
    memset(s, 0, sizeof(*s));
    s->proc_root_fd = proc_root_fd;
    s->self = self;
    s->last_pid_fd = -1;
    s->last_pid = -1;
}

void pt_procscan_free(struct pt_procscan *s)
{
    if (s->last_pid_fd >= 0)
        close(s->last_pid_fd);
    free(s->entries);
    free(s->verdicts);
    free(s->pending);
    free(s->scratch);
    pt_pidmap_free(&s->index);
    pt_buf_free(&s->buf);
    memset(s, 0, sizeof(*s));
}

/* ---- the cache --------------------------------------------------------- */

static uint64_t *verdict(const struct pt_procscan *s, size_t slot)
{
    return &s->verdicts[slot * s->words];
}

static long slot_of(const struct pt_procscan *s, pid_t pid)
{
    long slot = pt_pidmap_get(&s->index, pid);
    return slot >= 0 && s->entries[slot].pid == pid ? slot : -1;
}

static void forget(struct pt_procscan *s, size_t slot)
{
    s->entries[slot].pid = 0;
    s->free_slots++;
}

/* Slots of forgotten processes are reclaimed when they are half. */
static void compact(struct pt_procscan *s)
{
    if (s->free_slots * 2 <= s->count)
        return;
    size_t kept = 0;
    pt_pidmap_clear(&s->index);
    for (size_t slot = 0; slot < s->count; slot++) {
        if (!s->entries[slot].pid)
            continue;
        s->entries[kept] = s->entries[slot];
        memmove(verdict(s, kept), verdict(s, slot), s->words * sizeof(uint64_t));
        pt_pidmap_put(&s->index, s->entries[kept].pid, (uint32_t)kept);
        kept++;
    }
    s->count = kept;
    s->free_slots = 0;
    s->rotation = 0;
}

static size_t new_slot(struct pt_procscan *s, pid_t pid)
{
    if (s->count == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 256;
        s->entries = pt_xrealloc(s->entries, s->cap * sizeof(*s->entries));
        s->verdicts = pt_xrealloc(s->verdicts, s->cap * s->words * sizeof(uint64_t));
    }
    size_t slot = s->count++;
    s->entries[slot] = (struct pt_scan_entry){.pid = pid};
    pt_pidmap_put(&s->index, pid, (uint32_t)slot);
    return slot;
}

/* proctree and its ancestors now, up from self through the ppids of the
 * proc root (a fixture's in the tests). Read at every run: an ancestor
 * that exits leaves the chain, and its pid may be another's later. */
static void find_ancestors(struct pt_procscan *s)
{
    s->n_ancestors = 0;
    pid_t pid = s->self;
    while (pid > 1 && s->n_ancestors < PT_ANCESTORS_MAX) {
        s->ancestors[s->n_ancestors++] = pid;
        struct pt_stat st;
        if (pt_member_read_stat_by_pid(s->proc_root_fd, pid, &s->buf, &st) != PT_READ_OK)
            break;
        pid = st.ppid;
    }
}

static bool is_ancestor(const struct pt_procscan *s, pid_t pid)
{
    for (size_t i = 0; i < s->n_ancestors; i++)
        if (s->ancestors[i] == pid)
            return true;
    return false;
}

/* Read pid and ask every scanned target's matcher. Returns false when the
 * process is gone. Kernel threads get no verdict bit. */
static bool ask_matchers(struct pt_procscan *s, pid_t pid, struct pt_target *targets, size_t n_targets, uint64_t *bits,
                         uint64_t *starttime)
{
    struct pt_candidate c;
    pt_matcher_candidate_init(&c, pid, s->proc_root_fd, &s->buf);
    bool user = pt_matcher_candidate_is_user_process(&c);
    if (!c.stat_ok)
        return false;
    *starttime = c.stat.starttime;
    memset(bits, 0, s->words * sizeof(uint64_t));
    if (!user || is_ancestor(s, pid)) /* their trees hold proctree (procscan.h) */
        return true;
    size_t k = 0;
    for (size_t i = 0; i < n_targets; i++) {
        if (!pt_discovery_wants_scan(&targets[i]))
            continue;
        if (pt_matcher_test(pt_discovery_matcher(&targets[i]), &c))
            bits[k / 64] |= (uint64_t)1 << (k % 64);
        k++;
    }
    return true;
}

/* (Re)classify pid, known or not. Returns its slot, or -1 when it is gone. */
static long classify(struct pt_procscan *s, pid_t pid, struct pt_target *targets, size_t n_targets)
{
    long slot = slot_of(s, pid);
    uint64_t starttime;
    uint64_t *bits = s->scratch;
    if (!ask_matchers(s, pid, targets, n_targets, bits, &starttime)) {
        if (slot >= 0)
            forget(s, (size_t)slot);
        return -1;
    }
    if (slot < 0)
        slot = (long)new_slot(s, pid);
    s->entries[slot].starttime = starttime;
    s->entries[slot].seen = s->walk;
    memcpy(verdict(s, (size_t)slot), bits, s->words * sizeof(uint64_t));
    return slot;
}

/* ---- learning of processes -------------------------------------------- */

struct walk {
    struct pt_procscan *s;
    struct pt_target *targets;
    size_t n_targets;
};

static void walk_one(pid_t pid, void *arg)
{
    struct walk *w = arg;
    long slot = slot_of(w->s, pid);
    if (slot >= 0)
        w->s->entries[slot].seen = w->s->walk;
    else
        classify(w->s, pid, w->targets, w->n_targets);
}

/* Every pid of the proc root: the new ones are classified, the known ones
 * kept as they are, the ones not listed any more forgotten. */
static void walk_proc(struct pt_procscan *s, struct pt_target *targets, size_t n_targets)
{
    s->walk++;
    struct walk w = {s, targets, n_targets};
    if (pt_pidwalk_each(s->proc_root_fd, ".", walk_one, &w) != 0)
        return; /* a failed walk forgets nothing */
    for (size_t slot = 0; slot < s->count; slot++)
        if (s->entries[slot].pid && s->entries[slot].seen != s->walk)
            forget(s, slot);
}

/* Has a pid been allocated since the last look? Unknown: assume so. */
static bool pids_moved(struct pt_procscan *s)
{
    char text[32];
    ssize_t n = s->last_pid_fd >= 0 ? pread(s->last_pid_fd, text, sizeof(text) - 1, 0) : -1;
    if (n <= 0)
        return true;
    text[n] = '\0';
    int64_t last = strtoll(text, NULL, 10);
    bool moved = last != s->last_pid;
    s->last_pid = last;
    return moved;
}

static void note_event(struct pt_procscan *s, const struct pt_procevent *e)
{
    if (e->kind == PT_PROCEVENT_EXIT) {
        long slot = slot_of(s, e->pid);
        if (slot >= 0)
            forget(s, (size_t)slot);
        return;
    }
    if (s->n_pending == s->cap_pending) {
        s->cap_pending = s->cap_pending ? s->cap_pending * 2 : 256;
        s->pending = pt_xrealloc(s->pending, s->cap_pending * sizeof(*s->pending));
    }
    s->pending[s->n_pending++] = e->pid;
}

void pt_procscan_follow_events(struct pt_procscan *s, const struct pt_procevent *events, size_t n, bool complete)
{
    if (!s->started)
        return; /* no matching selector, or before the first walk */
    if (!complete)
        s->walk_due = true; /* the kernel dropped events: look for yourself */
    for (size_t i = 0; i < n; i++)
        note_event(s, &events[i]);
}

/* A known process may have exec'd into a match (same pid): without
 * events, classify a slice of them again at every discovery. */
static void rotate(struct pt_procscan *s, struct pt_target *targets, size_t n_targets)
{
    size_t live = s->count - s->free_slots;
    size_t quota = (live + PT_RECHECK_DISCOVERIES - 1) / PT_RECHECK_DISCOVERIES;
    for (size_t looked = 0; quota > 0 && looked < s->count; looked++) {
        if (s->rotation >= s->count)
            s->rotation = 0;
        size_t slot = s->rotation++;
        if (!s->entries[slot].pid)
            continue;
        classify(s, s->entries[slot].pid, targets, n_targets);
        quota--;
    }
}

/* ---- handing out roots ------------------------------------------------ */

static bool any_bit(const uint64_t *bits, size_t words)
{
    for (size_t w = 0; w < words; w++)
        if (bits[w])
            return true;
    return false;
}

static bool has_bit(const uint64_t *bits, size_t k)
{
    return bits[k / 64] & ((uint64_t)1 << (k % 64));
}

/* Offer each match to its targets; a match a target does not follow yet
 * is classified again first (its pid may be another process's now). */
static void offer(struct pt_procscan *s, struct pt_target *targets, size_t n_targets)
{
    for (size_t slot = 0; slot < s->count; slot++) {
        pid_t pid = s->entries[slot].pid;
        if (!pid || !any_bit(verdict(s, slot), s->words))
            continue;
        bool fresh = false;
        for (size_t i = 0, k = 0; i < n_targets; i++) {
            struct pt_target *t = &targets[i];
            if (!pt_discovery_wants_scan(t))
                continue;
            size_t bit = k++;
            if (!has_bit(verdict(s, slot), bit) || pt_targetstate_has_member(t, pid))
                continue;
            if (!fresh) {
                fresh = true;
                if (classify(s, pid, targets, n_targets) < 0)
                    break; /* gone */
                if (!has_bit(verdict(s, slot), bit))
                    continue;
            }
            pt_target_offer_root(t, pid);
        }
    }
}

/* Size the cache for n_scanned targets; whatever it held is forgotten
 * (their verdicts no longer line up) and found again by a walk. */
static void size_for(struct pt_procscan *s, size_t n_scanned)
{
    s->n_targets = n_scanned;
    s->words = (n_scanned + 63) / 64;
    s->scratch = pt_xrealloc(s->scratch, s->words * sizeof(uint64_t));
    free(s->entries);
    free(s->verdicts);
    s->entries = NULL;
    s->verdicts = NULL;
    s->count = s->cap = s->free_slots = s->rotation = 0;
    pt_pidmap_clear(&s->index);
    s->walk_due = true;
}

/* The first run. Without events, a walk is due when a pid was allocated
 * (the collector's mode line says which way processes are learnt of). */
static void start(struct pt_procscan *s, bool events)
{
    s->started = true;
    if (!events)
        s->last_pid_fd = pt_procfs_open_sysctl_at(s->proc_root_fd, "sys/kernel/ns_last_pid");
}

void pt_procscan_run(struct pt_procscan *s, struct pt_target *targets, size_t n_targets, bool events)
{
    size_t n_scanned = 0;
    for (size_t i = 0; i < n_targets; i++)
        n_scanned += pt_discovery_wants_scan(&targets[i]);
    if (n_scanned == 0)
        return;
    if (!s->started)
        start(s, events);
    find_ancestors(s);
    if (n_scanned != s->n_targets)
        size_for(s, n_scanned);
    if (!events && pids_moved(s))
        s->walk_due = true;
    if (s->walk_due) {
        walk_proc(s, targets, n_targets);
        s->walk_due = false;
    }
    for (size_t i = 0; i < s->n_pending; i++)
        classify(s, s->pending[i], targets, n_targets);
    s->n_pending = 0;
    if (!events)
        rotate(s, targets, n_targets);
    offer(s, targets, n_targets);
    compact(s);
}

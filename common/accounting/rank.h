/* rank: which names a breakdown's limited slots hold (--by-rank,
 * BreakDownRank; docs/METRICS.md, "Ranked breakdown").
 *
 * By default (seen) a slot goes to the first name seen while one is free,
 * so a heavy worker that starts after --by-limit idle helpers is counted
 * in "other". Ranked, each interval's end weighs every name by the
 * resource chosen, the named groups by their line, the names in "other"
 * by their live members (or threads) in it:
 *   cpu:    user + system CPU of the interval, in clock ticks;
 *   memory: resident memory, bytes (a group's: its RSS max of the
 *           interval; a member's: its last poll's);
 *   io:     storage read + write bytes of the interval.
 * The names it picks are the next interval's named groups; it never moves
 * usage already reported. A name held by a slot keeps it until a name in
 * "other" weighs more than PT_RANK_FACTOR times it plus the resource's
 * floor (a clock tick, 1 MiB of memory, 1 MiB of I/O: a few stray ticks
 * or pages never take a slot from an idle name): two names of similar
 * weight never swap back and forth, and a free slot is taken by the
 * heaviest name in "other".
 *
 * It decides only; the ledger moves the groups (ledger.h, pt_ledgerrank_*),
 * so the groups add up to the tree through every change. */
#ifndef PROCTREE_ACCOUNTING_RANK_H
#define PROCTREE_ACCOUNTING_RANK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proctree/rank.h"
#include "util/buf.h"

/* A name in "other" takes the slot of the lightest named group only when
 * it weighs more than this times that group, plus the floor. */
#define PT_RANK_FACTOR 2

/* As both frontends spell it (--by-rank, BreakDownRank): "seen", "cpu",
 * "memory" or "io", exactly. Returns 0, or -1 (*out left alone). */
int pt_rank_parse(const char *text, enum pt_rank_by *out);
/* Its keyword; NULL for none of them. */
const char *pt_rank_name(enum pt_rank_by by);

/* One weight noted this interval: of a named group (slot < limit), or of
 * a member or thread in "other" (slot -1). */
struct pt_rank_note {
    size_t name; /* offset in names */
    int64_t weight;
    int32_t slot;
};

/* One name, the notes of it summed (pt_rank_choose). */
struct pt_rank_name {
    const char *name; /* in names */
    int64_t weight;
    int32_t slot; /* its named slot, -1: in "other" */
    bool named;   /* named in the next interval */
};

struct pt_rank {
    enum pt_rank_by by;
    struct pt_buf names; /* the notes' names, NUL-terminated, copied */
    struct pt_rank_note *notes;
    size_t n_notes, cap_notes;
    struct pt_rank_name *list; /* pt_rank_choose's, sorted by name */
    size_t n, cap;
    struct pt_rank_name **order; /* scratch: list by weight */
    bool chosen;                 /* list holds a choice, its names in names */
};

void pt_rank_init(struct pt_rank *r, enum pt_rank_by by);
void pt_rank_free(struct pt_rank *r);
/* name (NUL-terminated, copied) weighs weight (negative: 0) this
 * interval; slot: its named slot, or -1. */
void pt_rank_note(struct pt_rank *r, const char *name, int64_t weight, int32_t slot);
/* The notes of the interval summed by name into list, and the names of
 * the next interval chosen (named) among them: the named slots still held
 * (held[slot], limit slots) keep theirs unless outweighed (see above),
 * free ones go to the heaviest names in "other". The notes are cleared;
 * list stays (sorted by name, for pt_rank_find) until the next note. */
void pt_rank_choose(struct pt_rank *r, const bool *held, uint32_t limit);
/* The chosen entry of name, or NULL when it was not noted. */
const struct pt_rank_name *pt_rank_find(const struct pt_rank *r, const char *name);

#endif

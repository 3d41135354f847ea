/* ratelimit: a line that can come back, said at most once a period.
 *
 * A condition that comes and goes (a member's smaps_rollup slow, then
 * fast again, then slow) would otherwise fill the log the host agent
 * shares with its other plugins: seen, 16 such lines in 9 minutes of one
 * Telegraf's log. The first time the line is said at once; the next ones
 * within the period are held back and counted, and the next line said
 * tells how many were. A zeroed struct is ready: nothing said yet. */
#ifndef PROCTREE_RATELIMIT_H
#define PROCTREE_RATELIMIT_H

#include <stdbool.h>
#include <stddef.h>

/* The period of every rate-limited line, in seconds: ten minutes, so a
 * condition that lasts says itself six times an hour at most. */
#define PT_RATELIMIT_PERIOD 600

struct pt_ratelimit {
    bool said;     /* a line was said, at next - period */
    double next;   /* from then on the next one may be (the caller's clock) */
    unsigned held; /* lines held back since the last said */
};

/* May the line be said at now? If so, *held is how many were held back
 * since the last one said (to be said with it), and the period restarts;
 * if not, it is counted. */
bool pt_ratelimit_pass(struct pt_ratelimit *r, double now, double period, unsigned *held);

/* Would a line pass at now? Nothing is counted: for a line held back,
 * to be said late once its period is over if it still holds. */
bool pt_ratelimit_due(const struct pt_ratelimit *r, double now);

/* May the line be said at now, at most once a PT_RATELIMIT_PERIOD? If
 * so, its tail (pt_ratelimit_held_tail: how many were held back, as
 * what) is in tail: what nearly every limited line needs. */
bool pt_ratelimit_say(struct pt_ratelimit *r, double now, const char *what, char *tail, size_t len);

/* The tail of a line said after held were held back within
 * PT_RATELIMIT_PERIOD: " (and HELD more WHAT in the last 10 minutes)",
 * "" for none, into out. */
void pt_ratelimit_held_tail(unsigned held, const char *what, char *out, size_t len);

#endif

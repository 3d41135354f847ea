#include "util/ratelimit.h"

#include <limits.h>
#include <stdio.h>

bool pt_ratelimit_due(const struct pt_ratelimit *r, double now)
{
    return !r->said || now >= r->next;
}

bool pt_ratelimit_pass(struct pt_ratelimit *r, double now, double period, unsigned *held)
{
    if (!pt_ratelimit_due(r, now)) {
        if (r->held < UINT_MAX)
            r->held++;
        return false;
    }
    *held = r->held;
    *r = (struct pt_ratelimit){.said = true, .next = now + period, .held = 0};
    return true;
}

bool pt_ratelimit_say(struct pt_ratelimit *r, double now, const char *what, char *tail, size_t len)
{
    unsigned held;
    if (!pt_ratelimit_pass(r, now, PT_RATELIMIT_PERIOD, &held))
        return false;
    pt_ratelimit_held_tail(held, what, tail, len);
    return true;
}

void pt_ratelimit_held_tail(unsigned held, const char *what, char *out, size_t len)
{
    if (len == 0)
        return;
    out[0] = '\0';
    if (held)
        snprintf(out, len, " (and %u more %s in the last %d minutes)", held, what, PT_RATELIMIT_PERIOD / 60);
}

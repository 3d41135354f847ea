#include "ratelimit.h"

#include <limits.h>

bool pt_ratelimit_pass(struct pt_ratelimit *r, double now, double period, unsigned *held)
{
    if (r->said && now < r->next) {
        if (r->held < UINT_MAX)
            r->held++;
        return false;
    }
    *held = r->held;
    *r = (struct pt_ratelimit){.said = true, .next = now + period, .held = 0};
    return true;
}

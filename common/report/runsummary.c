/* runsummary: interval reports folded into one for a whole run
 * (runsummary.h says how each kind folds, and why). */
#include "report/runsummary.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

void pt_runsummary_init(struct pt_run_summary *s)
{
    memset(s, 0, sizeof(*s));
}

static double as_double(const struct pt_value *v)
{
    return v->is_int ? (double)v->i : v->f;
}

/* A DELTA added: an integer sum while both are integers, else floats (a
 * field keeps one type while the configuration does: both are the same). */
static void add_delta(struct pt_value *sum, const struct pt_value *v)
{
    if (sum->is_int && v->is_int) {
        sum->i = v->i > INT64_MAX - sum->i ? INT64_MAX : sum->i + v->i; /* saturates, as units.c does */
        return;
    }
    sum->f = as_double(sum) + as_double(v);
    sum->is_int = false;
}

static bool lower(const struct pt_value *a, const struct pt_value *b)
{
    return a->is_int && b->is_int ? a->i < b->i : as_double(a) < as_double(b);
}

void pt_runsummary_add(struct pt_run_summary *s, const struct pt_report *r, double seconds)
{
    if (!(seconds >= 0))
        seconds = 0;
    s->seconds += seconds;
    s->intervals++;
    for (size_t id = 0; id < PT_METRIC_COUNT; id++) {
        const struct pt_value *v = &r->v[id];
        struct pt_value *f = &s->folded.v[id];
        if (!v->present)
            continue;
        bool first = !f->present;
        switch (pt_catalog[id].kind) {
        case PT_KIND_GAUGE_MIN:
            if (first || lower(v, f))
                *f = *v;
            break;
        case PT_KIND_GAUGE_MAX:
            if (first || lower(f, v))
                *f = *v;
            break;
        case PT_KIND_DELTA:
            if (first)
                *f = *v;
            else
                add_delta(f, v);
            break;
        case PT_KIND_COUNT:
            *f = *v;
            break;
        case PT_KIND_RATIO:
            f->present = true;
            f->is_int = false;
            f->f = (first ? 0 : f->f) + as_double(v) * seconds;
            break;
        }
    }
}

void pt_runsummary_report(const struct pt_run_summary *s, struct pt_report *out)
{
    *out = s->folded;
    for (size_t id = 0; id < PT_METRIC_COUNT; id++)
        if (pt_catalog[id].kind == PT_KIND_RATIO && out->v[id].present)
            out->v[id].f = s->seconds > 0 ? out->v[id].f / s->seconds : 0;
}

int pt_runsummary_check(const struct pt_run_summary *s, char *why, size_t whylen)
{
    if (!(s->seconds >= 0)) {
        snprintf(why, whylen, "seconds %g < 0", s->seconds);
        return -1;
    }
    for (size_t id = 0; id < PT_METRIC_COUNT; id++) {
        const struct pt_value *v = &s->folded.v[id];
        if (!v->present)
            continue;
        if (as_double(v) < 0) {
            snprintf(why, whylen, "%s is negative", pt_catalog[id].name);
            return -1;
        }
        /* the same lengths added in the same order, but for those of no
         * length, which add nothing to either */
        double off = as_double(v) - s->seconds;
        if (pt_catalog[id].from == PT_FROM_INTERVAL && (off > 1e-9 * s->seconds || -off > 1e-9 * s->seconds)) {
            snprintf(why, whylen, "%s %g is not the run's %g s", pt_catalog[id].name, as_double(v), s->seconds);
            return -1;
        }
        if (pt_catalog[id].kind == PT_KIND_GAUGE_MIN && s->folded.v[id + 1].present && lower(&s->folded.v[id + 1], v)) {
            snprintf(why, whylen, "%s above %s", pt_catalog[id].name, pt_catalog[id + 1].name);
            return -1;
        }
    }
    return 0;
}

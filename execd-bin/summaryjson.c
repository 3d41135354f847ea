#include "summaryjson.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "proctree/escape.h"
#include "proctree/lines.h"

/* Where json_* fails, it returns NULL (out of memory, or a number that is
 * not finite), and json_object_set_new takes NULL as an error: one check
 * of the whole object at the end. */
static int set(json_t *object, const char *key, json_t *value)
{
    return value ? json_object_set_new(object, key, value) : -1;
}

static json_t *metrics(const struct pt_report *r)
{
    json_t *m = json_object();
    int failed = m ? 0 : -1;
    for (size_t id = 0; id < PT_METRIC_COUNT && !failed; id++) {
        const struct pt_value *v = &r->v[id];
        if (!v->present)
            continue;
        /* a value that is not finite is never a line's (lines.h): left out
         * here as there, not written as JSON cannot hold it */
        if (!v->is_int && !isfinite(v->f))
            continue;
        failed = set(m, pt_catalog[id].name, v->is_int ? json_integer(v->i) : json_real(v->f));
    }
    if (failed) {
        json_decref(m);
        return NULL;
    }
    return m;
}

int execd_summary_json(struct pt_buf *out, const char *command, const int *wait_status,
                       const struct pt_run_summary *run, const struct pt_units *units)
{
    struct pt_report r;
    pt_runsummary_report(run, &r);
    char q[PT_QUOTED_MAX];
    json_t *o = json_object();
    if (!o)
        return -1;
    /* escaped: valid UTF-8 whatever the command's name is made of */
    int failed = set(o, "command", json_string(pt_escape(command, q, sizeof(q))));
    failed |= set(o, "seconds", json_real(run->seconds));
    failed |= set(o, "intervals", json_integer((json_int_t)run->intervals));
    bool signaled = wait_status && WIFSIGNALED(*wait_status);
    failed |= set(o, "exit_status", wait_status && !signaled ? json_integer(WEXITSTATUS(*wait_status)) : json_null());
    failed |= set(o, "signal", signaled ? json_integer(WTERMSIG(*wait_status)) : json_null());
    failed |= set(o, "proc_memory_unit", json_string(pt_units_mem_name(units->proc_memory)));
    failed |= set(o, "metrics", metrics(&r));
    char *text = failed ? NULL : json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
    json_decref(o);
    if (!text)
        return -1;
    pt_buf_puts(out, text);
    pt_buf_puts(out, "\n");
    free(text);
    return 0;
}

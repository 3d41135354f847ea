#include "proctree/optiontable.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "accounting/rank.h"
#include "collector/collectorconfig.h"
#include "report/totals.h"
#include "report/units.h"
#include "select/selector.h"
#include "select/titlegroup.h"

const struct pt_option_def pt_options[PT_OPTION_COUNT] = {
#define PT_OPTION_DEF(id, execd, collectd, arg, min, max, scope, metavar, help)                                        \
    [id] = {id, execd, collectd, PT_ARG_##arg, min, max, PT_OPTION_##scope, metavar, help},
    PT_OPTION_TABLE(PT_OPTION_DEF)
#undef PT_OPTION_DEF
};

const struct pt_option_def *pt_optiontable_by_key(const char *key)
{
    for (size_t i = 0; i < PT_OPTION_COUNT; i++)
        if (pt_options[i].collectd && strcasecmp(key, pt_options[i].collectd) == 0)
            return &pt_options[i];
    return NULL;
}

static const char *frontend_name(const struct pt_option_def *option, bool execd)
{
    return execd ? option->execd : option->collectd;
}

void pt_optiontable_selector_list(char *out, size_t outlen, bool execd)
{
    size_t total = 0, n = 0, len = 0;
    for (size_t i = 0; i < PT_OPTION_COUNT; i++)
        total += pt_options[i].scope == PT_OPTION_SELECTOR && frontend_name(&pt_options[i], execd);
    out[0] = '\0';
    for (size_t i = 0; i < PT_OPTION_COUNT && len < outlen; i++) {
        const char *name = frontend_name(&pt_options[i], execd);
        if (pt_options[i].scope != PT_OPTION_SELECTOR || !name)
            continue;
        const char *joiner = n == 0 ? "" : n + 1 == total ? " or " : ", ";
        len += (size_t)snprintf(out + len, outlen - len, "%s%s%s", joiner, execd ? "--" : "", name);
        n++;
    }
}

/* Decimal digits only: strtoul would also take " 5", "+5" and "-5". */
static int parse_whole(const char *text, unsigned long min, unsigned long max, unsigned long *out)
{
    unsigned long v = 0;
    if (!*text)
        return -1;
    for (const char *p = text; *p; p++) {
        if (*p < '0' || *p > '9' || v > max) /* v > max: stop before it can wrap */
            return -1;
        v = v * 10 + (unsigned long)(*p - '0');
    }
    if (v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

bool pt_optiontable_duration_ok(const struct pt_option_def *option, double seconds)
{
    if (option->arg == PT_ARG_DURATION_OR_0 && seconds == 0)
        return true;
    /* min / 1000.0 is the double "0.001" and "1ms" parse to: 1 ms is in */
    return seconds >= (double)option->min / 1000 && seconds <= (double)option->max / 1000;
}

/* ms as a duration's text: "24h", "2s", "1ms". */
static void duration_text(char *out, size_t outlen, unsigned long ms)
{
    if (ms % 3600000 == 0)
        snprintf(out, outlen, "%luh", ms / 3600000);
    else if (ms % 1000 == 0)
        snprintf(out, outlen, "%lus", ms / 1000);
    else
        snprintf(out, outlen, "%lums", ms);
}

void pt_optiontable_duration_range(char *out, size_t outlen, const struct pt_option_def *option, bool execd)
{
    char min[32], max[32];
    const char *or_0 = option->arg == PT_ARG_DURATION_OR_0 ? ", or 0" : "";
    duration_text(min, sizeof(min), option->min);
    duration_text(max, sizeof(max), option->max);
    if (execd)
        snprintf(out, outlen, "a duration from %s to %s (e.g. 250ms, 2s, 1.5)%s", min, max, or_0);
    else
        snprintf(out, outlen, "a number of seconds from %g to %g (%s to %s)%s", (double)option->min / 1000,
                 (double)option->max / 1000, min, max, or_0);
}

int pt_optiontable_parse(const struct pt_option_def *option, const char *text, union pt_option_value *out, char *why,
                         size_t whylen)
{
    switch (option->arg) {
    case PT_ARG_WHOLE:
        if (parse_whole(text, option->min, option->max, &out->whole) == 0)
            return 0;
        snprintf(why, whylen, "a whole number from %lu to %lu", option->min, option->max);
        return -1;
    case PT_ARG_PATH:
    case PT_ARG_TEXT:
        if (*text) {
            out->text = text;
            return 0;
        }
        snprintf(why, whylen, option->arg == PT_ARG_PATH ? "a path, not an empty one" : "a value, not an empty one");
        return -1;
    case PT_ARG_DURATION_OR_0:
    case PT_ARG_DURATION: {
        /* "0" of DURATION_OR_0: the guard off (a read of any length is kept) */
        double seconds = 0;
        if ((strcmp(text, "0") == 0 || pt_units_duration_parse(text, &seconds) == 0) &&
            pt_optiontable_duration_ok(option, seconds)) {
            out->seconds = seconds;
            return 0;
        }
        pt_optiontable_duration_range(why, whylen, option, true);
        return -1;
    }
    case PT_ARG_MEM_UNIT:
        if (pt_units_mem_parse(text, &out->unit) == 0)
            return 0;
        snprintf(why, whylen, "one of bytes, kB, MB, GB, KiB, MiB, GiB");
        return -1;
    case PT_ARG_BREAKDOWN:
        if (pt_selector_breakdown_parse(text, &out->by) == 0)
            return 0;
        snprintf(why, whylen, "a breakdown: process, title, thread or cgroup");
        return -1;
    case PT_ARG_RANK:
        if (pt_rank_parse(text, &out->rank) == 0)
            return 0;
        snprintf(why, whylen, "a ranking: seen, cpu, memory or io");
        return -1;
    case PT_ARG_REGEX: {
        /* compiled now, so that a bad one stops the start with its option's
         * name; the target compiles it again (titlegroup.h) */
        struct pt_titlegroup tg;
        if (!*text) {
            snprintf(why, whylen, "a regular expression, not an empty one");
            return -1;
        }
        if (pt_titlegroup_init(&tg, text, why, whylen) != 0)
            return -1;
        pt_titlegroup_free(&tg);
        out->text = text;
        return 0;
    }
    case PT_ARG_SOURCE:
        if (pt_collector_source_parse(text, &out->source) == 0)
            return 0;
        snprintf(why, whylen, "a source: auto, procfs or bpf");
        return -1;
    case PT_ARG_COUNTERS:
        if (pt_totals_counters_parse(text, &out->counters) == 0)
            return 0;
        snprintf(why, whylen, "a counter mode: delta or total");
        return -1;
    case PT_ARG_PROC_DIR:
    case PT_ARG_SYS_DIR: {
        int r = option->arg == PT_ARG_PROC_DIR ? pt_collector_check_proc_root(text, why, whylen)
                                               : pt_collector_check_sys_root(text, why, whylen);
        out->text = text;
        return r;
    }
    case PT_ARG_NONE:
    case PT_ARG_OFF:
        break;
    }
    snprintf(why, whylen, "no value");
    return -1;
}

/* The library's per-target settings. -1: none of them (the frontend keeps
 * it: --name, the block's name). */
static int store_target(enum pt_option_id id, const union pt_option_value *v, struct pt_target_options *target)
{
    switch (id) {
    case PT_O_BY:
        target->breakdown = v->by;
        return 0;
    case PT_O_BY_LIMIT:
        target->breakdown_limit = (unsigned)v->whole;
        return 0;
    case PT_O_BY_RANK:
        target->breakdown_rank = v->rank;
        return 0;
    case PT_O_BY_TITLE_PATTERN:
        target->title_pattern = v->text;
        return 0;
    case PT_O_NO_PSS:
        target->collect_pss = v->on;
        return 0;
    case PT_O_PSS_BUDGET:
        target->pss_budget = v->seconds;
        return 0;
    case PT_O_PSS_EVERY:
        target->pss_every = (unsigned)v->whole;
        return 0;
    case PT_O_NO_CTX_SWITCHES:
        target->collect_ctx_switches = v->on;
        return 0;
    case PT_O_NO_FDS:
        target->collect_fds = v->on;
        return 0;
    case PT_O_NO_NET:
        target->collect_net = v->on;
        return 0;
    case PT_O_NO_CGROUP_METRICS:
        target->collect_cgroup = v->on;
        return 0;
    default:
        return -1;
    }
}

/* The collector's settings. -1: none of them (the frontend's own: the
 * timing of batches, launch mode, --help). */
static int store_global(enum pt_option_id id, const union pt_option_value *v, struct pt_collector_config *config)
{
    switch (id) {
    case PT_O_POLL_INTERVAL:
        config->poll_interval = v->seconds;
        return 0;
    case PT_O_DISCOVERY_INTERVAL:
        config->discovery_interval = v->seconds;
        return 0;
    case PT_O_PSS_INTERVAL:
        config->pss_interval = v->seconds;
        return 0;
    case PT_O_PROC_MEMORY_UNIT:
        config->units.proc_memory = v->unit;
        return 0;
    case PT_O_GLOBAL_MEMORY_UNIT:
        config->units.global_memory = v->unit;
        return 0;
    case PT_O_NO_GLOBAL:
        config->collect_global = v->on;
        return 0;
    case PT_O_DESCRIPTOR_BUDGET:
        config->fd_budget = v->whole;
        return 0;
    case PT_O_SOURCE:
        config->source = v->source;
        return 0;
    case PT_O_COUNTERS:
        config->counters = v->counters;
        return 0;
    case PT_O_PROC_ROOT:
        config->proc_root = v->text;
        return 0;
    case PT_O_SYS_ROOT:
        config->sys_root = v->text;
        return 0;
    default:
        return -1;
    }
}

int pt_optiontable_store(const struct pt_option_def *option, const union pt_option_value *value,
                         struct pt_collector_config *config, struct pt_target_options *target,
                         struct pt_selector *selector)
{
    switch (option->scope) {
    case PT_OPTION_SELECTOR:
        selector->kind = option->selects;
        if (option->arg == PT_ARG_WHOLE)
            selector->pid = (pid_t)value->whole;
        else if (option->arg == PT_ARG_PATH)
            selector->path = value->text;
        else
            selector->value = value->text;
        return 0;
    case PT_OPTION_TARGET:
        return store_target(option->id, value, target);
    case PT_OPTION_GLOBAL:
        return store_global(option->id, value, config);
    }
    return -1;
}

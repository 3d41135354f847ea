/* plugin.c: registration, the sampler thread, read (an ended interval
 * dispatched as value lists) and shutdown.
 *
 * Gauges need a poll every PollInterval (100 ms by default), far faster
 * than collectd reads, so one thread made with plugin_thread_create (it
 * inherits the plugin's context and interval) ticks the collector, and the
 * read callback ends the interval. The collector is not thread-safe:
 * both sides take state.lock. The thread sleeps on a CLOCK_MONOTONIC
 * condition variable, the clock of pt_now(), so shutdown wakes it at once
 * and a wall-clock step cannot stall sampling. */
#include "proctree_plugin.h"

#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "collectd/core/utils/common/common.h"
#include "proctree/escape.h"

static struct {
    pthread_mutex_t lock;
    pthread_cond_t wake; /* signalled by shutdown */
    pthread_t thread;
    bool running;
    bool stop;
    double next_tick; /* pt_now() seconds */
    double opened;    /* pt_now() when init opened the first interval; 0 once it ended */
    struct pt_collector *collector;
} state = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* The sink of pt_logf (base.h): collectd's own log, with its severities. */
static void log_to_collectd(enum pt_log_level level, const char *line, void *arg)
{
    static const int severity[] = {
        [PT_LOG_ERROR] = LOG_ERR,
        [PT_LOG_WARNING] = LOG_WARNING,
        [PT_LOG_INFO] = LOG_INFO,
        [PT_LOG_DEBUG] = LOG_DEBUG,
    };

    (void)arg;
    plugin_log(severity[level], "proctree plugin: %s", line);
}

/* The latest deadline a timespec of this time_t takes: 1e15 s (32
 * million years) where it has 64 bits, else 2^31 - 1. The table's
 * options keep deadlines within a day of now; this keeps the casts below
 * defined for any double (1e22 overflowed them). */
#define DEADLINE_MAX (sizeof(time_t) < 8 ? 2147483647.0 : 1e15)

/* A pt_now() deadline as pthread_cond_timedwait takes it: always valid
 * (tv_nsec in range, never negative), so it cannot fail with EINVAL. */
static struct timespec monotonic_timespec(double seconds)
{
    if (!(seconds > 0)) /* NaN too */
        seconds = 0;
    if (seconds > DEADLINE_MAX)
        seconds = DEADLINE_MAX;
    struct timespec ts = {.tv_sec = (time_t)seconds};

    ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
    if (ts.tv_nsec > 999999999L)
        ts.tv_nsec = 999999999L;
    return ts;
}

static void *sampler(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&state.lock);
    while (!state.stop) {
        struct timespec deadline = monotonic_timespec(state.next_tick);

        /* 0 is shutdown or a spurious wake-up: the loop condition tells
         * which. Any error (EINVAL: a deadline it cannot take) returns at
         * once: looping on it would spin holding the lock, and collectd's
         * read would wait on it for ever. */
        int err = pthread_cond_timedwait(&state.wake, &state.lock, &deadline);
        if (err == ETIMEDOUT) {
            state.next_tick = pt_collector_tick(state.collector, pt_now());
        } else if (err != 0) {
            pt_logf(PT_LOG_ERROR, "sampler thread: waiting for %.3f s: %s; sampling stops", state.next_tick,
                    strerror(err));
            break;
        }
    }
    pthread_mutex_unlock(&state.lock);
    return NULL;
}

static int ptcd_config(oconfig_item_t *ci)
{
    if (state.collector != NULL) {
        pt_logf(PT_LOG_ERROR, "a second <Plugin proctree> block; put every <Process> in one block");
        return -1;
    }
    return ptcd_config_parse(ci, &state.collector);
}

static int ptcd_init(void)
{
    static const oconfig_item_t no_block; /* LoadPlugin without <Plugin proctree>: defaults */
    pthread_condattr_t attr;
    int err;

    if (state.collector == NULL && ptcd_config_parse(&no_block, &state.collector) != 0)
        return -1;

    /* The first tick opens the interval (discovery and first sample), so a
     * read that comes before the thread runs ends a real interval. */
    state.opened = pt_now();
    state.next_tick = pt_collector_tick(state.collector, state.opened);

    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&state.wake, &attr);
    pthread_condattr_destroy(&attr);
    err = plugin_thread_create(&state.thread, sampler, NULL, "proctree");
    if (err != 0) {
        pt_logf(PT_LOG_ERROR, "cannot start the sampler thread: %s", strerror(err));
        pthread_cond_destroy(&state.wake);
        return -1;
    }
    state.running = true;
    return 0;
}

/* ---------------------------------------------------------------------------
 * An ended interval as collectd value lists.
 *
 * Identifier: proctree[-TARGET]/TYPE-METRIC, TYPE being the stock types.db
 * type the catalog gives (one GAUGE each), so receivers need no custom
 * TypesDB. A breakdown group's values are proctree-TARGET-GROUP/TYPE-METRIC:
 * the group is in the plugin instance, so a Graphite path and the
 * InfluxDB listener's "instance" tag show it. Every value of a read carries the batch's timestamp, so a
 * dashboard can line up min, max and deltas of one interval.
 * ------------------------------------------------------------------------ */

static void dispatch_report(const struct pt_report *report, enum pt_scope scope, const char *instance, cdtime_t time)
{
    value_t value;
    value_list_t vl = VALUE_LIST_INIT;

    vl.values = &value;
    vl.values_len = 1;
    vl.time = time;
    sstrncpy(vl.plugin, "proctree", sizeof vl.plugin);
    sstrncpy(vl.plugin_instance, instance, sizeof vl.plugin_instance);
    for (int id = 0; id < PT_METRIC_COUNT; id++) {
        if (!pt_catalog_metric_on((enum pt_metric_id)id, scope) || !report->v[id].present)
            continue;
        value.gauge = pt_lines_value_as_double(&report->v[id]);
        sstrncpy(vl.type, pt_catalog[id].collectd_type, sizeof vl.type);
        sstrncpy(vl.type_instance, pt_catalog[id].name, sizeof vl.type_instance);
        plugin_dispatch_values(&vl); /* copies vl */
    }
}

/* "TARGET-GROUP", cut at collectd's limit. A process name may hold '/'
 * (a path separator for the csv and rrd writers) and control characters,
 * C1 ones (U+0085 as c2 85) too: they become '_' (escape.h). */
static void group_instance(char *out, size_t size, const char *target, const char *group)
{
    int n = snprintf(out, size, "%s-", target);
    size_t at = n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
    pt_escape_collectd(group, out + at, size - at);
}

/* One ended interval: a value list per present metric, all with the
 * batch's timestamp. */
static void dispatch_batch(const struct pt_batch *batch)
{
    cdtime_t time = NS_TO_CDTIME_T(batch->timestamp_ns);

    for (size_t i = 0; i < batch->n_targets; i++) {
        const struct pt_target_result *target = &batch->targets[i];

        dispatch_report(&target->report, PT_SCOPE_PROC, target->name, time);
        for (size_t g = 0; g < target->n_groups; g++) {
            char instance[DATA_MAX_NAME_LEN];
            group_instance(instance, sizeof instance, target->name, target->groups[g].key);
            dispatch_report(&target->groups[g].report, PT_SCOPE_PROC, instance, time);
        }
    }
    if (batch->has_global)
        dispatch_report(&batch->global, PT_SCOPE_GLOBAL, "", time);
}

/* collectd reads a plugin as soon as it is initialised: ending the first
 * interval then would make lines that cover a few milliseconds, whose
 * amounts are noise (a rate of 0, or of one read's burst, on a dashboard).
 * That read leaves the interval open; the next one ends it, covering the
 * time since init. Nothing is lost: the amounts of both are in that line. */
static bool first_read_too_early(double now)
{
    if (state.opened == 0)
        return false;
    if (now - state.opened < CDTIME_T_TO_DOUBLE(plugin_get_interval()) / 2)
        return true;
    state.opened = 0;
    return false;
}

static int ptcd_read(void)
{
    int rc = -1;

    pthread_mutex_lock(&state.lock);
    if (state.running) {
        double now = pt_now();

        /* Dispatch under the lock: the batch belongs to the collector. */
        if (!first_read_too_early(now))
            dispatch_batch(pt_collector_end_interval(state.collector, now));
        rc = 0;
    }
    pthread_mutex_unlock(&state.lock);
    return rc;
}

static int ptcd_shutdown(void)
{
    if (state.running) {
        pthread_mutex_lock(&state.lock);
        state.stop = true;
        pthread_cond_signal(&state.wake);
        pthread_mutex_unlock(&state.lock);
        pthread_join(state.thread, NULL);
        pthread_cond_destroy(&state.wake);
        state.running = false;
    }
    pt_collector_free(state.collector);
    state.collector = NULL;
    return 0;
}

/* The one exported symbol: the plugin is built with -fvisibility=hidden. */
__attribute__((visibility("default"))) void module_register(void)
{
    pt_log_set_sink(log_to_collectd, NULL);
    pt_logf(PT_LOG_INFO, "version %s", PROCTREE_VERSION);
    plugin_register_complex_config("proctree", ptcd_config);
    plugin_register_init("proctree", ptcd_init);
    plugin_register_read("proctree", ptcd_read);
    plugin_register_shutdown("proctree", ptcd_shutdown);
}

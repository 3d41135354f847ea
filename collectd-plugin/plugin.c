/* plugin.c: registration, the sampler thread, read and shutdown.
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

static struct {
    pthread_mutex_t lock;
    pthread_cond_t wake; /* signalled by shutdown */
    pthread_t thread;
    bool running;
    bool stop;
    double next_tick; /* pt_now() seconds */
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
    state.next_tick = pt_collector_tick(state.collector, pt_now());

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

static int ptcd_read(void)
{
    int rc = -1;

    pthread_mutex_lock(&state.lock);
    if (state.running) {
        /* Dispatch under the lock: the batch belongs to the collector. */
        ptcd_dispatch(pt_collector_end_interval(state.collector, pt_now()));
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

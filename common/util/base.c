#include "util/base.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pt_log_sink log_sink;
static void *log_sink_arg;

void pt_log_set_sink(pt_log_sink sink, void *arg)
{
    log_sink = sink;
    log_sink_arg = arg;
}

void pt_logf(enum pt_log_level level, const char *fmt, ...)
{
    if (!log_sink)
        return;
    char line[PT_LOG_LINE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    log_sink(level, line, log_sink_arg);
}

static pt_absent_sink absent_sink;
static void *absent_sink_arg;

void pt_log_set_absent_sink(pt_absent_sink sink, void *arg)
{
    absent_sink = sink;
    absent_sink_arg = arg;
}

void pt_log_absent(const char *what)
{
    if (absent_sink)
        absent_sink(what, absent_sink_arg);
}

static _Noreturn void out_of_memory(size_t size)
{
    pt_logf(PT_LOG_ERROR, "out of memory (%zu bytes); aborting", size);
    abort();
}

void *pt_xalloc(size_t size)
{
    void *p = calloc(1, size ? size : 1);
    if (!p)
        out_of_memory(size);
    return p;
}

void *pt_xrealloc(void *p, size_t size)
{
    if (size == 0) {
        free(p);
        return NULL;
    }
    void *grown = realloc(p, size);
    if (!grown)
        out_of_memory(size);
    return grown;
}

void *pt_xrealloc_array(void *p, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        out_of_memory(SIZE_MAX);
    return pt_xrealloc(p, n * size);
}

char *pt_xstrdup(const char *s)
{
    size_t len = strlen(s) + 1;
    char *copy = pt_xalloc(len);
    memcpy(copy, s, len);
    return copy;
}

static double seconds_of(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double pt_now(void)
{
    return seconds_of(CLOCK_MONOTONIC);
}

double pt_boottime(void)
{
    return seconds_of(CLOCK_BOOTTIME);
}

double pt_thread_cpu_seconds(void)
{
    return seconds_of(CLOCK_THREAD_CPUTIME_ID);
}

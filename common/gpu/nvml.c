#include "gpu/nvml.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <time.h>

#include "util/base.h"

/* nvml.h's return codes used here */
enum {
    NVML_SUCCESS = 0,
    NVML_ERROR_NOT_FOUND = 6,
    NVML_ERROR_INSUFFICIENT_SIZE = 7,
};
#define NVML_VALUE_NOT_AVAILABLE (~0ULL)
#define PERIOD_UNSEEN_US 1000000ULL

/* nvml.h's layouts, which ours must be */
_Static_assert(sizeof(struct pt_nvml_process) == 24 && offsetof(struct pt_nvml_process, used_gpu_memory) == 8,
               "nvmlProcessInfo_t's layout");
_Static_assert(sizeof(struct pt_nvml_sample) == 32 && offsetof(struct pt_nvml_sample, time_stamp) == 8 &&
                   offsetof(struct pt_nvml_sample, sm_util) == 16,
               "nvmlProcessUtilizationSample_t's layout");

/* NVML's name of a return code ("NVML_ERROR_NOT_SUPPORTED"). */
static const char *error_name(int code)
{
    static const char *const names[] = {
        "NVML_SUCCESS",
        "NVML_ERROR_UNINITIALIZED",
        "NVML_ERROR_INVALID_ARGUMENT",
        "NVML_ERROR_NOT_SUPPORTED",
        "NVML_ERROR_NO_PERMISSION",
        "NVML_ERROR_ALREADY_INITIALIZED",
        "NVML_ERROR_NOT_FOUND",
        "NVML_ERROR_INSUFFICIENT_SIZE",
        "NVML_ERROR_INSUFFICIENT_POWER",
        "NVML_ERROR_DRIVER_NOT_LOADED",
        "NVML_ERROR_TIMEOUT",
        "NVML_ERROR_IRQ_ISSUE",
        "NVML_ERROR_LIBRARY_NOT_FOUND",
        "NVML_ERROR_FUNCTION_NOT_FOUND",
        "NVML_ERROR_CORRUPTED_INFOROM",
        "NVML_ERROR_GPU_IS_LOST",
        "NVML_ERROR_RESET_REQUIRED",
        "NVML_ERROR_OPERATING_SYSTEM",
        "NVML_ERROR_LIB_RM_VERSION_MISMATCH",
        "NVML_ERROR_IN_USE",
        "NVML_ERROR_MEMORY",
        "NVML_ERROR_NO_DATA",
    };
    if (code >= 0 && (size_t)code < PT_ARRAY_LEN(names))
        return names[code];
    return code == 999 ? "NVML_ERROR_UNKNOWN" : "an NVML error";
}

static const char *const call_names[PT_NVML_CALLS] = {
    [PT_NVML_COMPUTE] = "nvmlDeviceGetComputeRunningProcesses_v3",
    [PT_NVML_GRAPHICS] = "nvmlDeviceGetGraphicsRunningProcesses_v3",
    [PT_NVML_UTILIZATION] = "nvmlDeviceGetProcessUtilization",
};

/* A failed call: said once per call and code. */
static void failed(struct pt_nvml *n, enum pt_nvml_call call, unsigned device, int code)
{
    uint32_t bit = 1u << (code >= 0 && code < 31 ? code : 31);
    if (n->said[call] & bit)
        return;
    n->said[call] |= bit;
    pt_logf(PT_LOG_WARNING, "GPU: %s of device %u failed: %s (%d); the intervals it fails in leave the GPU %s out",
            call_names[call], device, error_name(code), code, call == PT_NVML_UTILIZATION ? "busy time" : "memory");
}

static unsigned long long realtime_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (unsigned long long)ts.tv_sec * 1000000ULL + (unsigned long long)ts.tv_nsec / 1000;
}

int pt_nvml_open(struct pt_nvml *n, const char *path, char *why, size_t whylen)
{
    memset(n, 0, sizeof(*n));
    if (!path) {
        const char *env = getauxval(AT_SECURE) ? NULL : getenv(PT_NVML_LIBRARY_ENV);
        path = env && *env ? env : PT_NVML_LIBRARY;
    }
    n->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!n->lib) {
        snprintf(why, whylen, "%s cannot be loaded", path);
        return -1;
    }
    static const struct {
        const char *name;
        size_t offset;
    } symbols[] = {
        {"nvmlInit_v2", offsetof(struct pt_nvml, init)},
        {"nvmlShutdown", offsetof(struct pt_nvml, shutdown)},
        {"nvmlDeviceGetCount_v2", offsetof(struct pt_nvml, count)},
        {"nvmlDeviceGetHandleByIndex_v2", offsetof(struct pt_nvml, handle)},
        {"nvmlDeviceGetComputeRunningProcesses_v3", offsetof(struct pt_nvml, compute)},
        {"nvmlDeviceGetGraphicsRunningProcesses_v3", offsetof(struct pt_nvml, graphics)},
        {"nvmlDeviceGetProcessUtilization", offsetof(struct pt_nvml, utilization)},
    };
    for (size_t i = 0; i < PT_ARRAY_LEN(symbols); i++) {
        void *sym = dlsym(n->lib, symbols[i].name);
        if (!sym) {
            snprintf(why, whylen, "%s has no %s (a driver older than CUDA 11's)", path, symbols[i].name);
            dlclose(n->lib);
            n->lib = NULL;
            return -1;
        }
        /* a function pointer stored through its field's address: POSIX
         * makes dlsym's void * convertible to one */
        memcpy((char *)n + symbols[i].offset, &sym, sizeof(sym));
    }
    int rc = n->init();
    unsigned count = 0;
    if (rc == NVML_SUCCESS && (rc = n->count(&count)) != NVML_SUCCESS)
        n->shutdown();
    if (rc != NVML_SUCCESS) {
        snprintf(why, whylen, "%s: %s (%d)", rc == NVML_SUCCESS ? "" : "nvmlInit_v2 or nvmlDeviceGetCount_v2",
                 error_name(rc), rc);
        dlclose(n->lib);
        n->lib = NULL;
        return -1;
    }
    if (count > PT_NVML_DEVICES_MAX)
        count = PT_NVML_DEVICES_MAX;
    unsigned long long now = realtime_us();
    for (unsigned i = 0; i < count; i++) {
        void *dev = NULL;
        if ((rc = n->handle(i, &dev)) != NVML_SUCCESS || !dev) {
            pt_logf(PT_LOG_WARNING, "GPU: nvmlDeviceGetHandleByIndex_v2 of device %u failed: %s (%d); it is not read",
                    i, error_name(rc), rc);
            continue;
        }
        n->device[n->n_devices] = dev;
        n->last_seen[n->n_devices] = now;
        n->period_us[n->n_devices] = PERIOD_UNSEEN_US;
        n->n_devices++;
    }
    return 0;
}

void pt_nvml_close(struct pt_nvml *n)
{
    if (n->lib) {
        n->shutdown();
        dlclose(n->lib);
    }
    free(n->procs);
    free(n->gprocs);
    free(n->samples);
    memset(n, 0, sizeof(*n));
}

/* One listing of device d by call into *buf (its capacity *cap): its
 * count, or -1. */
static int list(struct pt_nvml *n, enum pt_nvml_call call, unsigned d, struct pt_nvml_process **buf, unsigned *cap,
                unsigned *count)
{
    int (*fn)(void *, unsigned *, struct pt_nvml_process *) = call == PT_NVML_COMPUTE ? n->compute : n->graphics;
    for (int tries = 0; tries < 3; tries++) {
        unsigned c = *cap;
        int rc = fn(n->device[d], &c, *buf);
        if (rc == NVML_SUCCESS && c <= *cap) {
            *count = c;
            return 0;
        }
        if (rc != NVML_ERROR_INSUFFICIENT_SIZE || c > PT_NVML_LIST_MAX || c <= *cap) {
            failed(n, call, d, rc == NVML_SUCCESS ? NVML_ERROR_INSUFFICIENT_SIZE : rc);
            return -1;
        }
        /* room for a few more: processes start between two calls */
        unsigned grown = c + 16 < PT_NVML_LIST_MAX ? c + 16 : PT_NVML_LIST_MAX;
        *buf = pt_xrealloc(*buf, grown * sizeof(**buf));
        *cap = grown;
    }
    failed(n, call, d, NVML_ERROR_INSUFFICIENT_SIZE);
    return -1;
}

static uint64_t bytes_of(const struct pt_nvml_process *p)
{
    return p->used_gpu_memory != NVML_VALUE_NOT_AVAILABLE ? p->used_gpu_memory : 0;
}

int pt_nvml_processes(struct pt_nvml *n,
                      void (*fn)(unsigned device, unsigned pid, uint64_t bytes, bool known, void *arg), void *arg)
{
    int result = 0;
    for (unsigned d = 0; d < n->n_devices; d++) {
        unsigned n_compute, n_graphics;
        if (list(n, PT_NVML_COMPUTE, d, &n->procs, &n->cap_procs, &n_compute) != 0 ||
            list(n, PT_NVML_GRAPHICS, d, &n->gprocs, &n->cap_gprocs, &n_graphics) != 0) {
            result = -1;
            continue;
        }
        for (unsigned i = 0; i < n_compute; i++) {
            const struct pt_nvml_process *p = &n->procs[i];
            fn(d, p->pid, bytes_of(p), p->used_gpu_memory != NVML_VALUE_NOT_AVAILABLE, arg);
        }
        /* a process in both lists of a device counts the larger value:
         * the graphics one adds its excess over the compute one */
        for (unsigned i = 0; i < n_graphics; i++) {
            const struct pt_nvml_process *p = &n->gprocs[i];
            uint64_t bytes = bytes_of(p);
            bool both = false;
            for (unsigned k = 0; k < n_compute && !both; k++)
                if (n->procs[k].pid == p->pid) {
                    bytes = bytes > bytes_of(&n->procs[k]) ? bytes - bytes_of(&n->procs[k]) : 0;
                    both = true;
                }
            if (!both || bytes > 0)
                fn(d, p->pid, bytes, p->used_gpu_memory != NVML_VALUE_NOT_AVAILABLE, arg);
        }
    }
    return result;
}

/* The samples of device d since its last seen into n->samples: their
 * count (0 when none), or -1. */
static int samples_of(struct pt_nvml *n, unsigned d, unsigned *count)
{
    for (int tries = 0; tries < 3; tries++) {
        unsigned c = n->cap_samples;
        int rc = n->utilization(n->device[d], n->cap_samples ? n->samples : NULL, &c, n->last_seen[d]);
        if (rc == NVML_ERROR_NOT_FOUND) { /* no sample since */
            *count = 0;
            return 0;
        }
        if (rc == NVML_SUCCESS && c <= n->cap_samples) {
            *count = c;
            return 0;
        }
        /* a call with no buffer answers its size with SUCCESS or
         * INSUFFICIENT_SIZE, as drivers differ */
        if ((rc != NVML_ERROR_INSUFFICIENT_SIZE && rc != NVML_SUCCESS) || c > PT_NVML_LIST_MAX || c <= n->cap_samples) {
            failed(n, PT_NVML_UTILIZATION, d, rc == NVML_SUCCESS ? NVML_ERROR_INSUFFICIENT_SIZE : rc);
            return -1;
        }
        unsigned cap = c + 16 < PT_NVML_LIST_MAX ? c + 16 : PT_NVML_LIST_MAX;
        n->samples = pt_xrealloc(n->samples, cap * sizeof(*n->samples));
        n->cap_samples = cap;
    }
    failed(n, PT_NVML_UTILIZATION, d, NVML_ERROR_INSUFFICIENT_SIZE);
    return -1;
}

static int by_time(const void *a, const void *b)
{
    unsigned long long x = ((const struct pt_nvml_sample *)a)->time_stamp;
    unsigned long long y = ((const struct pt_nvml_sample *)b)->time_stamp;
    return x < y ? -1 : x > y;
}

int pt_nvml_busy(struct pt_nvml *n, void (*fn)(unsigned device, unsigned pid, double seconds, void *arg), void *arg)
{
    int result = 0;
    for (unsigned d = 0; d < n->n_devices; d++) {
        unsigned count;
        if (samples_of(n, d, &count) != 0) {
            result = -1;
            continue;
        }
        struct pt_nvml_sample *s = n->samples;
        qsort(s, count, sizeof(*s), by_time);
        /* the device's sampling period as seen: the shortest gap between
         * two of its distinct timestamps */
        for (unsigned i = 1; i < count; i++)
            if (s[i].time_stamp > s[i - 1].time_stamp && s[i].time_stamp - s[i - 1].time_stamp < n->period_us[d])
                n->period_us[d] = s[i].time_stamp - s[i - 1].time_stamp;
        unsigned long long since = n->last_seen[d], prev = since, at = since;
        for (unsigned i = 0; i < count; i++) {
            if (s[i].time_stamp <= since)
                continue;               /* a driver that hands what was asked not to be */
            if (s[i].time_stamp > at) { /* the device's previous sample: the last earlier timestamp */
                prev = at;
                at = s[i].time_stamp;
            }
            unsigned long long span = at - prev;
            if (span > n->period_us[d])
                span = n->period_us[d];
            unsigned util = s[i].sm_util <= 100 ? s[i].sm_util : 100;
            if (util > 0 && span > 0)
                fn(d, s[i].pid, (double)util / 100.0 * (double)span / 1e6, arg);
        }
        n->last_seen[d] = at;
    }
    return result;
}

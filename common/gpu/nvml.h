/* nvml: NVIDIA's management library, opened at run time (dlopen of
 * libnvidia-ml.so.1; nothing of it at build time), for the processes of
 * every device and their GPU memory and SM utilisation.
 *
 * The calls and layouts are those nvml.h declares (CUDA 11+, the
 * versioned entry points): nvmlInit_v2, nvmlShutdown,
 * nvmlDeviceGetCount_v2, nvmlDeviceGetHandleByIndex_v2,
 * nvmlDeviceGetComputeRunningProcesses_v3 and
 * nvmlDeviceGetGraphicsRunningProcesses_v3 (nvmlProcessInfo_t: pid,
 * usedGpuMemory, gpuInstanceId, computeInstanceId), and
 * nvmlDeviceGetProcessUtilization (nvmlProcessUtilizationSample_t). The
 * pids are the driver's: the host's pid namespace.
 *
 * Buffers grow when a device lists more than they hold, and are kept:
 * the steady state allocates nothing. */
#ifndef PROCTREE_NVML_H
#define PROCTREE_NVML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PT_NVML_DEVICES_MAX 64
/* The most processes or samples one call may list (a device runs at most
 * a few hundred contexts); a listing that wants more is an error. */
#define PT_NVML_LIST_MAX 4096
/* The library tests may name instead (PROCTREE_NVML_LIBRARY), honoured
 * only where the process is not in secure mode (AT_SECURE: set-id or
 * file capabilities). */
#define PT_NVML_LIBRARY_ENV "PROCTREE_NVML_LIBRARY"
#define PT_NVML_LIBRARY "libnvidia-ml.so.1"

/* The calls used, for the errors said once per call and code. */
enum pt_nvml_call {
    PT_NVML_COMPUTE,
    PT_NVML_GRAPHICS,
    PT_NVML_UTILIZATION,
    PT_NVML_CALLS,
};

struct pt_nvml_process {
    unsigned pid;
    unsigned long long used_gpu_memory;
    unsigned gpu_instance_id, compute_instance_id;
};

struct pt_nvml_sample {
    unsigned pid;
    unsigned long long time_stamp; /* microseconds, CPU clock */
    unsigned sm_util, mem_util, enc_util, dec_util;
};

struct pt_nvml {
    void *lib;
    int (*init)(void);
    int (*shutdown)(void);
    int (*count)(unsigned *);
    int (*handle)(unsigned, void **);
    int (*compute)(void *, unsigned *, struct pt_nvml_process *);
    int (*graphics)(void *, unsigned *, struct pt_nvml_process *);
    int (*utilization)(void *, struct pt_nvml_sample *, unsigned *, unsigned long long);
    unsigned n_devices;
    void *device[PT_NVML_DEVICES_MAX];
    /* per device: the last sample's time seen, and the shortest time
     * between two of its samples (its sampling period, as seen) */
    unsigned long long last_seen[PT_NVML_DEVICES_MAX];
    unsigned long long period_us[PT_NVML_DEVICES_MAX];
    struct pt_nvml_process *procs, *gprocs; /* a device's compute and graphics lists */
    unsigned cap_procs, cap_gprocs;
    struct pt_nvml_sample *samples;
    unsigned cap_samples;
    /* the errors said: bit code (0..31, 31 for any larger) per call */
    uint32_t said[PT_NVML_CALLS];
};

/* Open the library (path NULL: PROCTREE_NVML_LIBRARY where honoured,
 * else libnvidia-ml.so.1), initialise it and take its devices' handles.
 * 0, or -1 with why filled (the library is closed again). */
int pt_nvml_open(struct pt_nvml *n, const char *path, char *why, size_t whylen);
void pt_nvml_close(struct pt_nvml *n);

/* Every process of every device, compute and graphics, handed to fn with
 * the device's index and its memory there in bytes (a process in both
 * lists of a device once, with the larger; NVML_VALUE_NOT_AVAILABLE: 0,
 * known false). 0; -1 when a call failed (then fn may have been handed
 * some: the listing is partial), its error said once per call and code. */
int pt_nvml_processes(struct pt_nvml *n,
                      void (*fn)(unsigned device, unsigned pid, uint64_t bytes, bool known, void *arg), void *arg);

/* The SM utilisation samples of every device since the last call's, each
 * as the seconds its process kept the device's SMs busy: smUtil percent
 * of the time since the device's previous sample (the first: since the
 * last seen, at open the time of opening), at most the device's sampling
 * period as seen (the shortest gap between two of its samples; 1 s until
 * two were seen). now_us: the CPU clock NVML stamps samples with
 * (CLOCK_REALTIME, in microseconds). 0; -1 when a call failed. */
int pt_nvml_busy(struct pt_nvml *n, void (*fn)(unsigned device, unsigned pid, double seconds, void *arg), void *arg);

#endif

/* nvml_standin: a small libnvidia-ml.so.1 for the tests of common/gpu/nvml.c
 * and common/gpu/gpu.c (test_gpu.c), with the entry points and layouts
 * nvml.h declares (the versioned names: nvmlInit_v2,
 * nvmlDeviceGetCount_v2, nvmlDeviceGetHandleByIndex_v2,
 * nvmlDeviceGetComputeRunningProcesses_v3,
 * nvmlDeviceGetGraphicsRunningProcesses_v3; nvmlShutdown,
 * nvmlDeviceGetProcessUtilization). Its own types are declared here as
 * nvml.h declares them, not taken from proctree's.
 *
 * What it shows: two devices. Device 0 runs pid 100 (1 GiB) and pid 200
 * (256 MiB) as compute; device 1 runs pid 100 as compute (512 MiB) and
 * graphics (600 MiB: the same process in both lists). Once the test calls
 * standin_step(1), pid 200 has exited: no list has it. Utilisation:
 * standin_samples(n) samples per device at every call, 100 ms apart
 * after the lastSeenTimeStamp asked for, pid 100 at 50 % on device 0 and
 * 20 % on device 1, pid 200 at 10 % on device 0 (while it runs).
 * standin_fail(call, code) makes that call (0 compute, 1 graphics, 2
 * utilisation, 3 init) return code from then on (0: succeed again). */
#include <string.h>

typedef enum nvmlReturn_enum {
    NVML_SUCCESS = 0,
    NVML_ERROR_INVALID_ARGUMENT = 2,
    NVML_ERROR_NOT_FOUND = 6,
    NVML_ERROR_INSUFFICIENT_SIZE = 7,
} nvmlReturn_t;

typedef struct nvmlDevice_st *nvmlDevice_t;

typedef struct nvmlProcessInfo_st {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
} nvmlProcessInfo_t;

typedef struct nvmlProcessUtilizationSample_st {
    unsigned int pid;
    unsigned long long timeStamp;
    unsigned int smUtil;
    unsigned int memUtil;
    unsigned int encUtil;
    unsigned int decUtil;
} nvmlProcessUtilizationSample_t;

#define EXPORT __attribute__((visibility("default")))
#define MIB (1024ULL * 1024)

struct nvmlDevice_st {
    int index;
};
static struct nvmlDevice_st devices[2] = {{0}, {1}};
static int step, samples_per_call = 10, fail[4], initialised;

EXPORT void standin_step(int s)
{
    step = s;
}
EXPORT void standin_samples(int n)
{
    samples_per_call = n;
}
EXPORT void standin_fail(int call, int code)
{
    fail[call] = code;
}
EXPORT int standin_initialised(void)
{
    return initialised;
}

EXPORT nvmlReturn_t nvmlInit_v2(void)
{
    if (fail[3])
        return (nvmlReturn_t)fail[3];
    initialised++;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlShutdown(void)
{
    initialised--;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count)
{
    *count = 2;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)
{
    if (index >= 2)
        return NVML_ERROR_INVALID_ARGUMENT;
    *device = &devices[index];
    return NVML_SUCCESS;
}

/* The list wanted into infos (room for *count), as NVML answers: the
 * size needed and INSUFFICIENT_SIZE when it does not fit. */
static nvmlReturn_t answer(const nvmlProcessInfo_t *list, unsigned n, unsigned int *count, nvmlProcessInfo_t *infos)
{
    if (*count < n) {
        *count = n;
        return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    *count = n;
    if (n)
        memcpy(infos, list, n * sizeof(*list));
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int *count,
                                                            nvmlProcessInfo_t *infos)
{
    if (fail[0])
        return (nvmlReturn_t)fail[0];
    static const nvmlProcessInfo_t dev0[] = {{100, 1024 * MIB, ~0u, ~0u}, {200, 256 * MIB, ~0u, ~0u}};
    static const nvmlProcessInfo_t dev1[] = {{100, 512 * MIB, ~0u, ~0u}};
    if (device->index == 0)
        return answer(dev0, step >= 1 ? 1 : 2, count, infos);
    return answer(dev1, 1, count, infos);
}

EXPORT nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t device, unsigned int *count,
                                                             nvmlProcessInfo_t *infos)
{
    if (fail[1])
        return (nvmlReturn_t)fail[1];
    static const nvmlProcessInfo_t dev1[] = {{100, 600 * MIB, ~0u, ~0u}};
    return answer(dev1, device->index == 1 ? 1 : 0, count, infos);
}

EXPORT nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t device, nvmlProcessUtilizationSample_t *utilization,
                                                    unsigned int *count, unsigned long long lastSeenTimeStamp)
{
    if (fail[2])
        return (nvmlReturn_t)fail[2];
    nvmlProcessUtilizationSample_t s[64];
    unsigned n = 0;
    for (int k = 1; k <= samples_per_call && k <= 30; k++) {
        unsigned long long ts = lastSeenTimeStamp + 100000ULL * (unsigned long long)k;
        s[n++] = (nvmlProcessUtilizationSample_t){100, ts, device->index == 0 ? 50 : 20, 5, 0, 0};
        if (device->index == 0 && step < 1)
            s[n++] = (nvmlProcessUtilizationSample_t){200, ts, 10, 1, 0, 0};
    }
    if (n == 0)
        return NVML_ERROR_NOT_FOUND;
    if (!utilization || *count < n) {
        *count = n;
        return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    *count = n;
    memcpy(utilization, s, n * sizeof(*s));
    return NVML_SUCCESS;
}

#include "gpu/gpu.h"

#include <errno.h>
#include <fcntl.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "util/base.h"
#include "util/dirents.h"
#include "util/escape.h"
#include "procfs/callerfiles.h"
#include "procfs/procfile.h"

unsigned pt_gpu_drm_major_parse(const char *buf, size_t len)
{
    /* "Character devices:\n  1 mem\n...226 drm\n\nBlock devices:\n..." */
    bool chars = false;
    for (const char *p = buf, *end = buf + len; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            break; /* a line cut short */
        size_t n = (size_t)(nl - p);
        const char *line = p;
        p = nl + 1;
        if (n >= 18 && memcmp(line, "Character devices:", 18) == 0) {
            chars = true;
            continue;
        }
        if (n >= 14 && memcmp(line, "Block devices:", 14) == 0)
            chars = false;
        if (!chars)
            continue;
        size_t i = 0;
        while (i < n && line[i] == ' ')
            i++;
        unsigned major = 0;
        size_t digits = 0;
        for (; i < n && line[i] >= '0' && line[i] <= '9' && digits < 5; i++, digits++)
            major = major * 10 + (unsigned)(line[i] - '0');
        if (digits == 0 || digits == 5 || i >= n || line[i] != ' ')
            continue;
        if (n - i - 1 == 3 && memcmp(line + i + 1, "drm", 3) == 0 && major > 0 && major < 4096)
            return major;
    }
    return 0;
}

static bool has_render_node(const char *sys_root)
{
    char path[4096];
    if (snprintf(path, sizeof(path), "%s/class/drm", sys_root) >= (int)sizeof(path))
        return false;
    int fd = pt_callerfiles_open(path, O_RDONLY | O_DIRECTORY); /* below the sys root: the caller's */
    if (fd < 0)
        return false;
    alignas(struct dirent64) char buf[PT_DIRENTS_LEVEL];
    struct pt_dirents d;
    pt_dirents_init(&d, fd, buf, sizeof(buf));
    bool found = false;
    for (const struct dirent64 *e; !found && (e = pt_dirents_next(&d));)
        found = strncmp(e->d_name, "renderD", 7) == 0;
    close(fd);
    return found;
}

static unsigned drm_major_of(const char *proc_root)
{
    char path[4096];
    if (snprintf(path, sizeof(path), "%s/devices", proc_root) >= (int)sizeof(path))
        return 0;
    int fd = pt_callerfiles_open(path, O_RDONLY);
    if (fd < 0)
        return 0;
    char buf[8192];
    size_t len = 0;
    for (ssize_t r; len < sizeof(buf) && (r = read(fd, buf + len, sizeof(buf) - len)) > 0;)
        len += (size_t)r;
    close(fd);
    return pt_gpu_drm_major_parse(buf, len);
}

static bool exists(const char *root, const char *rel)
{
    char path[4096];
    return snprintf(path, sizeof(path), "%s/%s", root, rel) < (int)sizeof(path) && access(path, F_OK) == 0;
}

void pt_gpu_probe(struct pt_gpu *g, const char *proc_root, const char *sys_root, const char *dev_root,
                  const char *nvml_path)
{
    memset(g, 0, sizeof(*g));
    char nvml_said[320] = "", why[256];
    const char *env = getauxval(AT_SECURE) ? NULL : getenv(PT_NVML_LIBRARY_ENV);
    bool asked = nvml_path || (env && *env);
    bool nvidia = asked || exists(dev_root, "nvidiactl") || exists(proc_root, "driver/nvidia");
    if (nvidia) {
        if (pt_nvml_open(&g->nvml, nvml_path, why, sizeof(why)) == 0) {
            g->nvml_on = true;
            snprintf(nvml_said, sizeof(nvml_said), "NVIDIA through NVML (%u device%s)", g->nvml.n_devices,
                     g->nvml.n_devices == 1 ? "" : "s");
        } else {
            char esc[256];
            snprintf(nvml_said, sizeof(nvml_said), "an NVIDIA device but no NVML (%s)",
                     pt_escape(why, esc, sizeof(esc)));
        }
    }
    if (has_render_node(sys_root)) {
        g->drm_major = drm_major_of(proc_root);
        g->drm_on = g->drm_major != 0;
    }
    if (!nvidia && !g->drm_on)
        pt_log_absent("proc_gpu_*");
    if (!nvidia && !g->drm_on)
        pt_logf(PT_LOG_INFO, "GPU: none found (no /dev/nvidiactl, no DRM render node): the proc_gpu_* metrics are "
                             "absent, and nothing more is read for them");
    else
        pt_logf(PT_LOG_INFO,
                "GPU: %s%s%s; the proc_gpu_* metrics read NVML's process lists at every discovery and its "
                "utilisation samples and the members' DRM descriptors at every interval's end",
                nvml_said, *nvml_said && g->drm_on ? ", " : "",
                g->drm_on ? "DRM fdinfo of the descriptors whose device is a DRM one" : "");
}

void pt_gpu_free(struct pt_gpu *g)
{
    if (g->nvml_on)
        pt_nvml_close(&g->nvml);
    free(g->procs);
    memset(g, 0, sizeof(*g));
}

static struct pt_gpu_proc *append(struct pt_gpu *g, pid_t pid)
{
    if (g->n == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 32;
        g->procs = pt_xrealloc(g->procs, g->cap * sizeof(*g->procs));
    }
    struct pt_gpu_proc *p = &g->procs[g->n++];
    p->pid = pid;
    p->bytes = 0;
    p->busy = 0;
    return p;
}

static void add_memory(unsigned device, unsigned pid, uint64_t bytes, bool known, void *arg)
{
    (void)device;
    (void)known; /* listed: using the GPU, its memory unknown counted 0 */
    if (pid == 0 || pid > INT32_MAX)
        return;
    append(arg, (pid_t)pid)->bytes = bytes;
}

static void add_busy(unsigned device, unsigned pid, double seconds, void *arg)
{
    (void)device;
    if (pid == 0 || pid > INT32_MAX)
        return;
    append(arg, (pid_t)pid)->busy = seconds;
}

static int by_pid(const void *a, const void *b)
{
    pid_t x = ((const struct pt_gpu_proc *)a)->pid, y = ((const struct pt_gpu_proc *)b)->pid;
    return (x > y) - (x < y);
}

void pt_gpu_refresh(struct pt_gpu *g, bool busy)
{
    if (!g->nvml_on)
        return;
    g->n = 0;
    g->memory_known = pt_nvml_processes(&g->nvml, add_memory, g) == 0;
    if (busy)
        g->busy_known = pt_nvml_busy(&g->nvml, add_busy, g) == 0;
    /* one entry per pid: its devices' memory and busy time summed */
    qsort(g->procs, g->n, sizeof(*g->procs), by_pid);
    size_t out = 0;
    for (size_t i = 0; i < g->n; i++) {
        if (out > 0 && g->procs[out - 1].pid == g->procs[i].pid) {
            struct pt_gpu_proc *p = &g->procs[out - 1];
            p->bytes = p->bytes + g->procs[i].bytes < p->bytes ? UINT64_MAX : p->bytes + g->procs[i].bytes;
            p->busy += g->procs[i].busy;
        } else {
            g->procs[out++] = g->procs[i];
        }
    }
    g->n = out;
}

const struct pt_gpu_proc *pt_gpu_find(const struct pt_gpu *g, pid_t pid)
{
    if (g->n == 0)
        return NULL;
    struct pt_gpu_proc key = {.pid = pid};
    return bsearch(&key, g->procs, g->n, sizeof(*g->procs), by_pid);
}

int pt_gpu_drm_scan(int proc_root_fd, pid_t pid, unsigned major, size_t *reads_left,
                    void (*fn)(const struct pt_drm_client *c, void *arg), void *arg)
{
    char path[32];
    snprintf(path, sizeof(path), "%d/fd", (int)pid);
    int fds = pt_procfs_openat_confined(proc_root_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fds < 0)
        return -errno;
    snprintf(path, sizeof(path), "%d/fdinfo", (int)pid);
    int infos = pt_procfs_openat_confined(proc_root_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (infos < 0) {
        int err = -errno;
        close(fds);
        return err;
    }
    alignas(struct dirent64) char dbuf[PT_DIRENTS_LEVEL];
    struct pt_dirents d;
    pt_dirents_init(&d, fds, dbuf, sizeof(dbuf));
    static _Thread_local char info[PT_DRM_FDINFO_MAX];
    static _Thread_local struct pt_drm_client client;
    /* no cap on the entries: a DRM descriptor may be a process's last of
     * a million (RLIMIT_NOFILE's ceiling, fs.nr_open); what costs is the
     * fdinfo reads, and those are bounded by the caller's reads_left */
    int end = PT_DRM_SCAN_DONE;
    for (const struct dirent64 *e; (e = pt_dirents_next(&d));) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        struct statx st;
        if (statx(fds, e->d_name, AT_STATX_DONT_SYNC, STATX_TYPE, &st) != 0 || !S_ISCHR(st.stx_mode) ||
            st.stx_rdev_major != major)
            continue;
        if (*reads_left == 0) {
            end = PT_DRM_SCAN_CUT;
            break;
        }
        --*reads_left;
        int fd = pt_procfs_openat_confined(infos, e->d_name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
            continue; /* closed since */
        size_t len = 0;
        for (ssize_t r; len < sizeof(info) && (r = read(fd, info + len, sizeof(info) - len)) > 0;)
            len += (size_t)r;
        close(fd);
        if (pt_drmfdinfo_parse(info, len, &client) == 0)
            fn(&client, arg);
    }
    int err = end == PT_DRM_SCAN_CUT ? end : d.error;
    close(fds);
    close(infos);
    return err;
}

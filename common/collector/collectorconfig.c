/* collectorconfig: the collector's defaults and the checks on its roots. */
#include "collector/collectorconfig.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "util/base.h"
#include "procfs/caps.h"
#include "util/escape.h"
#include "util/fdbudget.h"
#include "procfs/callerfiles.h"
#include "procfs/procfile.h"

void pt_collector_config_init(struct pt_collector_config *config)
{
    memset(config, 0, sizeof(*config));
    config->poll_interval = 0.1;
    config->discovery_interval = 1.0;
    config->units.proc_memory = PT_MEM_BYTES;
    config->units.global_memory = PT_MEM_BYTES;
    config->collect_global = true;
    config->counters = PT_COUNTERS_DELTA;
    config->fd_budget = pt_fdbudget_from_rlimit(0.5, 0);
}

int pt_collector_open_proc_root(const char *root, char *err, size_t errlen)
{
    /* with the caller's own permissions: the caller chose it */
    char q[PT_QUOTED_MAX];
    int fd = pt_callerfiles_open(root, O_RDONLY | O_DIRECTORY);
    if (fd < 0) {
        snprintf(err, errlen, "proc root \"%s\": %s", pt_escape(root, q, sizeof(q)), strerror(-fd));
        return -1;
    }
    int meminfo = pt_callerfiles_open_at(fd, "meminfo", O_RDONLY);
    if (meminfo < 0) {
        close(fd);
        snprintf(err, errlen, "\"%s\" is not a proc filesystem (no meminfo: %s)", pt_escape(root, q, sizeof(q)),
                 strerror(-meminfo));
        return -1;
    }
    close(meminfo);
    return fd;
}

int pt_collector_check_proc_root(const char *root, char *err, size_t errlen)
{
    int fd = pt_collector_open_proc_root(root, err, errlen);
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

int pt_collector_lend_nothing(int proc_root_fd, const char *root, bool chosen, char *err, size_t errlen)
{
    if (!pt_caps_lent())
        return 0;
    struct statfs fs;
    bool procfs = fstatfs(proc_root_fd, &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC;
    if (procfs && pt_procfs_open_is_confined()) {
        if (chosen) /* a file mounted over one of its own, in a namespace the caller made, is not read */
            pt_procfs_confine_mounts();
        return 0;
    }
    char q[PT_QUOTED_MAX];
    const char *what = !procfs ? "no proc filesystem (any user can make such a directory, its links naming any file)"
                               : "read on a kernel without openat2, which cannot keep a path below it";
    if (!pt_caps_drop_lent()) {
        snprintf(err, errlen,
                 "proc root \"%s\" is %s, and the capabilities the binary lends could not be given up (%s)",
                 pt_escape(root, q, sizeof(q)), what, strerror(errno));
        return -1;
    }
    pt_logf(PT_LOG_WARNING,
            "proc root \"%s\" is %s: the capabilities the binary lends are given up for good, and it is read with "
            "uid %u's own permissions",
            pt_escape(root, q, sizeof(q)), what, (unsigned)geteuid());
    return 0;
}

int pt_collector_check_sys_root(const char *root, char *err, size_t errlen)
{
    char q[PT_QUOTED_MAX];
    int fd = pt_callerfiles_open(root, O_RDONLY | O_DIRECTORY);
    if (fd < 0) {
        snprintf(err, errlen, "sys root \"%s\": %s", pt_escape(root, q, sizeof(q)), strerror(-fd));
        return -1;
    }
    close(fd);
    return 0;
}

static const char *const source_names[] = {
    [PT_SOURCE_AUTO] = "auto", [PT_SOURCE_PROCFS] = "procfs", [PT_SOURCE_BPF] = "bpf"};

int pt_collector_source_parse(const char *text, enum pt_source *out)
{
    for (size_t i = 0; i < sizeof(source_names) / sizeof(source_names[0]); i++)
        if (strcmp(text, source_names[i]) == 0) {
            *out = (enum pt_source)i;
            return 0;
        }
    return -1;
}

const char *pt_collector_source_name(enum pt_source source)
{
    return source_names[source];
}

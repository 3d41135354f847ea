/* collectorconfig: the collector's defaults and the checks on its roots. */
#include "collector/collectorconfig.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "proctree/escape.h"
#include "proctree/fdbudget.h"
#include "procfs/procfile.h"

void pt_collector_config_init(struct pt_collector_config *config)
{
    memset(config, 0, sizeof(*config));
    config->poll_interval = 0.1;
    config->discovery_interval = 1.0;
    config->units.proc_memory = PT_MEM_BYTES;
    config->units.global_memory = PT_MEM_BYTES;
    config->collect_global = true;
    config->fd_budget = pt_fd_budget_from_rlimit(0.5, 0);
}

int pt_collector_open_proc_root(const char *root, char *err, size_t errlen)
{
    char q[PT_QUOTED_MAX];
    int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "proc root \"%s\": %s", pt_escape(q, sizeof(q), root), strerror(errno));
        return -1;
    }
    int meminfo = pt_open_at(fd, "meminfo");
    if (meminfo < 0) {
        close(fd);
        snprintf(err, errlen, "\"%s\" is not a proc filesystem (no meminfo: %s)", pt_escape(q, sizeof(q), root),
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

int pt_collector_check_sys_root(const char *root, char *err, size_t errlen)
{
    char q[PT_QUOTED_MAX];
    int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "sys root \"%s\": %s", pt_escape(q, sizeof(q), root), strerror(errno));
        return -1;
    }
    close(fd);
    return 0;
}

#include "cgroup/blkiocount.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cgroup/cgparse.h"
#include "cgroup/cgroupfs.h"
#include "procfs/callerfiles.h"
#include "procfs/procfile.h"

/* dir/name into path: whether it fits. */
static bool path_of(char *path, size_t len, const char *dir, const char *name)
{
    int n = snprintf(path, len, "%s/%s", dir, name);
    return n > 0 && (size_t)n < len;
}

static bool has_file(const char *dir, const char *name)
{
    char path[PT_CGROUPFS_PATH_MAX + 64];
    return path_of(path, sizeof(path), dir, name) && access(path, F_OK) == 0;
}

bool pt_blkiocount_none(const char *dir, struct pt_buf *buf, char *root, size_t rootlen)
{
    char at[PT_CGROUPFS_PATH_MAX];
    int n = snprintf(at, sizeof(at), "%s", dir);
    if (n <= 0 || (size_t)n >= sizeof(at))
        return false;
    /* up through the cgroups above dir to the hierarchy's root; a
     * directory that is no cgroup (the mount's parent) ends the climb */
    while (!has_file(at, "cgroup.sane_behavior")) {
        char *slash = strrchr(at, '/');
        if (!slash || slash == at || !has_file(at, "cgroup.procs"))
            return false;
        *slash = '\0';
    }
    char path[PT_CGROUPFS_PATH_MAX + 64];
    if (!path_of(path, sizeof(path), at, "blkio.throttle.io_service_bytes"))
        return false;
    ssize_t len =
        pt_procfs_read_and_close(pt_callerfiles_open_regular_at(AT_FDCWD, path, O_RDONLY), buf, pt_procfs_pread_all);
    if (len < 0 || pt_cgparse_blkio_lists_device(buf->data, (size_t)len))
        return false;
    snprintf(root, rootlen, "%s", at);
    return true;
}

/* pidwalk: a proc root's numbered entries walked, and whether its mount
 * hides other users' processes (pidwalk.h). */
#include "procfs/pidwalk.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "procfs/procfile.h"
#include "util/dirents.h"

/* The walk of a proc root is a discovery's: no opendir (dirents.h). */
int pt_pidwalk_each(int dirfd, const char *path, void (*fn)(pid_t pid, void *arg), void *arg)
{
    int fd = pt_procfs_openat_confined(dirfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    _Alignas(struct dirent64) char entries[8192];
    struct pt_dirents d;
    pt_dirents_init(&d, fd, entries, sizeof(entries));
    for (const struct dirent64 *e; (e = pt_dirents_next(&d));) {
        pid_t pid = 0;
        const char *p = e->d_name;
        for (; *p >= '0' && *p <= '9' && pid < 100000000; p++)
            pid = pid * 10 + (*p - '0');
        if (*p == '\0' && p != e->d_name) /* 0 is a descriptor number, never a pid */
            fn(pid, arg);
    }
    close(fd);
    return d.error;
}

/* In one mountinfo line ("ID PARENT MAJ:MIN ROOT POINT OPTS ... - TYPE
 * SOURCE SUPEROPTS"), a proc mount of device dev with a hidepid option
 * other than 0 (off): that option into out. */
static bool line_hides(const char *line, dev_t dev, char *out, size_t outlen)
{
    unsigned maj, min;
    const char *sep = strstr(line, " - ");
    if (!sep || sscanf(line, "%*s %*s %u:%u", &maj, &min) != 2 || makedev(maj, min) != dev ||
        strncmp(sep + 3, "proc ", 5) != 0)
        return false;
    const char *opt = strstr(sep, "hidepid=");
    if (!opt || strncmp(opt, "hidepid=0", 9) == 0 || strncmp(opt, "hidepid=off", 11) == 0)
        return false;
    size_t len = strcspn(opt, ", \n");
    snprintf(out, outlen, "%.*s", (int)len, opt);
    return true;
}

bool pt_pidwalk_hidepid(int proc_root_fd, struct pt_buf *buf, char *out, size_t outlen)
{
    struct stat st;
    if (fstat(proc_root_fd, &st) != 0)
        return false;
    if (pt_procfs_read_file_at(AT_FDCWD, "/proc/self/mountinfo", buf) <= 0)
        return false; /* the buffer is NUL-terminated */
    for (char *line = buf->data; *line;) {
        char *end = strchr(line, '\n');
        if (end)
            *end = '\0';
        if (line_hides(line, st.st_dev, out, outlen))
            return true;
        if (!end)
            break;
        line = end + 1;
    }
    return false;
}

#include "net/sockscan.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdalign.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "procfs/procfile.h"
#include "util/dirents.h"

static uint64_t link_inode_parse(const char *buf, size_t len, const char *prefix)
{
    size_t p = strlen(prefix);
    if (len < p + 2)
        return 0;
    for (size_t i = 0; i < p; i++)
        if (buf[i] != prefix[i])
            return 0;
    uint64_t inode = 0;
    size_t i = p;
    for (; i < len && buf[i] >= '0' && buf[i] <= '9'; i++) {
        unsigned d = (unsigned)(buf[i] - '0');
        if (inode > (UINT64_MAX - d) / 10)
            return 0;
        inode = inode * 10 + d;
    }
    return i > p && i + 1 == len && buf[i] == ']' ? inode : 0;
}

uint64_t pt_sockscan_inode_parse(const char *buf, size_t len)
{
    return link_inode_parse(buf, len, "socket:[");
}

uint64_t pt_sockscan_netns_inode_parse(const char *buf, size_t len)
{
    return link_inode_parse(buf, len, "net:[");
}

uint64_t pt_sockscan_netns_of(int proc_root_fd, pid_t pid)
{
    char path[32], link[64];
    if (pid > 0)
        snprintf(path, sizeof(path), "%d/ns/net", (int)pid);
    ssize_t n = pid > 0 ? readlinkat(proc_root_fd, path, link, sizeof(link))
                        : readlinkat(AT_FDCWD, "/proc/self/ns/net", link, sizeof(link));
    return n > 0 && (size_t)n < sizeof(link) ? pt_sockscan_netns_inode_parse(link, (size_t)n) : 0;
}

long pt_sockscan(int proc_root_fd, pid_t pid, size_t *reads_left, void (*fn)(uint64_t inode, void *arg), void *arg)
{
    char path[32];
    snprintf(path, sizeof(path), "%d/fd", (int)pid);
    int fds = pt_procfs_openat_confined(proc_root_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fds < 0)
        return -errno;
    alignas(struct dirent64) char dbuf[PT_DIRENTS_LEVEL];
    struct pt_dirents d;
    pt_dirents_init(&d, fds, dbuf, sizeof(dbuf));
    long found = 0;
    for (const struct dirent64 *e; *reads_left > 0 && (e = pt_dirents_next(&d));) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        --*reads_left;
        char link[64];
        ssize_t n = readlinkat(fds, e->d_name, link, sizeof(link));
        if (n <= 0 || (size_t)n >= sizeof(link))
            continue; /* closed since, or no socket's */
        uint64_t inode = pt_sockscan_inode_parse(link, (size_t)n);
        if (inode) {
            found++;
            fn(inode, arg);
        }
    }
    long r = d.error && !found ? d.error : found;
    close(fds);
    return r;
}

#include "util/dirents.h"

#include <assert.h>
#include <errno.h>
#include <stdalign.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

void pt_dirents_init(struct pt_dirents *d, int fd, void *buf, size_t size)
{
    assert(size >= PT_DIRENTS_MIN && (uintptr_t)buf % alignof(struct dirent64) == 0);
    *d = (struct pt_dirents){.fd = fd, .buf = buf, .size = size};
}

const struct dirent64 *pt_dirents_next(struct pt_dirents *d)
{
    while (d->at >= d->len) {
        ssize_t n = getdents64(d->fd, d->buf, d->size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            d->error = n < 0 ? -errno : 0;
            return NULL;
        }
        d->len = (size_t)n;
        d->at = 0;
    }
    const struct dirent64 *e = (const struct dirent64 *)(d->buf + d->at);
    d->at += e->d_reclen;
    return e;
}

const char *pt_dirents_next_dir(struct pt_dirents *d)
{
    for (const struct dirent64 *e; (e = pt_dirents_next(d));)
        if (e->d_type == DT_DIR && strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            return e->d_name;
    return NULL;
}

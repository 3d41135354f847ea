/* dirents: a directory's entries, read with getdents64 into a buffer of
 * the caller's (on its stack), where opendir() would allocate one: the
 * walks of a discovery (/proc, a cgroup's sub-cgroups, the slices a
 * unit glob is matched in) must not touch the heap (test_alloc.c). A
 * walk that goes down keeps one buffer per level it is in. */
#ifndef PROCTREE_DIRENTS_H
#define PROCTREE_DIRENTS_H

#include <dirent.h>
#include <stddef.h>

/* A buffer of this size holds the largest entry (NAME_MAX bytes of
 * name): the least a caller may give. */
#define PT_DIRENTS_MIN sizeof(struct dirent64)
/* The buffer of one level of a walk that goes down (a cgroup's
 * sub-cgroups, slices): a few dozen entries a read, and no more than
 * 64 KiB of stack at the deepest scan (PT_CGROUP_SCAN_DEPTH). */
#define PT_DIRENTS_LEVEL 2048

struct pt_dirents {
    int fd; /* the directory, read on from its offset; the caller's to close */
    char *buf;
    size_t size, len, at; /* the buffer's size, what the last read put in it, the next entry */
    int error;            /* -errno of a read that failed, or 0 */
};

/* Read the directory behind fd into buf (size bytes, at least
 * PT_DIRENTS_MIN, aligned as struct dirent64). */
void pt_dirents_init(struct pt_dirents *d, int fd, void *buf, size_t size);

/* The next entry, or NULL at the end and when a read fails (error). */
const struct dirent64 *pt_dirents_next(struct pt_dirents *d);

/* The next entry that is a directory, "." and ".." left out: its name,
 * or NULL as pt_dirents_next. */
const char *pt_dirents_next_dir(struct pt_dirents *d);

#endif

#include "bpf/taskiter.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proctree/base.h"
#include "util/pidmap.h"

#ifdef PT_HAVE_BPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "taskiter.skel.h"
#endif

struct pt_taskiter {
#ifdef PT_HAVE_BPF
    struct pt_taskiter_bpf *skel;
    struct bpf_link *link;
#endif
    int map_fd;
    struct pt_pidmap followed; /* tgid -> followers */
    struct pt_taskrec *records;
    size_t count, cap;
    int32_t *next;
    struct pt_pidmap by_tid, first_of_group;
    uint64_t generation;
    bool valid;
};

bool pt_taskiter_built(void)
{
#ifdef PT_HAVE_BPF
    return true;
#else
    return false;
#endif
}

#ifdef PT_HAVE_BPF
/* libbpf's own lines would go to stderr, unescaped and unasked: the
 * reason a load failed is returned instead. */
static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
    (void)level;
    (void)fmt;
    (void)ap;
    return 0;
}

struct pt_taskiter *pt_taskiter_open(int btf_fd, char *why, size_t whylen)
{
    libbpf_set_print(quiet);
    char btf_path[64];
    snprintf(btf_path, sizeof(btf_path), "/proc/self/fd/%d", btf_fd);
    LIBBPF_OPTS(bpf_object_open_opts, opts, .btf_custom_path = btf_fd >= 0 ? btf_path : NULL);
    struct pt_taskiter *it = pt_xalloc(sizeof(*it));
    it->map_fd = -1;
    it->skel = pt_taskiter_bpf__open_opts(&opts);
    if (!it->skel) {
        snprintf(why, whylen, "its object did not open: %s", strerror(errno));
        goto fail;
    }
    int err = pt_taskiter_bpf__load(it->skel);
    if (err) {
        /* libbpf's own codes (a bad BTF, a relocation that found no field)
         * are past the errno range: its strerror knows them */
        char text[128];
        libbpf_strerror(err, text, sizeof(text));
        snprintf(why, whylen, "the kernel refused to load it: %s%s", text,
                 err == -EPERM ? " (it needs CAP_BPF and CAP_PERFMON effective, or root)" : "");
        goto fail;
    }
    it->link = bpf_program__attach_iter(it->skel->progs.pt_task, NULL);
    if (!it->link) {
        snprintf(why, whylen, "the kernel refused to attach it: %s", strerror(errno));
        goto fail;
    }
    it->map_fd = bpf_map__fd(it->skel->maps.members);
    return it;
fail:
    pt_taskiter_close(it);
    return NULL;
}

void pt_taskiter_close(struct pt_taskiter *it)
{
    if (!it)
        return;
    bpf_link__destroy(it->link);
    pt_taskiter_bpf__destroy(it->skel);
    pt_pidmap_free(&it->followed);
    pt_pidmap_free(&it->by_tid);
    pt_pidmap_free(&it->first_of_group);
    free(it->records);
    free(it->next);
    free(it);
}

int pt_taskiter_follow(struct pt_taskiter *it, pid_t tgid)
{
    long n = pt_pidmap_get(&it->followed, tgid);
    if (n <= 0) {
        uint32_t key = (uint32_t)tgid, one = 1;
        if (bpf_map_update_elem(it->map_fd, &key, &one, BPF_ANY) != 0)
            return -errno;
        n = 0;
    }
    pt_pidmap_put(&it->followed, tgid, (uint32_t)n + 1);
    return 0;
}

void pt_taskiter_unfollow(struct pt_taskiter *it, pid_t tgid)
{
    long n = pt_pidmap_get(&it->followed, tgid);
    if (n <= 0)
        return;
    if (n > 1) {
        pt_pidmap_put(&it->followed, tgid, (uint32_t)n - 1);
        return;
    }
    pt_pidmap_remove(&it->followed, tgid);
    uint32_t key = (uint32_t)tgid;
    bpf_map_delete_elem(it->map_fd, &key);
}

/* Read the iterator whole into records. A record never straddles two
 * reads (the kernel writes each whole or not at all), but a read may end
 * anywhere a record ends. */
static int read_all(struct pt_taskiter *it)
{
    int fd = bpf_iter_create(bpf_link__fd(it->link));
    if (fd < 0)
        return -errno;
    size_t have = 0; /* bytes in records */
    int err = 0;
    for (;;) {
        if ((it->cap - it->count) < 64) {
            it->cap = it->cap ? it->cap * 2 : 256;
            it->records = pt_xrealloc_array(it->records, it->cap, sizeof(*it->records));
        }
        char *at = (char *)it->records + have;
        ssize_t n = read(fd, at, it->cap * sizeof(*it->records) - have);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            err = -errno;
            break;
        }
        if (n == 0)
            break;
        have += (size_t)n;
        it->count = have / sizeof(*it->records);
    }
    close(fd);
    if (err || have % sizeof(*it->records) != 0) {
        it->count = 0;
        return err ? err : -EIO;
    }
    return 0;
}
#else
struct pt_taskiter *pt_taskiter_open(int btf_fd, char *why, size_t whylen)
{
    (void)btf_fd;
    snprintf(why, whylen, "this build has no BPF source (built without libbpf, clang or bpftool)");
    return NULL;
}

void pt_taskiter_close(struct pt_taskiter *it)
{
    (void)it;
}

int pt_taskiter_follow(struct pt_taskiter *it, pid_t tgid)
{
    (void)it;
    (void)tgid;
    return -ENOSYS;
}

void pt_taskiter_unfollow(struct pt_taskiter *it, pid_t tgid)
{
    (void)it;
    (void)tgid;
}

static int read_all(struct pt_taskiter *it)
{
    it->count = 0;
    return -ENOSYS;
}
#endif

bool pt_taskiter_follows(const struct pt_taskiter *it, pid_t tgid)
{
    return pt_pidmap_get(&it->followed, tgid) > 0;
}

bool pt_taskiter_valid(const struct pt_taskiter *it)
{
    return it->valid;
}

void pt_taskiter_forget(struct pt_taskiter *it)
{
    it->valid = false;
}

int pt_taskiter_snapshot(struct pt_taskiter *it)
{
    it->generation++;
    it->count = 0;
    it->valid = false;
    int err = read_all(it);
    pt_pidmap_clear(&it->by_tid);
    pt_pidmap_clear(&it->first_of_group);
    if (err)
        return err;
    it->valid = true;
    it->next = pt_xrealloc_array(it->next, it->count ? it->count : 1, sizeof(*it->next));
    /* chained backwards, so that each group's list ends up in pid order */
    for (size_t i = it->count; i-- > 0;) {
        const struct pt_taskrec *r = &it->records[i];
        pt_pidmap_put(&it->by_tid, (pid_t)r->pid, (uint32_t)i);
        long first = pt_pidmap_get(&it->first_of_group, (pid_t)r->tgid);
        it->next[i] = (int32_t)first;
        pt_pidmap_put(&it->first_of_group, (pid_t)r->tgid, (uint32_t)i);
    }
    return 0;
}

uint64_t pt_taskiter_generation(const struct pt_taskiter *it)
{
    return it->generation;
}

const struct pt_taskrec *pt_taskiter_task(const struct pt_taskiter *it, pid_t tid)
{
    if (!it->valid)
        return NULL;
    long i = pt_pidmap_get(&it->by_tid, tid);
    return i < 0 ? NULL : &it->records[i];
}

const struct pt_taskrec *pt_taskiter_group_first(const struct pt_taskiter *it, pid_t tgid)
{
    if (!it->valid)
        return NULL;
    long i = pt_pidmap_get(&it->first_of_group, tgid);
    return i < 0 ? NULL : &it->records[i];
}

const struct pt_taskrec *pt_taskiter_group_next(const struct pt_taskiter *it, const struct pt_taskrec *r)
{
    int32_t n = it->next[r - it->records];
    return n < 0 ? NULL : &it->records[n];
}

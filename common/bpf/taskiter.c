#include "bpf/taskiter.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "bpf/taskindex.h"
#include "bpf/tasksockets.h"
#include "util/base.h"
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
    struct bpf_link *statm_link; /* pt_statm's, visiting this process's leader; NULL: polls walk */
#endif
    int map_fd;
    struct pt_pidmap followed; /* tgid -> followers */
    struct pt_pidmap slot;     /* tgid -> its index in the program's list */
    uint32_t listed;           /* the list's length (the program's list_end) */
    uint64_t *words;           /* the members map's words, as last written */
    char *bytes;               /* the last pass's records */
    size_t len, cap;           /* bytes in it, and its size */
    size_t count;              /* records */
    enum pt_taskrec_mode mode;
    struct pt_taskindex index;           /* the last pass's records indexed */
    struct pt_tasksockets sockets;       /* FULL: the groups' TCP sockets */
    const struct pt_taskrec_sock *socks; /* the program's array of socket records, mapped */
    uint64_t visits;                     /* the host's tasks the last pass visited */
    bool valid;
    bool statm_sums;   /* this kernel's statm sums the per-CPU parts (Linux >= 6.16) */
    bool no_sockets;   /* no FULL pass lists the groups' sockets (pt_taskiter_list_sockets) */
    bool pass_sockets; /* this pass lists them (where no_sockets allows) */
};

bool pt_taskiter_built(void)
{
#ifdef PT_HAVE_BPF
    return true;
#else
    return false;
#endif
}

bool pt_taskiter_statm_sums(const struct pt_taskiter *it)
{
    return it->statm_sums;
}

#ifdef PT_HAVE_BPF
/* Does the running kernel's statm sum each mm counter's per-CPU parts?
 * Since Linux 6.16 (task_statm's get_mm_counter_sum); before, it read the
 * shared count alone, which the records do not keep apart. */
static bool kernel_statm_sums(void)
{
    struct utsname u;
    unsigned major = 0, minor = 0;
    if (uname(&u) != 0 || sscanf(u.release, "%u.%u", &major, &minor) != 2)
        return false;
    return major > 6 || (major == 6 && minor >= 16);
}

/* The program's array of socket records, as mapped (whole pages: 56
 * bytes a record, 65,536 of them). */
#define SOCKS_SIZE ((size_t)PT_TASKREC_SOCKS_MAX * sizeof(struct pt_taskrec_sock))

/* Open and load the object, pt_statm with it where direct; 0 or libbpf's
 * error. it->skel is NULL when the object did not open. */
static int load(struct pt_taskiter *it, const struct bpf_object_open_opts *opts, bool direct)
{
    pt_taskiter_bpf__destroy(it->skel);
    it->skel = pt_taskiter_bpf__open_opts(opts);
    if (!it->skel)
        return -errno;
    int cpus = libbpf_num_possible_cpus();
    it->skel->rodata->nr_cpus = cpus > 0 ? (uint32_t)cpus : 1;
    bpf_program__set_autoload(it->skel->progs.pt_statm, direct);
    return pt_taskiter_bpf__load(it->skel);
}

struct pt_taskiter *pt_taskiter_open(int btf_fd, char *why, size_t whylen)
{
    /* libbpf's own lines would go to stderr, unescaped and unasked (NULL:
     * none): the reason a load failed is returned instead. */
    libbpf_set_print(NULL);
    char btf_path[64];
    snprintf(btf_path, sizeof(btf_path), "/proc/self/fd/%d", btf_fd);
    LIBBPF_OPTS(bpf_object_open_opts, opts, .btf_custom_path = btf_fd >= 0 ? btf_path : NULL);
    struct pt_taskiter *it = pt_xalloc(sizeof(*it));
    it->map_fd = -1;
    it->words = pt_xalloc(PT_TASKREC_PID_WORDS * sizeof(*it->words));
    /* with pt_statm first; a kernel without bpf_task_from_pid refuses it,
     * and then polls walk the host's tasks. A refusal for want of
     * privilege would refuse the second load too: it is not tried. */
    int err = load(it, &opts, true);
    if (err && err != -EPERM && it->skel)
        err = load(it, &opts, false);
    if (!it->skel) {
        snprintf(why, whylen, "its object did not open: %s", strerror(errno));
        goto fail;
    }
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
    if (bpf_program__autoload(it->skel->progs.pt_statm)) {
        /* one visit a read: the leader's of this process, there as long as
         * the process is */
        union bpf_iter_link_info info;
        memset(&info, 0, sizeof(info));
        info.task.tid = (uint32_t)getpid();
        LIBBPF_OPTS(bpf_iter_attach_opts, attach, .link_info = &info, .link_info_len = sizeof(info));
        it->statm_link = bpf_program__attach_iter(it->skel->progs.pt_statm, &attach);
    }
    void *socks = mmap(NULL, SOCKS_SIZE, PROT_READ, MAP_SHARED, bpf_map__fd(it->skel->maps.sockrecs), 0);
    if (socks == MAP_FAILED) {
        snprintf(why, whylen, "its socket records could not be mapped: %s", strerror(errno));
        goto fail;
    }
    it->socks = socks;
    it->map_fd = bpf_map__fd(it->skel->maps.members);
    it->statm_sums = kernel_statm_sums();
    return it;
fail:
    pt_taskiter_close(it);
    return NULL;
}

void pt_taskiter_close(struct pt_taskiter *it)
{
    if (!it)
        return;
    if (it->socks)
        munmap((void *)it->socks, SOCKS_SIZE);
    bpf_link__destroy(it->statm_link);
    bpf_link__destroy(it->link);
    pt_taskiter_bpf__destroy(it->skel);
    pt_pidmap_free(&it->followed);
    pt_pidmap_free(&it->slot);
    free(it->words);
    pt_taskindex_free(&it->index);
    pt_tasksockets_free(&it->sockets);
    free(it->bytes);
    free(it);
}

/* Set or clear tgid's bit in the program's members map. The reader's
 * words mirror the map's, so a change is one update of one word. */
static int set_bit(struct pt_taskiter *it, pid_t tgid, bool on)
{
    uint32_t word = (uint32_t)tgid / 64;
    uint64_t bit = UINT64_C(1) << ((uint32_t)tgid % 64);
    if (word >= PT_TASKREC_PID_WORDS)
        return -ERANGE;
    uint64_t value = on ? it->words[word] | bit : it->words[word] & ~bit;
    if (bpf_map_update_elem(it->map_fd, &word, &value, BPF_ANY) != 0)
        return -errno;
    it->words[word] = value;
    return 0;
}

void pt_taskiter_list_sockets(struct pt_taskiter *it, bool on)
{
    it->no_sockets = !on;
}

/* The list is written in place (the skeleton maps the program's .bss):
 * no system call. A member past its room is not listed, and a poll by the
 * list then reads its file. */
static void list_add(struct pt_taskiter *it, pid_t tgid)
{
    if (it->listed >= PT_TASKREC_LIST_MAX)
        return;
    it->skel->bss->list[it->listed] = (uint32_t)tgid;
    pt_pidmap_put(&it->slot, tgid, it->listed++);
    it->skel->bss->list_end = it->listed;
}

static void list_remove(struct pt_taskiter *it, pid_t tgid)
{
    long i = pt_pidmap_get(&it->slot, tgid);
    if (i < 0)
        return;
    pt_pidmap_remove(&it->slot, tgid);
    uint32_t last = it->skel->bss->list[--it->listed];
    if ((uint32_t)i != it->listed) {
        it->skel->bss->list[i] = last; /* with its flag */
        pt_pidmap_put(&it->slot, (pid_t)(last & PT_TASKREC_LIST_PID), (uint32_t)i);
    }
    it->skel->bss->list_end = it->listed;
}

void pt_taskiter_count_fds(struct pt_taskiter *it, pid_t tgid, bool on)
{
    long i = pt_pidmap_get(&it->slot, tgid);
    if (i >= 0)
        it->skel->bss->list[i] = (uint32_t)tgid | (on ? PT_TASKREC_LIST_FDS : 0);
}

int pt_taskiter_follow(struct pt_taskiter *it, pid_t tgid)
{
    if (tgid <= 0)
        return -EINVAL;
    long n = pt_pidmap_get(&it->followed, tgid);
    if (n <= 0) {
        int err = set_bit(it, tgid, true);
        if (err)
            return err;
        list_add(it, tgid);
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
    set_bit(it, tgid, false);
    list_remove(it, tgid);
}

/* Read link's iterator whole, after what it->bytes holds. A record never
 * straddles two reads (the kernel writes each visit's whole or not at
 * all), but a read may end wherever a visit's records end. */
static int read_link(struct pt_taskiter *it, struct bpf_link *link)
{
    int fd = bpf_iter_create(bpf_link__fd(link));
    if (fd < 0)
        return -errno;
    int err = 0;
    for (;;) {
        if (it->cap - it->len < 65536) {
            it->cap = it->cap ? it->cap * 2 : 262144;
            it->bytes = pt_xrealloc(it->bytes, it->cap);
        }
        ssize_t n = read(fd, it->bytes + it->len, it->cap - it->len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            err = -errno;
            break;
        }
        if (n == 0)
            break;
        it->len += (size_t)n;
    }
    close(fd);
    return err;
}

/* One read's records fit the 32 KiB of one seq_file object. */
_Static_assert(PT_TASKREC_STATM_CHUNK * sizeof(struct pt_taskrec_statm) <= 32768, "a poll's chunk outgrows a read");

/* One pass: a poll by the list where pt_statm is there, read a chunk at a
 * time; else a walk of the host's tasks. */
static int read_all(struct pt_taskiter *it, size_t record)
{
    int err = 0;
    it->len = 0;
    if (it->mode == PT_TR_MODE_STATM && it->statm_link) {
        for (uint32_t first = 0; first < it->listed && !err; first += PT_TASKREC_STATM_CHUNK) {
            it->skel->bss->list_first = first;
            err = read_link(it, it->statm_link);
        }
    } else {
        it->skel->bss->mode = (uint32_t)it->mode;
        it->skel->bss->visits = 0;
        it->skel->bss->socks_used = 0;
        it->skel->bss->skip_sockets = it->no_sockets || !it->pass_sockets;
        err = read_link(it, it->link);
        it->visits = it->skel->bss->visits;
    }
    if (!err && it->mode == PT_TR_MODE_FULL) { /* the groups' sockets, in the array */
        uint32_t used = it->skel->bss->socks_used;
        err = pt_tasksockets_take(&it->sockets, it->bytes, it->len, it->socks,
                                  used < PT_TASKREC_SOCKS_MAX ? used : PT_TASKREC_SOCKS_MAX);
    }
    if (!err && it->len % record != 0)
        err = -EIO;
    it->count = err ? 0 : it->len / record;
    return err;
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

void pt_taskiter_count_fds(struct pt_taskiter *it, pid_t tgid, bool on)
{
    (void)it;
    (void)tgid;
    (void)on;
}

void pt_taskiter_list_sockets(struct pt_taskiter *it, bool on)
{
    (void)it;
    (void)on;
}

static int read_all(struct pt_taskiter *it, size_t record)
{
    (void)record;
    it->count = 0;
    return -ENOSYS;
}
#endif

uint64_t pt_taskiter_visits(const struct pt_taskiter *it)
{
    return it->visits;
}

bool pt_taskiter_polls_by_list(const struct pt_taskiter *it)
{
#ifdef PT_HAVE_BPF
    return it->statm_link != NULL;
#else
    (void)it;
    return false;
#endif
}

int pt_taskiter_members_fd(const struct pt_taskiter *it)
{
    return it->map_fd;
}

bool pt_taskiter_follows(const struct pt_taskiter *it, pid_t tgid)
{
    return pt_pidmap_get(&it->followed, tgid) > 0;
}

bool pt_taskiter_valid(const struct pt_taskiter *it, enum pt_taskrec_mode mode)
{
    return it->valid && it->mode == mode;
}

void pt_taskiter_forget(struct pt_taskiter *it)
{
    it->valid = false;
}

int pt_taskiter_snapshot(struct pt_taskiter *it, enum pt_taskrec_mode mode)
{
    return pt_taskiter_snapshot_sockets(it, mode, true);
}

int pt_taskiter_snapshot_sockets(struct pt_taskiter *it, enum pt_taskrec_mode mode, bool sockets)
{
    it->valid = false;
    it->mode = mode;
    it->pass_sockets = sockets;
    int err = read_all(it, pt_taskindex_record_size(mode));
    pt_taskindex_clear(&it->index);
    if (err)
        return err;
    pt_taskindex_build(&it->index, mode, it->bytes, it->count);
    it->valid = true;
    return 0;
}

const struct pt_taskrec *pt_taskiter_task(const struct pt_taskiter *it, pid_t tid)
{
    return it->valid ? pt_taskindex_task(&it->index, tid) : NULL;
}

const struct pt_taskrec *pt_taskiter_group(const struct pt_taskiter *it, pid_t tgid)
{
    return it->valid ? pt_taskindex_group(&it->index, tgid) : NULL;
}

const struct pt_tasksockets *pt_taskiter_sockets(const struct pt_taskiter *it)
{
    return it && it->mode == PT_TR_MODE_FULL && it->count > 0 ? &it->sockets : NULL; /* forgotten or not */
}

const struct pt_taskrec *pt_taskiter_group_first(const struct pt_taskiter *it, pid_t tgid)
{
    return it->valid ? pt_taskindex_group_first(&it->index, tgid) : NULL;
}

const struct pt_taskrec *pt_taskiter_group_next(const struct pt_taskiter *it, const struct pt_taskrec *r)
{
    return pt_taskindex_group_next(&it->index, r);
}

const struct pt_taskrec_statm *pt_taskiter_statm(const struct pt_taskiter *it, pid_t tgid)
{
    return it->valid ? pt_taskindex_statm(&it->index, tgid) : NULL;
}

bool pt_taskiter_alive(const struct pt_taskiter *it, pid_t tgid)
{
    return it->valid && pt_taskindex_alive(&it->index, tgid);
}

pid_t pt_taskiter_child_first(const struct pt_taskiter *it, pid_t tgid, long *cursor)
{
    *cursor = -1;
    return it->valid ? pt_taskindex_child_first(&it->index, tgid, cursor) : 0;
}

pid_t pt_taskiter_child_next(const struct pt_taskiter *it, long *cursor)
{
    return pt_taskindex_child_next(&it->index, cursor);
}

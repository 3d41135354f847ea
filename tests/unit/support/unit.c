#include "unit.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fixture.h"
#include "proctree/collector.h"
#include "select/pidfile.h"

char *exact_copy(const char *data, size_t len)
{
    char *copy = malloc(len);
    ck_assert(copy != NULL || len == 0);
    if (len)
        memcpy(copy, data, len);
    return copy;
}

#define EXACT_COPY_PARSER(name, type, parser)                                                                          \
    int name(const char *text, size_t len, type *out)                                                                  \
    {                                                                                                                  \
        char *copy = exact_copy(text, len);                                                                            \
        int rc = parser(copy, len, out);                                                                               \
        free(copy);                                                                                                    \
        return rc;                                                                                                     \
    }
EXACT_COPY_PARSER(parse_stat, struct pt_stat, pt_procfs_parse_stat)
EXACT_COPY_PARSER(parse_statm, struct pt_statm, pt_procfs_parse_statm)
EXACT_COPY_PARSER(parse_schedstat, struct pt_schedstat, pt_procfs_parse_schedstat)
EXACT_COPY_PARSER(parse_stat_with_blkio, struct pt_stat, pt_procfs_parse_stat_with_blkio)
EXACT_COPY_PARSER(parse_io, struct pt_io, pt_kvparse_io)
EXACT_COPY_PARSER(parse_rollup, struct pt_smaps_rollup, pt_kvparse_smaps_rollup)
EXACT_COPY_PARSER(parse_meminfo, struct pt_meminfo, pt_kvparse_meminfo)
EXACT_COPY_PARSER(parse_status, struct pt_status, pt_kvparse_status)
EXACT_COPY_PARSER(parse_pidfile, pid_t, pt_pidparse_pidfile)
EXACT_COPY_PARSER(parse_nofile_limit, uint64_t, pt_procfs_parse_nofile_limit)

int collect_pid(pid_t pid, void *arg)
{
    struct pid_list *list = arg;
    if (list->count == list->stop_at || list->count == PID_LIST_MAX)
        return 1;
    list->pids[list->count++] = pid;
    return 0;
}

int compare_pids(const void *a, const void *b)
{
    pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
    return (x > y) - (x < y);
}

int parse_children(const char *text, size_t len, struct pid_list *list)
{
    list->count = 0;
    list->stop_at = -1;
    char *copy = exact_copy(text, len);
    int rc = pt_pidparse_children(copy, len, collect_pid, list);
    free(copy);
    return rc;
}

void assert_stat_eq(const struct pt_stat *got, const struct pt_stat *want)
{
    ck_assert_int_eq(got->pid, want->pid);
    ck_assert_str_eq(got->comm, want->comm);
    ck_assert_int_eq(got->state, want->state);
    ck_assert_int_eq(got->ppid, want->ppid);
    ck_assert_uint_eq(got->minflt, want->minflt);
    ck_assert_uint_eq(got->cminflt, want->cminflt);
    ck_assert_uint_eq(got->majflt, want->majflt);
    ck_assert_uint_eq(got->cmajflt, want->cmajflt);
    ck_assert_uint_eq(got->utime, want->utime);
    ck_assert_uint_eq(got->stime, want->stime);
    ck_assert_uint_eq(got->cutime, want->cutime);
    ck_assert_uint_eq(got->cstime, want->cstime);
    ck_assert_int_eq(got->num_threads, want->num_threads);
    ck_assert_uint_eq(got->starttime, want->starttime);
    ck_assert_uint_eq(got->vsize, want->vsize);
    ck_assert_int_eq(got->rss_pages, want->rss_pages);
}

void assert_io_eq(const struct pt_io *got, const struct pt_io *want)
{
    ck_assert_uint_eq(got->rchar, want->rchar);
    ck_assert_uint_eq(got->wchar, want->wchar);
    ck_assert_uint_eq(got->syscr, want->syscr);
    ck_assert_uint_eq(got->syscw, want->syscw);
    ck_assert_uint_eq(got->read_bytes, want->read_bytes);
    ck_assert_uint_eq(got->write_bytes, want->write_bytes);
    ck_assert_uint_eq(got->cancelled_write_bytes, want->cancelled_write_bytes);
}

int open_in(const char *root, const char *rel)
{
    char *path;
    ck_assert_int_ge(asprintf(&path, "%s/%s", root, rel), 0);
    int fd = pt_procfs_open_at(AT_FDCWD, path);
    ck_assert_int_ge(fd, 0);
    free(path);
    return fd;
}

int open_pid_dir(int proc_root_fd, pid_t pid)
{
    char name[16];
    snprintf(name, sizeof(name), "%d", (int)pid);
    int fd = openat(proc_root_fd, name, O_PATH | O_DIRECTORY | O_CLOEXEC);
    return fd >= 0 ? fd : -errno;
}

TCase *unit_tcase(Suite *suite, const char *name)
{
    TCase *tc = tcase_create(name);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(suite, tc);
    return tc;
}

int unit_run(Suite *suite)
{
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

void unit_tree_put(struct unit_tree *u, pid_t pid, pid_t ppid, const char *children)
{
    struct fx_proc p = {.pid = pid, .ppid = ppid, .starttime = (uint64_t)pid, .children = children};
    p.resident_pages = 1;
    fx_put_proc(u->root, &p);
}

/* The tree, and its target: --pid 100, or --pidfile on its app.pid. */
static void open_tree(struct unit_tree *u, bool pid_file)
{
    u->root = fx_root_new();
    u->root_fd = open(u->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ck_assert_int_ge(u->root_fd, 0);
    u->budget = (struct pt_fd_budget){.limit = 1000};
    unit_tree_put(u, 100, 1, "");
    snprintf(u->pid_file, sizeof(u->pid_file), "%s/app.pid", u->root);
    struct pt_selector sel = pid_file ? (struct pt_selector){.kind = PT_SELECT_PIDFILE, .path = u->pid_file}
                                      : (struct pt_selector){.kind = PT_SELECT_PID, .pid = 100};
    struct pt_target_options opt;
    pt_target_options_init(&opt);
    char err[256];
    ck_assert_msg(
        pt_target_init(&u->target, "app", &sel, &opt, true, u->root_fd, "/sys", &u->budget, err, sizeof(err)) == 0,
        "%s", err);
}

void unit_tree_open(struct unit_tree *u)
{
    open_tree(u, false);
}

void unit_tree_open_pidfile(struct unit_tree *u)
{
    open_tree(u, true);
}

void unit_tree_close(struct unit_tree *u)
{
    pt_target_free(&u->target);
    close(u->root_fd);
    fx_root_free(u->root);
}

struct pt_collector *unit_collector(void)
{
    struct pt_collector_config config;
    pt_collector_config_init(&config);
    config.collect_global = false;
    char err[256] = "";
    struct pt_collector *c = pt_collector_new(&config, err, sizeof(err));
    ck_assert_msg(c != NULL, "%s", err);
    return c;
}

void unit_add_self(struct pt_collector *c)
{
    char err[256] = "";
    struct pt_target_options options;
    pt_target_options_init(&options);
    struct pt_selector self = {.kind = PT_SELECT_PID, .pid = getpid()};
    ck_assert_msg(pt_collector_add_target(c, "self", &self, &options, err, sizeof(err)) == 0, "%s", err);
}

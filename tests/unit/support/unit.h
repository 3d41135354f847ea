/* unit: what the unit suites share, beside the fake /proc of fixture.h.
 *
 * Every parser call goes through a heap copy exactly len bytes long with
 * no NUL after it (the parse_* wrappers below), so ASan or valgrind report
 * any read past len. */
#ifndef PROCTREE_TEST_UNIT_H
#define PROCTREE_TEST_UNIT_H

#include <check.h>
#include <string.h>
#include <sys/types.h>

#include "procfs/procfile.h"
#include "tree/target.h"

/* A string literal or char array as (text, len), without its NUL. */
#define TEXT(s) (s), strlen(s)
#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))
/* call, then the invariants of obj: check(obj, why, whylen) returns NULL
 * or the rule broken, why its details (memberlist.h, departures.h). Every
 * event of a no-I/O module's test is followed by its check, as the
 * ledger's tests do. */
#define UNIT_CHECKED(check, obj, call)                                                                                 \
    do {                                                                                                               \
        call;                                                                                                          \
        char why_[160] = "";                                                                                           \
        const char *broken_ = check(obj, why_, sizeof(why_));                                                          \
        ck_assert_msg(broken_ == NULL, "%s (%s) after %s", broken_, why_, #call);                                      \
    } while (0)

/* A heap copy of exactly len bytes: the byte after the data is a redzone. */
char *exact_copy(const char *data, size_t len);

/* The procfile.h and pidfile.h parsers, each run on an exact copy. */
int parse_stat(const char *text, size_t len, struct pt_stat *out);
int parse_statm(const char *text, size_t len, struct pt_statm *out);
int parse_schedstat(const char *text, size_t len, struct pt_schedstat *out);
int parse_stat_with_blkio(const char *text, size_t len, struct pt_stat *out);
int parse_nofile_limit(const char *text, size_t len, uint64_t *out);
int parse_io(const char *text, size_t len, struct pt_io *out);
int parse_rollup(const char *text, size_t len, struct pt_smaps_rollup *out);
int parse_meminfo(const char *text, size_t len, struct pt_meminfo *out);
int parse_status(const char *text, size_t len, struct pt_status *out);
int parse_pidfile(const char *text, size_t len, pid_t *out);

/* A collector on the real /proc without the global line, and its target
 * "self" on this process (--pid): the collector suites' start. */
struct pt_collector *unit_collector(void);
void unit_add_self(struct pt_collector *c);

/* The pids a children parse delivered, in order. */
#define PID_LIST_MAX 4096
struct pid_list {
    pid_t pids[PID_LIST_MAX];
    int count;
    int stop_at; /* the callback refuses the pid with this index */
};

/* A pt_pidparse_children callback filling a struct pid_list. */
int collect_pid(pid_t pid, void *arg);
/* qsort order of pid_t. */
int compare_pids(const void *a, const void *b);
/* pt_pidparse_children on an exact copy, into a fresh list. */
int parse_children(const char *text, size_t len, struct pid_list *list);

void assert_stat_eq(const struct pt_stat *got, const struct pt_stat *want);
void assert_io_eq(const struct pt_io *got, const struct pt_io *want);

/* root/rel opened with pt_procfs_open_at; the test fails if it cannot be. */
int open_in(const char *root, const char *rel);
/* A process's directory under a proc root, as an O_PATH fd, or -errno. */
int open_pid_dir(int proc_root_fd, pid_t pid);

/* A test case of suite with a 60 s timeout. */
TCase *unit_tcase(Suite *suite, const char *name);

/* A --pid target "app" on process 100 of a fresh fixture tree (written,
 * with 1 resident page; not discovered yet), for the suites that feed a
 * target by hand. unit_tree_close removes it all. */
struct unit_tree {
    char *root;
    int root_fd;
    struct pt_fd_budget budget;
    struct pt_target target;
    char pid_file[4096]; /* the tree's app.pid (not written) */
};
void unit_tree_open(struct unit_tree *u);
/* The same tree, with a --pidfile target "app" on its pid_file. */
void unit_tree_open_pidfile(struct unit_tree *u);
void unit_tree_close(struct unit_tree *u);
/* Write process pid (child of ppid, with that children file) into it. */
void unit_tree_put(struct unit_tree *u, pid_t pid, pid_t ppid, const char *children);
/* Run suite; the exit status of main. */
int unit_run(Suite *suite);

#endif

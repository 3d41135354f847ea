/* acct_fixture: what the test_acct_*.c suites share, the accounting of a
 * collector on a fixture /proc tree (fixture.h). Time is driven by hand
 * through pt_collector_tick(c, now) and pt_collector_end_interval(c, now).
 *
 * Every test runs in acct_tcase's checked fixture: a fresh fixture root
 * with a meminfo, the collector c the test makes (freed after it, with
 * the root), and the page size. */
#ifndef PROCTREE_TEST_ACCT_FIXTURE_H
#define PROCTREE_TEST_ACCT_FIXTURE_H

#include <check.h>
#include <stdint.h>
#include <sys/types.h>

#include "proctree/collector.h"
#include "fixture.h"

/* The fixture's proc root, the test's collector (NULL until it makes
 * one), and sysconf(_SC_PAGESIZE). */
extern char *root;
extern struct pt_collector *c;
extern long page;

/* The test case "fixture" of suite s, with the checked fixture above. */
TCase *acct_tcase(Suite *s);

/* A collector on proc_root with the default configuration. */
struct pt_collector *collector_for(const char *proc_root);
/* A cgroup2 mount of the fixture (sys/fs/cgroup, with the cpu and memory
 * controllers and no process) and c, a collector on root whose sys root
 * is root/sys. */
void collector_with_cgroup2(void);
/* Target name (NULL: the default name) on pid, with opt or the defaults. */
void add_pid_target_with(const char *name, pid_t pid, const struct pt_target_options *opt);
void add_pid_target(const char *name, pid_t pid);

/* Metric id of target in b; ivalue and fvalue fail the test when it is
 * absent (ivalue also when it is not an integer). */
const struct pt_value *value(const struct pt_batch *b, size_t target, enum pt_metric_id id);
int64_t ivalue(const struct pt_batch *b, size_t target, enum pt_metric_id id);
double fvalue(const struct pt_batch *b, size_t target, enum pt_metric_id id);

/* A new collector on the fixture as it is, with target "app" on pid
 * (the collector made before, if any, freed), and its first tick:
 * discovery and the first sample. */
void watch_pid(pid_t pid);
/* Write the processes (the first is the root, the list ends with NULL)
 * and watch_pid the root. */
void watch_app(const struct fx_proc *first, ...);

/* A process with I/O counter rchar and the given memory. */
struct fx_proc proc(pid_t pid, pid_t ppid, uint64_t starttime, uint64_t rchar, uint64_t resident, const char *children);

/* pid's status: one thread, with these context switches. */
void put_status(pid_t pid, uint64_t voluntary, uint64_t involuntary);
/* The status of pid's thread tid, with these voluntary switches. */
void put_thread_status(pid_t pid, pid_t tid, int voluntary);

/* What the collector said while a test listened: its lines, one per
 * row, the last ones kept when there are more than fit. */
extern char said_text[8192];
/* Keep what the collector says from now in said_text (emptied);
 * pt_log_set_sink(NULL, NULL) stops it. */
void listen_to_the_log(void);

/* The breakdown's line of the group named name in target 0, or NULL. */
const struct pt_report *group(const struct pt_batch *b, const char *name);
/* Its integer metric id; the test fails when the group or it is absent. */
int64_t group_int(const struct pt_batch *b, const char *name, enum pt_metric_id id);

#endif

/* Unit tests for a refused read told apart from an exit: io, smaps_rollup
 * and fd/ of a process whose memory map is gone are refused whoever asks
 * but root (memberfiles.c, exiting_or_gone), so a refusal of a process
 * that is exiting (PF_EXITING), a zombie or gone notes no denial and says
 * no "permission denied"; a live process's refusal does both.
 *
 * The fixture's files are root's: io and smaps_rollup 0400, fd/ 0500, as
 * procfs makes them for a process without an mm. Root reads them anyway,
 * so the checks run in a child as nobody. */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proctree/collector.h"
#include "fixture.h"
#include "member/member.h"
#include "unit.h"

#define NOBODY 65534

static char *root;

static void put(pid_t pid, pid_t ppid, char state, uint64_t flags, const char *children)
{
    struct fx_proc p = {.pid = pid,
                        .ppid = ppid,
                        .state = state,
                        .flags = flags,
                        .starttime = 10 + (uint64_t)pid,
                        .utime = 5,
                        .resident_pages = 10,
                        .size_pages = 40,
                        .children = children};
    p.io.rchar = 1000;
    fx_put_proc(root, &p);
    char rel[64];
    snprintf(rel, sizeof(rel), "%d/fd/0", (int)pid);
    fx_write(root, rel, "", 0);
    const char *modes[][2] = {{"io", "0400"}, {"smaps_rollup", "0400"}, {"fd", "0500"}};
    for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
        char path[512];
        snprintf(path, sizeof(path), "%s/%d/%s", root, (int)pid, modes[i][0]);
        ck_assert_int_eq(chmod(path, (mode_t)strtol(modes[i][1], NULL, 8)), 0);
    }
}

/* The tree readable down to each pid's directory by nobody. */
static void open_to_nobody(void)
{
    ck_assert_int_eq(chmod(root, 0755), 0);
}

/* fn's result as nobody's (0: its checks passed). */
static int as_nobody(int (*fn)(void))
{
    if (geteuid() != 0)
        return fn();
    open_to_nobody();
    fflush(NULL);
    pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        if (setresgid(NOBODY, NOBODY, NOBODY) != 0 || setresuid(NOBODY, NOBODY, NOBODY) != 0)
            _exit(100);
        _exit(fn());
    }
    int status;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 200;
}

/* Member pid opened, its counters, smaps_rollup and fd/ read: the
 * denials noted (enum pt_denied bits), or -1 when it could not open; the
 * results of the reads in *counters and *fds. */
static int denials_of(pid_t pid, enum pt_read *counters, enum pt_read *fds)
{
    int proc = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (proc < 0)
        return -1;
    struct pt_buf buf = {0};
    struct pt_member m;
    int denied = -1;
    if (pt_member_open(&m, proc, NULL, pid, 0, &buf) == PT_READ_OK) {
        *counters = pt_member_read_counters(&m, proc, &buf, false);
        struct pt_smaps_rollup sr;
        pt_member_read_smaps(&m, proc, &buf, &sr);
        int64_t n;
        *fds = pt_member_count_fds(&m, proc, &n);
        denied = (int)m.denied;
        pt_member_close(&m);
    }
    pt_buf_free(&buf);
    close(proc);
    return denied;
}

static int member_checks(void)
{
    enum pt_read counters, fds;
    /* live: every refusal is a denial */
    if (denials_of(100, &counters, &fds) != (PT_DENIED_IO | PT_DENIED_SMAPS | PT_DENIED_FDS))
        return 1;
    if (counters != PT_READ_OK || fds != PT_READ_FAILED)
        return 2;
    /* exiting (its mm about to go or gone, not yet a zombie) */
    if (denials_of(101, &counters, &fds) != 0 || counters != PT_READ_OK || fds != PT_READ_FAILED)
        return 3;
    /* a zombie */
    if (denials_of(102, &counters, &fds) != 0 || counters != PT_READ_OK || fds != PT_READ_FAILED)
        return 4;
    return 0;
}

START_TEST(test_refusal_of_an_exit_is_no_denial)
{
    put(100, 1, 'S', 0, NULL);
    put(101, 1, 'R', PT_PF_EXITING, NULL);
    put(102, 1, 'Z', PT_PF_EXITING, NULL);
    ck_assert_int_eq(as_nobody(member_checks), 0);
}
END_TEST

/* Gone between the refusal and the stat read after it (here: its stat
 * removed, its fd/ kept): fd/ reads gone, no denial. */
START_TEST(test_refusal_of_a_gone_process_is_a_vanish)
{
    if (geteuid() != 0)
        return; /* needs a parent that can remove root's files */
    put(103, 1, 'S', 0, NULL);
    open_to_nobody();
    char stat_path[512], mark[512];
    snprintf(stat_path, sizeof(stat_path), "%s/103/stat", root);
    snprintf(mark, sizeof(mark), "%s/103/stat.gone", root);
    int ready[2];
    ck_assert_int_eq(pipe(ready), 0);
    fflush(NULL);
    pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        close(ready[0]);
        if (setresgid(NOBODY, NOBODY, NOBODY) != 0 || setresuid(NOBODY, NOBODY, NOBODY) != 0)
            _exit(100);
        /* open first, then let the parent remove stat */
        int proc = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        struct pt_buf buf = {0};
        struct pt_member m;
        if (proc < 0 || pt_member_open(&m, proc, NULL, 103, 0, &buf) != PT_READ_OK)
            _exit(1);
        if (m.denied != PT_DENIED_IO) /* live at the open */
            _exit(3);
        if (write(ready[1], "x", 1) != 1)
            _exit(6);
        for (int i = 0; i < 500 && access(mark, F_OK) != 0; i++)
            usleep(10000);
        int64_t n;
        enum pt_read r = pt_member_count_fds(&m, proc, &n);
        _exit(r != PT_READ_GONE ? 4 : (m.denied & PT_DENIED_FDS) ? 5 : 0);
    }
    close(ready[1]);
    char x;
    ck_assert_int_eq(read(ready[0], &x, 1), 1);
    close(ready[0]);
    ck_assert_int_eq(unlink(stat_path), 0);
    fx_write(root, "103/stat.gone", "", 0);
    int status;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "check %d failed as nobody",
                  WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}
END_TEST

/* A target as nobody: the one "permission denied" line names the live
 * process, never the exiting root (read first, in tree order) nor its
 * zombie child. */
static char said[8192];

static void keep_said(enum pt_log_level level, const char *line, void *arg)
{
    (void)level, (void)arg;
    size_t used = strlen(said);
    if (used + strlen(line) + 2 < sizeof(said))
        snprintf(said + used, sizeof(said) - used, "%s\n", line);
}

static int target_checks(void)
{
    struct pt_collector_config config;
    pt_collector_config_init(&config);
    config.proc_root = root;
    char err[256] = "";
    struct pt_collector *c = pt_collector_new(&config, err, sizeof(err));
    if (!c) {
        fprintf(stderr, "collector: %s\n", err);
        return 1;
    }
    struct pt_selector sel = {.kind = PT_SELECT_PID, .pid = 200};
    struct pt_target_options opt;
    pt_target_options_init(&opt);
    if (pt_collector_add_target(c, "app", &sel, &opt, err, sizeof(err)) != 0)
        return 2;
    said[0] = '\0';
    pt_log_set_sink(keep_said, NULL);
    pt_collector_tick(c, 0.0);
    const struct pt_batch *b = pt_collector_end_interval(c, 0.5);
    pt_log_set_sink(NULL, NULL);
    int rc = 0;
    if (b->n_targets != 1 || !b->targets[0].report.v[PT_M_PROC_PROCESSES].present ||
        b->targets[0].report.v[PT_M_PROC_PROCESSES].i != 3)
        rc = 3;
    else if (strstr(said, "/proc/200/") || strstr(said, "/proc/201/"))
        rc = 4; /* the exiting root's or its zombie's refusal */
    else if (!strstr(said, "permission denied on /proc/202/fd/"))
        rc = 5; /* the live child's is said */
    if (rc)
        fprintf(stderr, "said:\n%s", said);
    pt_collector_free(c);
    return rc;
}

START_TEST(test_only_a_live_process_is_said_denied)
{
    fx_put_meminfo(root, 1000000, 200000, 600000, 300000, 100000, 50000);
    put(200, 1, 'R', PT_PF_EXITING, "201 202");
    put(201, 200, 'Z', PT_PF_EXITING, NULL);
    put(202, 200, 'S', 0, NULL);
    ck_assert_int_eq(as_nobody(target_checks), 0);
}
END_TEST

static void setup(void)
{
    root = fx_root_new();
}

static void teardown(void)
{
    fx_root_free(root);
}

int main(void)
{
    Suite *suite = suite_create("denials");
    TCase *tc = unit_tcase(suite, "denials");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_refusal_of_an_exit_is_no_denial);
    tcase_add_test(tc, test_refusal_of_a_gone_process_is_a_vanish);
    tcase_add_test(tc, test_only_a_live_process_is_said_denied);
    return unit_run(suite);
}

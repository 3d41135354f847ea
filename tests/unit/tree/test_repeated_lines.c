/* The lines a crash-looping service or a hostile pid file could repeat
 * at every discovery, said at most once a PT_RATELIMIT_PERIOD: a --pidfile
 * target on a fixture /proc, discovered by hand at the times each test
 * gives, its log lines kept. */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tree/discovery.h"
#include "tree/membership.h"
#include "fixture.h"
#include "util/ratelimit.h"
#include "unit.h"

static struct unit_tree tree;
#define t (tree.target)

/* The lines of the last discovery, one a row. */
static char said[8192];
static int n_said;

static void keep_said(enum pt_log_level level, const char *line, void *arg)
{
    (void)level, (void)arg;
    size_t used = strlen(said);
    ck_assert_uint_lt(used + strlen(line) + 2, sizeof(said));
    snprintf(said + used, sizeof(said) - used, "%s\n", line);
    n_said++;
}

/* A discovery at now, its lines in said (n_said of them). */
static void discover_at(double now)
{
    said[0] = '\0';
    n_said = 0;
    pt_log_set_sink(keep_said, NULL);
    pt_target_discover(&t, now);
    pt_log_set_sink(NULL, NULL);
}

static void expect_said(const char *text)
{
    ck_assert_msg(strstr(said, text), "not said: %s\nsaid:\n%s", text, said);
}

/* The pid file holds text; NULL: there is none. */
static void pid_file(const char *text)
{
    unlink(tree.pid_file);
    if (text)
        fx_write(tree.root, "app.pid", text, -1);
}

static void name_pid(pid_t pid)
{
    char text[32];
    snprintf(text, sizeof(text), "%d\n", (int)pid);
    pid_file(text);
}

/* A live root of its own, named by the pid file. */
static void start_service(pid_t pid)
{
    unit_tree_put(&tree, pid, 1, "");
    name_pid(pid);
}

/* The root gone and its pid file removed, as a service that stops; a
 * poll finds it gone, as the collector's do between discoveries. */
static void stop_service(pid_t pid)
{
    fx_vanish(tree.root, pid);
    pid_file(NULL);
    pt_target_poll(&t);
    ck_assert_uint_eq(pt_targetstate_live_members(&t), 0);
}

static void setup(void)
{
    unit_tree_open_pidfile(&tree);
}

static void teardown(void)
{
    unit_tree_close(&tree);
}

/* A pid file that names another live process five times within a period
 * says the first restart; the next one after the period says the four
 * held back. Every restart is followed all the same. */
START_TEST(pid_file_restarts_said_once_a_period)
{
    start_service(301);
    discover_at(0.0);
    ck_assert_int_eq(n_said, 0);
    int total = 0;
    for (pid_t pid = 302; pid <= 306; pid++) {
        start_service(pid);
        discover_at(pid - 301);
        ck_assert(pt_targetstate_has_member(&t, pid));
        ck_assert(!pt_targetstate_has_member(&t, pid - 1));
        total += n_said;
        if (pid == 302)
            expect_said("pid file names pid 302 now, was 301: the tree of 301 leaves the target\n");
    }
    ck_assert_int_eq(total, 1);
    start_service(307);
    discover_at(PT_RATELIMIT_PERIOD + 1.0);
    ck_assert_int_eq(n_said, 1);
    expect_said("pid file names pid 307 now, was 306: the tree of 306 leaves the target (and 4 more restarts or "
                "stops in the last 10 minutes)\n");
}
END_TEST

/* While the target is empty each reason has its limit: four reasons
 * within seconds are four lines (a pid file's problems each one, beside
 * pidfile.c's and discovery.c's own warnings); a reason back within the
 * period is held, and said late, once the period is over, while the
 * target is empty for it still. */
START_TEST(empty_target_lines_per_reason)
{
    discover_at(0.0);
    ck_assert_int_eq(n_said, 1);
    expect_said("no live process: pid file \"");
    expect_said("app.pid\" does not exist; will keep looking\n");
    pid_file("");
    discover_at(1.0);
    ck_assert_int_eq(n_said, 2);
    expect_said("app.pid\" has no pid on its first line; ignored until that changes\n");
    expect_said("app.pid\" names no pid (see its warning); will keep looking\n");
    pid_file(NULL);
    ck_assert_int_eq(mkfifo(tree.pid_file, 0600), 0);
    discover_at(2.0);
    ck_assert_int_eq(n_said, 2);
    expect_said("app.pid\" is a FIFO, not a regular file; ignored until that changes\n");
    expect_said("app.pid\" names no pid (see its warning); will keep looking\n");
    name_pid(1);
    discover_at(3.0);
    ck_assert_int_eq(n_said, 2);
    expect_said("pid file names pid 1, init (pid 1): the whole host; refused\n");
    expect_said("no live process: the pid file names pid 1, refused; will keep looking\n");
    /* missing again, a FIFO again, missing again: all held back */
    for (int i = 0; i < 3; i++) {
        pid_file(NULL);
        if (i == 1)
            ck_assert_int_eq(mkfifo(tree.pid_file, 0600), 0);
        discover_at(4.0 + i);
        ck_assert_int_eq(n_said, 0);
    }
    discover_at(PT_RATELIMIT_PERIOD - 1.0); /* still missing, the period not over */
    ck_assert_int_eq(n_said, 0);
    discover_at(PT_RATELIMIT_PERIOD);
    ck_assert_int_eq(n_said, 1);
    expect_said("app.pid\" does not exist; will keep looking (and 1 more like it in the last 10 minutes)\n");
    discover_at(PT_RATELIMIT_PERIOD + 1.0); /* said: not again */
    ck_assert_int_eq(n_said, 0);
}
END_TEST

/* A crash loop seen as stops: the first stop and the return are said;
 * the next stop is held back, so its return is not said either (nor is
 * the restart in its stead); once the period is over, a stop that lasts
 * is said late, with the stops and restarts held back, and then its
 * return is. */
START_TEST(following_again_only_after_a_line_said)
{
    start_service(301);
    discover_at(0.0);
    stop_service(301);
    discover_at(1.0);
    ck_assert_int_eq(n_said, 1);
    expect_said("app.pid\" does not exist; will keep looking\n");
    start_service(302);
    discover_at(2.0);
    ck_assert_int_eq(n_said, 1);
    expect_said("following pid 302 again\n");
    stop_service(302);
    discover_at(3.0);
    ck_assert_int_eq(n_said, 0);
    start_service(303);
    discover_at(4.0);
    ck_assert(pt_targetstate_has_member(&t, 303));
    ck_assert_int_eq(n_said, 0);
    stop_service(303);
    discover_at(5.0);
    ck_assert_int_eq(n_said, 0);
    discover_at(PT_RATELIMIT_PERIOD + 1.0);
    ck_assert_int_eq(n_said, 1);
    expect_said("app.pid\" does not exist; will keep looking (and 2 more restarts or stops in the last 10 minutes)\n");
    start_service(304);
    discover_at(PT_RATELIMIT_PERIOD + 2.0);
    ck_assert_int_eq(n_said, 1);
    expect_said("following pid 304 again\n");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("repeated_lines");
    TCase *tc = unit_tcase(s, "repeated_lines");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, pid_file_restarts_said_once_a_period);
    tcase_add_test(tc, empty_target_lines_per_reason);
    tcase_add_test(tc, following_again_only_after_a_line_said);
    return unit_run(s);
}

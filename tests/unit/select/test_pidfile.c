/* Unit tests for pidfile: the first-line parser and the reader that
 * refuses FIFOs, devices and directories with one warning per problem. */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixture.h"
#include "select/pidfile.h"
#include "unit.h"

/* ==== pidfile ==== */

/* What PostgreSQL 15 writes in postmaster.pid: the pid, then more lines. */
static const char POSTMASTER_PID[] = "4242\n/var/lib/postgresql/15/main\n1700000000\n5432\n/var/run/postgresql\n"
                                     "localhost\n  5432001         0\nready   \n";

START_TEST(test_pidfile_good)
{
    static const struct {
        const char *text;
        pid_t want;
    } good[] = {
        {"123\n", 123},
        {"123", 123},
        {"  42  \n", 42},
        {"\t7\r\n", 7},
        {"4194303", PT_PID_LIMIT - 1},
        {"007\n", 7},
        {"1", 1},
        {"99\n\n", 99},
        {"12\nanything at all", 12},
        {"12\n-1\n0x10\n", 12},
        {POSTMASTER_PID, 4242},
    };
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        pid_t pid = -1;
        ck_assert_msg(parse_pidfile(TEXT(good[i].text), &pid) == 0, "rejected \"%s\"", good[i].text);
        ck_assert_int_eq(pid, good[i].want);
    }
    pid_t pid = -1;
    ck_assert_int_eq(parse_pidfile("12\n\0\0\0", 6, &pid), 0); /* NULs after the first line are ignored */
    ck_assert_int_eq(pid, 12);
}
END_TEST

START_TEST(test_pidfile_bad)
{
    static const char *const bad[] = {
        "12abc",
        "123abc\n",
        "",
        "\n",
        "   ",
        "0",
        "0\n",
        "-5",
        "-5\n",
        "+5",
        "1 2",
        "1 2\n",
        "\n99\n",
        "\n\n99\n\n",
        "abc\n123\n",
        "pid=12",
        "x12\n",
        "99999999999999999999",
        "4194304", /* PID_MAX_LIMIT: pid_max is at most it, every pid below */
        "4194305",
        "2147483648",
        "0x10",
        "abc",
        "12.0",
        "\xff",
        "\xef\xbb\xbf"
        "12\n",
    };
    pid_t pid = 777;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        ck_assert_msg(parse_pidfile(TEXT(bad[i]), &pid) == -1, "accepted \"%s\"", bad[i]);
    ck_assert_int_eq(parse_pidfile("12\0", 3, &pid), -1);
    ck_assert_int_eq(parse_pidfile("\0"
                                   "12\n",
                                   4, &pid),
                     -1);
    ck_assert_int_eq(parse_pidfile("1\0"
                                   "2\n",
                                   4, &pid),
                     -1);
    ck_assert_int_eq(pid, 777);
}
END_TEST

/* The reader reads at most PT_PIDFILE_MAX bytes: a buffer that full may
 * be a longer file cut short, so its first line must end inside it. */
START_TEST(test_pidfile_bound)
{
    char text[PT_PIDFILE_MAX];
    pid_t pid = 777;
    /* a first line as long as the bound: "   ...   123", maybe "1234..." in the file */
    memset(text, ' ', sizeof(text));
    memcpy(text + sizeof(text) - 3, "123", 3);
    ck_assert_int_eq(parse_pidfile(text, sizeof(text), &pid), -1);
    /* the same line one byte shorter is a whole file */
    ck_assert_int_eq(parse_pidfile(text + 1, sizeof(text) - 1, &pid), 0);
    ck_assert_int_eq(pid, 123);
    /* a huge first line of digits */
    memset(text, '7', sizeof(text));
    ck_assert_int_eq(parse_pidfile(text, sizeof(text), &pid), -1);
    ck_assert_int_eq(parse_pidfile(text, sizeof(text) - 1, &pid), -1);
    /* a short first line, then bytes up to the bound: the rest is ignored */
    memset(text, 'x', sizeof(text));
    memcpy(text, "56\n", 3);
    ck_assert_int_eq(parse_pidfile(text, sizeof(text), &pid), 0);
    ck_assert_int_eq(pid, 56);
    /* a pid then trailing blanks up to the bound: the line may go on */
    memset(text, ' ', sizeof(text));
    memcpy(text, "56", 2);
    ck_assert_int_eq(parse_pidfile(text, sizeof(text), &pid), -1);
}
END_TEST

/* ==== pidfile reader ==== */

struct log_record {
    int count;
    char last[512];
};

static void record_log(enum pt_log_level level, const char *message, void *arg)
{
    struct log_record *rec = arg;
    ck_assert_int_eq(level, PT_LOG_WARNING);
    rec->count++;
    snprintf(rec->last, sizeof(rec->last), "%s", message);
}

/* Read path through pf at now: the pid, and whether exactly one new
 * warning holding why was logged (why NULL: none). */
static pid_t read_at(struct pt_pidfile *pf, const char *path, double now, struct log_record *rec, const char *why)
{
    int before = rec->count;
    pt_log_set_sink(record_log, rec);
    pid_t pid = pt_pidfile_read(pf, path, "svc", now);
    pt_log_set_sink(NULL, NULL);
    ck_assert_int_eq(rec->count, before + (why != NULL));
    if (why) {
        ck_assert_msg(strstr(rec->last, why) && strstr(rec->last, path), "%s", rec->last);
        ck_assert_ptr_null(strchr(rec->last, '\n'));
    }
    return pid;
}

/* read_at, each read a PT_RATELIMIT_PERIOD after the last: every
 * warning is let through, none is held back. */
static pid_t read_expect(struct pt_pidfile *pf, const char *path, struct log_record *rec, const char *why)
{
    static double now;
    now += PT_RATELIMIT_PERIOD;
    return read_at(pf, path, now, rec, why);
}

static void replace_with_data(const char *path, const char *data, size_t len)
{
    unlink(path);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(data, 1, len, f), len);
    fclose(f);
}

/* A fixture root, and the path of a pid file in it (not made). */
static char *root_with_pidfile(char path[PATH_MAX])
{
    char *root = fx_root_new();
    snprintf(path, PATH_MAX, "%s/svc.pid", root);
    return root;
}

START_TEST(test_pidfile_reader)
{
    char path[PATH_MAX];
    char *root = root_with_pidfile(path);
    struct pt_pidfile pf = {0};
    struct log_record rec = {0};

    /* a missing file is no problem: a stopped service often has none */
    ck_assert_int_eq(read_expect(&pf, path, &rec, NULL), 0);
    replace_with_data(path, TEXT(POSTMASTER_PID));
    ck_assert_int_eq(read_expect(&pf, path, &rec, NULL), 4242);

    /* a FIFO without a writer: refused at once, one warning however often read */
    unlink(path);
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    ck_assert_int_eq(read_expect(&pf, path, &rec, "is a FIFO, not a regular file"), 0);
    ck_assert_int_eq(read_expect(&pf, path, &rec, NULL), 0);

    /* a symlink to /dev/zero: a new problem, a new warning; nothing read */
    unlink(path);
    ck_assert_int_eq(symlink("/dev/zero", path), 0);
    ck_assert_int_eq(read_expect(&pf, path, &rec, "is a character device"), 0);
    unlink(path);
    ck_assert_int_eq(mkdir(path, 0700), 0);
    ck_assert_int_eq(read_expect(&pf, path, &rec, "is a directory"), 0);
    rmdir(path);

    /* a symlink to a regular file is followed (/var/run -> /run) */
    char target[PATH_MAX];
    snprintf(target, sizeof(target), "%s/real.pid", root);
    replace_with_data(target, TEXT("31\n"));
    ck_assert_int_eq(symlink(target, path), 0);
    ck_assert_int_eq(read_expect(&pf, path, &rec, NULL), 31);

    /* a big file: its first line holds the pid, or the file is refused */
    size_t big = 1 << 20;
    char *data = malloc(big);
    ck_assert_ptr_nonnull(data);
    memset(data, '7', big);
    replace_with_data(path, data, big);
    ck_assert_int_eq(read_expect(&pf, path, &rec, "has no pid on its first line"), 0);
    memcpy(data, "12\n", 3);
    replace_with_data(path, data, big);
    ck_assert_int_eq(read_expect(&pf, path, &rec, NULL), 12);
    free(data);

    /* the same problem after a good read is news again */
    replace_with_data(path, TEXT("not a pid\n"));
    ck_assert_int_eq(read_expect(&pf, path, &rec, "has no pid on its first line"), 0);
    unlink(path);
    ck_assert_int_eq(read_expect(&pf, path, &rec, NULL), 0);
    fx_root_free(root);
}
END_TEST

/* A hostile file that changes its problem at every read (a FIFO, then a
 * directory, then a FIFO ...) warns once a period of each kind, then says
 * how many were held back; another kind of problem is news at once. */
START_TEST(test_pidfile_problems_rate_limited)
{
    char path[PATH_MAX];
    char *root = root_with_pidfile(path);
    struct pt_pidfile pf = {0};
    struct log_record rec = {0};
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    ck_assert_int_eq(read_at(&pf, path, 0.0, &rec, "is a FIFO, not a regular file"), 0);
    for (int i = 1; i <= 4; i++) {
        ck_assert_int_eq(remove(path), 0);
        ck_assert_int_eq(i % 2 ? mkdir(path, 0700) : mkfifo(path, 0600), 0);
        ck_assert_int_eq(read_at(&pf, path, i, &rec, NULL), 0); /* each a change, held back */
    }
    ck_assert_int_eq(remove(path), 0);
    replace_with_data(path, TEXT("pid?\n"));
    ck_assert_int_eq(read_at(&pf, path, 5.0, &rec, "has no pid on its first line"), 0);
    ck_assert_ptr_null(strstr(rec.last, "more"));
    unlink(path);
    ck_assert_int_eq(mkdir(path, 0700), 0);
    ck_assert_int_eq(read_at(&pf, path, PT_RATELIMIT_PERIOD, &rec, "is a directory, not a regular file"), 0);
    ck_assert_msg(strstr(rec.last, "; ignored until that changes (and 4 more like it in the last 10 minutes)"), "%s",
                  rec.last);
    rmdir(path);
    fx_root_free(root);
}
END_TEST

/* ==== Runner ==== */

int main(void)
{
    Suite *suite = suite_create("pidfile");

    TCase *tc = unit_tcase(suite, "pidfile");
    tcase_add_test(tc, test_pidfile_good);
    tcase_add_test(tc, test_pidfile_bad);
    tcase_add_test(tc, test_pidfile_bound);
    tcase_add_test(tc, test_pidfile_reader);
    tcase_add_test(tc, test_pidfile_problems_rate_limited);

    return unit_run(suite);
}

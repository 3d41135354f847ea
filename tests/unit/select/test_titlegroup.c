/* Unit tests for proctitle.c and titlegroup.c: a process's title made of
 * the bytes read of its command line (hostile ones: NULs inside, none at
 * the end, control characters, only NULs, more than is read), and the
 * group --by-title-pattern picks out of it, again only where it changed;
 * ere.c's refusal of a bad pattern. docs/METRICS.md, "Breakdown by process title". */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "procfs/proctitle.h"
#include "select/titlegroup.h"
#include "util/ere.h"
#include "unit.h"

/* The title of the len bytes of raw, read as a reader reads them: at
 * most PT_TITLE_READ_MAX, into a buffer one longer. */
static size_t title_of(const char *raw, size_t len, char out[PT_TITLE_READ_MAX + 1])
{
    size_t n = len < PT_TITLE_READ_MAX ? len : PT_TITLE_READ_MAX;
    memcpy(out, raw, n);
    return pt_proctitle_from_cmdline(out, n);
}

START_TEST(test_arguments_joined_by_spaces)
{
    char t[PT_TITLE_READ_MAX + 1];
    const char raw[] = "postgres\0-D\0/var/lib/postgresql/15/main\0";
    ck_assert_uint_eq(title_of(raw, sizeof(raw) - 1, t), strlen("postgres -D /var/lib/postgresql/15/main"));
    ck_assert_str_eq(t, "postgres -D /var/lib/postgresql/15/main");
}
END_TEST

START_TEST(test_rewritten_titles)
{
    char t[PT_TITLE_READ_MAX + 1];
    /* PostgreSQL pads what it writes over its argv area with NULs */
    const char padded[] = "postgres: checkpointer \0\0\0\0\0\0\0\0";
    title_of(padded, sizeof(padded) - 1, t);
    ck_assert_str_eq(t, "postgres: checkpointer ");
    /* a setproctitle() that runs into the environment: no NUL at the end */
    const char unended[] = "nginx: worker process";
    ck_assert_uint_eq(title_of(unended, strlen(unended), t), strlen(unended));
    ck_assert_str_eq(t, unended);
    /* empty arguments are spaces too, but at the end */
    const char empties[] = "a\0\0b\0\0";
    title_of(empties, sizeof(empties) - 1, t);
    ck_assert_str_eq(t, "a  b");
}
END_TEST

START_TEST(test_control_characters_are_kept_for_the_writers)
{
    /* any byte but NUL is a title's: the frontends escape it (groupkey.h) */
    char t[PT_TITLE_READ_MAX + 1];
    const char raw[] = "evil\n\tE! forged\x1b[31m\xff,=\\\0";
    title_of(raw, sizeof(raw) - 1, t);
    ck_assert_str_eq(t, "evil\n\tE! forged\x1b[31m\xff,=\\");
}
END_TEST

START_TEST(test_nothing_but_nuls_is_empty)
{
    char t[PT_TITLE_READ_MAX + 1];
    ck_assert_uint_eq(title_of("\0\0\0", 3, t), 0);
    ck_assert_str_eq(t, "");
    ck_assert_uint_eq(title_of("", 0, t), 0);
    char comm[PT_COMM_MAX + 2];
    pt_proctitle_of_comm(comm, sizeof(comm), "kworker/0:1");
    ck_assert_str_eq(comm, "[kworker/0:1]");
    pt_proctitle_of_comm(comm, sizeof(comm), "");
    ck_assert_str_eq(comm, "[]");
    /* the longest comm fits whole */
    pt_proctitle_of_comm(comm, sizeof(comm), "123456789012345");
    ck_assert_str_eq(comm, "[123456789012345]");
}
END_TEST

START_TEST(test_a_long_command_line_is_read_in_part)
{
    /* 6 KiB of arguments: the first 4 KiB make the title, ended by a NUL
     * however the read cut it */
    size_t len = 6144;
    char *raw = malloc(len);
    for (size_t i = 0; i < len; i++)
        raw[i] = i % 100 == 99 ? '\0' : (char)('a' + i % 26);
    char t[PT_TITLE_READ_MAX + 1];
    ck_assert_uint_eq(title_of(raw, len, t), PT_TITLE_READ_MAX);
    ck_assert_uint_eq(strlen(t), PT_TITLE_READ_MAX);
    ck_assert(strchr(t, ' ') == t + 99);
    free(raw);
}
END_TEST

/* The group of title under pattern (NULL: none). */
static const char *group_of(const char *pattern, const char *title)
{
    static char out[PT_GROUP_NAME_MAX];
    struct pt_titlegroup tg;
    char err[256] = "";
    ck_assert_msg(pt_titlegroup_init(&tg, pattern, err, sizeof(err)) == 0, "%s", err);
    memset(out, '#', sizeof(out));
    pt_titlegroup_name(&tg, title, out);
    pt_titlegroup_free(&tg);
    return out;
}

START_TEST(test_no_pattern_groups_by_the_whole_title)
{
    ck_assert_str_eq(group_of(NULL, "postgres: app db [local] idle"), "postgres: app db [local] idle");
    ck_assert_str_eq(group_of(NULL, "[kthreadd]"), "[kthreadd]");
}
END_TEST

START_TEST(test_the_first_capture_group)
{
    const char *p = "^postgres: ([^ ]+)";
    ck_assert_str_eq(group_of(p, "postgres: checkpointer "), "checkpointer");
    ck_assert_str_eq(group_of(p, "postgres: autovacuum launcher"), "autovacuum");
    ck_assert_str_eq(group_of(p, "postgres: app db [local] idle"), "app");
    /* no match: the whole title */
    ck_assert_str_eq(group_of(p, "/usr/lib/postgresql/15/bin/postgres -D /data"),
                     "/usr/lib/postgresql/15/bin/postgres -D /data");
    ck_assert_str_eq(group_of(p, "[postgres]"), "[postgres]");
    /* the first group, not a later one */
    ck_assert_str_eq(group_of("^(php-fpm): (pool|master) ", "php-fpm: pool www "), "php-fpm");
    /* \S is GNU's, as in the docs' example */
    ck_assert_str_eq(group_of("^postgres: (\\S+)", "postgres: walwriter "), "walwriter");
}
END_TEST

START_TEST(test_without_a_group_the_whole_match)
{
    ck_assert_str_eq(group_of("worker|master", "nginx: worker process"), "worker");
    ck_assert_str_eq(group_of("^[^:]+", "gunicorn: master [app]"), "gunicorn");
}
END_TEST

START_TEST(test_a_group_without_text_gives_way)
{
    /* to the next group: alternatives, each with its own */
    const char *p = "^postgres: [^ ]+: (\\S+)|^postgres: (\\S+)";
    ck_assert_str_eq(group_of(p, "postgres: 15/main: checkpointer "), "checkpointer");
    ck_assert_str_eq(group_of(p, "postgres: checkpointer "), "checkpointer");
    ck_assert_str_eq(group_of(p, "postgres: app db [local] idle"), "app");
    ck_assert_str_eq(group_of("^(x*)(y+)", "yyz"), "yy");
    /* none with text: the whole match; an empty match: the whole title */
    ck_assert_str_eq(group_of("^(a)?b", "bcd"), "b");
    ck_assert_str_eq(group_of("^x*(y*)", "abc"), "abc");
    ck_assert_str_eq(group_of("^$", "title"), "title");
}
END_TEST

START_TEST(test_a_group_is_cut_to_a_name_whole_characters)
{
    /* 300 bytes of "é" (2 bytes each): 127 of them fit in 255 bytes */
    char title[601];
    for (int i = 0; i < 300; i++)
        memcpy(title + 2 * i, "\xc3\xa9", 2);
    title[600] = '\0';
    const char *g = group_of(NULL, title);
    ck_assert_uint_eq(strlen(g), 254);
    ck_assert_int_eq(memcmp(g, title, 254), 0);
    /* a byte of no UTF-8 sequence counts alone */
    memset(title, '\xff', 600);
    g = group_of("(.*)", title);
    ck_assert_uint_eq(strlen(g), PT_GROUP_NAME_MAX - 1);
    /* the capture is cut the same */
    char hostile[PT_TITLE_READ_MAX + 1] = "postgres: ";
    memset(hostile + 10, 'x', PT_TITLE_READ_MAX - 10);
    hostile[PT_TITLE_READ_MAX] = '\0';
    g = group_of("^postgres: (\\S+)", hostile);
    ck_assert_uint_eq(strlen(g), PT_GROUP_NAME_MAX - 1);
    ck_assert(strspn(g, "x") == PT_GROUP_NAME_MAX - 1);
}
END_TEST

/* A title read again alike is not matched again (regexec allocates); a
 * changed one is. */
START_TEST(test_a_title_read_again)
{
    struct pt_titlegroup tg;
    char err[256] = "", name[PT_GROUP_NAME_MAX] = "";
    uint64_t hash = 0;
    ck_assert_int_eq(pt_titlegroup_init(&tg, "^postgres: (\\S+)", err, sizeof(err)), 0);
    pt_titlegroup_follow(&tg, "postgres: app db [local] idle", name, &hash);
    ck_assert_str_eq(name, "app");
    uint64_t first = hash;
    strcpy(name, "stands in"); /* what the last match made, as far as it can tell */
    pt_titlegroup_follow(&tg, "postgres: app db [local] idle", name, &hash);
    ck_assert_str_eq(name, "stands in");
    ck_assert(hash == first);
    pt_titlegroup_follow(&tg, "postgres: bob db [local] SELECT", name, &hash);
    ck_assert_str_eq(name, "bob");
    ck_assert(hash != first);
    /* an empty name is none yet, whatever the hash */
    name[0] = '\0';
    pt_titlegroup_follow(&tg, "postgres: bob db [local] SELECT", name, &hash);
    ck_assert_str_eq(name, "bob");
    pt_titlegroup_free(&tg);
}
END_TEST

START_TEST(test_a_bad_pattern_is_refused_in_one_line)
{
    struct pt_titlegroup tg;
    char err[256] = "";
    ck_assert_int_eq(pt_titlegroup_init(&tg, "^postgres: (", err, sizeof(err)), -1);
    ck_assert_msg(strncmp(err, "bad regular expression \"^postgres: (\": ", 39) == 0, "%s", err);
    ck_assert_ptr_null(strchr(err, '\n'));
    pt_titlegroup_free(&tg); /* nothing held: freeing is harmless */
    /* the pattern is quoted escaped: a newline in it forges no line */
    ck_assert_int_eq(pt_titlegroup_init(&tg, "a\nE! [", err, sizeof(err)), -1);
    ck_assert_msg(strncmp(err, "bad regular expression \"a\\nE! [\": ", 34) == 0, "%s", err);
    ck_assert_ptr_null(strchr(err, '\n'));
    regex_t re;
    ck_assert_int_eq(pt_ere_compile(&re, "a{2,1}", 0, err, sizeof(err)), -1);
    ck_assert_int_eq(pt_ere_compile(&re, "a{1,2}", REG_NOSUB, err, sizeof(err)), 0);
    regfree(&re);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("titlegroup");
    TCase *tc = tcase_create("titlegroup");
    tcase_add_test(tc, test_arguments_joined_by_spaces);
    tcase_add_test(tc, test_rewritten_titles);
    tcase_add_test(tc, test_control_characters_are_kept_for_the_writers);
    tcase_add_test(tc, test_nothing_but_nuls_is_empty);
    tcase_add_test(tc, test_a_long_command_line_is_read_in_part);
    tcase_add_test(tc, test_no_pattern_groups_by_the_whole_title);
    tcase_add_test(tc, test_the_first_capture_group);
    tcase_add_test(tc, test_without_a_group_the_whole_match);
    tcase_add_test(tc, test_a_group_without_text_gives_way);
    tcase_add_test(tc, test_a_group_is_cut_to_a_name_whole_characters);
    tcase_add_test(tc, test_a_title_read_again);
    tcase_add_test(tc, test_a_bad_pattern_is_refused_in_one_line);
    suite_add_tcase(s, tc);
    return unit_run(s);
}

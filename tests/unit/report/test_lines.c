/* Unit tests for proctree/lines.h, the line protocol report/lines.c writes (test_catalog.c checks the field names it
 * writes). */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/lines.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define TS 1700000000000000000 /* an ordinary timestamp in ns */

/* Assert that out holds exactly want (out->data is not NUL-terminated). */
static void assert_out_eq(const struct pt_buf *out, const char *want)
{
    ck_assert_msg(out->len == strlen(want) && memcmp(out->data, want, out->len) == 0,
                  "got \"%.*s\" (%zu bytes), want \"%s\"", (int)out->len, out->data ? out->data : "", out->len, want);
}

/* ---------------------------------------------------------------------------
 * Tag values
 * ------------------------------------------------------------------------ */

/* in is given with its length so that NUL bytes can be tested too. */
#define TAG(in, want)                                                                                                  \
    {                                                                                                                  \
        in, sizeof(in) - 1, want                                                                                       \
    }

static const struct {
    const char *in;
    size_t len;
    const char *want;
} tag_cases[] = {
    TAG("web", "web"),
    /* escaped with a backslash */
    TAG("a b", "a\\ b"),
    TAG("a,b", "a\\,b"),
    TAG("a=b", "a\\=b"),
    TAG(" ,=", "\\ \\,\\="),
    /* backslashes become '_', a trailing one most of all */
    TAG("a\\b", "a_b"),
    TAG("ab\\", "ab_"),
    TAG("\\\\", "__"),
    /* control characters become '_' */
    TAG("a\nb", "a_b"),
    TAG("a\tb", "a_b"),
    TAG("a\rb", "a_b"),
    TAG("a\r\n", "a__"),
    TAG("a\x7f", "a_"),
    TAG("a\x01\x1f", "a__"),
    TAG("a\0b", "a_b"),
    TAG("\xc2\x85", "_"), /* U+0085 NEL, a C1 control */
    TAG("\xc2\x9f", "_"), /* U+009F, the last C1 control */
    /* quotes and other punctuation are literal in tag values */
    TAG("\"q\"", "\"q\""),
    TAG("'q'", "'q'"),
    TAG("(sd-pam)", "(sd-pam)"),
    TAG("a:b/c#d", "a:b/c#d"),
    /* valid UTF-8 passes through unchanged */
    TAG("caf\xc3\xa9", "caf\xc3\xa9"),
    TAG("\xe6\x97\xa5\xe6\x9c\xac", "\xe6\x97\xa5\xe6\x9c\xac"), /* 日本 */
    TAG("\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80"),                 /* U+1F600 */
    TAG("\xc2\xa0", "\xc2\xa0"),                                 /* U+00A0 */
    TAG("\xed\x9f\xbf", "\xed\x9f\xbf"),                         /* U+D7FF */
    TAG("\xee\x80\x80", "\xee\x80\x80"),                         /* U+E000 */
    TAG("\xef\xbf\xbf", "\xef\xbf\xbf"),                         /* U+FFFF */
    TAG("\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf"),                 /* U+10FFFF */
    /* each byte that does not start a well-formed sequence becomes '?' */
    TAG("\xff", "?"),
    TAG("a\x80"
        "b",
        "a?b"),
    TAG("\xc0\x80", "??"),           /* overlong NUL */
    TAG("\xc1\xbf", "??"),           /* overlong 0x7f */
    TAG("\xe0\x80\xaf", "???"),      /* overlong '/' */
    TAG("\xf0\x80\x80\xaf", "????"), /* overlong '/' */
    TAG("\xed\xa0\x80", "???"),      /* U+D800, a surrogate */
    TAG("\xed\xbf\xbf", "???"),      /* U+DFFF, a surrogate */
    TAG("\xf4\x90\x80\x80", "????"), /* U+110000 */
    TAG("\xf5\x80\x80\x80", "????"), /* lead byte past U+10FFFF */
    TAG("\xc3"
        "a",
        "?a"), /* lead byte without continuation */
    TAG("\xe6\x97"
        "x",
        "??x"),                      /* truncated in the middle */
    TAG("ok\xe6\x97", "ok??"),       /* truncated at the end */
    TAG("ok\xf0\x9f\x98", "ok???"),  /* truncated at the end */
    TAG("\xff\xfe\xc0\x80", "????"), /* all invalid: still non-empty */
    TAG("\xc3\xa9\xff\xc3\xa9", "\xc3\xa9?\xc3\xa9"),
};

START_TEST(test_tag_value)
{
    struct pt_buf out = {0};
    size_t n = pt_lines_append_tag_value(&out, tag_cases[_i].in, tag_cases[_i].len);

    assert_out_eq(&out, tag_cases[_i].want);
    ck_assert_uint_eq(n, strlen(tag_cases[_i].want));
    pt_buf_free(&out);
}
END_TEST

START_TEST(test_tag_value_empty)
{
    struct pt_buf out = {0};

    ck_assert_uint_eq(pt_lines_append_tag_value(&out, "", 0), 0);
    ck_assert_uint_eq(out.len, 0);
    ck_assert_uint_eq(pt_lines_append_tag_value(&out, "ignored", 0), 0);
    ck_assert_uint_eq(out.len, 0);
    pt_buf_free(&out);
}
END_TEST

/* The count is of the bytes appended, not of the whole buffer, and what
 * was there before stays. */
START_TEST(test_tag_value_appends)
{
    struct pt_buf out = {0};

    ck_assert_uint_eq(pt_lines_append_tag_value(&out, "x", 1), 1);
    ck_assert_uint_eq(pt_lines_append_tag_value(&out, "a b", 3), 4);
    assert_out_eq(&out, "xa\\ b");
    pt_buf_free(&out);
}
END_TEST

/* Nothing past len is read: the value sits at the very end of a heap
 * block (ASan flags any overread), ending in a cut multibyte sequence. */
START_TEST(test_tag_value_reads_only_len)
{
    struct pt_buf out = {0};
    char *value = malloc(4);

    ck_assert_ptr_nonnull(value);
    memcpy(value, "ab\xe6\x97", 4);
    pt_lines_append_tag_value(&out, value, 4);
    assert_out_eq(&out, "ab??");
    pt_buf_reset(&out);
    pt_lines_append_tag_value(&out, value, 1);
    assert_out_eq(&out, "a");
    free(value);
    /* Without ASan: a sequence completed only past len is still cut. */
    pt_buf_reset(&out);
    pt_lines_append_tag_value(&out, "\xe6\x97\xa5", 2);
    assert_out_eq(&out, "??");
    pt_buf_free(&out);
}
END_TEST

/* ---------------------------------------------------------------------------
 * Lines
 * ------------------------------------------------------------------------ */

START_TEST(test_line_exact)
{
    struct pt_buf out = {0};
    struct pt_report r = {0};

    r.v[PT_M_PROC_THREADS] = (struct pt_value){.present = true, .is_int = true, .i = 3};
    r.v[PT_M_PROC_RSS_MAX] = (struct pt_value){.present = true, .is_int = true, .i = 1234};
    r.v[PT_M_PROC_CPU_PERCENT] = (struct pt_value){.present = true, .f = 12.5};
    ck_assert_int_eq(pt_lines_append_report(&out, "web", PT_SCOPE_PROC, &r, TS), 3);
    assert_out_eq(&out, "proctree,target=web proc_rss_max=1234i,proc_cpu_percent=12.5,"
                        "proc_threads=3i 1700000000000000000\n");
    pt_buf_free(&out);
}
END_TEST

static struct pt_report one_field(enum pt_metric_id id, struct pt_value v)
{
    struct pt_report r = {0};

    r.v[id] = v;
    return r;
}

START_TEST(test_line_target_escaped)
{
    struct pt_buf out = {0};
    struct pt_report r = one_field(PT_M_PROC_PROCESSES, (struct pt_value){true, true, 2, 0});

    ck_assert_int_eq(pt_lines_append_report(&out, "my app,v=1\\\n", PT_SCOPE_PROC, &r, 5), 1);
    assert_out_eq(&out, "proctree,target=my\\ app\\,v\\=1__ proc_processes=2i 5\n");
    pt_buf_free(&out);
}
END_TEST

/* A target that sanitises to nothing gets no tag (InfluxDB rejects an
 * empty tag value); NULL means no tag as well. */
START_TEST(test_line_empty_target)
{
    struct pt_buf out = {0};
    struct pt_report r = one_field(PT_M_PROC_PROCESSES, (struct pt_value){true, true, 2, 0});

    ck_assert_int_eq(pt_lines_append_report(&out, "", PT_SCOPE_PROC, &r, 5), 1);
    assert_out_eq(&out, "proctree proc_processes=2i 5\n");
    pt_buf_reset(&out);
    ck_assert_int_eq(pt_lines_append_report(&out, NULL, PT_SCOPE_PROC, &r, 5), 1);
    assert_out_eq(&out, "proctree proc_processes=2i 5\n");
    pt_buf_free(&out);
}
END_TEST

/* A report with every metric present, each holding its own id. */
static struct pt_report full_report(void)
{
    struct pt_report r;

    for (int id = 0; id < PT_METRIC_COUNT; id++)
        r.v[id] = (struct pt_value){.present = true, .is_int = true, .i = id};
    return r;
}

/* The expected field set for a scope's line (its own scope's metrics and
 * every line's): catalog order, "name=IDi". */
static void expected_fields(char *buf, size_t size, enum pt_scope scope)
{
    size_t len = 0;

    buf[0] = '\0';
    for (int id = 0; id < PT_METRIC_COUNT; id++) {
        if (pt_catalog[id].scope == scope || pt_catalog[id].scope == PT_SCOPE_ALL)
            len += (size_t)snprintf(buf + len, size - len, "%s%s=%di", len ? "," : "", pt_catalog[id].name, id);
        ck_assert_uint_lt(len, size);
    }
}

START_TEST(test_line_catalog_order)
{
    struct pt_buf out = {0};
    struct pt_report r = full_report();
    char fields[4096], want[4200];
    int n_proc = 0;

    for (int id = 0; id < PT_METRIC_COUNT; id++)
        n_proc += pt_catalog[id].scope == PT_SCOPE_PROC || pt_catalog[id].scope == PT_SCOPE_ALL;
    expected_fields(fields, sizeof(fields), PT_SCOPE_PROC);
    snprintf(want, sizeof(want), "proctree,target=t %s 7\n", fields);
    ck_assert_int_eq(pt_lines_append_report(&out, "t", PT_SCOPE_PROC, &r, 7), n_proc);
    assert_out_eq(&out, want);
    ck_assert_ptr_null(memmem(out.data, out.len, "global_", 7));
    pt_buf_free(&out);
}
END_TEST

/* The global line: no target tag, only global_* fields and the one every
 * line carries (the interval's length), even when the report holds
 * process values too. */
START_TEST(test_line_global)
{
    struct pt_buf out = {0};
    struct pt_report r = full_report();
    char fields[4096], want[4200];
    int n_global = 0;

    for (int id = 0; id < PT_METRIC_COUNT; id++)
        n_global += pt_catalog[id].scope == PT_SCOPE_GLOBAL || pt_catalog[id].scope == PT_SCOPE_ALL;
    ck_assert_int_gt(n_global, 1);
    expected_fields(fields, sizeof(fields), PT_SCOPE_GLOBAL);
    snprintf(want, sizeof(want), "proctree %s 7\n", fields);
    ck_assert_int_eq(pt_lines_append_report(&out, NULL, PT_SCOPE_GLOBAL, &r, 7), n_global);
    assert_out_eq(&out, want);
    ck_assert_ptr_null(memmem(out.data, out.len, "proc_", 5));
    const char *collector = memmem(out.data, out.len, "collector_", 10);
    ck_assert_ptr_nonnull(collector);
    ck_assert_int_eq(strncmp(collector, "collector_interval_seconds=", 27), 0);
    ck_assert_ptr_null(memmem(collector + 10, out.len - (size_t)(collector + 10 - out.data), "collector_", 10));
    ck_assert_ptr_null(memmem(out.data, out.len, "target", 6));
    pt_buf_free(&out);
}
END_TEST

/* No present field: nothing appended, earlier content intact. The same
 * when the only "present" values are NaN or Inf, or of the other scope. */
START_TEST(test_line_no_fields)
{
    struct pt_buf out = {0};
    struct pt_report empty = {0};
    struct pt_report nonfinite = {0};
    struct pt_report global_only = {0};

    nonfinite.v[PT_M_PROC_CPU_PERCENT] = (struct pt_value){.present = true, .f = NAN};
    nonfinite.v[PT_M_PROC_CPU_USER_SECONDS] = (struct pt_value){.present = true, .f = INFINITY};
    global_only.v[PT_M_GLOBAL_CACHED_MAX] = (struct pt_value){true, true, 1, 0};

    pt_lines_append_tag_value(&out, "before", 6);
    ck_assert_int_eq(pt_lines_append_report(&out, "web", PT_SCOPE_PROC, &empty, TS), 0);
    ck_assert_int_eq(pt_lines_append_report(&out, NULL, PT_SCOPE_GLOBAL, &empty, TS), 0);
    ck_assert_int_eq(pt_lines_append_report(&out, "web", PT_SCOPE_PROC, &nonfinite, TS), 0);
    ck_assert_int_eq(pt_lines_append_report(&out, "web", PT_SCOPE_PROC, &global_only, TS), 0);
    assert_out_eq(&out, "before");
    pt_buf_free(&out);
}
END_TEST

/* NaN and Inf are skipped without leaving a stray separator, also when
 * the first field of the scope is the one skipped. */
START_TEST(test_line_skips_nonfinite)
{
    struct pt_buf out = {0};
    struct pt_report r = {0};

    r.v[PT_M_PROC_VM_SIZE_MIN] = (struct pt_value){.present = true, .f = NAN};
    r.v[PT_M_PROC_VM_SIZE_MAX] = (struct pt_value){.present = true, .f = 1.5};
    r.v[PT_M_PROC_CPU_USER_SECONDS] = (struct pt_value){.present = true, .f = -INFINITY};
    r.v[PT_M_PROC_CPU_SYSTEM_SECONDS] = (struct pt_value){.present = true, .f = 0.5};
    r.v[PT_M_PROC_CPU_PERCENT] = (struct pt_value){.present = true, .f = INFINITY};
    ck_assert_int_eq(pt_lines_append_report(&out, "t", PT_SCOPE_PROC, &r, 1), 2);
    assert_out_eq(&out, "proctree,target=t proc_vm_size_max=1.5,proc_cpu_system_seconds=0.5 1\n");
    pt_buf_free(&out);
}
END_TEST

/* The text of one field value, as the writer renders it. */
static const struct {
    struct pt_value v;
    const char *want;
} value_cases[] = {
    {{true, true, 0, 0}, "0i"},
    {{true, true, 1, 0}, "1i"},
    {{true, true, -1, 0}, "-1i"},
    {{true, true, INT64_MAX, 0}, "9223372036854775807i"},
    {{true, true, INT64_MIN, 0}, "-9223372036854775808i"},
    {{true, false, 0, 0.0}, "0.0"},
    {{true, false, 0, -0.0}, "-0.0"},
    {{true, false, 0, 1.5}, "1.5"},
    {{true, false, 0, -2.5}, "-2.5"},
    {{true, false, 0, 3}, "3.0"},
    {{true, false, 0, 100}, "100.0"},
    {{true, false, 0, 123456789012345}, "123456789012345.0"},
    {{true, false, 0, 1e15}, "1e+15"},
    {{true, false, 0, 1e20}, "1e+20"},
    /* below 1e-4 in fixed point with %.15g's digits: "7.5e-05" reads as 7.5 */
    {{true, false, 0, 1e-7}, "0.0000001"},
    {{true, false, 0, 7.5e-05}, "0.000075"},
    {{true, false, 0, 1.8e-05}, "0.000018"},
    {{true, false, 0, -7.5e-05}, "-0.000075"},
    {{true, false, 0, 1e-4}, "0.0001"},
    {{true, false, 0, 9.99999999999999e-05}, "0.0000999999999999999"},
    {{true, false, 0, 1.23456789012345e-07}, "0.000000123456789012345"},
    {{true, false, 0, 1.224227357e-08}, "0.00000001224227357"},
    {{true, false, 0, 0.1 + 0.2}, "0.3"},
    {{true, false, 0, 1.0 / 3}, "0.333333333333333"},
    {{true, false, 0, 1.7976931348623157e308}, "1.79769313486232e+308"},
    /* an int value's f and a float value's i are ignored */
    {{true, true, 42, 9.5}, "42i"},
    {{true, false, 42, 9.5}, "9.5"},
};

START_TEST(test_field_value)
{
    struct pt_buf out = {0};
    struct pt_report r = one_field(PT_M_PROC_CPU_PERCENT, value_cases[_i].v);
    char want[128];

    snprintf(want, sizeof(want), "proctree proc_cpu_percent=%s 0\n", value_cases[_i].want);
    ck_assert_int_eq(pt_lines_append_report(&out, NULL, PT_SCOPE_PROC, &r, 0), 1);
    assert_out_eq(&out, want);
    pt_buf_free(&out);
}
END_TEST

/* A double's least value: 323 zeros after the point, then %.15g's 15
 * digits; nothing cut. */
START_TEST(test_field_value_least_double)
{
    struct pt_buf out = {0};
    struct pt_value v = {true, false, 0, 4.9406564584124654e-324};
    struct pt_report r = one_field(PT_M_PROC_CPU_PERCENT, v);
    char want[400] = "proctree proc_cpu_percent=0.";
    size_t n = strlen(want);
    memset(want + n, '0', 323);
    snprintf(want + n + 323, sizeof(want) - n - 323, "494065645841247 0\n");
    ck_assert_int_eq(pt_lines_append_report(&out, NULL, PT_SCOPE_PROC, &r, 0), 1);
    assert_out_eq(&out, want);
    pt_buf_free(&out);
}
END_TEST

START_TEST(test_timestamp_range)
{
    struct pt_buf out = {0};
    struct pt_report r = one_field(PT_M_PROC_THREADS, (struct pt_value){true, true, 1, 0});

    pt_lines_append_report(&out, NULL, PT_SCOPE_PROC, &r, 0);
    pt_lines_append_report(&out, NULL, PT_SCOPE_PROC, &r, INT64_MAX);
    pt_lines_append_report(&out, NULL, PT_SCOPE_PROC, &r, INT64_MIN);
    assert_out_eq(&out, "proctree proc_threads=1i 0\n"
                        "proctree proc_threads=1i 9223372036854775807\n"
                        "proctree proc_threads=1i -9223372036854775808\n");
    pt_buf_free(&out);
}
END_TEST

/* Many lines force the buffer through several reallocations; reset keeps
 * the memory, free returns the buffer to its zero state. */
START_TEST(test_buffer_growth)
{
    struct pt_buf out = {0};
    struct pt_report r = full_report();
    size_t line_len, cap;

    pt_lines_append_report(&out, "t", PT_SCOPE_PROC, &r, TS);
    line_len = out.len;
    for (int k = 1; k < 1000; k++)
        pt_lines_append_report(&out, "t", PT_SCOPE_PROC, &r, TS);
    ck_assert_uint_eq(out.len, 1000 * line_len);
    ck_assert_uint_ge(out.cap, out.len);
    for (size_t k = 0; k < 1000; k++)
        ck_assert_int_eq(memcmp(out.data + k * line_len, out.data, line_len), 0);

    cap = out.cap;
    pt_buf_reset(&out);
    ck_assert_uint_eq(out.len, 0);
    ck_assert_uint_eq(out.cap, cap);
    pt_lines_append_report(&out, "t", PT_SCOPE_PROC, &r, TS);
    ck_assert_uint_eq(out.len, line_len);

    pt_buf_free(&out);
    ck_assert_ptr_null(out.data);
    ck_assert_uint_eq(out.len, 0);
    ck_assert_uint_eq(out.cap, 0);
    pt_buf_reset(&out); /* harmless on an empty buffer */
    pt_buf_free(&out);  /* and so is freeing twice */
}
END_TEST

/* Whatever the target name holds, a line is one line: a single '\n' at
 * its end and no '\r' anywhere. */
START_TEST(test_line_is_one_line)
{
    struct pt_buf out = {0};
    struct pt_report r = full_report();
    const char nasty[] = "a\nb\rc\r\n\\\xff\xc2\x85 ,=\"\t";

    pt_lines_append_report(&out, nasty, PT_SCOPE_PROC, &r, TS);
    ck_assert_ptr_eq(memchr(out.data, '\n', out.len), out.data + out.len - 1);
    ck_assert_ptr_null(memchr(out.data, '\r', out.len));
    pt_buf_free(&out);
}
END_TEST

static Suite *lines_suite(void)
{
    Suite *s = suite_create("lines");
    TCase *tag = tcase_create("tag_value");
    TCase *line = tcase_create("line");

    tcase_add_loop_test(tag, test_tag_value, 0, COUNT(tag_cases));
    tcase_add_test(tag, test_tag_value_empty);
    tcase_add_test(tag, test_tag_value_appends);
    tcase_add_test(tag, test_tag_value_reads_only_len);
    suite_add_tcase(s, tag);

    tcase_add_test(line, test_line_exact);
    tcase_add_test(line, test_line_target_escaped);
    tcase_add_test(line, test_line_empty_target);
    tcase_add_test(line, test_line_catalog_order);
    tcase_add_test(line, test_line_global);
    tcase_add_test(line, test_line_no_fields);
    tcase_add_test(line, test_line_skips_nonfinite);
    tcase_add_loop_test(line, test_field_value, 0, COUNT(value_cases));
    tcase_add_test(line, test_field_value_least_double);
    tcase_add_test(line, test_timestamp_range);
    tcase_add_test(line, test_buffer_growth);
    tcase_add_test(line, test_line_is_one_line);
    suite_add_tcase(s, line);

    return s;
}

int main(void)
{
    SRunner *runner = srunner_create(lines_suite());
    int failed;

    srunner_run_all(runner, CK_NORMAL);
    failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

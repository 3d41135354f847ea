/* Unit tests for escape.c: outside text in log lines and error messages. */
#include <check.h>
#include <string.h>

#include "proctree/escape.h"
#include "unit.h"

static const struct {
    const char *in, *want;
} cases[] = {
    {"web", "web"},
    {"", ""},
    /* a forged log line stays on this one */
    {"a\nE! forged", "a\\nE! forged"},
    {"a\r\nb", "a\\x0d\\nb"},
    {"tab\there", "tab\\there"},
    {"\x1b[31mred", "\\x1b[31mred"},
    {"del\x7f", "del\\x7f"},
    /* the quote and the backslash that delimit a name */
    {"say \"hi\"", "say \\\"hi\\\""},
    {"C:\\dir\\", "C:\\\\dir\\\\"},
    /* UTF-8 is kept; C1 controls and invalid bytes are not */
    {"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"},
    {"nel\xc2\x85", "nel\\xc2\\x85"},
    {"bad\xff\xfe", "bad\\xff\\xfe"},
    {"cut\xe2\x82", "cut\\xe2\\x82"},
    {"overlong\xc0\xaf", "overlong\\xc0\\xaf"},
    {"surrogate\xed\xa0\x80", "surrogate\\xed\\xa0\\x80"},
};

START_TEST(test_escape_cases)
{
    char out[128];
    for (size_t i = 0; i < COUNT(cases); i++)
        ck_assert_str_eq(pt_escape(out, sizeof(out), cases[i].in), cases[i].want);
}
END_TEST

/* A lone byte, whatever it is, comes out as printable ASCII on one line. */
START_TEST(test_escape_every_byte)
{
    char in[2] = {0}, out[16];
    for (int c = 1; c < 256; c++) {
        in[0] = (char)c;
        pt_escape(out, sizeof(out), in);
        ck_assert_msg(strchr(out, '\n') == NULL && strchr(out, '\r') == NULL, "byte %#x", c);
        for (const unsigned char *p = (const unsigned char *)out; *p; p++)
            ck_assert_msg(*p >= 0x20 && *p < 0x7f, "byte %#x gave %s", c, out);
    }
}
END_TEST

START_TEST(test_escape_fits_exactly)
{
    char out[6];
    ck_assert_str_eq(pt_escape(out, sizeof(out), "abcde"), "abcde");
    ck_assert_str_eq(pt_escape(out, sizeof(out), "abcdef"), "ab...");
}
END_TEST

/* Text that does not fit is cut at a whole escape, never inside one. */
START_TEST(test_escape_cut_whole)
{
    char out[8];
    ck_assert_str_eq(pt_escape(out, sizeof(out), "a\nbcdefgh"), "a\\nb...");
    ck_assert_str_eq(pt_escape(out, sizeof(out),
                               "ab\xff"
                               "cdefgh"),
                     "ab...");
    ck_assert_str_eq(pt_escape(out, sizeof(out), "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac"), "\xe2\x82\xac...");
}
END_TEST

START_TEST(test_escape_size_macro)
{
    char in[33], out[PT_ESCAPED_SIZE(32)];
    memset(in, '\x01', 32);
    in[32] = '\0';
    pt_escape(out, sizeof(out), in);
    ck_assert_uint_eq(strlen(out), 4 * 32);
    ck_assert_ptr_null(strstr(out, "..."));
}
END_TEST

/* collectd's instance names: docs/METRICS.md says '/', '\' and control
 * characters become '_'; the C1 controls (U+0080..U+009F, two bytes
 * each) used to be kept raw. */
static const struct {
    const char *in, *want;
} collectd_cases[] = {
    {"web", "web"},
    {"a/b\\c", "a_b_c"},
    {"tab\tx\nnl\x7f", "tab_x_nl_"},
    {"nel\xc2\x85", "nel_"},
    {"\xc2\x80\xc2\x9f", "__"},       /* the first and the last C1 control */
    {"nbsp\xc2\xa0", "nbsp\xc2\xa0"}, /* U+00A0 is no control */
    {"caf\xc3\xa9", "caf\xc3\xa9"},
    {"bad\xff", "bad\xff"}, /* kept, as collectd would */
};

START_TEST(test_escape_collectd_cases)
{
    char out[64];
    pt_escape_collectd(out, sizeof(out), collectd_cases[_i].in);
    ck_assert_str_eq(out, collectd_cases[_i].want);
}
END_TEST

/* Cut at a whole character: "é" does not fit in 1 byte, is not split. */
START_TEST(test_escape_collectd_cut_whole)
{
    char out[5];
    pt_escape_collectd(out, sizeof(out), "abc\xc3\xa9");
    ck_assert_str_eq(out, "abc");
    pt_escape_collectd(out, sizeof(out), "ab\xc2\x85\xc2\x85z");
    ck_assert_str_eq(out, "ab__");
    pt_escape_collectd(out, 1, "abc");
    ck_assert_str_eq(out, "");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("escape");
    TCase *tc = tcase_create("escape");
    tcase_add_test(tc, test_escape_cases);
    tcase_add_test(tc, test_escape_every_byte);
    tcase_add_test(tc, test_escape_fits_exactly);
    tcase_add_test(tc, test_escape_cut_whole);
    tcase_add_test(tc, test_escape_size_macro);
    tcase_add_loop_test(tc, test_escape_collectd_cases, 0, COUNT(collectd_cases));
    tcase_add_test(tc, test_escape_collectd_cut_whole);
    suite_add_tcase(s, tc);
    return unit_run(s);
}

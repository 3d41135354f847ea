/* Unit tests for escape.c: outside text in log lines and error messages. */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "util/escape.h"
#include "unit.h"

/* Columns of UTF-8 text on a terminal (pt_escape_codepoint_columns each; a byte
 * of no sequence counts 1): what a column of pt_escape_column must fill. */
static size_t text_columns(const char *text)
{
    static const unsigned char lead_mask[] = {0, 0x7f, 0x1f, 0x0f, 0x07};
    const unsigned char *s = (const unsigned char *)text;
    size_t len = strlen(text), cols = 0;
    for (size_t i = 0; i < len;) {
        size_t n = pt_escape_utf8_sequence_length(s + i, len - i);
        uint32_t cp = n ? s[i] & lead_mask[n] : 0;
        for (size_t k = 1; k < n; k++)
            cp = cp << 6 | (s[i + k] & 0x3f);
        cols += n ? pt_escape_codepoint_columns(cp) : 1;
        i += n ? n : 1;
    }
    return cols;
}

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
    /* format characters: a right-to-left override that would show
     * "gnp.exe" as "exe.png", zero-width ones, the BOM, the soft hyphen,
     * a tag (4 bytes) */
    {"gnp\xe2\x80\xae.exe", "gnp\\u{202e}.exe"},
    {"a\xe2\x80\x8b"
     "b\xef\xbb\xbf",
     "a\\u{200b}b\\u{feff}"},
    {"soft\xc2\xadhy", "soft\\u{ad}hy"},
    {"\xf3\xa0\x81\xbf", "\\u{e007f}"},
    {"nbsp\xc2\xa0", "nbsp\xc2\xa0"}, /* U+00A0 is no format character */
};

START_TEST(test_escape_cases)
{
    char out[128];
    for (size_t i = 0; i < COUNT(cases); i++)
        ck_assert_str_eq(pt_escape(cases[i].in, out, sizeof(out)), cases[i].want);
}
END_TEST

/* A lone byte, whatever it is, comes out as printable ASCII on one line. */
START_TEST(test_escape_every_byte)
{
    char in[2] = {0}, out[16];
    for (int c = 1; c < 256; c++) {
        in[0] = (char)c;
        pt_escape(in, out, sizeof(out));
        ck_assert_msg(strchr(out, '\n') == NULL && strchr(out, '\r') == NULL, "byte %#x", c);
        for (const unsigned char *p = (const unsigned char *)out; *p; p++)
            ck_assert_msg(*p >= 0x20 && *p < 0x7f, "byte %#x gave %s", c, out);
    }
}
END_TEST

START_TEST(test_escape_fits_exactly)
{
    char out[6];
    ck_assert_str_eq(pt_escape("abcde", out, sizeof(out)), "abcde");
    ck_assert_str_eq(pt_escape("abcdef", out, sizeof(out)), "ab...");
}
END_TEST

/* Text that does not fit is cut at a whole escape, never inside one. */
START_TEST(test_escape_cut_whole)
{
    char out[8];
    ck_assert_str_eq(pt_escape("a\nbcdefgh", out, sizeof(out)), "a\\nb...");
    ck_assert_str_eq(pt_escape("ab\xff"
                               "cdefgh",
                               out, sizeof(out)),
                     "ab...");
    ck_assert_str_eq(pt_escape("\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac", out, sizeof(out)), "\xe2\x82\xac...");
}
END_TEST

START_TEST(test_escape_size_macro)
{
    char in[33], out[PT_ESCAPED_SIZE(32)];
    memset(in, '\x01', 32);
    in[32] = '\0';
    pt_escape(in, out, sizeof(out));
    ck_assert_uint_eq(strlen(out), 4 * 32);
    ck_assert_ptr_null(strstr(out, "..."));
}
END_TEST

/* Every format character the terminals act on, and their neighbours. */
START_TEST(test_format_chars)
{
    static const uint32_t cf[] = {0xad,   0x61c,  0x180e, 0x200b, 0x200c, 0x200d,  0x200e,  0x200f, 0x202a,
                                  0x202b, 0x202c, 0x202d, 0x202e, 0x2060, 0x2061,  0x2064,  0x2066, 0x2067,
                                  0x2068, 0x2069, 0xfeff, 0xfff9, 0xfffb, 0xe0001, 0xe0020, 0xe007f};
    static const uint32_t not_cf[] = {'a',    0xa0,          0xac,   0xae,   0x200a,  0x2010,  0x2029,
                                      0x202f, 0x2065 + 0x10, 0xfefe, 0xff00, 0xe0000, 0xe0080, 0x10ffff};
    for (size_t i = 0; i < COUNT(cf); i++)
        ck_assert_msg(pt_escape_is_format_char(cf[i]), "U+%04X", (unsigned)cf[i]);
    for (size_t i = 0; i < COUNT(not_cf); i++)
        ck_assert_msg(!pt_escape_is_format_char(not_cf[i]), "U+%04X", (unsigned)not_cf[i]);
}
END_TEST

/* Two columns for East Asian Wide and Fullwidth, whatever the locale. */
START_TEST(test_columns)
{
    static const uint32_t wide[] = {0x1100, 0x115f, 0x3000, 0x3042,  0x4e00,  0x9fa5,  0xac00, 0xd7a3,
                                    0xff01, 0xff60, 0xffe0, 0x1f600, 0x20000, 0x2a6d6, 0x3fffd};
    static const uint32_t narrow[] = {'a', 0xe9, 0x20ac, 0x1160, 0x303f, 0xd7a4, 0xff61, 0xffe7, 0x1f1e6, 0x40000};
    for (size_t i = 0; i < COUNT(wide); i++)
        ck_assert_msg(pt_escape_codepoint_columns(wide[i]) == 2, "U+%04X", (unsigned)wide[i]);
    for (size_t i = 0; i < COUNT(narrow); i++)
        ck_assert_msg(pt_escape_codepoint_columns(narrow[i]) == 1, "U+%04X", (unsigned)narrow[i]);
    ck_assert_uint_eq(text_columns("\xe4\xb8\xad\xe6\x96\x87"
                                   "abc"),
                      7); /* 中文abc */
    ck_assert_uint_eq(text_columns("caf\xc3\xa9\xff"), 5);
}
END_TEST

/* A table's column: escaped, padded by columns, cut at a whole piece. */
static const struct {
    const char *in;
    size_t width;
    const char *want;
} column_cases[] = {
    {"web", 6, "web   "},
    {"", 3, "   "},
    {"abcdef", 6, "abcdef"},
    {"abcdefg", 6, "abcde~"},
    /* five CJK characters: ten columns, padded to 12 by two spaces */
    {"\xe4\xb8\x80\xe4\xba\x8c\xe4\xb8\x89\xe5\x9b\x9b\xe4\xba\x94", 12,
     "\xe4\xb8\x80\xe4\xba\x8c\xe4\xb8\x89\xe5\x9b\x9b\xe4\xba\x94  "},
    /* cut before a wide character that does not fit: "~" and a space */
    {"\xe4\xb8\x80\xe4\xba\x8c\xe4\xb8\x89\xe5\x9b\x9b\xe4\xba\x94", 7, "\xe4\xb8\x80\xe4\xba\x8c\xe4\xb8\x89~"},
    {"\xe4\xb8\x80\xe4\xba\x8c\xe4\xb8\x89\xe5\x9b\x9b\xe4\xba\x94", 8, "\xe4\xb8\x80\xe4\xba\x8c\xe4\xb8\x89~ "},
    /* a euro sign at the cut: whole or not at all, never e2 7e */
    {"abcdefghijklmn\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac", 16, "abcdefghijklmn\xe2\x82\xac~"},
    {"abcdefghijklmno\xe2\x82\xac", 16, "abcdefghijklmno\xe2\x82\xac"},
    /* an escape is cut whole too */
    {"ab\xe2\x80\xae", 10, "ab\\u{202e}"},
    {"ab\xe2\x80\xae"
     "cd",
     10, "ab~       "},
    {"a\nb", 4, "a\\nb"},
    {"a\nb", 3, "a~ "},
};

START_TEST(test_escape_column)
{
    char out[4 * 16 + 1];
    pt_escape_column(column_cases[_i].in, column_cases[_i].width, out, sizeof(out));
    ck_assert_str_eq(out, column_cases[_i].want);
    ck_assert_uint_eq(text_columns(out), column_cases[_i].width);
}
END_TEST

/* The smallest buffer the header promises holds every column. */
START_TEST(test_escape_column_room)
{
    char in[64], out[4 * 4 + 1];
    memset(in, 0, sizeof(in));
    for (size_t i = 0; i < 5; i++) /* U+10000, four bytes, one column */
        memcpy(in + 4 * i, "\xf0\x90\x80\x80", 4);
    pt_escape_column(in, 4, out, sizeof(out));
    ck_assert_str_eq(out, "\xf0\x90\x80\x80\xf0\x90\x80\x80\xf0\x90\x80\x80~");
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
    pt_escape_collectd(collectd_cases[_i].in, out, sizeof(out));
    ck_assert_str_eq(out, collectd_cases[_i].want);
}
END_TEST

/* Cut at a whole character: "é" does not fit in 1 byte, is not split. */
START_TEST(test_escape_collectd_cut_whole)
{
    char out[5];
    pt_escape_collectd("abc\xc3\xa9", out, sizeof(out));
    ck_assert_str_eq(out, "abc");
    pt_escape_collectd("ab\xc2\x85\xc2\x85z", out, sizeof(out));
    ck_assert_str_eq(out, "ab__");
    pt_escape_collectd("abc", out, 1);
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
    tcase_add_test(tc, test_format_chars);
    tcase_add_test(tc, test_columns);
    tcase_add_loop_test(tc, test_escape_column, 0, COUNT(column_cases));
    tcase_add_test(tc, test_escape_column_room);
    tcase_add_loop_test(tc, test_escape_collectd_cases, 0, COUNT(collectd_cases));
    tcase_add_test(tc, test_escape_collectd_cut_whole);
    suite_add_tcase(s, tc);
    return unit_run(s);
}

/* Unit tests for the stat and statm parsers of procfile.h: real lines,
 * hostile comms, every prefix, field limits, separators and a fuzzer. */
#include <check.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "procfs/procfile.h"
#include "unit.h"

/* ---- Real content captured from this machine's /proc (Linux 6.18) ---- */

static const char REAL_STAT_BASH[] =
    "2973 (bash) S 2972 2973 2973 0 -1 4194560 2797 61914 0 65 5 8 138 180 20 0 1 0 32153 5124096 1008 "
    "18446744073709551615 94881951490048 94881952279453 140722023783424 0 0 0 65536 4 1132560123 1 0 0 17 0 0 "
    "0 0 0 0 94881952512752 94881952560996 94882452586496 140722023787321 140722023787336 140722023787336 "
    "140722023788522 0\n";
/* pid 1: ppid 0, tpgid -1, nice -10, several threads. */
static const char REAL_STAT_INIT[] =
    "1 (process_api) S 0 0 0 0 -1 4194560 18874 354669 0 204 63 203 1291 996 10 -10 14 0 18 42885120 2595 "
    "18446744073709551615 1 1 0 0 0 0 0 4096 1256 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
/* A kworker's comm carries its workqueue and is longer than 15 bytes. */
static const char REAL_STAT_KWORKER[] =
    "9 (kworker/0:0-virtio_vsock) I 2 0 0 0 -1 69238880 0 0 0 0 0 7 0 0 20 0 1 0 18 0 0 18446744073709551615 0 0 "
    "0 0 0 0 0 2147483647 0 1 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
static const char REAL_STAT_ZOMBIE[] =
    "10993 (z) Z 10992 10972 2973 0 -1 4227148 18 0 0 0 0 0 0 0 20 0 1 0 63286 0 0 18446744073709551615 0 0 0 0 "
    "0 0 0 0 0 1 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";

static const char REAL_STATM_BASH[] = "1251 1043 800 193 0 270 0\n";
static const char REAL_STATM_KTHREAD[] = "0 0 0 0 0 0 0\n";

/* ---- Stat helpers ---- */

static const struct pt_stat BASH = {
    .pid = 2973,
    .comm = "bash",
    .state = 'S',
    .ppid = 2972,
    .minflt = 2797,
    .cminflt = 61914,
    .majflt = 0,
    .cmajflt = 65,
    .utime = 5,
    .stime = 8,
    .cutime = 138,
    .cstime = 180,
    .num_threads = 1,
    .starttime = 32153,
    .vsize = 5124096,
    .rss_pages = 1008,
};

/* REAL_STAT_BASH with its comm replaced by comm[0..len). malloc'd. */
static char *bash_stat_with_comm(const char *comm, size_t len, size_t *line_len)
{
    const char *tail = strrchr(REAL_STAT_BASH, ')');
    size_t tail_len = strlen(tail);
    char *line = malloc(6 + len + tail_len + 1);
    ck_assert_ptr_nonnull(line);
    memcpy(line, "2973 (", 6);
    memcpy(line + 6, comm, len);
    memcpy(line + 6 + len, tail, tail_len + 1);
    *line_len = 6 + len + tail_len;
    return line;
}

/* REAL_STAT_BASH with field number `field` (>= 3, numbered as in
 * proc(5)) replaced by value. malloc'd. */
static char *bash_stat_with_field(int field, const char *value)
{
    const char *start = strrchr(REAL_STAT_BASH, ')') + 1;
    for (int k = 3; k <= field; k++)
        start = strchr(start, ' ') + 1;
    const char *end = start + strcspn(start, " \n");
    char *line;
    ck_assert_int_ge(asprintf(&line, "%.*s%s%s", (int)(start - REAL_STAT_BASH), REAL_STAT_BASH, value, end), 0);
    return line;
}

/* Shortest prefix of a stat line the parser may accept: through the
 * separator after rss (field 24), the 23rd space after the last ')'.
 * Worked out here independently of the parser. */
static size_t stat_required_len(const char *line, size_t len)
{
    const char *p = memrchr(line, ')', len);
    ck_assert_ptr_nonnull(p);
    for (int spaces = 0; p < line + len; p++)
        if (*p == ' ' && ++spaces == 23)
            return (size_t)(p - line) + 1;
    ck_abort_msg("stat line has fewer than 24 fields");
    return 0;
}

/* Every prefix of line fails, except those holding all of fields 1-24,
 * which parse exactly like the whole line. */
static void check_stat_prefixes(const char *line, size_t len)
{
    struct pt_stat whole, part;
    ck_assert_int_eq(parse_stat(line, len, &whole), 0);
    size_t required = stat_required_len(line, len);
    for (size_t n = 0; n <= len; n++) {
        int rc = parse_stat(line, n, &part);
        if (n < required) {
            ck_assert_msg(rc == -1, "prefix of %zu bytes (of %zu) accepted", n, len);
        } else {
            ck_assert_msg(rc == 0, "prefix of %zu bytes (of %zu) rejected", n, len);
            assert_stat_eq(&part, &whole);
        }
    }
}

/* ==== stat ==== */

START_TEST(test_stat_real_bash)
{
    struct pt_stat st;
    ck_assert_int_eq(parse_stat(TEXT(REAL_STAT_BASH), &st), 0);
    assert_stat_eq(&st, &BASH);
}
END_TEST

START_TEST(test_stat_real_init_kworker_zombie)
{
    struct pt_stat st;
    ck_assert_int_eq(parse_stat(TEXT(REAL_STAT_INIT), &st), 0);
    assert_stat_eq(&st, &(struct pt_stat){
                            .pid = 1,
                            .comm = "process_api",
                            .state = 'S',
                            .ppid = 0,
                            .minflt = 18874,
                            .cminflt = 354669,
                            .majflt = 0,
                            .cmajflt = 204,
                            .utime = 63,
                            .stime = 203,
                            .cutime = 1291,
                            .cstime = 996,
                            .num_threads = 14,
                            .starttime = 18,
                            .vsize = 42885120,
                            .rss_pages = 2595,
                        });

    ck_assert_int_eq(parse_stat(TEXT(REAL_STAT_KWORKER), &st), 0);
    ck_assert_str_eq(st.comm, "kworker/0:0-virtio_vsock");
    ck_assert_int_eq(st.state, 'I');
    ck_assert_int_eq(st.ppid, 2);
    ck_assert_uint_eq(st.stime, 7);
    ck_assert_uint_eq(st.vsize, 0);

    ck_assert_int_eq(parse_stat(TEXT(REAL_STAT_ZOMBIE), &st), 0);
    ck_assert_int_eq(st.pid, 10993);
    ck_assert_int_eq(st.state, 'Z');
    ck_assert_uint_eq(st.starttime, 63286);
    ck_assert_int_eq(st.rss_pages, 0);
}
END_TEST

/* comm values a process can give itself (or a fixture can write). */
static const char *const HOSTILE_COMMS[] = {
    "a b",
    "two  spaces ",
    " ",
    "a)",
    ")",
    "))",
    "(",
    "((",
    ") (",
    "x) (y",
    ") R 1 2 3",
    "a\nb",
    "\n",
    "line\n",
    "a,b",
    "a=b",
    "k=v,x=y z",
    "\"quoted\"",
    "back\\slash\\",
    "\xff\xfe",
    "bad\xc3(utf8)",
    "tab\there",
    "",
    "123456789012345",
    "012345678901234567890123456789012345678901234567890123456789012", /* 63: fits exactly */
    "0123456789012345678901234567890123456789012345678901234567890123",
    "0123456789012345678901234567890123456789012345678901234567890123456789) (trailing) S 9",
};

/* comm is kept whole up to PT_COMM_MAX - 1 bytes, the rest is cut. */
START_TEST(test_stat_hostile_comm)
{
    const char *comm = HOSTILE_COMMS[_i];
    size_t len;
    char *line = bash_stat_with_comm(comm, strlen(comm), &len);
    struct pt_stat st, expected = BASH;
    size_t kept = strlen(comm) < PT_COMM_MAX ? strlen(comm) : PT_COMM_MAX - 1;
    memcpy(expected.comm, comm, kept);
    expected.comm[kept] = '\0';
    ck_assert_int_eq(parse_stat(line, len, &st), 0);
    assert_stat_eq(&st, &expected);
    check_stat_prefixes(line, len);
    free(line);
}
END_TEST

START_TEST(test_stat_comm_truncated)
{
    static const char line[] = "5 (0123456789012345678901234567890123456789012345678901234567890123456789) (x) S 1 "
                               "0 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 9 0 0 0\n";
    struct pt_stat st;
    ck_assert_int_eq(parse_stat(TEXT(line), &st), 0);
    ck_assert_str_eq(st.comm, "012345678901234567890123456789012345678901234567890123456789012");
    ck_assert_int_eq(st.state, 'S');
    ck_assert_int_eq(st.ppid, 1);
    ck_assert_uint_eq(st.starttime, 9);
}
END_TEST

/* A comm holding a whole stat line. Ending comm at the first ')' would
 * read the fake fields; the last ')' reads the real ones. */
START_TEST(test_stat_comm_spoof)
{
    static const char spoof[] = ") Z 7 7 7 7 7 7 7 7 7 7 7 7 7 7 7 7 7 7 7 7 7 ";
    size_t len;
    char *line = bash_stat_with_comm(TEXT(spoof), &len);
    struct pt_stat st, expected = BASH;
    memcpy(expected.comm, spoof, sizeof(spoof));
    ck_assert_int_eq(parse_stat(line, len, &st), 0);
    assert_stat_eq(&st, &expected);
    /* Known limit, not checked by prefix: a read cut inside such a comm
     * looks like a whole line. Only a fixture can write it; the kernel
     * caps a process's comm at 15 bytes, far too short for 21 fields. */
    free(line);
}
END_TEST

/* The comm the kernel itself reports, set through prctl: proves the
 * kernel writes such bytes raw into stat and that we read them back. */
START_TEST(test_stat_live_hostile_comm)
{
    static const char name[] = ") (x\n\"=,\\\xff"
                               "a";
    char saved[16] = {0};
    ck_assert_int_eq(prctl(PR_GET_NAME, saved), 0);
    ck_assert_int_eq(prctl(PR_SET_NAME, name), 0);

    int fd = pt_procfs_open_at(AT_FDCWD, "/proc/thread-self/stat");
    ck_assert_int_ge(fd, 0);
    struct pt_buf buf = {0};
    ssize_t n = pt_procfs_pread_all(fd, &buf);
    ck_assert_int_eq(prctl(PR_SET_NAME, saved), 0);
    ck_assert_int_gt(n, 0);

    struct pt_stat st;
    ck_assert_int_eq(parse_stat(buf.data, buf.len, &st), 0);
    ck_assert_str_eq(st.comm, name);
    ck_assert_int_eq(st.pid, gettid());
    ck_assert_int_eq(st.ppid, getppid());
    ck_assert_int_eq(st.state, 'R');
    check_stat_prefixes(buf.data, buf.len);
    pt_buf_free(&buf);
    close(fd);
}
END_TEST

START_TEST(test_stat_every_prefix_of_real_lines)
{
    check_stat_prefixes(TEXT(REAL_STAT_BASH));
    check_stat_prefixes(TEXT(REAL_STAT_INIT));
    check_stat_prefixes(TEXT(REAL_STAT_KWORKER));
    check_stat_prefixes(TEXT(REAL_STAT_ZOMBIE));
}
END_TEST

START_TEST(test_stat_empty_and_garbage)
{
    static const char *const bad[] = {
        "",
        " ",
        "\n",
        "hello",
        "1",
        "1 ",
        "1 (",
        "1 (a",
        "1 ()",
        "1 () ",
        "1 () S",
        "(bash) S 1",
        "2973 bash S 2972",
        "2973 (bash S 2972 2973 2973 0 -1 4194560 2797 61914 0 65 5 8 138 180 20 0 1 0 1 1 1 ",
        "\xff\xfe\xfd",
        "0 (x) S 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 ",
    };
    struct pt_stat st;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        ck_assert_msg(parse_stat(TEXT(bad[i]), &st) == -1, "accepted \"%s\"", bad[i]);
    ck_assert_int_eq(parse_stat("\0\0\0\0", 4, &st), -1);
}
END_TEST

/* A field replaced by a value that must be accepted (want_rc 0) or not. */
static const struct {
    int field;
    const char *value;
    int want_rc;
} STAT_FIELD_CASES[] = {
    {1, "0", -1}, /* pid 0 is no process */
    {1, "-1", -1},
    {1, "2147483647", 0}, /* largest pid_t */
    {1, "2147483648", -1},
    {1, "99999999999999999999", -1}, /* 20 digits */
    {1, "+5", -1},
    {1, "0x10", -1},
    {3, "RS", -1}, /* state is one character */
    {3, "", -1},
    {4, "0", 0}, /* ppid 0: a child of the kernel */
    {4, "-1", -1},
    {4, "2147483648", -1},
    {8, "-1", 0}, /* tpgid is signed */
    {8, "-", -1},
    {9, "-5", -1},                    /* flags are unsigned */
    {10, "18446744073709551615", 0},  /* largest uint64 */
    {10, "18446744073709551616", -1}, /* one more */
    {10, "99999999999999999999", -1},
    {10, "00000000000000000000000000042", 0},
    {10, "-5", -1}, /* negative where unsigned */
    {10, "1.5", -1},
    {10, "1e3", -1},
    {10, "", -1}, /* two spaces in a row */
    {14, "-1", -1},
    {17, "-1", -1},
    {19, "-20", 0}, /* nice is signed */
    {20, "-1", 0},  /* num_threads is signed */
    {22, "18446744073709551616", -1},
    {24, "-1", 0}, /* rss is kept signed */
    {24, "9223372036854775807", 0},
    {24, "9223372036854775808", -1},
    {24, "-9223372036854775808", 0},
    {24, "-9223372036854775809", -1},
    {24, "--1", -1},
    {25, "garbage after rss is not our business", 0},
};

START_TEST(test_stat_field_values)
{
    int field = STAT_FIELD_CASES[_i].field;
    const char *value = STAT_FIELD_CASES[_i].value;
    char *line;
    if (field == 1) {
        ck_assert_int_ge(asprintf(&line, "%s%s", value, strchr(REAL_STAT_BASH, ' ')), 0);
    } else {
        line = bash_stat_with_field(field, value);
    }
    struct pt_stat st;
    int rc = parse_stat(TEXT(line), &st);
    ck_assert_msg(rc == STAT_FIELD_CASES[_i].want_rc, "field %d = \"%s\": rc %d", field, value, rc);
    free(line);
}
END_TEST

START_TEST(test_stat_field_extremes_land_in_the_right_place)
{
    struct pt_stat st;
    char *line = bash_stat_with_field(10, "18446744073709551615");
    ck_assert_int_eq(parse_stat(TEXT(line), &st), 0);
    ck_assert_uint_eq(st.minflt, PT_MAX_COUNT); /* clamped: see procfile.h */
    ck_assert_uint_eq(st.cminflt, BASH.cminflt);
    free(line);

    line = bash_stat_with_field(24, "-9223372036854775808");
    ck_assert_int_eq(parse_stat(TEXT(line), &st), 0);
    ck_assert_int_eq(st.rss_pages, INT64_MIN);
    free(line);

    line = bash_stat_with_field(20, "-1");
    ck_assert_int_eq(parse_stat(TEXT(line), &st), 0);
    ck_assert_int_eq(st.num_threads, 0);
    free(line);
    line = bash_stat_with_field(20, "9223372036854775807");
    ck_assert_int_eq(parse_stat(TEXT(line), &st), 0);
    ck_assert_int_eq(st.num_threads, PT_MAX_THREADS);
    free(line);
    for (int field = 14; field <= 17; field++) { /* utime stime cutime cstime */
        line = bash_stat_with_field(field, "9223372036854775807");
        ck_assert_int_eq(parse_stat(TEXT(line), &st), 0);
        uint64_t ticks[] = {st.utime, st.stime, st.cutime, st.cstime};
        ck_assert_uint_eq(ticks[field - 14], PT_MAX_COUNT);
        free(line);
    }
}
END_TEST

START_TEST(test_stat_separators)
{
    struct pt_stat st;
    /* Exactly the 24 required fields are enough, if the last one is ended. */
    static const char just_required[] =
        "2973 (bash) S 2972 2973 2973 0 -1 4194560 2797 61914 0 65 5 8 138 180 20 0 1 0 32153 5124096 1008\n";
    ck_assert_int_eq(parse_stat(TEXT(just_required), &st), 0);
    assert_stat_eq(&st, &BASH);
    /* Without its newline, rss might have lost digits. */
    ck_assert_int_eq(parse_stat(just_required, strlen(just_required) - 1, &st), -1);
    /* 23 fields. */
    ck_assert_int_eq(parse_stat(TEXT("2973 (bash) S 2972 2973 2973 0 -1 4194560 2797 61914 0 65 5 8 138 180 20 0 1 "
                                     "0 32153 5124096\n"),
                                &st),
                     -1);
    /* The kernel separates with exactly one space. */
    ck_assert_int_eq(parse_stat(TEXT("2973 (bash) S  2972 2973 2973 0 -1 4194560 2797 61914 0 65 5 8 138 180 20 0 "
                                     "1 0 32153 5124096 1008 0\n"),
                                &st),
                     -1);
    ck_assert_int_eq(parse_stat(TEXT("2973 (bash) S\t2972 2973 2973 0 -1 4194560 2797 61914 0 65 5 8 138 180 20 0 "
                                     "1 0 32153 5124096 1008 0\n"),
                                &st),
                     -1);
    ck_assert_int_eq(parse_stat(TEXT("2973 (bash)S 2972 2973 2973 0 -1 4194560 2797 61914 0 65 5 8 138 180 20 0 "
                                     "1 0 32153 5124096 1008 0\n"),
                                &st),
                     -1);
    ck_assert_int_eq(parse_stat(TEXT("2973(bash) S 2972 2973 2973 0 -1 4194560 2797 61914 0 65 5 8 138 180 20 0 "
                                     "1 0 32153 5124096 1008 0\n"),
                                &st),
                     -1);
    ck_assert_int_eq(parse_stat(TEXT(" 2973 (bash) S 2972 2973 2973 0 -1 4194560 2797 61914 0 65 5 8 138 180 20 0 "
                                     "1 0 32153 5124096 1008 0\n"),
                                &st),
                     -1);
}
END_TEST

/* xorshift64*: a fixed seed keeps failures reproducible. */
static uint64_t next_random(uint64_t *state)
{
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return *state * 2685821657736338717ULL;
}

/* Random edits of real lines, biased towards the bytes the parser cares
 * about. Whatever comes out, the parser must not crash or overread, and
 * an accepted line must give sane values. */
START_TEST(test_stat_fuzz)
{
    static const char interesting[] = "0123456789 ()-\n\xff";
    const char *bases[] = {REAL_STAT_BASH, REAL_STAT_INIT, REAL_STAT_KWORKER, REAL_STAT_ZOMBIE};
    uint64_t seed = 0x9e3779b97f4a7c15ULL;
    char line[512];
    int accepted = 0;

    for (int iter = 0; iter < 20000; iter++) {
        const char *base = bases[next_random(&seed) % 4];
        size_t len = strlen(base);
        memcpy(line, base, len);
        int edits = 1 + (int)(next_random(&seed) % 4);
        for (int e = 0; e < edits && len > 0; e++) {
            size_t at = next_random(&seed) % len;
            char byte = next_random(&seed) % 4 ? interesting[next_random(&seed) % (sizeof(interesting) - 1)]
                                               : (char)next_random(&seed);
            switch (next_random(&seed) % 4) {
            case 0:
                line[at] = byte;
                break;
            case 1:
                memmove(line + at, line + at + 1, len - at - 1), len--;
                break;
            case 2:
                if (len < sizeof(line))
                    memmove(line + at + 1, line + at, len - at), line[at] = byte, len++;
                break;
            case 3:
                len = at;
                break;
            }
        }
        struct pt_stat st;
        if (parse_stat(line, len, &st) == 0) {
            accepted++;
            ck_assert_ptr_nonnull(memchr(st.comm, '\0', PT_COMM_MAX));
            ck_assert_int_gt(st.pid, 0);
            ck_assert_int_ge(st.ppid, 0);
            ck_assert_int_ne(st.state, ' ');
        }
    }
    /* Single-byte edits past rss keep lines valid: the fuzzer reached the accepting path. */
    ck_assert_int_gt(accepted, 0);
}
END_TEST

/* ==== statm ==== */

/* Every letter of fs/proc/array.c's task_state_array, the older kernels'
 * x, K and W, and what no kernel prints; and which say the task has
 * exited (its memory map gone). */
START_TEST(test_state_letters)
{
    static const struct {
        char letter;
        enum pt_task_state state;
        bool exited;
    } cases[] = {
        {'R', PT_TS_RUNNING, false},      {'S', PT_TS_SLEEPING, false}, {'I', PT_TS_SLEEPING, false},
        {'D', PT_TS_BLOCKED, false},      {'T', PT_TS_STOPPED, false},  {'t', PT_TS_STOPPED, false},
        {'Z', PT_TS_ZOMBIE, true},        {'X', PT_TS_OTHER, true},     {'x', PT_TS_OTHER, false},
        {'P', PT_TS_OTHER, false},        {'K', PT_TS_OTHER, false},    {'W', PT_TS_OTHER, false},
        {'r', PT_TS_OTHER, false},        {'\0', PT_TS_OTHER, false},   {')', PT_TS_OTHER, false},
        {(char)0xff, PT_TS_OTHER, false},
    };
    for (size_t i = 0; i < COUNT(cases); i++) {
        ck_assert_msg(pt_procfs_task_state_of(cases[i].letter) == cases[i].state, "letter %#x",
                      (unsigned char)cases[i].letter);
        ck_assert_msg(pt_procfs_task_has_exited(cases[i].letter) == cases[i].exited, "letter %#x exited",
                      (unsigned char)cases[i].letter);
    }
}
END_TEST

START_TEST(test_statm_real)
{
    struct pt_statm m;
    ck_assert_int_eq(parse_statm(TEXT(REAL_STATM_BASH), &m), 0);
    ck_assert_uint_eq(m.size, 1251);
    ck_assert_uint_eq(m.resident, 1043);
    ck_assert_uint_eq(m.shared, 800);
    ck_assert_int_eq(parse_statm(TEXT(REAL_STATM_KTHREAD), &m), 0);
    ck_assert_uint_eq(m.size + m.resident + m.shared, 0);
}
END_TEST

START_TEST(test_statm_whitespace_and_limits)
{
    struct pt_statm m;
    ck_assert_int_eq(parse_statm(TEXT("  7\t 8   9\n"), &m), 0);
    ck_assert_uint_eq(m.size, 7);
    ck_assert_uint_eq(m.resident, 8);
    ck_assert_uint_eq(m.shared, 9);
    ck_assert_int_eq(parse_statm(TEXT("1 2 3 "), &m), 0);
    ck_assert_int_eq(parse_statm(TEXT("18446744073709551615 0 0\n"), &m), 0);
    ck_assert_uint_eq(m.size, PT_MAX_PAGES);
    ck_assert_int_eq(parse_statm(TEXT("4611686018427387904 9223372036854775807 281474976710655\n"), &m), 0);
    ck_assert_uint_eq(m.size, PT_MAX_PAGES);
    ck_assert_uint_eq(m.resident, PT_MAX_PAGES);
    ck_assert_uint_eq(m.shared, PT_MAX_PAGES - 1);

    static const char *const bad[] = {
        "",         "\n",       "1 2\n",
        "1 2 3",    "1\n2 3\n", "1 -2 3\n",
        "1 2 x\n",  "a 1 2\n",  "18446744073709551616 1 1\n",
        "1 2 3x\n", "1,2,3\n",  "0x1 2 3\n",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        ck_assert_msg(parse_statm(TEXT(bad[i]), &m) == -1, "accepted \"%s\"", bad[i]);
}
END_TEST

START_TEST(test_statm_every_prefix)
{
    size_t len = strlen(REAL_STATM_BASH);
    size_t required = strlen("1251 1043 800 ");
    struct pt_statm m;
    for (size_t n = 0; n <= len; n++) {
        int rc = parse_statm(REAL_STATM_BASH, n, &m);
        ck_assert_int_eq(rc, n < required ? -1 : 0);
        if (rc == 0)
            ck_assert_uint_eq(m.shared, 800);
    }
}
END_TEST

/* ==== schedstat ==== */

START_TEST(test_schedstat)
{
    struct pt_schedstat ss = {0};
    const char *real = "1234567 89012 345\n";
    ck_assert_int_eq(parse_schedstat(real, strlen(real), &ss), 0);
    ck_assert_uint_eq(ss.run_delay_ns, 89012);
    ck_assert_uint_eq(ss.timeslices, 345);
    /* a value cut by the end of the buffer is not trusted, nor is garbage */
    const char *bad[] = {"", "1 2", "1 2 3", "1 2 x\n", "-1 2 3\n", "1\n2\n", "18446744073709551616 2 3\n"};
    for (size_t i = 0; i < COUNT(bad); i++)
        ck_assert_msg(parse_schedstat(bad[i], strlen(bad[i]), &ss) == -1, "accepted \"%s\"", bad[i]);
}
END_TEST

/* ==== Runner ==== */

int main(void)
{
    Suite *suite = suite_create("parse_stat");

    TCase *tc = unit_tcase(suite, "stat");
    tcase_add_test(tc, test_stat_real_bash);
    tcase_add_test(tc, test_stat_real_init_kworker_zombie);
    tcase_add_loop_test(tc, test_stat_hostile_comm, 0, COUNT(HOSTILE_COMMS));
    tcase_add_test(tc, test_stat_comm_truncated);
    tcase_add_test(tc, test_stat_comm_spoof);
    tcase_add_test(tc, test_stat_live_hostile_comm);
    tcase_add_test(tc, test_stat_every_prefix_of_real_lines);
    tcase_add_test(tc, test_stat_empty_and_garbage);
    tcase_add_loop_test(tc, test_stat_field_values, 0, COUNT(STAT_FIELD_CASES));
    tcase_add_test(tc, test_stat_field_extremes_land_in_the_right_place);
    tcase_add_test(tc, test_stat_separators);
    tcase_add_test(tc, test_stat_fuzz);

    tc = unit_tcase(suite, "state");
    tcase_add_test(tc, test_state_letters);

    tc = unit_tcase(suite, "statm");
    tcase_add_test(tc, test_statm_real);
    tcase_add_test(tc, test_statm_whitespace_and_limits);
    tcase_add_test(tc, test_statm_every_prefix);

    tc = unit_tcase(suite, "schedstat");
    tcase_add_test(tc, test_schedstat);

    return unit_run(suite);
}

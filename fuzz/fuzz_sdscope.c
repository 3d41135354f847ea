/* fuzz_sdscope: the reading of systemd's D-Bus replies (common/launch/sdscope.h's
 * pt_sd_message_size and pt_sd_parse_message, which pt_sd_start_scope's
 * reader calls on what comes over the manager's socket) on arbitrary bytes.
 *
 * Input: the first byte picks the mode (modulo MODE_COUNT), the rest is:
 * - STREAM: what the socket sends, read as the client reads it: a 16-byte
 *   fixed header, the length it gives, that many bytes, again, until the
 *   length is refused or the input runs out;
 * - FITTED: one message, whose header's lengths the harness sets so that
 *   the message is exactly the input (a header-fields length that does not
 *   fit is cut to what does, the body's length is the rest): the header
 *   fields' walk gets every input, not only those that guess their length;
 * - BUILT: values (byte order, type, serial, header fields of every type in
 *   any order, an error's message, the body's tail) marshalled as D-Bus
 *   does: the parser must accept the message and give back those values.
 *
 * Every message is copied into a malloc'd block of exactly its length, so
 * ASan reports any read past it. Checked for every message:
 * - pt_sd_message_size of its first 16 bytes is what an independent model
 *   of the fixed header gives: 0, or 16 .. PT_SD_REPLY_MAX;
 * - pt_sd_parse_message returns 0 or -1, deterministically (two calls, the
 *   result pre-filled with different garbage), -1 for any length but the
 *   message's own, and agrees with an independent model of its rules
 *   (sdscope.h) on the result, the type, the reply serial and where the
 *   error name and message are;
 * - on success: type is the header's byte 1; the error name, if any, lies
 *   in the header fields (after the 16-byte fixed header, its NUL before
 *   the fields' end); the error message only for an error (type 3), in the
 *   body (from the fields' end rounded up to 8, its NUL before the end). */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "launch/sdscope.h"

enum mode { M_STREAM, M_FITTED, M_BUILT, MODE_COUNT };

#define HEAD PT_SD_HEADER_SIZE

static size_t round_up(size_t x, size_t a)
{
    return (x + a - 1) / a * a;
}

/* A u32 in the message's byte order, from bytes: 'l' little, 'B' big. */
static uint32_t get32(const uint8_t *p, uint8_t order)
{
    if (order == 'B')
        return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
    return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static void set32(uint8_t *p, uint8_t order, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[order == 'B' ? 3 - i : i] = (uint8_t)(v >> (8 * i));
}

/* ---- the model -------------------------------------------------------- */

/* The fixed header's rules: byte order 'l' or 'B'; header fields, body and
 * the whole message (fields padded to 8, then the body) each at most
 * PT_SD_REPLY_MAX. The message's length, or 0. */
static size_t model_size(const uint8_t *head, size_t *fields_end)
{
    uint8_t order = head[0];
    if (order != 'l' && order != 'B')
        return 0;
    uint64_t body = get32(head + 4, order), fields = get32(head + 12, order);
    *fields_end = HEAD + (size_t)fields;
    uint64_t total = round_up(*fields_end, 8) + body;
    if (fields > PT_SD_REPLY_MAX || body > PT_SD_REPLY_MAX || total > PT_SD_REPLY_MAX)
        return 0;
    return (size_t)total;
}

struct model {
    int rc;
    uint32_t reply_serial;
    size_t error_name, error_message; /* offsets in the message; 0: none (never a string's) */
};

/* A string's n bytes at s and its NUL, all before end. */
static bool model_string(const uint8_t *msg, size_t end, size_t s, uint64_t n)
{
    return s + n < end && msg[s + n] == '\0';
}

/* A u32 at the next multiple of 4 from *at, before end: its value, *at past it. */
static bool model_u32(const uint8_t *msg, size_t end, size_t *at, uint32_t *v)
{
    size_t p = round_up(*at, 4);
    if (p + 4 > end)
        return false;
    *v = get32(msg + p, msg[0]);
    *at = p + 4;
    return true;
}

static struct model model_parse(const uint8_t *msg, size_t len)
{
    struct model m = {-1, 0, 0, 0};
    size_t fields_end;
    if (len < HEAD || model_size(msg, &fields_end) != len)
        return m;
    size_t at = HEAD;
    while (at < fields_end) {
        at = round_up(at, 8); /* each field is a struct: 8-aligned */
        if (at > fields_end)
            return m;
        if (at == fields_end)
            break;
        uint8_t code = msg[at++];
        /* its signature: a length byte, the bytes, a NUL; strlen 1 */
        if (at >= fields_end)
            return m;
        uint8_t siglen = msg[at];
        size_t sig = at + 1;
        if (!model_string(msg, fields_end, sig, siglen) || siglen == 0 || msg[sig] == '\0' || msg[sig + 1] != '\0')
            return m;
        at = sig + siglen + 1;
        uint32_t v, n;
        size_t s;
        switch (msg[sig]) {
        case 'u':
            if (!model_u32(msg, fields_end, &at, &v))
                return m;
            if (code == 5) /* REPLY_SERIAL */
                m.reply_serial = v;
            break;
        case 's':
        case 'o':
            if (!model_u32(msg, fields_end, &at, &n))
                return m;
            s = at;
            if (!model_string(msg, fields_end, s, n))
                return m;
            at = s + n + 1;
            if (code == 4) /* ERROR_NAME */
                m.error_name = s;
            break;
        case 'g':
            if (at >= fields_end)
                return m;
            n = msg[at];
            s = at + 1;
            if (!model_string(msg, fields_end, s, n))
                return m;
            at = s + n + 1;
            if (code == 4)
                m.error_name = s;
            break;
        default:
            return m;
        }
    }
    m.rc = 0;
    if (msg[1] == 3) { /* an error: its message, when the body starts with a string */
        size_t b = round_up(fields_end, 8);
        uint32_t n;
        if (model_u32(msg, len, &b, &n) && model_string(msg, len, b, n))
            m.error_message = b;
    }
    return m;
}

/* ---- the checks ------------------------------------------------------- */

static const unsigned char patterns[2] = {0x00, 0xa5};

/* A string the result points at: within msg[lo, hi), its NUL too. */
static void check_within(const uint8_t *msg, const char *str, size_t lo, size_t hi)
{
    CHECK((const uint8_t *)str >= msg + lo && (const uint8_t *)str < msg + hi);
    CHECK(memchr(str, '\0', (size_t)(msg + hi - (const uint8_t *)str)) != NULL);
}

/* The message at msg, exactly len bytes of its own block. Returns the
 * parser's result (checked against the model). */
static struct pt_sd_reply check_message(const uint8_t *msg, size_t len, int *rc_out)
{
    struct pt_sd_reply rep[2];
    int rc[2];
    for (int k = 0; k < 2; k++) {
        memset(&rep[k], patterns[k], sizeof(rep[k]));
        rc[k] = pt_sd_parse_message(msg, len, &rep[k]);
        CHECK(rc[k] == 0 || rc[k] == -1);
    }
    CHECK(rc[0] == rc[1]);
    struct model m = model_parse(msg, len);
    CHECK(rc[0] == m.rc);
    *rc_out = rc[0];
    if (rc[0] != 0)
        return rep[0];
    CHECK(rep[0].type == rep[1].type && rep[0].reply_serial == rep[1].reply_serial &&
          rep[0].error_name == rep[1].error_name && rep[0].error_message == rep[1].error_message);
    const struct pt_sd_reply *r = &rep[0];
    size_t fields_end;
    CHECK(model_size(msg, &fields_end) == len);
    CHECK(r->type == msg[1]);
    CHECK(r->reply_serial == m.reply_serial);
    CHECK(r->error_name == (m.error_name ? (const char *)msg + m.error_name : NULL));
    CHECK(r->error_message == (m.error_message ? (const char *)msg + m.error_message : NULL));
    if (r->error_name)
        check_within(msg, r->error_name, HEAD, fields_end);
    if (r->error_message) {
        CHECK(r->type == 3);
        check_within(msg, r->error_message, round_up(fields_end, 8), len);
    }
    return rep[0];
}

/* The size the header gives, checked against the model. */
static size_t check_size(const uint8_t *head)
{
    size_t fields_end;
    size_t size = pt_sd_message_size(head);
    CHECK(size == model_size(head, &fields_end));
    CHECK(size == 0 || (size >= HEAD && size <= PT_SD_REPLY_MAX && size >= fields_end));
    return size;
}

/* A copy of p[0..len) in a block of exactly len bytes. */
static uint8_t *exact(const uint8_t *p, size_t len)
{
    uint8_t *b = malloc(len ? len : 1);
    CHECK(b != NULL);
    memcpy(b, p, len);
    return b;
}

/* Every message of a stream, as the client reads them. */
static void fuzz_stream(const uint8_t *data, size_t len)
{
    while (len >= HEAD) {
        uint8_t *head = exact(data, HEAD);
        size_t size = check_size(head);
        free(head);
        if (size == 0 || size > len)
            return;
        uint8_t *msg = exact(data, size);
        int rc;
        check_message(msg, size, &rc);
        if (size > HEAD) { /* one byte short: its length is not the message's */
            struct pt_sd_reply r;
            CHECK(pt_sd_parse_message(msg, size - 1, &r) == -1);
        }
        free(msg);
        data += size;
        len -= size;
    }
}

/* One message, its header's lengths set to make it exactly len bytes. */
static void fuzz_fitted(const uint8_t *data, size_t len)
{
    if (len < HEAD)
        return;
    uint8_t *msg = exact(data, len);
    if (msg[0] != 'l' && msg[0] != 'B')
        msg[0] = msg[0] & 1 ? 'B' : 'l';
    uint32_t fields = get32(msg + 12, msg[0]);
    size_t room = (len & ~(size_t)7) - HEAD; /* the most whose padding to 8 still fits */
    if (fields > room)
        fields = (uint32_t)room;
    set32(msg + 12, msg[0], fields);
    set32(msg + 4, msg[0], (uint32_t)(len - round_up(HEAD + fields, 8)));
    CHECK(check_size(msg) == len);
    int rc;
    check_message(msg, len, &rc);
    free(msg);
}

/* ---- BUILT: a well-formed message from the input's values ---------------- */

struct reader {
    const uint8_t *p;
    size_t n;
};

static uint8_t take(struct reader *r)
{
    if (r->n == 0)
        return 0;
    r->n--;
    return *r->p++;
}

static uint32_t take32(struct reader *r)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        v = v << 8 | take(r);
    return v;
}

#define BUILD_MAX 4096

struct builder {
    uint8_t b[BUILD_MAX];
    size_t n;
    uint8_t order;
};

static void b_pad(struct builder *w, size_t a)
{
    while (w->n % a)
        w->b[w->n++] = 0;
}

static void b_u32(struct builder *w, uint32_t v)
{
    b_pad(w, 4);
    set32(w->b + w->n, w->order, v);
    w->n += 4;
}

/* A string of up to max bytes from the input, no NUL in it (D-Bus's rule),
 * with its length (u32, or u8 for a signature) and NUL: its offset. */
static size_t b_string(struct builder *w, struct reader *r, bool signature, size_t max)
{
    size_t n = take(r) % (max + 1);
    if (signature)
        w->b[w->n++] = (uint8_t)n;
    else
        b_u32(w, (uint32_t)n);
    size_t at = w->n;
    for (size_t i = 0; i < n; i++) {
        uint8_t c = take(r);
        w->b[w->n++] = c ? c : 'x';
    }
    w->b[w->n++] = 0;
    return at;
}

static void fuzz_built(const uint8_t *data, size_t len)
{
    struct reader r = {data, len};
    struct builder w = {.order = take(&r) & 1 ? 'B' : 'l'};
    uint8_t type = take(&r);
    w.b[0] = w.order;
    w.b[1] = type;
    w.b[2] = take(&r); /* flags */
    w.b[3] = 1;
    w.n = HEAD;
    set32(w.b + 8, w.order, take32(&r)); /* serial */

    uint32_t want_serial = 0;
    size_t want_name = 0, want_message = 0;
    size_t n_fields = take(&r) % 10;
    for (size_t i = 0; i < n_fields; i++) {
        b_pad(&w, 8);
        uint8_t code = take(&r) % 10; /* the codes D-Bus has, and more */
        w.b[w.n++] = code;
        static const char kinds[] = "usog";
        char kind = kinds[take(&r) % 4];
        w.b[w.n++] = 1;
        w.b[w.n++] = (uint8_t)kind;
        w.b[w.n++] = 0;
        if (kind == 'u') {
            uint32_t v = take32(&r);
            b_u32(&w, v);
            if (code == 5)
                want_serial = v;
        } else {
            size_t at = b_string(&w, &r, kind == 'g', 64);
            if (code == 4)
                want_name = at;
        }
    }
    size_t fields_end = w.n;
    set32(w.b + 12, w.order, (uint32_t)(fields_end - HEAD));
    b_pad(&w, 8);
    size_t body = w.n;
    if (type == 3 && take(&r) & 1)
        want_message = b_string(&w, &r, false, 255);
    size_t tail = take(&r); /* the body's other arguments, any bytes */
    for (size_t i = 0; i < tail; i++)
        w.b[w.n++] = take(&r);
    set32(w.b + 4, w.order, (uint32_t)(w.n - body));
    if (type == 3 && !want_message && w.n - body >= 4) {
        /* a body that happens to start with a string */
        uint32_t n = get32(w.b + body, w.order);
        if (body + 4 + (size_t)n < w.n && w.b[body + 4 + n] == 0)
            want_message = body + 4;
    }

    uint8_t *msg = exact(w.b, w.n);
    CHECK(check_size(msg) == w.n);
    int rc;
    struct pt_sd_reply rep = check_message(msg, w.n, &rc);
    CHECK(rc == 0);
    CHECK(rep.type == type);
    CHECK(rep.reply_serial == want_serial);
    CHECK(rep.error_name == (want_name ? (const char *)msg + want_name : NULL));
    CHECK(rep.error_message == (want_message ? (const char *)msg + want_message : NULL));
    free(msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    switch ((enum mode)(data[0] % MODE_COUNT)) {
    case M_STREAM:
        fuzz_stream(data + 1, size - 1);
        break;
    case M_FITTED:
        fuzz_fitted(data + 1, size - 1);
        break;
    case M_BUILT:
        fuzz_built(data + 1, size - 1);
        break;
    case MODE_COUNT:
        break;
    }
    return 0;
}

#include "launch/sdscope.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "proctree/base.h"
#include "proctree/escape.h"

bool pt_sd_booted(void)
{
    struct stat st;
    if (lstat("/run/systemd/system", &st) != 0 || !S_ISDIR(st.st_mode))
        return false;
    char comm[32] = "";
    int fd = open("/proc/1/comm", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, comm, sizeof(comm) - 1);
    close(fd);
    return n > 0 && strcmp(comm, "systemd\n") == 0;
}

int pt_sd_manager_socket(char *out, size_t outlen, char *err, size_t errlen)
{
    uid_t uid = geteuid();
    const char *runtime = getenv("XDG_RUNTIME_DIR");
    int n;
    if (uid == 0)
        n = snprintf(out, outlen, "/run/systemd/private");
    else if (runtime && runtime[0] == '/')
        n = snprintf(out, outlen, "%s/systemd/private", runtime);
    else
        n = snprintf(out, outlen, "/run/user/%u/systemd/private", (unsigned)uid);
    if (n < 0 || (size_t)n >= outlen) {
        snprintf(err, errlen, "XDG_RUNTIME_DIR is too long");
        return -1;
    }
    struct stat st;
    int r = stat(out, &st);
    if (r != 0 || !S_ISSOCK(st.st_mode)) {
        char q[PT_QUOTED_MAX];
        snprintf(err, errlen, "%s (\"%s\": %s)",
                 uid == 0 ? "no socket of systemd's system manager" : "no systemd user manager for this user",
                 pt_escape(q, sizeof(q), out), r != 0 ? strerror(errno) : "not a socket");
        return -1;
    }
    return 0;
}

/* ---- the wire: D-Bus marshalling, native byte order -------------------- */

#define MSG_MAX 2048 /* our call: names, a description, one pid */

struct out {
    uint8_t b[MSG_MAX];
    size_t n;
    bool full;
};

static void put(struct out *o, const void *p, size_t len)
{
    if (o->full || len > MSG_MAX - o->n) {
        o->full = true;
        return;
    }
    memcpy(o->b + o->n, p, len);
    o->n += len;
}

static void pad(struct out *o, size_t align)
{
    static const uint8_t zero[8];
    put(o, zero, (align - o->n % align) % align);
}

static void put_u8(struct out *o, uint8_t v)
{
    put(o, &v, 1);
}

static void put_u32(struct out *o, uint32_t v)
{
    pad(o, 4);
    put(o, &v, 4);
}

static void put_str(struct out *o, const char *s)
{
    put_u32(o, (uint32_t)strlen(s));
    put(o, s, strlen(s) + 1);
}

static void put_sig(struct out *o, const char *s)
{
    put_u8(o, (uint8_t)strlen(s));
    put(o, s, strlen(s) + 1);
}

/* An array: its length (in bytes, from its first element) is written by
 * array_end at the offset array_begin returns. */
static size_t array_begin(struct out *o, size_t elem_align, size_t *start)
{
    put_u32(o, 0);
    size_t at = o->n - 4;
    pad(o, elem_align);
    *start = o->n;
    return at;
}

static void array_end(struct out *o, size_t at, size_t start)
{
    if (!o->full) {
        uint32_t len = (uint32_t)(o->n - start);
        memcpy(o->b + at, &len, 4);
    }
}

/* One (sv) of the properties. */
static void prop_begin(struct out *o, const char *name, const char *sig)
{
    pad(o, 8);
    put_str(o, name);
    put_sig(o, sig);
}

static void prop_bool(struct out *o, const char *name)
{
    prop_begin(o, name, "b");
    put_u32(o, 1);
}

static void prop_str(struct out *o, const char *name, const char *value)
{
    prop_begin(o, name, "s");
    put_str(o, value);
}

static char native_endian(void)
{
    uint32_t one = 1;
    uint8_t first;
    memcpy(&first, &one, 1);
    return first ? 'l' : 'B';
}

enum {
    FIELD_PATH = 1,
    FIELD_INTERFACE,
    FIELD_MEMBER,
    FIELD_ERROR_NAME,
    FIELD_REPLY_SERIAL,
    FIELD_DESTINATION = 6,
    FIELD_SIGNATURE = 8
};

static void header_field(struct out *o, uint8_t code, const char *sig, const char *value)
{
    pad(o, 8);
    put_u8(o, code);
    put_sig(o, sig);
    if (sig[0] == 'g')
        put_sig(o, value);
    else
        put_str(o, value);
}

#define SERIAL 1

/* The whole METHOD_CALL into msg: 0, or -1 when it does not fit. */
static int marshal(struct out *msg, const struct pt_sd_scope *s)
{
    struct out body = {0};
    put_str(&body, s->name);
    put_str(&body, "fail");
    size_t start, at = array_begin(&body, 8, &start);
    prop_begin(&body, "PIDs", "au");
    size_t pstart, pat = array_begin(&body, 4, &pstart);
    for (size_t i = 0; i < s->n_pids && i < PT_ARRAY_LEN(s->pids); i++)
        put_u32(&body, (uint32_t)s->pids[i]);
    array_end(&body, pat, pstart);
    prop_bool(&body, "MemoryAccounting");
    prop_bool(&body, "CPUAccounting");
    prop_bool(&body, "IOAccounting");
    prop_bool(&body, "TasksAccounting");
    prop_str(&body, "CollectMode", "inactive-or-failed");
    prop_str(&body, "Description", s->description);
    if (s->slice)
        prop_str(&body, "Slice", s->slice);
    array_end(&body, at, start);
    size_t astart, aat = array_begin(&body, 8, &astart); /* no auxiliary units */
    array_end(&body, aat, astart);

    put_u8(msg, (uint8_t)native_endian());
    put_u8(msg, 1); /* METHOD_CALL */
    put_u8(msg, 0);
    put_u8(msg, 1); /* protocol version */
    put_u32(msg, (uint32_t)body.n);
    put_u32(msg, SERIAL);
    size_t fstart, fat = array_begin(msg, 8, &fstart);
    header_field(msg, FIELD_PATH, "o", "/org/freedesktop/systemd1");
    header_field(msg, FIELD_INTERFACE, "s", "org.freedesktop.systemd1.Manager");
    header_field(msg, FIELD_MEMBER, "s", "StartTransientUnit");
    header_field(msg, FIELD_DESTINATION, "s", "org.freedesktop.systemd1");
    header_field(msg, FIELD_SIGNATURE, "g", "ssa(sv)a(sa(sv))");
    array_end(msg, fat, fstart);
    pad(msg, 8);
    put(msg, body.b, body.n);
    return msg->full || body.full ? -1 : 0;
}

/* ---- the connection ------------------------------------------------------ */

/* Wait for fd to be ready for events until deadline: 0, or -1 (errno
 * ETIMEDOUT on the deadline). */
static int wait_fd(int fd, short events, double deadline)
{
    for (;;) {
        double left = deadline - pt_now();
        if (left <= 0) {
            errno = ETIMEDOUT;
            return -1;
        }
        struct pollfd p = {fd, events, 0};
        int r = poll(&p, 1, (int)(left * 1000) + 1);
        if (r > 0)
            return 0;
        if (r < 0 && errno != EINTR)
            return -1;
    }
}

static int send_all(int fd, const void *p, size_t len, double deadline)
{
    const uint8_t *b = p;
    while (len > 0) {
        if (wait_fd(fd, POLLOUT, deadline) != 0)
            return -1;
        ssize_t n = send(fd, b, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n < 0)
            return -1;
        b += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Exactly len bytes: 0, or -1 (errno ECONNRESET at end of stream). */
static int recv_all(int fd, void *p, size_t len, double deadline)
{
    uint8_t *b = p;
    while (len > 0) {
        if (wait_fd(fd, POLLIN, deadline) != 0)
            return -1;
        ssize_t n = recv(fd, b, len, MSG_DONTWAIT);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n == 0)
            errno = ECONNRESET;
        if (n <= 0)
            return -1;
        b += n;
        len -= (size_t)n;
    }
    return 0;
}

/* The server's line of the SASL exchange, byte by byte (nothing after its
 * "\r\n" may be taken: the messages follow). */
static int recv_line(int fd, char *line, size_t cap, double deadline)
{
    size_t n = 0;
    while (n + 1 < cap) {
        if (recv_all(fd, line + n, 1, deadline) != 0)
            return -1;
        if (line[n++] == '\n') {
            line[n] = '\0';
            return 0;
        }
    }
    errno = EPROTO;
    return -1;
}

/* ---- the reply ------------------------------------------------------------ */

struct in {
    const uint8_t *b;
    size_t n, at;
    bool swap;
    bool bad;
};

static void in_align(struct in *r, size_t align)
{
    r->at += (align - r->at % align) % align;
    if (r->at > r->n)
        r->bad = true;
}

static uint32_t in_u32(struct in *r)
{
    in_align(r, 4);
    if (r->bad || r->n - r->at < 4) {
        r->bad = true;
        return 0;
    }
    uint32_t v;
    memcpy(&v, r->b + r->at, 4);
    r->at += 4;
    return r->swap ? __builtin_bswap32(v) : v;
}

/* A string (s, o: u32 length) or signature (g: u8 length), NUL-terminated
 * in the message: pointed at, or NULL. */
static const char *in_str(struct in *r, char type)
{
    size_t len;
    if (type == 'g') {
        if (r->at >= r->n) {
            r->bad = true;
            return NULL;
        }
        len = r->b[r->at++];
    } else {
        len = in_u32(r);
    }
    if (r->bad || len >= r->n - r->at || r->b[r->at + len] != '\0') {
        r->bad = true;
        return NULL;
    }
    const char *s = (const char *)r->b + r->at;
    r->at += len + 1;
    return s;
}

/* The fixed header's byte order differs from ours. */
static bool swapped(const uint8_t *head)
{
    return head[0] == 'B' ? native_endian() != 'B' : native_endian() != 'l';
}

/* The header fields' end (from the message's start) and the whole
 * message's length, from the fixed header: 0, or -1 when it is no D-Bus
 * message of at most PT_SD_REPLY_MAX bytes. */
static int message_extent(const uint8_t *head, size_t *fields_end, size_t *total)
{
    struct in h = {head, PT_SD_HEADER_SIZE, 4, swapped(head), false};
    uint32_t body = in_u32(&h);
    (void)in_u32(&h); /* its serial */
    uint32_t fields = in_u32(&h);
    *fields_end = PT_SD_HEADER_SIZE + (size_t)fields;
    *total = ((*fields_end + 7) & ~(size_t)7) + body;
    if ((head[0] != 'l' && head[0] != 'B') || fields > PT_SD_REPLY_MAX || body > PT_SD_REPLY_MAX ||
        *total > PT_SD_REPLY_MAX)
        return -1;
    return 0;
}

size_t pt_sd_message_size(const uint8_t head[PT_SD_HEADER_SIZE])
{
    size_t fields_end, total;
    return message_extent(head, &fields_end, &total) == 0 ? total : 0;
}

int pt_sd_parse_message(const uint8_t *msg, size_t len, struct pt_sd_reply *out)
{
    size_t fields_end, total;
    memset(out, 0, sizeof(*out));
    if (len < PT_SD_HEADER_SIZE || message_extent(msg, &fields_end, &total) != 0 || total != len)
        return -1;
    struct in r = {msg, fields_end, PT_SD_HEADER_SIZE, swapped(msg), false};
    out->type = msg[1];
    while (!r.bad && r.at < fields_end) {
        in_align(&r, 8);
        if (r.at >= fields_end)
            break;
        uint8_t code = r.b[r.at++];
        const char *sig = in_str(&r, 'g');
        if (!sig || strlen(sig) != 1) {
            r.bad = true;
            break;
        }
        if (sig[0] == 'u') {
            uint32_t v = in_u32(&r);
            if (code == FIELD_REPLY_SERIAL)
                out->reply_serial = v;
        } else if (sig[0] == 's' || sig[0] == 'o' || sig[0] == 'g') {
            const char *v = in_str(&r, sig[0]);
            if (code == FIELD_ERROR_NAME)
                out->error_name = v;
        } else {
            r.bad = true; /* no other type is a header field's */
        }
    }
    if (r.bad)
        return -1;
    if (out->type == 3) { /* an error's body starts with its message */
        struct in body = {msg, len, (fields_end + 7) & ~(size_t)7, r.swap, false};
        out->error_message = in_str(&body, 's');
    }
    return 0;
}

/* Read messages until the reply to our call; signals are skipped. buf
 * holds PT_SD_REPLY_MAX bytes. */
static int read_reply(int fd, uint8_t *buf, struct pt_sd_reply *rep, double deadline, char *err, size_t errlen)
{
    for (;;) {
        if (recv_all(fd, buf, PT_SD_HEADER_SIZE, deadline) != 0) {
            snprintf(err, errlen, "%s",
                     errno == ECONNRESET ? "systemd closed the connection (it refused us)" : strerror(errno));
            return -1;
        }
        size_t total = pt_sd_message_size(buf);
        if (total == 0) {
            snprintf(err, errlen, "systemd's reply is not a D-Bus message of at most %d bytes", PT_SD_REPLY_MAX);
            return -1;
        }
        if (recv_all(fd, buf + PT_SD_HEADER_SIZE, total - PT_SD_HEADER_SIZE, deadline) != 0) {
            snprintf(err, errlen, "systemd's reply cannot be read: %s", strerror(errno));
            return -1;
        }
        if (pt_sd_parse_message(buf, total, rep) != 0) {
            snprintf(err, errlen, "systemd's reply is malformed");
            return -1;
        }
        if ((rep->type == 2 || rep->type == 3) && rep->reply_serial == SERIAL)
            return 0;
    }
}

static int call(int fd, const struct pt_sd_scope *s, double deadline, char *err, size_t errlen)
{
    /* AUTH EXTERNAL: our uid, as decimal digits, hex-encoded */
    char uid[16], auth[64];
    snprintf(uid, sizeof(uid), "%u", (unsigned)geteuid());
    int len = snprintf(auth, sizeof(auth), "%cAUTH EXTERNAL ", '\0');
    for (const char *c = uid; *c; c++)
        len += snprintf(auth + len, sizeof(auth) - (size_t)len, "%02x", (unsigned)(unsigned char)*c);
    len += snprintf(auth + len, sizeof(auth) - (size_t)len, "\r\n");
    char line[256];
    if (send_all(fd, auth, (size_t)len, deadline) != 0 || recv_line(fd, line, sizeof(line), deadline) != 0) {
        snprintf(err, errlen, "authentication: %s",
                 errno == ECONNRESET ? "systemd closed the connection (it refused us)" : strerror(errno));
        return -1;
    }
    if (strncmp(line, "OK ", 3) != 0) {
        char q[PT_QUOTED_MAX];
        line[strcspn(line, "\r\n")] = '\0';
        snprintf(err, errlen, "authentication refused: \"%s\"", pt_escape(q, sizeof(q), line));
        return -1;
    }
    struct out msg = {0};
    if (marshal(&msg, s) != 0) {
        snprintf(err, errlen, "the call does not fit in %d bytes", MSG_MAX);
        return -1;
    }
    if (send_all(fd, "BEGIN\r\n", 7, deadline) != 0 || send_all(fd, msg.b, msg.n, deadline) != 0) {
        snprintf(err, errlen, "sending the call: %s",
                 errno == EPIPE || errno == ECONNRESET ? "systemd closed the connection (it refused us)"
                                                       : strerror(errno));
        return -1;
    }
    uint8_t *buf = pt_xrealloc(NULL, PT_SD_REPLY_MAX);
    struct pt_sd_reply rep;
    int r = read_reply(fd, buf, &rep, deadline, err, errlen);
    if (r == 0 && rep.type == 3) {
        char qn[PT_QUOTED_MAX], qm[PT_QUOTED_MAX];
        snprintf(err, errlen, "%s: %s", pt_escape(qn, sizeof(qn), rep.error_name ? rep.error_name : "an error"),
                 pt_escape(qm, sizeof(qm), rep.error_message ? rep.error_message : ""));
        r = -1;
    }
    free(buf);
    return r;
}

int pt_sd_start_scope(const char *socket_path, const struct pt_sd_scope *scope, double timeout, char *err,
                      size_t errlen)
{
    double deadline = pt_now() + timeout;
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (strlen(socket_path) >= sizeof(addr.sun_path)) {
        snprintf(err, errlen, "the socket's path is too long");
        return -1;
    }
    memcpy(addr.sun_path, socket_path, strlen(socket_path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        snprintf(err, errlen, "socket: %s", strerror(errno));
        return -1;
    }
    int r = connect(fd, (struct sockaddr *)&addr, sizeof(addr));
    if (r != 0 && errno == EINPROGRESS)
        r = wait_fd(fd, POLLOUT, deadline);
    if (r != 0) {
        char q[PT_QUOTED_MAX];
        snprintf(err, errlen, "cannot connect to \"%s\": %s", pt_escape(q, sizeof(q), socket_path), strerror(errno));
        close(fd);
        return -1;
    }
    r = call(fd, scope, deadline, err, errlen);
    close(fd);
    return r;
}

/*
 * tests/tools/faultproxy.c: a loopback proxy that injects faults, for
 * tests/faults.sh. Two modes.
 *
 * HTTP mode (the Kubernetes API server):
 *
 *   faultproxy --upstream https://127.0.0.1:PORT --ca CA.crt --rules FILE --log FILE
 *
 * Listens on plain HTTP on 127.0.0.1 (a free port, printed on stdout) and
 * sends every request on over TLS (verified against CA.crt, host 127.0.0.1)
 * to the upstream server, headers passed through (Authorization included;
 * Host, Connection and Accept-Encoding rewritten, so bodies stay plain
 * JSON). The upstream answer is read whole (Content-Length, chunked or to
 * EOF) and sent back with a Content-Length of its own, unless a rule says
 * otherwise. One thread per client connection; one upstream TLS connection
 * per client connection.
 *
 * FILE is re-read before every request, so a test can change the faults
 * mid-run; when its content changes, every counter starts again. One rule
 * a line ('#' starts a comment):
 *
 *   METHOD  MATCH  WHICH  ACTION [ARG [ARG]]
 *
 *   METHOD  GET, PATCH, DELETE, POST, PUT or * (any)
 *   MATCH   a substring of the request target (path and query), * for any;
 *           SUB!NOT matches targets holding SUB but not NOT
 *           ("/nodepools/!dryRun": real applies of NodePools)
 *   WHICH   N (the N-th request this rule matches), N+ (the N-th and every
 *           later one), N-M, or * (every one). Every rule counts every
 *           request it matches; the first rule (in file order) whose WHICH
 *           includes its count acts.
 *   ACTION  pass
 *           delay MS            wait MS before sending the request on (when
 *                               the client hung up meanwhile, never sent)
 *           delay-after MS      send it on, wait MS, then answer
 *           status CODE [RA]    answer CODE (a Status body) without sending
 *                               the request on; RA: a Retry-After header
 *           status-after CODE [RA]
 *                               send it on (the server acts on it), then
 *                               answer CODE instead of the server's answer
 *           drop                close the connection, request not sent on
 *           drop-after          send it on, then close without an answer
 *           cut                 send it on; answer the headers and half the
 *                               body, then close (Content-Length: the whole)
 *           truncate            send it on; answer half the body with a
 *                               Content-Length that says so (a short, well
 *                               framed, invalid JSON document)
 *           stall               send it on; answer the headers and half the
 *                               body, then send nothing more (until the
 *                               client hangs up)
 *           hold                wait until the file FILE.go exists (FILE:
 *                               the rules file; at most 600 s, while the
 *                               client stays), then send it on; the test
 *                               sees "-> hold" in LOG, acts, then creates
 *                               FILE.go: a deterministic "something changes
 *                               between the run's LISTs and its first
 *                               DELETE" (DELETE !dryRun 1 hold)
 *           hold-after          send it on, then wait as 'hold' does before
 *                               answering: the server acted on the request
 *                               (with the credentials of that moment) and
 *                               the run is paused until FILE.go exists, so
 *                               the test can act while a run is in its
 *                               middle (holds a run lock, sees a token
 *                               rotated before its next request)
 *           down                the server is gone from here on: this
 *                               request and every later one, whatever the
 *                               rules (until the rules file changes), are
 *                               dropped like 'drop' and never sent on; a
 *                               deterministic "the API server died after
 *                               the N-th write" (PATCH !dryRun N down)
 *           items-empty         send it on; answer the server's List with
 *           items-null          its top-level "items" replaced by [] or
 *                               null (a short LIST, well framed, valid JSON)
 *           no-continue         send it on; answer with metadata.continue
 *                               blanked (a first page without its token)
 *
 * With --listen-cert CERT --listen-key KEY the proxy serves TLS instead of
 * plain HTTP (e.g. the upstream's own certificate, so a client that
 * verifies the server against its CA, like gpuform's in-cluster
 * configuration, can be pointed at the proxy unchanged).
 *
 * LOG gets two lines per request: when it arrives, "req N conn C METHOD
 * TARGET -> ACTION [ARGS]"; when it is done, "res N upstream CODE|-1 sent
 * CODE|none" (or "res N client gone, not sent on", "res N upstream failed").
 *
 * TCP mode (Git servers): a throttled pass-through.
 *
 *   faultproxy --tcp 127.0.0.1:PORT --rate BYTES_PER_S --log FILE
 *
 * Copies bytes both ways, each direction at most BYTES_PER_S, with small
 * socket buffers (32 KiB) so that little is in flight beyond what the log
 * shows, and appends
 * "bytes conn C c2s N s2c M" to LOG every 32 KiB and when a connection ends
 * ("end conn C c2s N s2c M"), so a test can act while a transfer is in
 * flight. SIGUSR1 resets every connection (RST both ways: what the client
 * sees of a server that died), logging "reset conn C c2s N s2c M".
 *
 * Exits on SIGTERM or after --max-seconds (default 600).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#define MAX_HEAD (64u << 10)
#define MAX_BODY (256u << 20)

static FILE *log_file;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static const char *rules_path;
static char up_host[256];
static int up_port;
static SSL_CTX *ssl_ctx;
static SSL_CTX *srv_ctx; /* --listen-cert: TLS to the clients */
static long rate; /* TCP mode: bytes per second per direction */
static int conn_seq, req_seq;
/* SIGUSR1: reset every TCP connection open at that moment */
static volatile sig_atomic_t cut_gen;

static void on_usr1(int sig)
{
	(void)sig;
	cut_gen++;
}

/* reset: close with an RST, as a crashed peer's kernel would */
static void reset_close(int fd)
{
	struct linger l = { 1, 0 };

	setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
	close(fd);
}

/* ---- small helpers ----------------------------------------------------- */

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logf_(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&mu);
	va_start(ap, fmt);
	vfprintf(log_file, fmt, ap);
	va_end(ap);
	fflush(log_file);
	pthread_mutex_unlock(&mu);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

struct buf {
	char *p;
	size_t len, cap;
};

static void b_add(struct buf *b, const void *p, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t c = b->cap ? b->cap : 4096;
		while (c < b->len + n + 1)
			c *= 2;
		b->p = realloc(b->p, c);
		if (!b->p)
			abort();
		b->cap = c;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void b_adds(struct buf *b, const char *s)
{
	b_add(b, s, strlen(s));
}

/* ---- connections: a plain socket, or TLS over one ------------------------ */

struct conn {
	int fd;
	SSL *ssl;
	char in[16384];
	size_t in_off, in_len;
};

static int c_write(struct conn *c, const char *p, size_t n)
{
	while (n) {
		ssize_t w;
		if (c->ssl) {
			int r = SSL_write(c->ssl, p, n > 65536 ? 65536 : (int)n);
			if (r <= 0)
				return -1;
			w = r;
		} else {
			w = send(c->fd, p, n, MSG_NOSIGNAL);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* fill: read more into c->in; 0 ok, -1 EOF or error */
static int c_fill(struct conn *c)
{
	ssize_t r;

	if (c->in_off == c->in_len)
		c->in_off = c->in_len = 0;
	if (c->in_len == sizeof(c->in)) {
		memmove(c->in, c->in + c->in_off, c->in_len - c->in_off);
		c->in_len -= c->in_off;
		c->in_off = 0;
	}
	for (;;) {
		if (c->ssl) {
			int n = SSL_read(c->ssl, c->in + c->in_len,
					 (int)(sizeof(c->in) - c->in_len));
			if (n <= 0)
				return -1;
			r = n;
		} else {
			r = recv(c->fd, c->in + c->in_len,
				 sizeof(c->in) - c->in_len, 0);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				return -1;
		}
		c->in_len += (size_t)r;
		return 0;
	}
}

/* read exactly n bytes into b */
static int c_read_n(struct conn *c, struct buf *b, size_t n)
{
	while (n) {
		size_t have = c->in_len - c->in_off, take;
		if (!have && c_fill(c) < 0)
			return -1;
		have = c->in_len - c->in_off;
		take = have < n ? have : n;
		b_add(b, c->in + c->in_off, take);
		c->in_off += take;
		n -= take;
	}
	return 0;
}

/* read one CRLF-terminated line (without the CRLF) */
static int c_read_line(struct conn *c, struct buf *line)
{
	line->len = 0;
	for (;;) {
		char ch;
		if (c->in_off == c->in_len && c_fill(c) < 0)
			return -1;
		ch = c->in[c->in_off++];
		if (ch == '\n') {
			if (line->len && line->p[line->len - 1] == '\r')
				line->p[--line->len] = '\0';
			if (!line->p)
				b_add(line, "", 0);
			return 0;
		}
		if (line->len > MAX_HEAD)
			return -1;
		b_add(line, &ch, 1);
	}
}

static void c_close(struct conn *c)
{
	if (c->ssl) {
		SSL_free(c->ssl);
		c->ssl = NULL;
	}
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	c->in_off = c->in_len = 0;
}

static int tcp_connect(const char *host, int port)
{
	struct sockaddr_in a;
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	if (fd < 0)
		return -1;
	if (rate > 0) {
		/* throttled: keep the kernel from buffering what the server
		 * sent ahead of us (so stopping it stops the transfer) */
		int sz = 32768;
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	}
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((unsigned short)port);
	if (inet_pton(AF_INET, host, &a.sin_addr) != 1 ||
	    connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		close(fd);
		return -1;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

static int up_connect(struct conn *u)
{
	u->fd = tcp_connect(up_host, up_port);
	if (u->fd < 0)
		return -1;
	u->ssl = SSL_new(ssl_ctx);
	X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(u->ssl), up_host);
	SSL_set_fd(u->ssl, u->fd);
	if (SSL_connect(u->ssl) != 1) {
		ERR_print_errors_fp(stderr);
		c_close(u);
		return -1;
	}
	return 0;
}

/* ---- HTTP messages ----------------------------------------------------- */

/* the end (one past) of the JSON value at b[i] (an array or object:
 * brackets balanced outside strings); 0 when it does not end */
static size_t json_value_end(const char *b, size_t n, size_t i)
{
	int depth = 0, str = 0;

	for (; i < n; i++) {
		char c = b[i];
		if (str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				str = 0;
		} else if (c == '"') {
			str = 1;
		} else if (c == '[' || c == '{') {
			depth++;
		} else if ((c == ']' || c == '}') && --depth == 0) {
			return i + 1;
		}
	}
	return 0;
}

struct msg {
	struct buf start;   /* request or status line */
	struct buf headers; /* "Name: value\r\n"..., framing headers removed */
	struct buf body;
	size_t clen;
	int chunked, has_clen, status;
};

/* items-empty, items-null, no-continue: body rewritten in place */
static void rewrite_list(struct buf *b, const char *action)
{
	const char *key = strcmp(action, "no-continue") ? "\"items\":"
							: "\"continue\":";
	char *at = b->p ? memmem(b->p, b->len, key, strlen(key)) : NULL;
	size_t start, end;
	struct buf out = { NULL, 0, 0 };
	const char *with;

	if (!at)
		return;
	start = (size_t)(at - b->p) + strlen(key);
	if (!strcmp(action, "no-continue")) {
		/* "continue":"TOKEN" -> "continue":"" */
		if (start >= b->len || b->p[start] != '"')
			return;
		end = start + 1;
		while (end < b->len && b->p[end] != '"')
			end++;
		end++;
		with = "\"\"";
	} else {
		end = json_value_end(b->p, b->len, start);
		if (!end)
			return;
		with = strcmp(action, "items-null") ? "[]" : "null";
	}
	b_add(&out, b->p, start);
	b_add(&out, with, strlen(with));
	b_add(&out, b->p + end, b->len - end);
	free(b->p);
	*b = out;
}

static void msg_release(struct msg *m)
{
	free(m->start.p);
	free(m->headers.p);
	free(m->body.p);
	memset(m, 0, sizeof(*m));
}

/*
 * read_head: the start line and headers. Drops framing and hop-by-hop
 * headers (Content-Length, Transfer-Encoding, Connection, Keep-Alive) and,
 * when is_request, Host, Accept-Encoding and Expect.
 */
static int read_head(struct conn *c, struct msg *m, int is_request)
{
	struct buf line = { 0 };
	size_t total = 0;

	if (c_read_line(c, &m->start) < 0)
		goto fail;
	for (;;) {
		if (c_read_line(c, &line) < 0)
			goto fail;
		total += line.len;
		if (total > MAX_HEAD)
			goto fail;
		if (!line.len)
			break;
		if (!strncasecmp(line.p, "content-length:", 15)) {
			m->clen = strtoul(line.p + 15, NULL, 10);
			m->has_clen = 1;
			continue;
		}
		if (!strncasecmp(line.p, "transfer-encoding:", 18)) {
			m->chunked = strcasestr(line.p, "chunked") != NULL;
			continue;
		}
		if (!strncasecmp(line.p, "connection:", 11) ||
		    !strncasecmp(line.p, "keep-alive:", 11))
			continue;
		if (is_request && (!strncasecmp(line.p, "host:", 5) ||
				   !strncasecmp(line.p, "accept-encoding:", 16) ||
				   !strncasecmp(line.p, "expect:", 7)))
			continue;
		b_add(&m->headers, line.p, line.len);
		b_adds(&m->headers, "\r\n");
	}
	free(line.p);
	if (!m->headers.p)
		b_add(&m->headers, "", 0);
	return 0;
fail:
	free(line.p);
	return -1;
}

static int read_body(struct conn *c, struct msg *m, int to_eof)
{
	if (m->chunked) {
		struct buf line = { 0 };
		for (;;) {
			size_t n;
			if (c_read_line(c, &line) < 0)
				goto cfail;
			n = strtoul(line.p, NULL, 16);
			if (n > MAX_BODY || m->body.len + n > MAX_BODY)
				goto cfail;
			if (!n) {
				/* trailers, up to the empty line */
				do {
					if (c_read_line(c, &line) < 0)
						goto cfail;
				} while (line.len);
				break;
			}
			if (c_read_n(c, &m->body, n) < 0 ||
			    c_read_line(c, &line) < 0)
				goto cfail;
		}
		free(line.p);
		return 0;
cfail:
		free(line.p);
		return -1;
	}
	if (m->has_clen) {
		if (m->clen > MAX_BODY)
			return -1;
		return c_read_n(c, &m->body, m->clen);
	}
	if (to_eof) {
		struct buf tmp = { 0 };
		for (;;) {
			size_t have = c->in_len - c->in_off;
			if (have) {
				b_add(&m->body, c->in + c->in_off, have);
				c->in_off = c->in_len;
			}
			if (c_fill(c) < 0)
				break;
		}
		free(tmp.p);
	}
	return 0;
}

/* ---- rules ------------------------------------------------------------- */

#define MAX_RULES 64

struct rule {
	char method[16];
	char match[1024], not_[1024];
	long from, to; /* count range, to = -1: no end */
	char action[32];
	long arg1, arg2;
	long count;
};

static struct rule rules[MAX_RULES];
static int nrules;
static char *rules_text;
static int is_down; /* a 'down' rule acted: drop everything (under mu) */

/* load_rules: re-read the file; new content resets the counters. Under mu. */
static void load_rules(void)
{
	FILE *f = fopen(rules_path, "r");
	struct buf b = { 0 };
	char tmp[4096], *save = NULL, *line;
	size_t n;

	if (f) {
		while ((n = fread(tmp, 1, sizeof(tmp), f)) > 0)
			b_add(&b, tmp, n);
		fclose(f);
	}
	if (!b.p)
		b_add(&b, "", 0);
	if (rules_text && !strcmp(rules_text, b.p)) {
		free(b.p);
		return;
	}
	free(rules_text);
	rules_text = strdup(b.p);
	nrules = 0;
	is_down = 0;
	for (line = strtok_r(b.p, "\n", &save); line && nrules < MAX_RULES;
	     line = strtok_r(NULL, "\n", &save)) {
		struct rule *r = &rules[nrules];
		char which[64], match[1024], *bang, *hash = strchr(line, '#');
		int k;

		if (hash)
			*hash = '\0';
		memset(r, 0, sizeof(*r));
		r->arg1 = r->arg2 = -1;
		k = sscanf(line, "%15s %1023s %63s %31s %ld %ld", r->method,
			   match, which, r->action, &r->arg1, &r->arg2);
		if (k < 4)
			continue;
		bang = strchr(match, '!');
		if (bang) {
			*bang = '\0';
			snprintf(r->not_, sizeof(r->not_), "%s", bang + 1);
		}
		snprintf(r->match, sizeof(r->match), "%s",
			 strcmp(match, "*") ? match : "");
		if (!strcmp(which, "*")) {
			r->from = 1;
			r->to = -1;
		} else if (which[strlen(which) - 1] == '+') {
			r->from = atol(which);
			r->to = -1;
		} else if (strchr(which, '-')) {
			r->from = atol(which);
			r->to = atol(strchr(which, '-') + 1);
		} else {
			r->from = r->to = atol(which);
		}
		nrules++;
	}
	free(b.p);
}

/* pick: the rule that acts on this request (NULL: pass) */
static struct rule pick(const char *method, const char *target)
{
	struct rule chosen;
	int found = 0;

	memset(&chosen, 0, sizeof(chosen));
	snprintf(chosen.action, sizeof(chosen.action), "pass");
	chosen.arg1 = chosen.arg2 = -1;
	pthread_mutex_lock(&mu);
	load_rules();
	if (is_down) {
		snprintf(chosen.action, sizeof(chosen.action), "down");
		pthread_mutex_unlock(&mu);
		return chosen;
	}
	for (int i = 0; i < nrules; i++) {
		struct rule *r = &rules[i];
		if (strcmp(r->method, "*") && strcmp(r->method, method))
			continue;
		if (*r->match && !strstr(target, r->match))
			continue;
		if (*r->not_ && strstr(target, r->not_))
			continue;
		r->count++;
		if (!found && r->count >= r->from &&
		    (r->to < 0 || r->count <= r->to)) {
			chosen = *r;
			found = 1;
		}
	}
	if (found && !strcmp(chosen.action, "down"))
		is_down = 1;
	pthread_mutex_unlock(&mu);
	return chosen;
}

/* ---- one HTTP client connection ------------------------------------------ */

static int send_status(struct conn *c, int code, long retry_after)
{
	char body[256], head[512];
	int bn, hn;

	bn = snprintf(body, sizeof(body),
		      "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
		      "\"status\":\"Failure\",\"message\":\"faultproxy: "
		      "injected %d\",\"code\":%d}",
		      code, code);
	hn = snprintf(head, sizeof(head),
		      "HTTP/1.1 %d Injected\r\nContent-Type: application/json\r\n"
		      "Content-Length: %d\r\n",
		      code, bn);
	if (retry_after >= 0)
		hn += snprintf(head + hn, sizeof(head) - (size_t)hn,
			       "Retry-After: %ld\r\n", retry_after);
	hn += snprintf(head + hn, sizeof(head) - (size_t)hn, "\r\n");
	if (c_write(c, head, (size_t)hn) < 0)
		return -1;
	return c_write(c, body, (size_t)bn);
}

/* send the response with `len` of its body and Content-Length `clen` */
static int send_response(struct conn *c, const struct msg *r, size_t len,
			 size_t clen)
{
	struct buf h = { 0 };
	char cl[64];
	int rc;

	b_add(&h, r->start.p, r->start.len);
	b_adds(&h, "\r\n");
	b_add(&h, r->headers.p, r->headers.len);
	snprintf(cl, sizeof(cl), "Content-Length: %zu\r\n\r\n", clen);
	b_adds(&h, cl);
	rc = c_write(c, h.p, h.len);
	free(h.p);
	if (rc < 0)
		return -1;
	return len ? c_write(c, r->body.p, len) : 0;
}

/* client_gone: the client closed its side (a timeout gave up) */
static int client_gone(struct conn *c)
{
	struct pollfd p = { c->fd, POLLIN, 0 };
	char ch;

	if (poll(&p, 1, 0) <= 0)
		return 0;
	if (p.revents & (POLLHUP | POLLERR))
		return 1;
	return recv(c->fd, &ch, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

/* wait until the client hangs up (at most 120 s) */
static void wait_gone(struct conn *c)
{
	for (int i = 0; i < 1200 && !client_gone(c); i++)
		sleep_ms(100);
}

/* hold_until_go: wait (at most 600 s) until RULES.go exists; 0, or -1 when
 * the client hung up meanwhile */
static int hold_until_go(struct conn *c)
{
	char *go = NULL;

	if (asprintf(&go, "%s.go", rules_path) < 0)
		go = NULL;
	for (long t = 0; go && t < 600000 && !client_gone(c) &&
			 access(go, F_OK) < 0;
	     t += 50)
		sleep_ms(50);
	free(go);
	return client_gone(c) ? -1 : 0;
}

/* forward: send the request upstream and read the whole answer */
static int forward(struct conn *u, const struct msg *q, struct msg *r)
{
	struct buf out = { 0 };
	char hdr[512];
	int rc, is_head;

	if (u->fd < 0 && up_connect(u) < 0)
		return -1;
	b_add(&out, q->start.p, q->start.len);
	b_adds(&out, "\r\n");
	b_add(&out, q->headers.p, q->headers.len);
	snprintf(hdr, sizeof(hdr),
		 "Host: %s:%d\r\nAccept-Encoding: identity\r\n"
		 "Connection: keep-alive\r\nContent-Length: %zu\r\n\r\n",
		 up_host, up_port, q->body.len);
	b_adds(&out, hdr);
	b_add(&out, q->body.p ? q->body.p : "", q->body.len);
	rc = c_write(u, out.p, out.len);
	free(out.p);
	if (rc < 0)
		goto fail;
	do {
		msg_release(r);
		if (read_head(u, r, 0) < 0)
			goto fail;
		r->status = atoi(strchr(r->start.p, ' ') ? strchr(r->start.p, ' ') : "0");
	} while (r->status == 100);
	is_head = !strncmp(q->start.p, "HEAD ", 5);
	if (!is_head && r->status != 204 && r->status != 304 &&
	    read_body(u, r, 1) < 0)
		goto fail;
	if (!r->has_clen && !r->chunked)
		c_close(u); /* read to EOF */
	return 0;
fail:
	c_close(u);
	return -1;
}

static void *http_conn(void *arg)
{
	struct conn c = { (int)(long)arg, NULL, { 0 }, 0, 0 };
	struct conn u = { -1, NULL, { 0 }, 0, 0 };
	int id;

	if (srv_ctx) {
		c.ssl = SSL_new(srv_ctx);
		if (!c.ssl || SSL_set_fd(c.ssl, c.fd) != 1 ||
		    SSL_accept(c.ssl) != 1) {
			c_close(&c);
			return NULL;
		}
	}

	pthread_mutex_lock(&mu);
	id = ++conn_seq;
	pthread_mutex_unlock(&mu);
	for (;;) {
		struct msg q = { 0 }, r = { 0 };
		char method[16] = "", target[4096] = "";
		struct rule a;
		int n, keep = 1;
		long up_code = -1, sent = -1;

		if (read_head(&c, &q, 1) < 0 || read_body(&c, &q, 0) < 0) {
			msg_release(&q);
			break;
		}
		sscanf(q.start.p, "%15s %4095s", method, target);
		a = pick(method, target);
		pthread_mutex_lock(&mu);
		n = ++req_seq;
		pthread_mutex_unlock(&mu);
		{
			char extra[96] = "";
			if (a.arg1 >= 0 && a.arg2 >= 0)
				snprintf(extra, sizeof(extra), " %ld %ld", a.arg1, a.arg2);
			else if (a.arg1 >= 0)
				snprintf(extra, sizeof(extra), " %ld", a.arg1);
			logf_("req %d conn %d %s %s -> %s%s\n", n, id, method,
			      target, a.action, extra);
		}

		if (!strcmp(a.action, "status")) {
			sent = a.arg1;
			if (send_status(&c, (int)a.arg1, a.arg2) < 0)
				keep = 0;
		} else if (!strcmp(a.action, "drop") ||
			   !strcmp(a.action, "down")) {
			keep = 0;
		} else {
			if (!strcmp(a.action, "hold") && hold_until_go(&c) < 0) {
				logf_("res %d client gone, not sent on\n", n);
				msg_release(&q);
				break;
			}
			if (!strcmp(a.action, "delay")) {
				for (long t = 0; t < a.arg1 && !client_gone(&c); t += 50)
					sleep_ms(50);
				if (client_gone(&c)) {
					logf_("res %d client gone, not sent on\n", n);
					msg_release(&q);
					break;
				}
			}
			if (forward(&u, &q, &r) < 0) {
				logf_("res %d upstream failed\n", n);
				msg_release(&q);
				msg_release(&r);
				break;
			}
			up_code = r.status;
			if (!strcmp(a.action, "delay-after"))
				sleep_ms(a.arg1);
			if (!strcmp(a.action, "hold-after") &&
			    hold_until_go(&c) < 0) {
				logf_("res %d upstream %ld client gone, not "
				      "answered\n", n, up_code);
				msg_release(&q);
				msg_release(&r);
				break;
			}
			if (!strcmp(a.action, "status-after")) {
				sent = a.arg1;
				if (send_status(&c, (int)a.arg1, a.arg2) < 0)
					keep = 0;
			} else if (!strcmp(a.action, "drop-after")) {
				keep = 0;
			} else if (!strcmp(a.action, "cut")) {
				sent = r.status;
				send_response(&c, &r, r.body.len / 2, r.body.len);
				keep = 0;
			} else if (!strcmp(a.action, "truncate")) {
				sent = r.status;
				if (send_response(&c, &r, r.body.len / 2,
						  r.body.len / 2) < 0)
					keep = 0;
			} else if (!strcmp(a.action, "items-empty") ||
				   !strcmp(a.action, "items-null") ||
				   !strcmp(a.action, "no-continue")) {
				rewrite_list(&r.body, a.action);
				sent = r.status;
				if (client_gone(&c) ||
				    send_response(&c, &r, r.body.len, r.body.len) < 0)
					keep = 0;
			} else if (!strcmp(a.action, "stall")) {
				sent = r.status;
				if (send_response(&c, &r, r.body.len / 2, r.body.len) == 0)
					wait_gone(&c);
				keep = 0;
			} else {
				sent = r.status;
				if (client_gone(&c) ||
				    send_response(&c, &r, r.body.len, r.body.len) < 0)
					keep = 0;
			}
		}
		if (sent < 0)
			logf_("res %d upstream %ld sent none\n", n, up_code);
		else
			logf_("res %d upstream %ld sent %ld\n", n, up_code, sent);
		msg_release(&q);
		msg_release(&r);
		if (!keep)
			break;
	}
	c_close(&c);
	c_close(&u);
	return NULL;
}

/* ---- TCP mode -------------------------------------------------------------- */

static void *tcp_conn(void *arg)
{
	int c = (int)(long)arg, u, id;
	long long moved[2] = { 0, 0 }, logged = 0;
	struct timespec t0;
	int open_[2] = { 1, 1 };

	int my_gen = cut_gen;

	pthread_mutex_lock(&mu);
	id = ++conn_seq;
	pthread_mutex_unlock(&mu);
	u = tcp_connect(up_host, up_port);
	if (u < 0) {
		logf_("end conn %d upstream refused\n", id);
		close(c);
		return NULL;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (open_[0] || open_[1]) {
		struct pollfd p[2] = { { c, open_[0] ? POLLIN : 0, 0 },
				       { u, open_[1] ? POLLIN : 0, 0 } };
		char buf[8192];
		int pr = poll(p, 2, 100);

		if (cut_gen != my_gen) {
			logf_("reset conn %d c2s %lld s2c %lld\n", id, moved[0], moved[1]);
			reset_close(c);
			reset_close(u);
			return NULL;
		}
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr < 0)
			break;
		for (int d = 0; d < 2; d++) {
			int from = d ? u : c, to = d ? c : u;
			ssize_t r;
			size_t chunk = sizeof(buf);
			if (!(p[d].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (rate > 0 && (long)chunk > rate / 20)
				chunk = (size_t)(rate / 20 > 0 ? rate / 20 : 1);
			r = recv(from, buf, chunk, 0);
			if (r <= 0) {
				/* one side ended: end the other side's writes */
				open_[d] = 0;
				shutdown(to, SHUT_WR);
				if (r < 0 || p[d].revents & POLLERR)
					open_[0] = open_[1] = 0;
				continue;
			}
			if (send(to, buf, (size_t)r, MSG_NOSIGNAL) != r) {
				open_[0] = open_[1] = 0;
				break;
			}
			moved[d] += r;
			if (rate > 0) {
				/* keep each direction at or below rate */
				struct timespec now;
				double el, want = (double)moved[d] / (double)rate;
				clock_gettime(CLOCK_MONOTONIC, &now);
				el = (double)(now.tv_sec - t0.tv_sec) +
				     (double)(now.tv_nsec - t0.tv_nsec) / 1e9;
				if (want > el)
					sleep_ms((long)((want - el) * 1000));
			}
		}
		if (moved[0] + moved[1] - logged >= 32768) {
			logged = moved[0] + moved[1];
			logf_("bytes conn %d c2s %lld s2c %lld\n", id, moved[0], moved[1]);
		}
	}
	logf_("end conn %d c2s %lld s2c %lld\n", id, moved[0], moved[1]);
	close(c);
	close(u);
	return NULL;
}

/* ---- main -------------------------------------------------------------- */

static int parse_hostport(const char *s, const char *scheme)
{
	const char *p = s, *colon;
	size_t n;

	if (scheme) {
		if (strncmp(p, scheme, strlen(scheme)))
			return -1;
		p += strlen(scheme);
	}
	colon = strrchr(p, ':');
	if (!colon)
		return -1;
	n = (size_t)(colon - p);
	if (n >= sizeof(up_host))
		return -1;
	memcpy(up_host, p, n);
	up_host[n] = '\0';
	up_port = atoi(colon + 1);
	return up_port > 0 ? 0 : -1;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: faultproxy --upstream https://HOST:PORT --ca FILE --rules FILE --log FILE\n"
		"                  [--listen-cert CERT --listen-key KEY]\n"
		"       faultproxy --tcp HOST:PORT [--rate BYTES_PER_S] --log FILE\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *upstream = NULL, *ca = NULL, *log_path = NULL, *tcp = NULL;
	const char *lcert = NULL, *lkey = NULL;
	long max_seconds = 600;
	struct sockaddr_in a;
	socklen_t alen = sizeof(a);
	int s, one = 1;
	pthread_attr_t attr;

	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!v)
			usage();
		if (!strcmp(argv[i], "--upstream"))
			upstream = v;
		else if (!strcmp(argv[i], "--ca"))
			ca = v;
		else if (!strcmp(argv[i], "--rules"))
			rules_path = v;
		else if (!strcmp(argv[i], "--log"))
			log_path = v;
		else if (!strcmp(argv[i], "--tcp"))
			tcp = v;
		else if (!strcmp(argv[i], "--rate"))
			rate = atol(v);
		else if (!strcmp(argv[i], "--listen-cert"))
			lcert = v;
		else if (!strcmp(argv[i], "--listen-key"))
			lkey = v;
		else if (!strcmp(argv[i], "--max-seconds"))
			max_seconds = atol(v);
		else
			usage();
		i++;
	}
	if (!log_path || (!tcp && (!upstream || !ca || !rules_path)))
		usage();
	if (tcp ? parse_hostport(tcp, NULL) : parse_hostport(upstream, "https://")) {
		fprintf(stderr, "faultproxy: bad upstream address\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	signal(SIGUSR1, on_usr1);
	alarm((unsigned)max_seconds);
	log_file = fopen(log_path, "a");
	if (!log_file) {
		perror(log_path);
		return 1;
	}
	if (!tcp) {
		ssl_ctx = SSL_CTX_new(TLS_client_method());
		if (!ssl_ctx || SSL_CTX_load_verify_locations(ssl_ctx, ca, NULL) != 1) {
			ERR_print_errors_fp(stderr);
			return 1;
		}
		SSL_CTX_set_verify(ssl_ctx, SSL_VERIFY_PEER, NULL);
	}
	if (!tcp && (lcert || lkey)) {
		srv_ctx = SSL_CTX_new(TLS_server_method());
		if (!srv_ctx || !lcert || !lkey ||
		    SSL_CTX_use_certificate_chain_file(srv_ctx, lcert) != 1 ||
		    SSL_CTX_use_PrivateKey_file(srv_ctx, lkey,
						SSL_FILETYPE_PEM) != 1) {
			ERR_print_errors_fp(stderr);
			return 1;
		}
	}
	s = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(s, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(s, 64) < 0 ||
	    getsockname(s, (struct sockaddr *)&a, &alen) < 0) {
		perror("faultproxy");
		return 1;
	}
	printf("%d\n", ntohs(a.sin_port));
	fflush(stdout);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	for (;;) {
		pthread_t t;
		int c = accept(s, NULL, NULL);
		if (c < 0) {
			if (errno == EINTR)
				continue;
			return 1;
		}
		setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (rate > 0) {
			int sz = 32768;
			setsockopt(c, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
			setsockopt(c, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
		}
		if (pthread_create(&t, &attr, tcp ? tcp_conn : http_conn,
				   (void *)(long)c) != 0)
			close(c);
	}
}

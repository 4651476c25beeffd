/*
 * tests/tools/faultsrv.c: a loopback HTTP/1.1 server that misbehaves on
 * cue, for the retry/timeout tests of kube/kube.c.
 *
 *   faultsrv LOGFILE STEP...
 *
 * Listens on 127.0.0.1 (a free port), prints the port on stdout and then
 * answers one request per STEP, in order:
 *   503 | 429 | 500 ...   that status with a Status body
 *   503:N                 the same with "Retry-After: N"
 *   close                 closes the connection without an answer
 *   hang                  never answers (until the client goes away)
 *   big                   200 with a body of 2 MiB
 * and after the steps, 200 with a small APIResourceList (what discovery of
 * "v1" wants: ConfigMap). Connections are kept alive. LOGFILE gets
 * "conn N" for every accepted connection and "req METHOD PATH auth=yes|no"
 * for every request. Exits on SIGTERM or after 120 s.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

static const char discovery[] =
	"{\"kind\":\"APIResourceList\",\"groupVersion\":\"v1\",\"resources\":"
	"[{\"name\":\"configmaps\",\"singularName\":\"\",\"namespaced\":true,"
	"\"kind\":\"ConfigMap\",\"verbs\":[\"get\",\"list\"]},"
	"{\"name\":\"configmaps/status\",\"singularName\":\"\",\"namespaced\":"
	"true,\"kind\":\"ConfigMap\",\"verbs\":[\"get\"]}]}";

static FILE *log_file;

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int respond(int fd, int status, int retry_after, const char *body,
		   size_t len)
{
	char head[512];
	int n = snprintf(head, sizeof(head),
			 "HTTP/1.1 %d X\r\nContent-Type: application/json\r\n"
			 "Content-Length: %zu\r\n",
			 status, len);
	if (retry_after >= 0)
		n += snprintf(head + n, sizeof(head) - (size_t)n,
			      "Retry-After: %d\r\n", retry_after);
	n += snprintf(head + n, sizeof(head) - (size_t)n, "\r\n");
	if (write_all(fd, head, (size_t)n) < 0)
		return -1;
	return write_all(fd, body, len);
}

/* read one request (headers + Content-Length body); 0 ok, -1 closed */
static int read_request(int fd, char *method, char *path, int *auth)
{
	static char buf[1 << 20];
	size_t len = 0, clen = 0, hend;
	char *e, *cl;

	for (;;) {
		ssize_t r;
		buf[len] = '\0';
		if ((e = strstr(buf, "\r\n\r\n")))
			break;
		if (len + 1 >= sizeof(buf))
			return -1;
		r = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		len += (size_t)r;
	}
	hend = (size_t)(e - buf) + 4;
	if (sscanf(buf, "%15s %1023s", method, path) != 2)
		return -1;
	*auth = strstr(buf, "\nAuthorization: Bearer ") != NULL ||
		strstr(buf, "\nauthorization: Bearer ") != NULL;
	for (cl = buf; (cl = strchr(cl, '\n'));) {
		cl++;
		if (!strncasecmp(cl, "Content-Length:", 15)) {
			clen = strtoul(cl + 15, NULL, 10);
			break;
		}
	}
	/* drain the body */
	while (len - hend < clen) {
		char tmp[65536];
		ssize_t r = read(fd, tmp, sizeof(tmp));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		len += (size_t)r;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a;
	socklen_t alen = sizeof(a);
	int s, one = 1, step = 2, conns = 0;
	static const char status_body[] =
		"{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":"
		"\"Failure\",\"message\":\"the server is taking a break\","
		"\"code\":0}";

	if (argc < 2) {
		fprintf(stderr, "usage: faultsrv LOGFILE STEP...\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	alarm(120);
	log_file = fopen(argv[1], "w");
	if (!log_file)
		return 1;
	setvbuf(log_file, NULL, _IOLBF, 0);
	s = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = 0;
	if (bind(s, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(s, 8) < 0 ||
	    getsockname(s, (struct sockaddr *)&a, &alen) < 0) {
		perror("faultsrv");
		return 1;
	}
	printf("%d\n", ntohs(a.sin_port));
	fflush(stdout);
	for (;;) {
		int c = accept(s, NULL, NULL);
		if (c < 0) {
			if (errno == EINTR)
				continue;
			return 1;
		}
		fprintf(log_file, "conn %d\n", ++conns);
		for (;;) {
			char method[16], path[1024];
			const char *st;
			int auth = 0;

			if (read_request(c, method, path, &auth) < 0)
				break;
			fprintf(log_file, "req %s %s auth=%s\n", method, path,
				auth ? "yes" : "no");
			st = step < argc ? argv[step++] : "200";
			if (!strcmp(st, "close")) {
				break;
			} else if (!strcmp(st, "hang")) {
				struct pollfd p = { c, POLLIN, 0 };
				char tmp[256];
				/* until the client gives up and closes */
				while (poll(&p, 1, 60000) > 0 &&
				       read(c, tmp, sizeof(tmp)) > 0)
					;
				break;
			} else if (!strcmp(st, "big")) {
				size_t n = 2u << 20;
				char *b = malloc(n);
				memset(b, ' ', n);
				memcpy(b, "{\"x\":1}", 7);
				if (respond(c, 200, -1, b, n) < 0) {
					free(b);
					break;
				}
				free(b);
			} else if (!strcmp(st, "200")) {
				if (respond(c, 200, -1, discovery,
					    sizeof(discovery) - 1) < 0)
					break;
			} else {
				int code = atoi(st), ra = -1;
				const char *colon = strchr(st, ':');
				if (colon)
					ra = atoi(colon + 1);
				if (respond(c, code, ra, status_body,
					    sizeof(status_body) - 1) < 0)
					break;
			}
		}
		close(c);
	}
}

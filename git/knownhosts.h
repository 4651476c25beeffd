/*
 * git/knownhosts.h: is an SSH host key listed in a known_hosts file?
 */
#ifndef GIT_KNOWNHOSTS_H
#define GIT_KNOWNHOSTS_H

#include <stddef.h>

#include "util/err.h"

/*
 * knownhosts_check: is (host, port, key) listed in the known_hosts file?
 * 0 if so; otherwise -1 with ERR_AUTH and the reason (not listed, another
 * key listed, @revoked; the key's type and SHA256 fingerprint in the
 * message). Lines are "[@marker] hostpatterns keytype base64key
 * [comment]"; host patterns use OpenSSH's '*', '?' and '!' and the hashed
 * form |1|salt|hash; @revoked keys are refused, @cert-authority lines
 * ignored (host certificates are not supported). The name looked up is
 * "host" for port 22, else "[host]:port". file NULL: -1 (set
 * GPUFORM_GIT_SSH_KNOWN_HOSTS or HOME).
 */
int knownhosts_check(const char *file, const char *host, int port,
		     const unsigned char *key, size_t keylen, struct err *err);

#endif

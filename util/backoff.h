/*
 * util/backoff.h: jittered exponential backoff, the one definition for
 * every retry loop (the Kubernetes client, the AWS client, commit/push).
 *
 * The delay before retry n (n = 1, 2, ...) is d = base * 2^(n-1), at most
 * cap, jittered uniformly between d/2 and d ("equal jitter"), so clients
 * retrying together spread out. The random numbers are for jitter only,
 * not for security.
 */
#ifndef UTIL_BACKOFF_H
#define UTIL_BACKOFF_H

#include <stdint.h>

/* backoff_seed: a jitter seed from the clock and the process id, never 0;
 * `salt` tells several generators of one process apart (an address) */
uint64_t backoff_seed(uint64_t salt);

/* backoff_delay_ms: the delay before retry `n` (1-based); cap_ms <= 0 for
 * no cap. Advances *rng. */
long long backoff_delay_ms(long long base_ms, long long cap_ms, int n,
			   uint64_t *rng);

/* backoff_sleep_ms: sleep ms milliseconds, resuming after signals */
void backoff_sleep_ms(long long ms);

#endif

/* util/backoff.c: jittered exponential backoff (see backoff.h). */
#include "util/backoff.h"

#include <errno.h>
#include <time.h>
#include <unistd.h>

uint64_t backoff_seed(uint64_t salt)
{
	struct timespec ts;
	uint64_t s;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	s = ((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec) *
		    6364136223846793005ull ^
	    (uint64_t)getpid() ^ salt;
	return s ? s : 88172645463325252ull;
}

/* xorshift64*: jitter only, not security */
static uint64_t next_rand(uint64_t *s)
{
	if (!*s)
		*s = 88172645463325252ull;
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

long long backoff_delay_ms(long long base_ms, long long cap_ms, int n,
			   uint64_t *rng)
{
	long long d = base_ms;

	for (int i = 1; i < n && (cap_ms <= 0 || d < cap_ms); i++)
		d *= 2;
	if (cap_ms > 0 && d > cap_ms)
		d = cap_ms;
	if (d <= 1)
		return d / 2;
	return d / 2 + (long long)(next_rand(rng) % (uint64_t)(d / 2 + 1));
}

void backoff_sleep_ms(long long ms)
{
	struct timespec ts = { (time_t)(ms / 1000),
			       (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

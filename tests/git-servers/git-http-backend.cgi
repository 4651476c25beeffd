#!/bin/sh
# tests/git-servers/git-http-backend.cgi: the CGI lighttpd runs; git http-backend, with
# one test hook: while $GS_CONTROL/slow-upload-pack (or slow-receive-pack) exists, a
# POST to that service writes $GS_CONTROL/hit-<service> and waits (up to 30 s) before
# answering, so a test can stop the server in the middle of a fetch or a push. Removing
# the file lets the request go on.
case "${REQUEST_METHOD:-} ${PATH_INFO:-}" in
"POST "*/git-upload-pack) svc=upload-pack ;;
"POST "*/git-receive-pack) svc=receive-pack ;;
*) svc= ;;
esac
if [ -n "$svc" ] && [ -n "${GS_CONTROL:-}" ] && [ -f "$GS_CONTROL/slow-$svc" ]; then
	echo $$ >"$GS_CONTROL/hit-$svc"
	i=0
	while [ -f "$GS_CONTROL/slow-$svc" ] && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
fi
exec "${GS_BACKEND:-/usr/lib/git-core/git-http-backend}"

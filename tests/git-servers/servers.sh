# tests/git-servers/servers.sh: start and stop the real Git servers tests/git.sh talks to.
# Source it from bash; it runs nothing by itself. Everything listens on 127.0.0.1 only,
# every wait is bounded, and the caller stops what it started (t_on_exit).
#
#   gs_http_start DIR USER PASSWORD
#       lighttpd (lighttpd.conf.in) running git http-backend (git-http-backend.cgi) with
#       basic authentication (USER:PASSWORD in DIR/users), serving the bare repositories
#       in DIR/repos as http://127.0.0.1:$GS_HTTP_PORT/git/NAME.git. Sets GS_HTTP_PORT
#       and GS_HTTP_PID. If GS_HTTP_PORT is already set (a restart), that port is reused,
#       unless another process took it while the server was down: then it moves to a new
#       port (said on stderr), so read GS_HTTP_PORT after every start. Ready means this
#       lighttpd answered a GET of DIR/www/gs-ready with the token written for this start
#       (not just "something accepts on the port", which another server would satisfy).
#   gs_http_stop DIR
#       stop it (TERM, then KILL after 5 s), kill any request parked by the slow-*
#       hooks of git-http-backend.cgi (so it never reaches git), remove the hooks.
#   gs_ssh_start DIR
#       sshd (sshd_config.in) with its own ed25519 host key, public-key authentication
#       only, for the current user. Creates DIR/client_key (+ .pub, authorized) and
#       DIR/known_hosts ("[127.0.0.1]:PORT ssh-ed25519 ..."). Sets GS_SSH_PORT, GS_SSH_PID.
#   gs_ssh_stop DIR
#   gs_wait_port PORT [TENTHS]   wait (default 10 s) until 127.0.0.1:PORT accepts
#
# sshd needs its privilege-separation directory /run/sshd; gs_ssh_start creates it when
# it is missing (as the Debian service would), which needs root.

GS_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

gs_listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

gs_pick_port() {
	local p i
	for ((i = 0; i < 50; i++)); do
		p=$((20000 + RANDOM % 40000))
		gs_listening "$p" || { echo "$p"; return 0; }
	done
	return 1
}

gs_wait_port() {
	local i
	for ((i = 0; i < ${2:-100}; i++)); do
		gs_listening "$1" && return 0
		sleep 0.1
	done
	return 1
}

# gs_kill PID: TERM, wait up to 5 s, then KILL; reaps it when it is our child
gs_kill() {
	local pid=$1 i
	[[ -n $pid ]] || return 0
	kill "$pid" 2>/dev/null || return 0
	for ((i = 0; i < 50; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	return 0
}

# gs_http_ours PORT TOKEN: 127.0.0.1:PORT serves /gs-ready with TOKEN (our lighttpd)
gs_http_ours() {
	local r
	r=$( (exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
		printf 'GET /gs-ready HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3
		timeout 2 cat <&3) 2>/dev/null)
	[[ $r == *"$2"* ]]
}

# gs_wait_ours PORT TOKEN PID [TENTHS]: wait (default 10 s) until PID's server answers
# with TOKEN; gives up at once when PID is gone (e.g. it could not bind the port)
gs_wait_ours() {
	local i
	for ((i = 0; i < ${4:-100}; i++)); do
		gs_http_ours "$1" "$2" && return 0
		kill -0 "$3" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

gs_http_start() {
	local dir=$1 port backend token
	backend=$(git --exec-path)/git-http-backend
	[[ -x $backend ]] || { echo "gs_http_start: no $backend" >&2; return 1; }
	command -v lighttpd >/dev/null || { echo "gs_http_start: lighttpd is not installed" >&2; return 1; }
	mkdir -p "$dir/repos" "$dir/www" "$dir/control" || return 1
	cp "$GS_HERE/git-http-backend.cgi" "$dir/git-http-backend.cgi" || return 1
	chmod 0755 "$dir/git-http-backend.cgi"
	printf '%s:%s\n' "$2" "$3" >"$dir/users"
	for _ in 1 2 3 4 5; do
		port=${GS_HTTP_PORT:-$(gs_pick_port)} || return 1
		token=gs-ready-$$-$RANDOM$RANDOM
		printf '%s\n' "$token" >"$dir/www/gs-ready"
		sed -e "s|@DIR@|$dir|g" -e "s|@PORT@|$port|g" -e "s|@BACKEND@|$backend|g" \
			"$GS_HERE/lighttpd.conf.in" >"$dir/lighttpd.conf"
		lighttpd -D -f "$dir/lighttpd.conf" >>"$dir/lighttpd.out" 2>&1 &
		GS_HTTP_PID=$!
		if gs_wait_ours "$port" "$token" "$GS_HTTP_PID" 100 && kill -0 "$GS_HTTP_PID" 2>/dev/null; then
			GS_HTTP_PORT=$port
			return 0
		fi
		gs_kill "$GS_HTTP_PID"
		GS_HTTP_PID=
		if [[ -n ${GS_HTTP_PORT:-} ]] && gs_listening "$GS_HTTP_PORT"; then
			# a restart, and someone else answers on the old port: never talk to it
			echo "gs_http_start: 127.0.0.1:$GS_HTTP_PORT is taken by another process; moving to a new port" >&2
			unset GS_HTTP_PORT
		elif [[ -n ${GS_HTTP_PORT:-} ]]; then
			sleep 0.5 # a restart: wait for the same port
		fi
	done
	echo "gs_http_start: lighttpd did not start:" >&2
	tail -n 5 "$dir/lighttpd.out" "$dir/error.log" >&2 2>/dev/null
	return 1
}

gs_http_stop() {
	local dir=$1 f pid
	gs_kill "${GS_HTTP_PID:-}"
	GS_HTTP_PID=
	# requests parked by the slow-* hook die with the server, before they could go on
	for f in "$dir"/control/hit-*; do
		[[ -f $f ]] || continue
		pid=$(cat "$f")
		# only if that process is still the parked CGI (never a reused PID)
		if [[ $pid =~ ^[0-9]+$ ]] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null |
			grep -q 'git-http-backend'; then
			gs_kill "$pid"
		fi
		rm -f "$f"
	done
	rm -f "$dir"/control/slow-* 2>/dev/null
	return 0
}

gs_ssh_start() {
	local dir=$1 port user
	user=$(id -un)
	[[ -x /usr/sbin/sshd ]] || { echo "gs_ssh_start: /usr/sbin/sshd is not installed" >&2; return 1; }
	mkdir -p "$dir" || return 1
	if [[ ! -d /run/sshd ]]; then
		mkdir -m 0755 /run/sshd || { echo "gs_ssh_start: cannot create /run/sshd" >&2; return 1; }
	fi
	[[ -f $dir/ssh_host_ed25519_key ]] ||
		ssh-keygen -q -t ed25519 -N '' -C gpuform-test-host -f "$dir/ssh_host_ed25519_key" || return 1
	[[ -f $dir/client_key ]] ||
		ssh-keygen -q -t ed25519 -N '' -C gpuform-test-client -f "$dir/client_key" || return 1
	cp "$dir/client_key.pub" "$dir/authorized_keys"
	for _ in 1 2 3 4 5; do
		port=${GS_SSH_PORT:-$(gs_pick_port)} || return 1
		sed -e "s|@DIR@|$dir|g" -e "s|@PORT@|$port|g" -e "s|@USER@|$user|g" \
			"$GS_HERE/sshd_config.in" >"$dir/sshd_config"
		/usr/sbin/sshd -D -f "$dir/sshd_config" -E "$dir/sshd.log" &
		GS_SSH_PID=$!
		if gs_wait_port "$port" 50 && kill -0 "$GS_SSH_PID" 2>/dev/null; then
			GS_SSH_PORT=$port
			printf '[127.0.0.1]:%s %s\n' "$port" "$(cut -d' ' -f1,2 "$dir/ssh_host_ed25519_key.pub")" \
				>"$dir/known_hosts"
			return 0
		fi
		gs_kill "$GS_SSH_PID"
		GS_SSH_PID=
	done
	echo "gs_ssh_start: sshd did not start:" >&2
	tail -n 5 "$dir/sshd.log" >&2 2>/dev/null
	return 1
}

gs_ssh_stop() {
	gs_kill "${GS_SSH_PID:-}"
	GS_SSH_PID=
	return 0
}

# Sourced by the run scripts: `stop PID…` sends SIGTERM to what a script started, waits up to 5 s
# for each, then SIGKILLs (and says so) any still there. By PID only.
stop() {
  for pid in "$@"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "$@"; do
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then
      echo "$(basename "$0"): pid $pid did not exit within 5 s of SIGTERM; killed" >&2
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
}

#!/usr/bin/env bash
# Starts the real binary under Xvfb (no display or GPU needed: Mesa draws in
# software), waits for its "AMT Studio" window, saves a screenshot of the
# screen (xwd, converted by scripts/xwd2png), then asks the app to quit
# (SIGTERM) and requires a clean exit. Prints the time from start to window.
# Usage: scripts/xvfb-smoke.sh BIN OUT.png
set -euo pipefail
bin=${1:?binary}; out=${2:?output png}
here=$(cd "$(dirname "$0")" && pwd)
disp=:$((90 + RANDOM % 100))
Xvfb "$disp" -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 &
xvfb=$!
app=
trap 'kill $xvfb 2>/dev/null || true; [[ -n "$app" ]] && kill -9 $app 2>/dev/null || true' EXIT
for _ in $(seq 50); do xwininfo -root -display "$disp" >/dev/null 2>&1 && break; sleep 0.1; done
log=$(mktemp)
start=$(date +%s.%N)
DISPLAY=$disp LANG=en_US.UTF-8 "$bin" >"$log" 2>&1 &
app=$!
found=0
for _ in $(seq 150); do
  if xwininfo -root -tree -display "$disp" 2>/dev/null | grep -q '"AMT Studio"'; then found=1; break; fi
  sleep 0.05
done
shown=$(date +%s.%N)
if (( !found )); then echo "smoke: no 'AMT Studio' window appeared on $disp" >&2; cat "$log" >&2; exit 1; fi
sleep 1.5 # let it draw
DISPLAY=$disp xwd -root -silent >"$out.xwd"
go run "$here/xwd2png" "$out.xwd" "$out"
rm -f "$out.xwd"
kill -TERM $app
for _ in $(seq 100); do kill -0 $app 2>/dev/null || break; sleep 0.05; done
if kill -0 $app 2>/dev/null; then echo "smoke: the app did not quit on SIGTERM" >&2; cat "$log" >&2; exit 1; fi
if ! wait $app; then echo "smoke: the app exited with an error" >&2; cat "$log" >&2; exit 1; fi
app=
printf 'smoke: window appeared %.2fs after start; screenshot %s; clean exit\n' "$(awk "BEGIN{print $shown - $start}")" "$out"

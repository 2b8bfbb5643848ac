#!/usr/bin/env bash
# Measures the idle CPU of the real window: starts BIN under Xvfb with an
# empty data directory (or AMT_HOME if set) on each named screen
# (AMT_SCREEN), waits for the window and SETTLE seconds, then reads
# utime+stime of the process from /proc/PID/stat over SECS seconds and
# prints the share of one core.
# Usage: scripts/idle-cpu.sh BIN [SECS] [SCREENS...]   (default 20 s, all four)
set -euo pipefail
bin=${1:?binary}; secs=${2:-20}; shift $(( $# >= 2 ? 2 : 1 ))
screens=("$@"); (( ${#screens[@]} )) || screens=(compose datasets training settings)
settle=${SETTLE:-3}
tck=$(getconf CLK_TCK)
disp=:$((200 + RANDOM % 100))
Xvfb "$disp" -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 &
xvfb=$!
app=
home=
trap 'kill $xvfb 2>/dev/null || true; [[ -n "$app" ]] && kill $app 2>/dev/null || true; [[ -n "$home" ]] && rm -rf "$home"' EXIT
for _ in $(seq 50); do xwininfo -root -display "$disp" >/dev/null 2>&1 && break; sleep 0.1; done
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
for scr in "${screens[@]}"; do
  home=${AMT_HOME:-$(mktemp -d)}
  DISPLAY=$disp AMT_HOME=$home AMT_SCREEN=$scr LANG=en_US.UTF-8 "$bin" >"${LOG:-/dev/null}" 2>&1 &
  app=$!
  for _ in $(seq 200); do
    xwininfo -root -tree -display "$disp" 2>/dev/null | grep -q '"AMT Studio"' && break; sleep 0.05
  done
  sleep "$settle"
  t0=$(ticks $app); s0=$(date +%s.%N)
  sleep "$secs"
  t1=$(ticks $app); s1=$(date +%s.%N)
  kill -TERM $app; wait $app || true; app=
  [[ -z "${AMT_HOME:-}" ]] && rm -rf "$home"; home=
  awk -v a="$t0" -v b="$t1" -v s0="$s0" -v s1="$s1" -v t="$tck" -v n="$scr" \
    'BEGIN{printf "idle %-9s %5.2f%% of a core (%d ticks in %.1f s)\n", n, 100*(b-a)/t/(s1-s0), b-a, s1-s0}'
done

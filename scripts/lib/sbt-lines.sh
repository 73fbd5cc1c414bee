# Sourced by scripts/build-jar and scripts/test-jars: runs sbt tasks for several Spark
# lines in ONE sbt JVM (sbt's `++` cannot switch Spark releases, so each line sets
# -DsparkVersion/-DscalaBinary/-DsparkRuntime through `eval` and `reload`s the build;
# a warm JVM compiles the next line in about half the time of a fresh one).
#
#   run_segments LOG SEGMENT...      SEGMENT = "LINE[+LABEL];RUNTIME;TASK;TASK..." (RUNTIME may be empty)
#
# A segment on the same line and runtime as the one before it runs in that build as it is (no
# reload), so it must undo any `set` it makes (scripts/test-jars' other-JVM runs do).
#
# Prints "[<tag>] <segment>: ok <seconds> s" or "FAILED" per segment (tag: $SEGMENT_TAG);
# with KEEP_GOING=1 a failed segment does not stop the later ones (a new sbt starts
# after it). Returns non-zero when any segment failed. Sets SEGMENTS_FAILED.

_segment_name() { local IFS=';'; local p=($1); echo "${p[0]}${p[1]:+@${p[1]}}"; }

# Runs the segments in one sbt; prints their results; returns the index of the first
# segment not finished (== count when all passed) through the global _next.
_run_once() {
  local log=$1; shift
  local cmds=() first=1 sysprops=() i=0 seg parts line rt prev=""
  for seg in "$@"; do
    IFS=';' read -r -a parts <<< "$seg"
    line=${parts[0]%%+*}; rt=${parts[1]:-}
    cmds+=("eval \"ubunye-mark start $i \" + System.currentTimeMillis")
    if [ $first = 1 ]; then
      sysprops=(-DsparkVersion="${line%_*}" -DscalaBinary="${line#*_}")
      [ -n "$rt" ] && sysprops+=(-DsparkRuntime="$rt")
      first=0
    elif [ "$line;$rt" = "$prev" ]; then
      :  # the same line and runtime as the segment before: its build as loaded (no reload)
    else
      cmds+=("eval System.setProperty(\"sparkVersion\", \"${line%_*}\")"
             "eval System.setProperty(\"scalaBinary\", \"${line#*_}\")")
      if [ -n "$rt" ]; then cmds+=("eval System.setProperty(\"sparkRuntime\", \"$rt\")")
      else cmds+=("eval System.clearProperty(\"sparkRuntime\")"); fi
      cmds+=(reload)
    fi
    cmds+=("${parts[@]:2}")
    prev="$line;$rt"
    i=$((i + 1))
  done
  cmds+=("eval \"ubunye-mark start $i \" + System.currentTimeMillis")
  local rc=0
  scripts/sbt "${sysprops[@]}" "${cmds[@]}" </dev/null >>"$log" 2>&1 || rc=$?
  # The markers: "ans: String = ubunye-mark start <i> <millis>".
  local marks
  marks=$(sed -n 's/.*ans: String = ubunye-mark start \([0-9]*\) \([0-9]*\).*/\1 \2/p' "$log" | tail -n $((${#@} + 1)))
  local prev_i="" prev_t="" idx t
  _next=0
  while read -r idx t; do
    [ -z "$idx" ] && continue
    if [ -n "$prev_i" ] && [ "$idx" = $((prev_i + 1)) ]; then
      echo "[$SEGMENT_TAG] $(_segment_name "${@:$((prev_i + 1)):1}"): ok $(( (t - prev_t + 500) / 1000 )) s"
      _next=$idx
    fi
    prev_i=$idx; prev_t=$t
  done <<< "$marks"
  if [ $_next -lt $# ]; then
    local now; now=$(date +%s%3N)
    local since=${prev_t:-$now}
    echo "[$SEGMENT_TAG] $(_segment_name "${@:$((_next + 1)):1}"): FAILED after $(( (now - since + 500) / 1000 )) s (log: $log)"
  fi
  return $rc
}

run_segments() {
  local log=$1; shift
  local segs=("$@") start
  SEGMENTS_FAILED=()
  : >"$log"
  while [ ${#segs[@]} -gt 0 ]; do
    start=$(date +%s)
    # A fresh log section per sbt run, so markers of an earlier run are not re-read.
    local part="$log.part"
    : >"$part"
    _run_once "$part" "${segs[@]}" || true
    cat "$part" >>"$log"; rm -f "$part"
    if [ $_next -ge ${#segs[@]} ]; then break; fi
    SEGMENTS_FAILED+=("$(_segment_name "${segs[$_next]}")")
    [ "${KEEP_GOING:-0}" = 1 ] || return 1
    segs=("${segs[@]:$((_next + 1))}")
  done
  [ ${#SEGMENTS_FAILED[@]} -eq 0 ]
}

# Sourced by scripts/check-wheel: python_for X.Y prints an interpreter of Python X.Y that runs.
# A pyenv shim on PATH for a version pyenv has not selected exits 127, so each candidate is
# asked for its version: pythonX.Y on PATH, then pyenv's installed X.Y.* (newest first).
# Fails (status 1, nothing printed) when none answers X.Y.
#   python_for 3.12      # e.g. /root/.pyenv/versions/3.12.1/bin/python
python_for() {
  local want=$1 c
  local candidates=("$(command -v "python$want" || true)")
  while IFS= read -r c; do candidates+=("$c"); done < <(
    ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$want".*/bin/python 2>/dev/null | sort -rV)
  for c in "${candidates[@]}"; do
    [ -n "$c" ] && [ -x "$c" ] || continue
    if [ "$("$c" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)" = "$want" ]; then
      echo "$c"
      return 0
    fi
  done
  return 1
}

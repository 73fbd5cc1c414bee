# Sourced by scripts/setup, scripts/spark-venv and scripts/check-wheel: pyspark is published
# as a source archive only, so every install builds it (a minute and ~1.5 GB of cache each,
# and the installers' caches keep a new build per cache revision). Each pyspark release is
# built ONCE into a wheel cache outside the checkout that later runs and fresh clones reuse:
#   ${UBUNYE_WHEELHOUSE:-~/.cache/ubunye/wheelhouse}/pyspark-<version>-py2.py3-none-any.whl
#   pyspark_wheel 3.5.0      # builds it when missing; prints the wheel's path
# Installers are then pointed at the wheel file itself, so no build happens again.
WHEELHOUSE=${UBUNYE_WHEELHOUSE:-${XDG_CACHE_HOME:-$HOME/.cache}/ubunye/wheelhouse}

pyspark_wheel() {
  local version=$1 py=${PYTHON:-python3} found tmp
  mkdir -p "$WHEELHOUSE"
  found=$(ls "$WHEELHOUSE"/pyspark-"$version"-*.whl 2>/dev/null | head -n 1 || true)
  if [ -z "$found" ]; then
    local start; start=$(date +%s)
    tmp=$(mktemp -d "$WHEELHOUSE/.build-$version.XXXX")
    # Built in a temporary folder and moved in whole: a run stopped half way leaves no
    # half-written wheel that a later run would take.
    # Stored, not deflated: the wheel is mostly jars, which are zip files already. Built from
    # the downloaded source of pyspark 4.2.0 here: 29.6 s deflated, 14.0 s stored (9% larger).
    "$py" -m pip wheel -q --no-deps --no-cache-dir -C--build-option=--compression=stored \
      -w "$tmp" "pyspark==$version" >&2
    found=$(ls "$tmp"/pyspark-"$version"-*.whl | head -n 1)
    mv "$found" "$WHEELHOUSE/"
    rm -rf "$tmp"
    found=$WHEELHOUSE/$(basename "$found")
    echo "[wheelhouse] built pyspark $version once into $WHEELHOUSE ($(( $(date +%s) - start )) s)" >&2
  fi
  echo "$found"
}

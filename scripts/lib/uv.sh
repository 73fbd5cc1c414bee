# Sourced by scripts/spark-venv and scripts/check-wheel: uv, a fast installer, in .tools/uv
# (installed once with pip). Sets `uv` to its path, or to "" when INSTALLER=pip or it cannot be
# had (the callers then use pip). Installed under a lock, so runs side by side (scripts/test makes
# the per-line environments in the background beside check-wheel) never build it twice at once.
uv=""
if [ "${INSTALLER:-uv}" = uv ]; then
  mkdir -p .tools
  (
    flock 9
    if [ ! -x .tools/uv/bin/uv ]; then
      rm -rf .tools/uv
      "${PY:-python3}" -m venv .tools/uv >/dev/null && .tools/uv/bin/python -m pip install -q uv >&2 || rm -rf .tools/uv
    fi
  ) 9> .tools/.uv.lock
  [ -x .tools/uv/bin/uv ] && uv=$PWD/.tools/uv/bin/uv
fi
# uv reads the CA bundle pip is told to use (a proxy's certificate, say) from SSL_CERT_FILE.
if [ -n "${PIP_CERT:-}" ] && [ -z "${SSL_CERT_FILE:-}" ]; then export SSL_CERT_FILE=$PIP_CERT; fi

# Sourced by the scripts that build or run Go: puts a Go new enough for test/e2e/go.mod first
# on PATH. Machines carry it at /usr/local/go; Debian's golang-go (1.19) is too old for the
# Kubernetes release the tests build.
if [ -x /usr/local/go/bin/go ]; then
  PATH=/usr/local/go/bin:$PATH
fi
go_needed=$(sed -n 's/^go \([0-9.]*\)$/\1/p' "$(dirname "${BASH_SOURCE[0]}")/../test/e2e/go.mod")
go_have=$(go env GOVERSION 2>/dev/null | sed 's/^go//') || go_have=""
if [ -z "$go_have" ] || [ "$(printf '%s\n%s\n' "$go_needed" "$go_have" | sort -V | head -n1)" != "$go_needed" ]; then
  go_found="no go on PATH"
  [ -z "$go_have" ] || go_found="Go $go_have at $(command -v go)"
  echo "${0##*/}: Go $go_needed or newer is needed (test/e2e/go.mod: it builds helm and the Kubernetes" \
       "components the tests run); found $go_found. Install it at /usr/local/go, which is put first on PATH." >&2
  exit 1
fi
# Modules come from the Go module proxy only; VCS stamping needs a git work tree the builds
# do not have in every checkout.
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-buildvcs=false"
unset go_needed go_have go_found

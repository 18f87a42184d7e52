#!/usr/bin/env bash
# Builds the Dockerfile's image with buildah on a machine with no container daemon and no
# registry, then writes it as a docker-archive that `docker load` and `kind load
# image-archive` take. The Dockerfile's base, debian:bookworm, is made with debootstrap from
# Debian's archive when the store lacks it; the debootstrapped tree is cached as a tarball
# and intermediate layers are kept (--layers), so that a second run on the same machine only
# compiles. CI runs it from .ci/run, then scripts/smoke-image.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/image-env.sh

usage() {
  cat <<EOF
usage: scripts/build-image.sh [--tag NAME] [--archive PATH] [--source URL] [--licenses SPDX] [--fresh]

Builds the image from the Dockerfile with buildah (vfs storage, chroot isolation) and
writes it to a docker-archive tarball.

  --tag NAME       image name (default: scheduler-extender:VERSION, VERSION from CMakeLists.txt)
  --archive PATH   where to write the docker-archive (default: build/scheduler-extender-VERSION.tar)
  --source URL     org.opencontainers.image.source (default: remote.origin.url, if any)
  --licenses SPDX  org.opencontainers.image.licenses (default: the SPDX identifier of the
                   license in LICENSE at the repository's root, Apache-2.0; fails when
                   LICENSE is missing or holds a text it does not recognise)
  --fresh          debootstrap the base again and rebuild every layer (no cache)

Needs root. Installs buildah and debootstrap when missing (scripts/install-deps.sh --image).
Cache and image store: \$SX_IMAGE_CACHE (default /var/cache/scheduler-extender-image);
delete it to start over. Debian mirror: \$SX_DEBIAN_MIRROR (default http://deb.debian.org/debian).
EOF
}

version=$(sx_project_version)
[ -n "$version" ] || { echo "build-image.sh: no project VERSION in CMakeLists.txt" >&2; exit 1; }
tag=scheduler-extender:$version
archive=build/scheduler-extender-$version.tar
source_url=""
licenses=""
fresh=false
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --tag|--archive|--source|--licenses)
      [ $# -ge 2 ] || { echo "build-image.sh: $1 needs a value" >&2; exit 2; }
      case "$1" in
        --tag) tag=$2 ;; --archive) archive=$2 ;; --source) source_url=$2 ;; --licenses) licenses=$2 ;;
      esac
      shift ;;
    --fresh) fresh=true ;;
    *) echo "build-image.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
# The license label says what LICENSE says, recognised by its opening lines so that another
# license put there is never labelled Apache-2.0 by mistake. The image carries LICENSE too
# (scripts/image-rootfs.sh), so a missing one fails here, before anything is built.
[ -f LICENSE ] || { echo "build-image.sh: no LICENSE at the repository's root: the image's license cannot be stated" >&2; exit 1; }
if [ -z "$licenses" ]; then
  license_head=$(head -n 4 LICENSE)
  if [[ "$license_head" == *"Apache License"* && "$license_head" == *"Version 2.0, January 2004"* ]]; then
    licenses=Apache-2.0
  else
    echo "build-image.sh: LICENSE holds a license this script does not recognise: pass --licenses SPDX" >&2
    exit 1
  fi
fi
sx_require_root build-image.sh
started=$SECONDS

command -v buildah >/dev/null && command -v debootstrap >/dev/null || scripts/install-deps.sh --image

# The labels. A clone made for CI is a git checkout; anything else is labelled "unknown"
# rather than failing, with a warning, since the image itself does not depend on it.
if revision=$(git rev-parse HEAD 2>/dev/null); then
  if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
    echo "build-image.sh: warning: the tree has uncommitted changes; the image is labelled $revision all the same" >&2
  fi
else
  revision=unknown
  echo "build-image.sh: warning: not a git checkout; org.opencontainers.image.revision is \"unknown\"" >&2
fi
if [ -z "$source_url" ]; then
  source_url=$(git config --get remote.origin.url 2>/dev/null || true)
  # Only a public address belongs in the label, not a local path or an ssh remote's user.
  case "$source_url" in
    git@github.com:*) source_url="https://github.com/${source_url#git@github.com:}" ;;
    https://*) ;;
    *) source_url="" ;;
  esac
  source_url=${source_url%.git}
fi

mkdir -p "$sx_image_cache"
base=docker.io/library/debian:bookworm
rootfs_tar=$sx_image_cache/debian-bookworm-minbase.tar
if $fresh; then
  rm -f "$rootfs_tar"
  sx_buildah rmi -f "$base" >/dev/null 2>&1 || true
fi

# The base: the Dockerfile says debian:bookworm, and with no registry to pull it from it is
# made here, as Docker's official image is, by debootstrap's minbase variant, with the same
# apt sources (security and updates included).
make_base_tarball() {
  local work
  work=$(mktemp -d "$sx_image_cache/debootstrap.XXXXXX")
  echo "build-image.sh: debootstrap --variant=minbase bookworm (once per machine; cached in $rootfs_tar)" >&2
  if ! debootstrap --variant=minbase bookworm "$work/rootfs" \
       "${SX_DEBIAN_MIRROR:-http://deb.debian.org/debian}" >"$work/debootstrap.log" 2>&1; then
    tail -n 30 "$work/debootstrap.log" >&2
    echo "build-image.sh: debootstrap failed (log above; the tree is left in $work)" >&2
    exit 1
  fi
  rm -f "$work/rootfs/etc/apt/sources.list" "$work/rootfs/etc/hostname" "$work/rootfs/etc/resolv.conf"
  cat >"$work/rootfs/etc/apt/sources.list.d/debian.sources" <<'EOF'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  rm -rf "$work/rootfs/var/cache/apt/archives/"*.deb "$work/rootfs/var/lib/apt/lists/"*
  tar --numeric-owner -C "$work/rootfs" -cf "$work/rootfs.tar" .
  mv "$work/rootfs.tar" "$rootfs_tar"  # whole or not at all, should the run be interrupted
  rm -rf "$work"
}

if ! sx_buildah inspect --type image "$base" >/dev/null 2>&1; then
  [ -s "$rootfs_tar" ] || make_base_tarball
  echo "build-image.sh: importing $rootfs_tar as $base" >&2
  ctr=$(sx_buildah from --pull=never scratch)
  mnt=$(sx_buildah mount "$ctr")
  tar --numeric-owner -xpf "$rootfs_tar" -C "$mnt"
  sx_buildah umount "$ctr" >/dev/null
  sx_buildah config --cmd '["bash"]' \
    --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$ctr"
  sx_buildah commit --rm --quiet "$ctr" "$base" >/dev/null
fi
echo "build-image.sh: base image ready after $((SECONDS - started)) s" >&2

# --layers keeps each step's result as a cache; the build-dependency stage ("deps") is built
# and tagged first, so that the prune below, which drops the untagged layers every run leaves
# (a new COPY of the tree, a new compile), keeps it: a second run only copies and compiles.
# --pull=never because there is no registry, only the store.
bud() {
  sx_buildah bud --isolation chroot --network host --pull=never --layers "$@" .
}
cache=()
$fresh && cache=(--no-cache)
build_started=$SECONDS
bud "${cache[@]}" --target deps -t localhost/scheduler-extender-build-deps:latest
bud --build-arg "VERSION=$version" --build-arg "REVISION=$revision" \
  --build-arg "SOURCE=$source_url" --build-arg "LICENSES=$licenses" -t "$tag"
# buildah 1.28's layer cache ignores --build-arg values, so a cached final stage keeps the
# labels of the run that made it (a previous commit's revision): set them again here, on the
# finished image, which costs a copy of its few MB.
ctr=$(sx_buildah from --pull=never "$tag")
sx_buildah config --label "org.opencontainers.image.version=$version" \
  --label "org.opencontainers.image.revision=$revision" \
  --label "org.opencontainers.image.source=$source_url" \
  --label "org.opencontainers.image.licenses=$licenses" "$ctr"
sx_buildah commit --rm --quiet "$ctr" "$tag" >/dev/null
echo "build-image.sh: image built in $((SECONDS - build_started)) s" >&2
sx_buildah rmi --prune >/dev/null || echo "build-image.sh: warning: could not prune unused layers" >&2

mkdir -p "$(dirname "$archive")"
rm -f "$archive"
sx_buildah push --quiet "$tag" "docker-archive:$archive:$tag"
echo "build-image.sh: $tag written to $archive ($(du -h "$archive" | cut -f1)) in $((SECONDS - started)) s in all" >&2
echo "build-image.sh: load it with: docker load -i $archive   or: kind load image-archive $archive" >&2

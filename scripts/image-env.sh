# Sourced by scripts/build-image.sh and scripts/smoke-image.sh: where the image is built and
# how buildah is called, so that both scripts see the same image store.
#
# buildah runs without a daemon and without a registry: vfs storage (plain directories, no
# overlay mounts) and chroot isolation (no OCI runtime, no user namespaces), which work as
# root on any Linux machine, containers and VMs included. The store is the project's own,
# under the cache directory, so that it never meets a store another tool configured with
# another driver (buildah refuses to open a store with a different driver).
sx_image_cache=${SX_IMAGE_CACHE:-/var/cache/scheduler-extender-image}
sx_image_runroot=${SX_IMAGE_RUNROOT:-/run/scheduler-extender-image}

sx_buildah_flags=(--root "$sx_image_cache/storage" --runroot "$sx_image_runroot" --storage-driver vfs)
sx_buildah() { buildah "${sx_buildah_flags[@]}" "$@"; }

# The version the image is tagged with: CMakeLists.txt's project VERSION, as the binary's
# --version and the chart's appVersion.
sx_project_version() {
  sed -n 's/^project(scheduler-extender VERSION \([0-9][0-9.]*\).*/\1/p' CMakeLists.txt
}

# buildah's chroot isolation (and debootstrap) need root; say so instead of failing halfway.
sx_require_root() {
  if [ "$(id -u)" -ne 0 ]; then
    echo "$1: needs root, as buildah's chroot isolation does: run it with sudo" >&2
    exit 1
  fi
}

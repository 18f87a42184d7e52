# The scheduler-extender image, built from source. CI builds it and runs it with
# scripts/build-image.sh and scripts/smoke-image.sh (buildah, no daemon, no registry); with a
# container engine that can pull debian:bookworm, this is enough:
#
#   docker build -t scheduler-extender:0.1.0 .

# Build: the packages scripts/install-deps.sh installs for the binary alone (not the test
# tools; Boost.Test because CMakeLists.txt finds it even without the suites), then the binary
# without the test suites (SX_BUILD_TESTS=OFF). The upgrade brings the libraries the image
# will carry to the archive's current security fixes, however old the base image is. The
# packages are a stage of their own, which scripts/build-image.sh tags and keeps as a cache.
FROM debian:bookworm AS deps
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get upgrade -y \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      g++ cmake ninja-build rapidjson-dev libssl-dev libyaml-cpp-dev \
      libboost1.81-dev libboost-test1.81-dev ca-certificates \
 && rm -rf /var/lib/apt/lists/*

# No WORKDIR (scripts/build.sh finds the tree from its own path): with buildah's vfs storage
# every step is a full copy of the build image, and this one would change nothing else.
FROM deps AS build
COPY . /src
# The final stage cannot run commands, so its whole filesystem is assembled here, in /rootfs:
# the stripped binary, the libraries `ldd` resolves for it, CA certificates and the user. The
# build tree goes, so that the layer this step leaves holds /rootfs and little more.
RUN /src/scripts/build.sh -DCMAKE_BUILD_TYPE=Release -DSX_BUILD_TESTS=OFF --target scheduler-extender \
 && strip /src/build/scheduler-extender \
 && /src/scripts/image-rootfs.sh /src/build/scheduler-extender /rootfs \
 && rm -rf /src/build

# Run: nothing but /rootfs — no shell, no package manager (like kube-scheduler's distroless
# image).
FROM scratch
COPY --from=build /rootfs/ /
# Filled by scripts/build-image.sh: the CMake project version, `git rev-parse HEAD`, the
# repository's address and its license as an SPDX identifier, which build-image.sh reads from
# LICENSE (the default here is the same, for a plain `docker build`; the image carries LICENSE
# in /usr/share/doc/scheduler-extender/).
ARG VERSION=unknown
ARG REVISION=unknown
ARG SOURCE=
ARG LICENSES=Apache-2.0
LABEL org.opencontainers.image.title="scheduler-extender" \
      org.opencontainers.image.description="Kubernetes scheduler extender: InterPodAffinity and PodState over its own cluster cache" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.licenses="${LICENSES}"
# Numeric, so that runAsNonRoot can verify it; /etc/passwd names it "nonroot".
USER 65532:65532
# 8888: the scheduling verbs (and, with no --metrics-listen, everything); 8889: /healthz,
# /readyz and /metrics where the Helm chart puts them (--metrics-listen=0.0.0.0:8889).
EXPOSE 8888 8889
# glibc's malloc asks for transparent huge pages for its heap (honoured where the node's THP
# mode, /sys/kernel/mm/transparent_hugepage/enabled, is `madvise` or `always`): loading a
# million pods then takes a page fault per 2 MiB of the cache it builds instead of per 4 KiB,
# about a seventh less CPU at 50,000 nodes, and requests cost the same (docs/benchmarks.md,
# "Tried and left out, and why").
ENV GLIBC_TUNABLES=glibc.malloc.hugetlb=1
# With no flags the extender serves every endpoint on 0.0.0.0:8888 and follows the cluster
# through the pod's service account; the Helm chart passes the listeners, --config, TLS,
# --scheduler-names and logging flags.
ENTRYPOINT ["/usr/local/bin/scheduler-extender"]

# The scheduler-extender image, built from source. No container engine ran this file in the
# project's CI (it has none); docs/helm.md says how to build and load the image.
#
#   docker build -t scheduler-extender:0.1.0 .

# Build: the packages scripts/install-deps.sh installs for the binary alone (not the test
# tools), then the binary without the test suites (SX_BUILD_TESTS=OFF).
FROM debian:bookworm AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      g++ cmake ninja-build rapidjson-dev libssl-dev libyaml-cpp-dev \
      libboost1.81-dev libboost-test1.81-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN scripts/build.sh -DCMAKE_BUILD_TYPE=Release -DSX_BUILD_TESTS=OFF --target scheduler-extender \
 && strip build/scheduler-extender

# Run: only the shared libraries the binary links (`ldd scheduler-extender`: libssl3 for
# libssl and libcrypto, libyaml-cpp0.7, libstdc++6; libc, libm and libgcc_s are in the base
# image) and CA certificates, for API servers whose kubeconfig names no CA of its own.
FROM debian:bookworm-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libssl3 libyaml-cpp0.7 libstdc++6 ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/build/scheduler-extender /usr/local/bin/scheduler-extender
LABEL org.opencontainers.image.title="scheduler-extender" \
      org.opencontainers.image.description="Kubernetes scheduler extender: InterPodAffinity and PodState over its own cluster cache"
# A numeric user, so that runAsNonRoot can verify it without an /etc/passwd entry.
USER 65532:65532
EXPOSE 8888
# With no flags the extender serves on 0.0.0.0:8888 and follows the cluster through the pod's
# service account; the Helm chart passes --config, TLS and logging flags.
ENTRYPOINT ["/usr/local/bin/scheduler-extender"]

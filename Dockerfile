# gpuform's image: the binary for the in-cluster CronJob (`gpuform install`).
#
#   make docker-image          (docker or podman; IMAGE=gpuform:<version>;
#                              make image builds the same without a daemon)
#
# Stage 1 builds on Debian 12 with the -dev packages; stage 2 is Debian 12
# slim with only the runtime libraries gpuform links against, and runs as a
# non-root user (65532, the uid the CronJob's securityContext names).
# tests/incluster.sh checks the runtime list below against the libraries the
# binary built by `make install` actually needs.

FROM debian:12 AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      build-essential pkg-config libgit2-dev libyaml-dev libcurl4-openssl-dev \
      libcjson-dev libssl-dev ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN make clean && make -j"$(nproc)" && make install DESTDIR=/out PREFIX=/usr/local

FROM debian:12-slim
# runtime libraries (one line: the test reads it)
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libgit2-1.5 libyaml-0-2 libcjson1 libcurl4 libssl3 zlib1g ca-certificates && rm -rf /var/lib/apt/lists/*
RUN groupadd --system --gid 65532 gpuform \
 && useradd --system --uid 65532 --gid 65532 --home-dir /var/cache/gpuform \
      --no-create-home --shell /usr/sbin/nologin gpuform
COPY --from=build /out/usr/local/bin/gpuform /usr/local/bin/gpuform
COPY --from=build /out/usr/local/share/doc/gpuform/README.md /usr/local/share/doc/gpuform/README.md
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/gpuform"]
CMD ["help"]

# buttond in a container (SPEC §8).
#
#   docker build -t buttond .
#   docker run -d --name buttond -p 8080:8080 -v buttond-data:/data buttond
#
# Stage 1 compiles a release build with the Swift runtime linked statically; stage 2 is a
# slim Debian with only the shared C libraries the binary needs. Both base images are build
# arguments so the build also works offline (tests/container/run.sh makes its own).

ARG SWIFT_IMAGE=swift:6.3-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim

FROM ${SWIFT_IMAGE} AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      pkg-config libmicrohttpd-dev libsqlite3-dev libssl-dev libcurl4-openssl-dev libmosquitto-dev liblo-dev libmimalloc-dev libqrencode-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
# The symbol table is dropped (strip): the binary keeps everything it runs with. Optimized at
# link time across modules, as `make release` builds it.
RUN swift build -c release --experimental-lto-mode=full --static-swift-stdlib --product buttond \
 && install -D -m 0755 "$(swift build -c release --experimental-lto-mode=full --static-swift-stdlib --show-bin-path)/buttond" /out/buttond \
 && strip /out/buttond

FROM ${RUNTIME_IMAGE}
# The libraries `ldd buttond` lists (libmicrohttpd, libsqlite3, libcrypto, libcurl, libmosquitto, liblo, mimalloc, libqrencode and what
# they pull in; libstdc++ and libgcc_s are already in the base), plus the CA certificates
# libcurl needs to deliver to https:// handlers.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libmicrohttpd12 libsqlite3-0 libssl3 libcurl4 libmosquitto1 liblo7 libmimalloc2.0 libqrencode4 ca-certificates \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/log/apt /var/log/dpkg.log \
 && groupadd --system --gid 10001 buttond \
 && useradd --system --uid 10001 --gid 10001 --home-dir /data --no-create-home \
      --shell /usr/sbin/nologin buttond \
 && mkdir -p /data \
 && chown 10001:10001 /data \
 && chmod 0700 /data
COPY --from=build /out/buttond /app/buttond
COPY public/ /app/public/
# Fail the build here, not at start, if a library the binary needs is missing.
RUN if ldd /app/buttond | grep 'not found'; then exit 1; fi

USER 10001:10001
WORKDIR /data
VOLUME /data
EXPOSE 8080
ENV BUTTOND_HOST=0.0.0.0 \
    BUTTOND_PORT=8080 \
    BUTTOND_DATA_DIR=/data \
    BUTTOND_PUBLIC_DIR=/app/public
# `buttond health` asks GET /healthz of the server this environment configures: it follows
# BUTTOND_PORT, and speaks HTTPS when BUTTOND_TLS_CERT or BUTTOND_TLS_SELF_SIGNED is set.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
  CMD ["/app/buttond", "health"]
ENTRYPOINT ["/app/buttond", "serve"]

#!/usr/bin/env bash
# Container test (SPEC §8): builds the image and runs it the way the README says.
#
# The docker command lines are read from README.md (or from docs/docker.md until the README
# has them) and run as written. A `docker` shell function carries them out, and it changes
# only the following:
#   - the engine: Docker if `docker info` answers, otherwise podman with the settings these
#     machines need (vfs storage in the cache dir, runc, cgroupfs, --network host);
#   - the names: image and container `buttond` become `buttond-ctest`, and the volume
#     `buttond-data` becomes `buttond-ctest-data`, so a real deployment is never touched;
#   - the port: `-p 8080:8080` becomes a free port (with podman: --network host and
#     BUTTOND_PORT);
#   - the build: when no registry is reachable, the base images are made offline (a
#     debootstrapped bookworm minbase, and one with the build packages and the host's Swift
#     toolchain) and passed as SWIFT_IMAGE / RUNTIME_IMAGE. Podman mounts the toolchain
#     read-only into the build.
# The base images and the debootstrap tarball are cached in $BUTTOND_CONTAINER_CACHE
# (default /var/cache/buttond-container), so a second run skips them.
#
# Environment: BUTTOND_CONTAINER_ENGINE=docker|podman, BUTTOND_CONTAINER_CACHE=DIR,
# BUTTOND_CONTAINER_OFFLINE=1|0 (make the base images offline; the default is 1 for podman and
# for Docker only if the official images can't be pulled), BUTTOND_DEBIAN_MIRROR=URL,
# BUTTOND_SWIFT_TOOLCHAIN=DIR (the directory holding usr/bin/swift).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$ROOT/tests/container
cd "$ROOT"

if [ "$(id -u)" = 0 ]; then
    CACHE=${BUTTOND_CONTAINER_CACHE:-/var/cache/buttond-container}
else
    CACHE=${BUTTOND_CONTAINER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/buttond-container}
fi
NAME=buttond-ctest
VOL=buttond-ctest-data
RUNTIME_BASE=localhost/buttond-base/debian:bookworm-minbase
OFFICIAL_SWIFT=docker.io/library/swift:6.3-bookworm
OFFICIAL_RUNTIME=docker.io/library/debian:bookworm-slim
TMP=$(mktemp -d)
START=$SECONDS

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok     $*"; }
fail() { failed=$((failed + 1)); echo "FAIL   $*"; }
check() { local what=$1; shift; if "$@"; then pass "$what"; else fail "$what"; fi; }
die() { fail "$*"; exit 1; }
step() { echo "== [$((SECONDS - START))s] $*"; }

E=() # the engine command, with its global options
containers_started=0
cleanup() {
    if [ "$containers_started" = 1 ]; then
        engine rm -f "$NAME" >/dev/null 2>&1 || true
        "${E[@]}" volume rm -f "$VOL" >/dev/null 2>&1 || true
    fi
    rm -rf "$TMP"
}
on_exit() {
    local rc=$?
    set +e
    cleanup
    if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then fail "stopped early (exit status $rc)"; fi
    echo "container test took $((SECONDS - START))s"
    echo "$passed passed, $failed failed"
    if [ "$failed" -ne 0 ]; then exit 1; fi
}
trap on_exit EXIT
trap 'exit 130' INT TERM

apt_install() {
    [ "$(id -u)" = 0 ] || die "missing $*: install them (needs root)"
    echo "installing: $*"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# --- which engine -------------------------------------------------------------------------
ENGINE=${BUTTOND_CONTAINER_ENGINE:-}
if [ -z "$ENGINE" ]; then
    if command -v docker >/dev/null 2>&1 && timeout 20 docker info >/dev/null 2>&1; then
        ENGINE=docker
    else
        ENGINE=podman
    fi
fi
missing=()
command -v curl >/dev/null 2>&1 || missing+=(curl)
if [ "$ENGINE" = podman ]; then
    [ "$(id -u)" = 0 ] || die "without a Docker engine this test runs podman as root"
    command -v podman >/dev/null 2>&1 || missing+=(podman)
    command -v runc >/dev/null 2>&1 || missing+=(runc)
fi
if [ ${#missing[@]} -gt 0 ]; then apt_install "${missing[@]}"; fi
mkdir -p "$CACHE"

BUILD_EXTRA=()
if [ "$ENGINE" = podman ]; then
    cat >"$CACHE/containers.conf" <<'EOF'
[containers]
default_ulimits = []
log_driver = "k8s-file"

[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
runtime = "runc"
EOF
    export CONTAINERS_CONF=$CACHE/containers.conf
    E=(podman --root "$CACHE/storage" --runroot /run/buttond-container --storage-driver vfs
        --runtime runc --cgroup-manager cgroupfs --events-backend file)
    # chroot isolation works without a container runtime in the build; the docker format
    # keeps the HEALTHCHECK, which the OCI format has no field for.
    BUILD_EXTRA=(--isolation chroot --format docker)
else
    E=(command docker) # `command`: the docker function below is for the README's lines
fi
step "engine: $ENGINE ($("${E[@]}" --version 2>/dev/null | head -n 1))"

image_exists() { "${E[@]}" image inspect "$1" >/dev/null 2>&1; }
engine() {
    if [ "$ENGINE" = podman ]; then
        # Without systemd podman can't schedule health checks (this test runs them itself)
        # and says so on every run, stop and rm: leave that out.
        "${E[@]}" "$@" 2> >(grep -v 'unable to get systemd connection' >&2)
    else
        "${E[@]}" "$@"
    fi
}

# --- base images --------------------------------------------------------------------------
OFFLINE=${BUTTOND_CONTAINER_OFFLINE:-}
if [ -z "$OFFLINE" ]; then
    if [ "$ENGINE" = podman ]; then
        OFFLINE=1
    else
        OFFLINE=1
        step "trying the official base images"
        if { image_exists "$OFFICIAL_SWIFT" || timeout 900 docker pull -q "$OFFICIAL_SWIFT"; } &&
            { image_exists "$OFFICIAL_RUNTIME" || timeout 300 docker pull -q "$OFFICIAL_RUNTIME"; }; then
            OFFLINE=0
        fi
    fi
fi

# The first URI of the host's apt sources that ends in /debian (or /debian-security).
apt_uri() {
    cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
        sed -nE 's/^deb(\s+\[[^]]*\])?\s+(\S+).*/\2/p; s/^URIs:\s*//p' | tr ' ' '\n' |
        grep -E "/$1/?\$" | head -n 1 || true
}

make_rootfs_tarball() { # a debootstrapped bookworm minbase, trimmed like debian:bookworm-slim
    local tarball=$1 mirror security dir
    mirror=${BUTTOND_DEBIAN_MIRROR:-$(apt_uri debian)}
    mirror=${mirror:-http://deb.debian.org/debian}
    security=$(apt_uri debian-security)
    command -v debootstrap >/dev/null 2>&1 || apt_install debootstrap
    dir=$(mktemp -d "$CACHE/rootfs.XXXXXX")
    chmod 0755 "$dir" # it becomes the image's /
    step "debootstrap bookworm minbase from $mirror (log: $CACHE/debootstrap.log)"
    if ! debootstrap --variant=minbase bookworm "$dir" "$mirror" >"$CACHE/debootstrap.log" 2>&1; then
        tail -n 20 "$CACHE/debootstrap.log"
        remove_rootfs "$dir"
        die "debootstrap failed"
    fi
    {
        echo "deb $mirror bookworm main"
        echo "deb $mirror bookworm-updates main"
        if [ -n "$security" ]; then echo "deb $security bookworm-security main"; fi
    } >"$dir/etc/apt/sources.list"
    cat >"$dir/etc/dpkg/dpkg.cfg.d/docker" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-exclude /usr/share/lintian/*
EOF
    cat >"$dir/etc/apt/apt.conf.d/docker-clean" <<'EOF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
EOF
    echo 'APT::Install-Recommends "false";' >"$dir/etc/apt/apt.conf.d/docker-no-recommends"
    find "$dir/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
    find "$dir/usr/share/doc" -mindepth 1 -type d -empty -delete
    rm -rf "$dir"/usr/share/man/* "$dir"/usr/share/info/* "$dir"/usr/share/locale/* \
        "$dir"/var/cache/apt/archives/*.deb "$dir"/var/cache/apt/*.bin "$dir"/var/lib/apt/lists/* \
        "$dir"/var/log/* "$dir"/tmp/*
    tar --numeric-owner -C "$dir" -cf "$tarball.tmp" .
    mv "$tarball.tmp" "$tarball"
    remove_rootfs "$dir"
}

remove_rootfs() { # unmount what debootstrap may have left mounted, then delete
    local dir=$1 mount
    for mount in $(awk -v d="$dir/" 'index($2, d) == 1 { print $2 }' /proc/mounts | sort -r); do
        umount -l "$mount" || true
    done
    rm -rf --one-file-system "$dir"
}

BUILD_ARGS=()
if [ "$OFFLINE" = 1 ]; then
    swift_bin=$(command -v swift || true)
    [ -n "$swift_bin" ] || [ -n "${BUTTOND_SWIFT_TOOLCHAIN:-}" ] || die "no swift on PATH"
    TOOLCHAIN=${BUTTOND_SWIFT_TOOLCHAIN:-$(dirname "$(dirname "$(dirname "$(readlink -f "$swift_bin")")")")}
    case $TOOLCHAIN in
        / | /usr | "") die "the Swift toolchain at ${TOOLCHAIN:-/} can't be mounted into a build: set BUTTOND_SWIFT_TOOLCHAIN" ;;
    esac
    [ -x "$TOOLCHAIN/usr/bin/swift" ] || die "no $TOOLCHAIN/usr/bin/swift"
    SWIFT_BASE=localhost/buttond-base/swift-build:bookworm${TOOLCHAIN//\//-}

    if image_exists "$RUNTIME_BASE"; then
        step "cached: $RUNTIME_BASE"
    else
        tarball=$CACHE/bookworm-minbase.tar
        if [ -s "$tarball" ]; then step "cached: $tarball"; else make_rootfs_tarball "$tarball"; fi
        step "importing $RUNTIME_BASE"
        "${E[@]}" import --change 'CMD ["bash"]' "$tarball" "$RUNTIME_BASE" >/dev/null
    fi
    if image_exists "$SWIFT_BASE"; then
        step "cached: $SWIFT_BASE"
    else
        step "making $SWIFT_BASE (build packages; the toolchain comes from $TOOLCHAIN)"
        "${E[@]}" build "${BUILD_EXTRA[@]}" -q -t "$SWIFT_BASE" -f "$HERE/swift-base.Containerfile" \
            --build-arg "BASE=$RUNTIME_BASE" --build-arg "TOOLCHAIN=$TOOLCHAIN" "$HERE" >/dev/null
    fi
    if [ "$ENGINE" = podman ]; then
        BUILD_ARGS=(-v "$TOOLCHAIN:$TOOLCHAIN:ro")
    else
        # docker build cannot mount: copy the toolchain into one more image.
        if image_exists "$SWIFT_BASE-toolchain"; then
            step "cached: $SWIFT_BASE-toolchain"
        else
            step "making $SWIFT_BASE-toolchain (copies $TOOLCHAIN in)"
            command docker build -q -t "$SWIFT_BASE-toolchain" -f "$HERE/swift-toolchain.Containerfile" \
                --build-arg "BASE=$SWIFT_BASE" --build-arg "TOOLCHAIN=$TOOLCHAIN" "$TOOLCHAIN" >/dev/null
        fi
        SWIFT_BASE=$SWIFT_BASE-toolchain
    fi
    BUILD_ARGS+=(--build-arg "SWIFT_IMAGE=$SWIFT_BASE" --build-arg "RUNTIME_IMAGE=$RUNTIME_BASE")
fi
BUILD_EXTRA+=("${BUILD_ARGS[@]}")

# --- the README's docker lines ------------------------------------------------------------
shell_lines() { # the `docker ...` lines of the sh code blocks in $1
    awk '/^```/ { if (fence) { fence = 0; sh = 0 } else { fence = 1; sh = ($0 ~ /^```(sh|bash|shell)[ \t]*$/) } next }
         sh && /^docker / { print }' "$1"
}
yaml_block() {
    awk '/^```/ { if (fence) { fence = 0; y = 0 } else { fence = 1; y = ($0 ~ /^```ya?ml[ \t]*$/) } next } y { print }' "$1"
}
DOC=docs/docker.md
if [ -f README.md ] && [ -n "$(shell_lines README.md)" ]; then
    check "README.md has the same docker lines and compose file as docs/docker.md" \
        eval 'diff <(shell_lines README.md; yaml_block README.md) <(shell_lines docs/docker.md; yaml_block docs/docker.md)'
    DOC=README.md
else
    echo "note: README.md has no docker lines yet; running the ones in docs/docker.md"
fi
shell_lines "$DOC" >"$TMP/lines"
BUILD_LINE=$(grep -m 1 '^docker build ' "$TMP/lines" || true)
RUN_LINE=$(grep '^docker run ' "$TMP/lines" | grep -v BUTTOND_ADMIN_TOKEN | head -n 1 || true)
TOKEN_RUN_LINE=$(grep '^docker run .*BUTTOND_ADMIN_TOKEN' "$TMP/lines" | head -n 1 || true)
LOGS_LINE=$(grep -m 1 '^docker logs ' "$TMP/lines" || true)
RM_LINE=$(grep -m 1 '^docker rm ' "$TMP/lines" || true)
for line in BUILD_LINE RUN_LINE TOKEN_RUN_LINE LOGS_LINE RM_LINE; do
    [ -n "${!line}" ] || die "$DOC has no ${line%_LINE} line (docker build / run / run with BUTTOND_ADMIN_TOKEN / logs / rm)"
done

free_port() {
    local port
    for _ in $(seq 50); do
        port=$((20000 + RANDOM % 20000))
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then echo "$port"; return; fi
    done
    return 1
}
PORT=$(free_port)
if [ "$ENGINE" = podman ]; then
    PORT_ARGS=(--network host -e "BUTTOND_PORT=$PORT")
else
    PORT_ARGS=(-p "127.0.0.1:$PORT:8080")
fi

docker() { # runs one of the README's lines on the engine, with the changes listed on top
    local in=("$@") out=() i
    out+=("${in[0]}")
    if [ "${in[0]}" = build ]; then out+=("${BUILD_EXTRA[@]}"); fi
    for ((i = 1; i < ${#in[@]}; i++)); do
        case ${in[i]} in
            buttond | buttond-tls) out+=("$NAME") ;;
            buttond-data:/data) out+=("$VOL:/data") ;;
            -p)
                if [ "${in[i + 1]:-}" = 8080:8080 ] || [ "${in[i + 1]:-}" = 8443:8080 ]; then
                    out+=("${PORT_ARGS[@]}")
                    i=$((i + 1))
                else
                    out+=(-p)
                fi
                ;;
            *) out+=("${in[i]}") ;;
        esac
    done
    echo "+ $ENGINE ${out[*]}" >&2
    engine "${out[@]}"
}

# --- build --------------------------------------------------------------------------------
step "build: $BUILD_LINE"
build_start=$SECONDS
mkdir -p test-artifacts
if eval "$BUILD_LINE" >test-artifacts/container-build.log 2>&1; then
    pass "image builds ($((SECONDS - build_start))s)"
else
    tail -n 40 test-artifacts/container-build.log
    die "image builds (log: test-artifacts/container-build.log)"
fi
if [ "$ENGINE" = podman ]; then
    # Each changed build leaves its old layers behind in the cache's storage; drop the old ones.
    "${E[@]}" image prune -f --filter until=24h >/dev/null 2>&1 || true
fi
size=$("${E[@]}" image inspect -f '{{.Size}}' "$NAME")
echo "image size: $((size / 1000000)) MB ($size bytes)"
if [ "$size" -gt 120000000 ]; then echo "note: over the 120 MB aim"; fi

config() { "${E[@]}" image inspect -f "$1" "$NAME"; }
check "image runs as a non-root user ($(config '{{.Config.User}}'))" \
    eval '[ -n "$(config "{{.Config.User}}")" ] && [ "$(config "{{.Config.User}}" | cut -d: -f1)" != 0 ] && [ "$(config "{{.Config.User}}" | cut -d: -f1)" != root ]'
check "image: entrypoint buttond serve, EXPOSE 8080, VOLUME /data" \
    eval '[ "$(config "{{json .Config.Entrypoint}}")" = "[\"/app/buttond\",\"serve\"]" ] &&
          config "{{json .Config.ExposedPorts}}" | grep -q "8080/tcp" &&
          config "{{json .Config.Volumes}}" | grep -q "\"/data\""'
check "image: BUTTOND_HOST=0.0.0.0 and BUTTOND_DATA_DIR=/data" \
    eval 'config "{{json .Config.Env}}" | grep -q "BUTTOND_HOST=0.0.0.0" && config "{{json .Config.Env}}" | grep -q "BUTTOND_DATA_DIR=/data"'
check "image: HEALTHCHECK asks /healthz (buttond health)" eval 'config "{{json .Config.Healthcheck}}" | grep -qE "/healthz|buttond\",\"health"'

# --- run ----------------------------------------------------------------------------------
containers_started=1
"${E[@]}" rm -f "$NAME" >/dev/null 2>&1 || true
"${E[@]}" volume rm -f "$VOL" >/dev/null 2>&1 || true

HTTP_CODE=000
BODY=
SCHEME=http
CURL_TLS=() # with SCHEME=https: the certificate to trust
api() { # METHOD PATH TOKEN [JSON]: sets HTTP_CODE and BODY
    local args=(-sS --max-time 10 -o "$TMP/body" -w '%{http_code}' -X "$1")
    if [ -n "$3" ]; then args+=(-H "Authorization: Bearer $3"); fi
    if [ -n "${4:-}" ]; then args+=(-H 'Content-Type: application/json' --data "$4"); fi
    HTTP_CODE=$(curl "${args[@]}" "${CURL_TLS[@]}" "$SCHEME://127.0.0.1:$PORT$2" 2>/dev/null) || HTTP_CODE=000
    BODY=$(cat "$TMP/body" 2>/dev/null || true)
    rm -f "$TMP/body"
}
is2xx() { [[ $HTTP_CODE == 2?? ]]; }

wait_healthy() {
    local deadline=$((SECONDS + 60))
    while [ "$SECONDS" -lt "$deadline" ]; do
        if curl -fsS --max-time 2 "${CURL_TLS[@]}" "$SCHEME://127.0.0.1:$PORT/healthz" 2>/dev/null | grep -qx ok; then
            echo "/healthz answered after $((SECONDS + 60 - deadline))s"
            return 0
        fi
        if [ "$("${E[@]}" inspect -f '{{.State.Running}}' "$NAME" 2>/dev/null)" != true ]; then
            echo "the container stopped:"
            break
        fi
        sleep 1
    done
    "${E[@]}" logs "$NAME" 2>&1 | tail -n 20
    return 1
}

start() { # LINE: runs a README docker run line and waits for /healthz
    step "run: $1"
    eval "$1" >/dev/null || die "the container starts"
    wait_healthy || die "/healthz answers within 60 s"
    pass "container up, /healthz answers ok"
}

stop_and_remove() {
    local t0=$SECONDS code
    engine stop -t 20 "$NAME" >/dev/null
    code=$("${E[@]}" inspect -f '{{.State.ExitCode}}' "$NAME")
    check "container stops on SIGTERM (exit status $code, $((SECONDS - t0))s)" [ "$code" = 0 ]
    step "remove: $RM_LINE"
    eval "$RM_LINE" >/dev/null
}

healthcheck() {
    if [ "$ENGINE" = podman ]; then
        "${E[@]}" healthcheck run "$NAME" >/dev/null
    else
        local deadline=$((SECONDS + 90)) status
        while [ "$SECONDS" -lt "$deadline" ]; do
            status=$(command docker inspect -f '{{.State.Health.Status}}' "$NAME")
            [ "$status" = healthy ] && return 0
            [ "$status" = unhealthy ] && return 1
            sleep 2
        done
        return 1
    fi
}

event_count() { grep -o '"type" *: *"[a-z-]*"' <<<"$BODY" | wc -l; }

# First start: the server makes an admin token and logs it.
start "$RUN_LINE"
step "logs: $LOGS_LINE"
logs=$(eval "$LOGS_LINE" || true)
echo "$logs"
TOKEN=$(grep -o 'token=[A-Za-z0-9_-]*' <<<"$logs" | head -n 1 | cut -d= -f2 || true)
check "first start logs a generated admin token" [ -n "$TOKEN" ]
check "the log line names /data/admin-token and the panel" \
    eval 'grep "generated an admin token" <<<"$logs" | grep -q "file=/data/admin-token" && grep "generated an admin token" <<<"$logs" | grep -q "panel="'
[ -n "$TOKEN" ] || die "no token, no API checks"
check "the token file is 0600 and not root's" \
    eval '[ "$("${E[@]}" exec "$NAME" stat -c "%a" /data/admin-token)" = 600 ] && [ "$("${E[@]}" exec "$NAME" stat -c "%u" /data/admin-token)" != 0 ]'
uid=$("${E[@]}" exec "$NAME" id -u || true)
pid1=$("${E[@]}" exec "$NAME" awk '/^Uid:/ { print $2 }' /proc/1/status || true)
check "the server runs as non-root (id -u: $uid, uid of pid 1: $pid1)" \
    eval '[ -n "$uid" ] && [ "$uid" != 0 ] && [ -n "$pid1" ] && [ "$pid1" != 0 ]'
check "the image's HEALTHCHECK passes" healthcheck

api GET /api/v1/buttons ""
check "API without a token: 401 (got $HTTP_CODE)" [ "$HTTP_CODE" = 401 ]
api POST /api/v1/buttons "$TOKEN" '{"id":"door"}'
check "create button door (HTTP $HTTP_CODE)" is2xx
api POST /api/v1/buttons/door/press "$TOKEN" '{}'
check "press door (HTTP $HTTP_CODE)" is2xx
sleep 1
api GET '/api/v1/events?after=0' "$TOKEN"
events_before=$(event_count)
check "history has door's press ($events_before events)" \
    eval 'is2xx && grep -q "\"door\"" <<<"$BODY" && grep -q "touch-down" <<<"$BODY"'
stop_and_remove

# Second start on the same volume: same token, same button, same history.
start "$RUN_LINE"
logs=$(eval "$LOGS_LINE" || true)
echo "$logs"
check "second start logs where the token is kept, not the token" \
    eval 'grep -q "admin token kept in the data directory" <<<"$logs" && ! grep -q "token=" <<<"$logs"'
api GET /api/v1/buttons/door "$TOKEN"
check "the old token still works and button door is still there (HTTP $HTTP_CODE)" is2xx
api GET '/api/v1/events?after=0' "$TOKEN"
check "the history is still there ($(event_count) events, $events_before before)" \
    eval 'is2xx && grep -q "touch-down" <<<"$BODY" && [ "$(event_count)" -ge "$events_before" ]'
stop_and_remove

# A token of one's own (the README's second run line) wins over the kept one.
export BUTTOND_ADMIN_TOKEN=ctest-$RANDOM$RANDOM$RANDOM$RANDOM
start "$TOKEN_RUN_LINE"
api GET /api/v1/buttons/door "$BUTTOND_ADMIN_TOKEN"
check "BUTTOND_ADMIN_TOKEN works, button door still there (HTTP $HTTP_CODE)" is2xx
api GET /api/v1/buttons/door "$TOKEN"
check "the kept token is not used then (HTTP $HTTP_CODE)" [ "$HTTP_CODE" = 401 ]
unset BUTTOND_ADMIN_TOKEN
stop_and_remove

# The compose snippet: same port, volume and token variable as the run lines.
yaml_block "$DOC" >"$TMP/compose.yaml"
compose_ok() {
    if ! command -v python3 >/dev/null 2>&1; then
        local line
        for line in "build: ." "image: buttond" '- "8080:8080"' "- buttond-data:/data" "BUTTOND_ADMIN_TOKEN:" "  buttond-data:"; do
            grep -qF -- "$line" "$TMP/compose.yaml" || return 1
        done
        return 0
    fi
    python3 - "$TMP/compose.yaml" <<'EOF'
import sys
text = open(sys.argv[1]).read()
try:
    import yaml
except ImportError:  # no PyYAML: look for the lines instead
    for line in ("build: .", "image: buttond", '- "8080:8080"', "- buttond-data:/data",
                 "BUTTOND_ADMIN_TOKEN:", "volumes:", "  buttond-data:"):
        assert line in text, line
    sys.exit(0)
doc = yaml.safe_load(text)
service = doc["services"]["buttond"]
assert service["build"] == "." and service["image"] == "buttond", service
assert "8080:8080" in service["ports"], service["ports"]
assert "buttond-data:/data" in service["volumes"], service["volumes"]
assert "BUTTOND_ADMIN_TOKEN" in service["environment"], service["environment"]
assert "buttond-data" in doc["volumes"], doc["volumes"]
EOF
}
check "compose snippet: build ., port 8080:8080, volume buttond-data:/data, BUTTOND_ADMIN_TOKEN" compose_ok

# HTTPS: the README's line with a mounted certificate and key (made here, the key readable
# by the image's user only), served on the same volume as before.
TLS_RUN_LINE=$(grep '^docker run .*BUTTOND_TLS_CERT' "$TMP/lines" | head -n 1 || true)
[ -n "$TLS_RUN_LINE" ] || die "$DOC has no docker run line with BUTTOND_TLS_CERT"
mkdir -p "$TMP/tls/certs"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=buttond.test \
    -addext "subjectAltName=DNS:buttond.test,IP:127.0.0.1" \
    -keyout "$TMP/tls/certs/key.pem" -out "$TMP/tls/certs/cert.pem" 2>/dev/null || die "openssl makes a certificate"
chown 10001:10001 "$TMP/tls/certs/key.pem" && chmod 600 "$TMP/tls/certs/key.pem"
chmod 755 "$TMP" "$TMP/tls" "$TMP/tls/certs"
SCHEME=https
CURL_TLS=(--cacert "$TMP/tls/certs/cert.pem")
pushd "$TMP/tls" >/dev/null # the line mounts "$PWD/certs"
start "$TLS_RUN_LINE"
popd >/dev/null
api GET /api/v1/buttons/door "$TOKEN"
check "over HTTPS, with the certificate trusted: the kept token works, door is there (HTTP $HTTP_CODE)" is2xx
plain=$(curl -s --max-time 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/healthz" 2>/dev/null || true)
check "plain HTTP gets no answer on the HTTPS port (got '${plain:-nothing}')" [ "${plain:-000}" = 000 ]
check "the image's HEALTHCHECK passes over HTTPS" healthcheck
stop_and_remove

#!/bin/bash
# `make test-trixie`: the whole suite in a Debian 13 (trixie, GStreamer 1.26) root, built
# here with debootstrap and kept under .build/ between runs. The tree and the Swift
# toolchain are bind-mounted in (the tree at its own path, built into its own scratch
# directory so the host's .build/debug stays as it is); /proc, /sys, /dev and /dev/pts are
# mounted for the tests (the terminal test needs a pseudo-terminal). Every mount is undone on
# every way out (trap). Prints the GStreamer version the suite ran against, `make test`'s
# summary (tools/test-summary.sh: "N passed, N failed", or that the test process crashed,
# where) and the run time.
#
# Usage: tools/test-trixie.sh PACKAGE...   (the Makefile passes DEB_PACKAGES)
# TRIXIE_ROOT, TRIXIE_MIRROR, TRIXIE_EXTRA (more packages), TEST_ARGS (e.g. --filter X).
set -euo pipefail

started=$(date +%s)
tree=$(cd "$(dirname "$0")/.." && pwd)
root=${TRIXIE_ROOT:-$tree/.build/trixie-root}
mirror=${TRIXIE_MIRROR:-http://deb.debian.org/debian}
toolchain=${SWIFT_TOOLCHAIN:-/opt/swift}
[ "$(id -u)" = 0 ] || { echo "test-trixie: needs root (debootstrap, chroot, mount)" >&2; exit 1; }
[ $# -gt 0 ] || { echo "usage: $0 PACKAGE... (the Debian packages make deps installs)" >&2; exit 2; }
[ -x "$toolchain/usr/bin/swift" ] || { echo "test-trixie: no Swift toolchain at $toolchain" >&2; exit 1; }

# What the Swift toolchain needs at run time and to link (Swift's own list for Debian,
# with trixie's compiler version), and what the suite runs besides DEB_PACKAGES' programs.
swift_runtime="binutils libc6-dev libcurl4-openssl-dev libedit2 libgcc-14-dev libstdc++-14-dev \
libpython3-dev libsqlite3-0 libxml2-dev libncurses-dev libz3-dev zlib1g-dev tzdata git \
ca-certificates make procps util-linux bsdutils iproute2"

mounted=()
cleanup() {
    local status=$?
    # Innermost first; a busy mount is detached lazily rather than left behind.
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
        umount "${mounted[i]}" 2>/dev/null || umount -l "${mounted[i]}" 2>/dev/null \
            || echo "test-trixie: could not unmount ${mounted[i]}" >&2
    done
    mounted=()
    echo "test-trixie: run time $(( $(date +%s) - started )) s"
    exit $status
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

bind() {  # bind SOURCE TARGET-IN-ROOT
    mkdir -p "$root$2"
    mount --bind "$1" "$root$2"
    mounted+=("$root$2")
}

in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }

mkdir -p "$tree/.build" "$(dirname "$root")"

# 1. The root, once: debootstrap into a side folder, moved into place when complete, so an
#    interrupted run never leaves a half root that looks finished.
if [ ! -e "$root/.debootstrap-done" ]; then
    command -v debootstrap >/dev/null || { echo "test-trixie: debootstrap is missing (make test-trixie installs it)" >&2; exit 1; }
    echo "test-trixie: creating the Debian 13 root in $root (debootstrap, a few minutes)"
    rm -rf "$root.partial"
    debootstrap --variant=minbase --keyring=/usr/share/keyrings/debian-archive-keyring.gpg \
        trixie "$root.partial" "$mirror" >"$tree/.build/trixie-debootstrap.log" 2>&1 \
        || { tail -20 "$tree/.build/trixie-debootstrap.log" >&2; exit 1; }
    rm -rf "$root"
    mv "$root.partial" "$root"
    touch "$root/.debootstrap-done"
fi

# 2. Mounts (undone by the trap).
bind /proc /proc
bind /sys /sys
bind /dev /dev
bind /dev/pts /dev/pts
[ -d /dev/shm ] && bind /dev/shm /dev/shm
bind "$toolchain" "$toolchain"
bind "$tree" "$tree"
cp /etc/resolv.conf "$root/etc/resolv.conf"

# 3. Packages: what make deps installs, with trixie's names. A library renamed for the 64-bit
#    time_t transition (libfoo -> libfoot64) is found by its new name; the list is installed
#    again only when it changed.
wanted="$* $swift_runtime ${TRIXIE_EXTRA:-}"
stamp="$root/.plumb-packages"
if [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
    echo "test-trixie: installing packages in the root"
    in_root apt-get update -qq
    names=()
    for p in $wanted; do
        if in_root apt-cache show "$p" >/dev/null 2>&1; then names+=("$p")
        elif in_root apt-cache show "${p}t64" >/dev/null 2>&1; then names+=("${p}t64"); echo "  $p is ${p}t64 on trixie"
        else echo "test-trixie: trixie has no package $p" >&2; exit 1
        fi
    done
    in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${names[@]}" \
        >"$tree/.build/trixie-apt.log" 2>&1 || { tail -20 "$tree/.build/trixie-apt.log" >&2; exit 1; }
    echo "$wanted" >"$stamp"
fi

# The certificates the host trusts, for pip in the root (the WebRTC tests' venv) to reach
# PyPI as the host's does, a TLS proxy's own authority included. After the packages: a new
# root has no /etc/ssl/certs before ca-certificates is in.
pip_cert=
if [ -r /etc/ssl/certs/ca-certificates.crt ]; then
    mkdir -p "$root/etc/ssl/certs"
    cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/host-ca-certificates.crt"
    pip_cert="PIP_CERT=/etc/ssl/certs/host-ca-certificates.crt"
fi

# The toolchain's programs must find every library they link in this root (lldb, which
# wants Python 3.10, is not used).
missing=$(for b in swift-frontend swift-build swift-test swift-driver clang; do
    [ -e "$root$toolchain/usr/bin/$b" ] && in_root ldd "$toolchain/usr/bin/$b" | grep "not found" || true
done | sort -u)
[ -z "$missing" ] || { echo "test-trixie: the Swift toolchain lacks in the root:" >&2; echo "$missing" >&2; exit 1; }

# 4. The suite, the same `make test`, built (and its Python venv made) apart from the host's.
gst=$(in_root gst-inspect-1.0 --version | sed -n 's/^GStreamer \([0-9.]*\)$/\1/p')
debian=$(cat "$root/etc/debian_version")
echo "test-trixie: Debian $debian, GStreamer $gst"
rm -f "$tree/.build/trixie-test.log"  # no summary from an earlier run's log
set +e -o pipefail
# TEST_ARGS through the environment: quotes in it (--filter 'A|B') reach make test intact.
in_root TEST_ARGS="${TEST_ARGS:-}" bash -c "cd '$tree' && PATH=$toolchain/usr/bin:\$PATH TEST_VENV=.build/trixie-venv $pip_cert make test \
    SWIFT_FLAGS='-c debug --scratch-path .build/trixie-build' TEST_LOG=.build/trixie-test.log TEST_ARGS=\"\$TEST_ARGS\"" \
    2>&1 | tee "$tree/.build/trixie-make.log"
status=$?
set -e
echo "test-trixie: ran against GStreamer $gst (Debian $debian)"
# The same summary make test printed, again last (a crash said as such, exit non-zero).
bash "$tree/tools/test-summary.sh" "$tree/.build/trixie-test.log" "$status" || exit $?

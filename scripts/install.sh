#!/usr/bin/env bash
# Builds procflow as one self-contained binary (release mode, Swift runtime linked in
# statically) and installs it as PREFIX/bin/procflow, stripped.
#
# The binary is linked as a position-dependent executable (-no-pie), as Go links its binaries:
# a position-independent one has ~75,000 relative relocations for the loader to apply at every
# start (twice the page faults), which made `procflow validate` start 1.3 ms slower. Shared
# libraries, the heap and the stack are still placed at random addresses.
#
# The C++ runtime that Swift's runtime uses (libstdc++) and libgcc are linked in too, where the
# compiler has their archives: loaded as shared libraries, their relocations and symbol
# lookups were a sixth of a small run's instructions (`procflow --version` 2.7 ms against 1.6
# ms). Swift's static runtime asks for `-lstdc++` itself; a linker script named
# libstdc++.so, found first, hands the linker the archive instead. Only glibc stays shared
# (libcurl is loaded with dlopen, which a fully static glibc binary cannot do).
#
# The compiler is asked to reach generic types' metadata through accessor functions rather
# than by mangled name (-disable-concrete-type-metadata-mangled-name-accessors). A mangled name
# is smaller code, but its first use makes the runtime demangle it and check its generic
# requirements by scanning every conformance record of the binary: a fifth of a small run's
# instructions (a run of one step of the Lua project: 9.1 M -> 7.1 M instructions, 5.4 -> 4.7
# ms). The binary grows by 0.1 MB.
#
# No run path ($ORIGIN, which SwiftPM adds by default: --disable-local-rpath): nothing is
# loaded from beside the binary, and with it the loader looked for libm and libc in twenty
# folders under the binary's before the system's, at every start.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: scripts/install.sh [--prefix DIR]

Builds procflow in release mode with the Swift runtime linked in statically and installs the
stripped binary as DIR/bin/procflow. The binary needs nothing else next to it: copy it
anywhere. HTTP steps load the system's libcurl (libcurl.so.4) when they first run.

Options:
  --prefix DIR   Where to install (default: /usr/local, so /usr/local/bin/procflow).
  -h, --help     Print this help.
EOF
}

fail() {
    echo "install.sh: error: $*" >&2
    exit 1
}

prefix=/usr/local
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix)
            [ $# -ge 2 ] && [ -n "$2" ] || fail "--prefix needs a directory, as in --prefix \"\$HOME/.local\"."
            prefix=$2
            shift 2
            ;;
        --prefix=*)
            prefix=${1#--prefix=}
            [ -n "$prefix" ] || fail "--prefix needs a directory, as in --prefix \"\$HOME/.local\"."
            shift
            ;;
        -h | --help)
            usage
            exit 0
            ;;
        *)
            usage >&2
            fail "unknown argument '$1'."
            ;;
    esac
done

cd "$(dirname "$0")/.."
command -v swift >/dev/null || fail "swift was not found on PATH: install a Swift 6 toolchain (https://swift.org/install)."

bin="$prefix/bin"
mkdir -p "$bin" 2>/dev/null || fail "cannot create $bin: choose a --prefix you can write to, or run with sudo."
[ -w "$bin" ] || fail "cannot write to $bin: choose a --prefix you can write to, or run with sudo."

build=(swift build -c release --static-swift-stdlib -Xlinker -no-pie --disable-local-rpath
    -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors)
archive=$(c++ -print-file-name=libstdc++.a 2>/dev/null || cc -print-file-name=libstdc++.a 2>/dev/null || true)
if [ -f "$archive" ]; then
    # A fixed place in the build directory: the flags stay the same from build to build, so
    # that an install after another compiles nothing again.
    shim=.build/static-libstdc++
    mkdir -p "$shim"
    printf 'INPUT(%s)\n' "$archive" > "$shim/libstdc++.so.new"
    mv -f "$shim/libstdc++.so.new" "$shim/libstdc++.so"
    build+=(-Xswiftc "-L$PWD/$shim" -Xswiftc -Xclang-linker -Xswiftc -static-libgcc)
else
    echo "install.sh: libstdc++.a was not found (libstdc++-dev): linking the C++ runtime as a shared library." >&2
fi
echo "Building procflow (release, static Swift runtime)..." >&2
"${build[@]}" --product procflow >&2
built="$("${build[@]}" --show-bin-path)/procflow"
[ -x "$built" ] || fail "the build did not produce $built."

# Install through a temporary file in the same directory, so that a running procflow is
# never overwritten in place and an interrupted install leaves no half-written binary.
staged=$(mktemp "$bin/.procflow.XXXXXX")
trap 'rm -f "$staged" "$staged.stripped"' EXIT
if command -v strip >/dev/null; then
    # Stripped into a file of its own, then copied: a binary as strip wrote it started
    # slower than a copy of the same bytes, until the page cache let it go and read it again
    # (the Lua benchmark's check run, paired: 1.12x, the difference all system time; how the
    # kernel holds the pages strip wrote was not pinned down).
    strip -o "$staged.stripped" "$built"
    cat "$staged.stripped" > "$staged"
    rm -f "$staged.stripped"
else
    echo "install.sh: strip was not found (binutils): installing the unstripped binary." >&2
    cp "$built" "$staged"
fi
chmod 755 "$staged"
mv -f "$staged" "$bin/procflow"
trap - EXIT

echo "Installed $bin/procflow ($(du -h "$bin/procflow" | cut -f1))." >&2
"$bin/procflow" --version

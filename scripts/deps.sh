#!/usr/bin/env bash
# Installs what c2ctui builds and tests with, and builds libperf from
# Debian's linux-source-6.12 into the build tree (never system-wide).
# Idempotent: each step is skipped when its result is already there.
# Also fetches a real kernel's vmlinux with DWARF into build/cache/ for the
# layout test against pahole (scripts/kernel-dbg.sh; ~283 MB download, never
# fatal: without the archive that test skips and says why).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_ROOT:-$top/build}
ksrc=$build/linux-source-6.12
libperf=$build/libperf

pkgs=(build-essential pkg-config clang libclang-rt-14-dev
      libncurses-dev libsqlite3-dev sqlite3 libtraceevent-dev libdw-dev libelf-dev
      libbpf-dev libzstd-dev liblzma-dev zlib1g-dev libcapstone-dev linux-source-6.12 linux-perf
      tmux python3 flex bison xz-utils time dwarves)

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "deps: missing Debian packages (run as root to install): ${missing[*]}" >&2
    exit 1
  fi
  echo "deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ ! -f "$ksrc/.extracted" ]; then
  echo "deps: extracting tools/ and include/uapi from linux-source-6.12"
  tarball=$(ls /usr/src/linux-source-6.12.tar.* | head -n1)
  rm -rf "$ksrc" && mkdir -p "$build"
  tmp=$(mktemp -d "$build/ksrc.XXXXXX")
  tar -xf "$tarball" -C "$tmp" linux-source-6.12/tools linux-source-6.12/include/uapi \
      linux-source-6.12/scripts linux-source-6.12/Makefile linux-source-6.12/arch/x86/include/uapi
  mv "$tmp/linux-source-6.12" "$ksrc" && rmdir "$tmp"
  touch "$ksrc/.extracted"
fi

if [ ! -f "$libperf/lib/libperf.a" ] || [ ! -f "$libperf/lib/libapi.a" ]; then
  echo "deps: building libperf (static) into $libperf"
  mkdir -p "$libperf/obj" "$libperf/api-obj"
  make -s -C "$ksrc/tools/lib/api" O="$libperf/api-obj/" "$libperf/api-obj/libapi.a" >/dev/null
  make -s -C "$ksrc/tools/lib/perf" O="$libperf/obj/" "$libperf/obj/libperf.a" >/dev/null
  make -s -C "$ksrc/tools/lib/perf" O="$libperf/obj/" DESTDIR="$libperf" prefix= \
       install_headers >/dev/null
  mkdir -p "$libperf/lib"
  cp "$libperf/obj/libperf.a" "$libperf/lib/"
  cp "$libperf/api-obj/libapi.a" "$libperf/lib/"
  mkdir -p "$libperf/lib/pkgconfig"
  cat > "$libperf/lib/pkgconfig/libperf.pc" <<PC
prefix=$libperf
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: libperf
Description: perf library (static, from linux-source-6.12)
Version: 0.0.1
Libs: \${libdir}/libperf.a \${libdir}/libapi.a
Cflags: -I\${includedir}
PC
fi
BUILD_ROOT=$build "$top/scripts/kernel-dbg.sh" ||
  echo "deps: scripts/kernel-dbg.sh failed; the real-kernel layout test will skip" >&2
echo "deps: ok"

#!/usr/bin/env bash
# Fetches a real kernel's DWARF for tests/e2e/layout_pahole_vmlinux.sh: the
# vmlinux of the newest linux-image-*-cloud-amd64-dbg the archive offers
# (the meta package linux-image-cloud-amd64-dbg names it; ~283 MB .deb).
# Only the vmlinux is extracted, into $BUILD_ROOT/cache/kernel-dbg/ (build/
# by default: `make clean` keeps it, .gitignore covers it); the package is
# never installed. A stamp holds the package and version, so a second run
# (and the ASan pass of the same `make test`) fetches nothing.
# Never fails setup: when the archive cannot be reached, the reason goes to
# cache/kernel-dbg/why, the test reads it and skips with it, and this exits 0.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_ROOT:-$top/build}
cache=$build/cache/kernel-dbg
meta=linux-image-cloud-amd64-dbg
mkdir -p "$cache"

give_up() {
  printf '%s\n' "$1" > "$cache/why"
  echo "kernel-dbg: skipped ($1); tests on a real kernel's DWARF will skip" >&2
  exit 0
}

# "linux-image-6.1.0-57-cloud-amd64-dbg 6.1.192-3", from the local lists
resolve() {
  local pkg ver
  pkg=$(apt-cache depends "$meta" 2>/dev/null |
        awk '$1 == "Depends:" && $2 ~ /^linux-image-.*-cloud-amd64-dbg$/ { print $2; exit }')
  [ -n "$pkg" ] || return 1
  ver=$(apt-cache policy "$pkg" 2>/dev/null | awk '$1 == "Candidate:" { print $2; exit }')
  [ -n "$ver" ] && [ "$ver" != "(none)" ] || return 1
  echo "$pkg $ver"
}

want=$(resolve)
if [ -z "$want" ]; then
  if [ -f "$cache/stamp" ] && [ -f "$cache/vmlinux" ]; then
    echo "kernel-dbg: $meta not in the package lists; keeping $(cat "$cache/stamp")"
    exit 0
  fi
  [ "$(id -u)" = 0 ] || give_up "$meta not in the package lists (apt-get update needs root)"
  echo "kernel-dbg: $meta not in the package lists; apt-get update"
  apt-get update -qq >/dev/null 2>&1 || give_up "apt-get update failed (archive unreachable?)"
  want=$(resolve) || give_up "the archive offers no $meta"
fi
if [ -f "$cache/stamp" ] && [ -f "$cache/vmlinux" ] && [ "$(cat "$cache/stamp")" = "$want" ]; then
  echo "kernel-dbg: have $want's vmlinux in $cache"
  exit 0
fi

read -r pkg ver <<< "$want"
tmp=$(mktemp -d "$cache/fetch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "kernel-dbg: downloading $pkg $ver (~300 MB) into $cache"
t0=$(date +%s)
# apt-get download as root warns that it cannot drop to _apt in this folder
(cd "$tmp" && apt-get download -q "$pkg=$ver" > dl.log 2>&1) ||
  give_up "apt-get download $pkg=$ver failed: $(sed -n 's/^E: //p' "$tmp/dl.log" | head -n1)"
t1=$(date +%s)
deb=$(ls "$tmp"/*.deb 2>/dev/null | head -n1)
[ -n "$deb" ] || give_up "apt-get download $pkg=$ver left no .deb"
# Only the vmlinux: the package also holds every module's debug info.
dpkg-deb --fsys-tarfile "$deb" |
  tar -x -C "$tmp" --wildcards './usr/lib/debug/boot/vmlinux-*' 2>"$tmp/tar.log" ||
  give_up "cannot extract the vmlinux from $(basename "$deb"): $(head -n1 "$tmp/tar.log")"
t2=$(date +%s)
vm=$(ls "$tmp"/usr/lib/debug/boot/vmlinux-* 2>/dev/null | head -n1)
[ -n "$vm" ] || give_up "$(basename "$deb") holds no usr/lib/debug/boot/vmlinux-*"
mv -f "$vm" "$cache/vmlinux"
rm -f "$cache/why"
echo "$pkg $ver" > "$cache/stamp"
printf 'download %ss, extraction %ss, .deb %s bytes, vmlinux %s bytes\n' \
  $((t1 - t0)) $((t2 - t1)) "$(stat -c %s "$deb")" "$(stat -c %s "$cache/vmlinux")" \
  | tee "$cache/timings" | sed 's/^/kernel-dbg: /'

#!/usr/bin/env bash
# Installs the .deb into a clean Debian 12 root and uses it there: the GUI renders a bundled
# sample headless (timeline and memory map), the CLI summarises and checks it, `run` gives its
# no-GPU message, the recorder imports, the desktop and MIME files are in place.
# Usage (root): scripts/test-deb.sh ROOT DEB
#   ROOT: a fresh root, e.g. from `debootstrap --variant=minbase bookworm ROOT`; it is changed.
set -euo pipefail
root=$(realpath "${1:?usage: test-deb.sh ROOT DEB}")
deb=$(realpath "${2:?usage: test-deb.sh ROOT DEB}")
cp /etc/resolv.conf "$root/etc/resolv.conf"
cp "$deb" "$root/tmp/"
mountpoint -q "$root/proc" || mount -t proc proc "$root/proc"
trap 'umount "$root/proc"' EXIT
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root /bin/bash -c "$1"; }
in_root "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq /tmp/$(basename "$deb") >/dev/null"
in_root '
set -x
sample=/usr/share/vramscope/samples/leak_list.pickle.zst
vramscope --version
vramscope --help | grep -c vscap
vramscope "$sample" --screenshot /tmp/timeline.png --size 1000x450 2>/dev/null
vramscope "$sample" --screenshot /tmp/memorymap.png --view memorymap --size 900x400 2>/dev/null
ls -l /tmp/timeline.png /tmp/memorymap.png
vramscope-cli summary "$sample" --json | head -c 300; echo
vramscope-cli check "$sample" --max-growth 1048576; echo "check exit $?"
vramscope-cli run -o /tmp/none.vscap -- /bin/true; echo "run exit $?"
vramscope; echo "gui without a display: exit $?"
ls /usr/lib/vramscope /usr/share/applications/vramscope.desktop /usr/share/icons/hicolor/*/apps/vramscope.*
ls /usr/share/mime/application | grep -E "vramscope|pytorch"
python3 -m vramscope --help | head -1
' 2>&1

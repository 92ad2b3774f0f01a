#!/bin/sh
# Install the Debian packages ReasonScope needs (Qt's xcb platform, Mesa
# OpenGL, Xvfb, Open3D's runtime libraries, xdotool for the bench's launch_window
# case) when they are missing.
# As root it runs apt-get; otherwise it prints the exact command and stops.
set -eu

PACKAGES="xvfb xauth libgl1 libgl1-mesa-dri libegl1 libxkbcommon-x11-0 libxcb-cursor0 \
libxcb-icccm4 libxcb-image0 libxcb-keysyms1 libxcb-randr0 libxcb-render-util0 \
libxcb-shape0 libxcb-xinerama0 libxcb-xkb1 libusb-1.0-0 libgomp1 libfontconfig1 \
libdbus-1-3 xdotool"

if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "system-deps: not a Debian-like system; make sure Qt 6 xcb libraries, Mesa OpenGL," \
         "Xvfb, libusb-1.0 and libgomp are installed" >&2
    exit 0
fi

# A Python without ensurepip (Debian's system python3) needs python3-venv.
PYTHON="${PYTHON:-python3}"
if ! "$PYTHON" -c "import ensurepip" >/dev/null 2>&1; then
    PACKAGES="$PACKAGES python3-venv"
fi

missing=""
for pkg in $PACKAGES; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
    [ "$status" = "installed" ] || missing="$missing $pkg"
done

if [ -z "$missing" ]; then
    exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
    echo "system-deps: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing
else
    echo "system-deps: missing Debian packages; run this, then make again:" >&2
    echo "  sudo apt-get install -y$missing" >&2
    exit 1
fi

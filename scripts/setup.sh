#!/usr/bin/env bash
# Installs what reeltime needs on a fresh Debian machine: ffmpeg, Chromium, Xvfb, PulseAudio, GStreamer's RTSP server (tests
# only) and util-linux's setpriv (every child
# process is started through it so it dies with reeltime) from Debian when missing, then the npm dependencies
# (when missing or stale). Safe to run again. `--bench` also installs what only benchmarks need (Janus for bench:sfu).
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v ffmpeg >/dev/null 2>&1 || missing+=(ffmpeg)
command -v ffprobe >/dev/null 2>&1 || missing+=(ffmpeg)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
# web mode: a virtual display and a virtual sound card per session (docs/recording-web.md)
command -v Xvfb >/dev/null 2>&1 || missing+=(xvfb)
command -v pulseaudio >/dev/null 2>&1 || missing+=(pulseaudio)
# pacat reads each web capture's sound card (docs/recording-web.md, "Sound timestamps")
command -v pacat >/dev/null 2>&1 || missing+=(pulseaudio-utils)
command -v xdpyinfo >/dev/null 2>&1 || missing+=(x11-utils)
[ -x /usr/bin/setpriv ] || [ -x /bin/setpriv ] || missing+=(util-linux)
[ -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || missing+=(fonts-dejavu-core)
# TURN tests start coturn on loopback (docs/channel.md, "TURN"); the package starts no daemon without systemd
command -v turnserver >/dev/null 2>&1 || missing+=(coturn)
# RTSP ingest tests pull a stand-in camera: GStreamer's RTSP server (src/ingress/rtsp-camera.py)
for pkg in python3-gi gir1.2-gst-rtsp-server-1.0 gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-ugly; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
# --bench: what only the benchmarks need (bench:sfu runs Janus beside reeltime)
if [ "${1:-}" = "--bench" ]; then
  command -v janus >/dev/null 2>&1 || missing+=(janus)
fi
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "setup: installing Debian packages: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: installing npm dependencies"
  # better-sqlite3 builds from its own sources: prebuild-install would first try to fetch a binary from GitHub.
  npm_config_build_from_source=true npm ci --no-audit --no-fund --loglevel=error
fi

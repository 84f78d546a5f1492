#!/usr/bin/python3
# A stand-in IP camera for tests and benchmarks: a real RTSP server (GStreamer's gst-rtsp-server, Debian's
# gir1.2-gst-rtsp-server-1.0) on 127.0.0.1, serving one mount of a solid colour in H.264 and a tone in G.711 A-law
# (what many cameras send), over RTSP's TCP interleaving and over UDP alike. No STUN, no lookups: loopback only.
#
# Prints "listening <port>" once it accepts connections. Ends on SIGTERM or when its stdin closes (its parent died).
# --codec vp8 sends VP8 instead of H.264: a camera reeltime must refuse with a reason; --codec h265 an H.265 camera,
# whose video reeltime re-encodes. --sliced encodes each picture
# as several slices (x264's sliced threads), as some cameras do (docs/ingest.md, "Cameras that slice their
# pictures"); by default one slice per picture.
# --no-audio: a camera without a microphone (video only).
# Usage: rtsp-camera.py <port|0> <path> <rgb hex> <tone Hz> [--credentials user:password] [--codec h265|vp8] [--sliced] [--no-audio]
import argparse
import signal
import sys
import threading

import gi

gi.require_version('Gst', '1.0')
gi.require_version('GstRtspServer', '1.0')
from gi.repository import GLib, Gst, GstRtspServer  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument('port')
parser.add_argument('path')
parser.add_argument('rgb')
parser.add_argument('tone')
parser.add_argument('--credentials')
parser.add_argument('--codec', choices=['h264', 'h265', 'vp8'], default='h264')
parser.add_argument('--sliced', action='store_true')
parser.add_argument('--no-audio', action='store_true')
args = parser.parse_args()
Gst.init(None)

# A keyframe every second (15 frames), SPS/PPS in band with each: a client joining mid-stream decodes from the next.
VIDEO = {
    'h264': 'x264enc tune=zerolatency speed-preset=ultrafast key-int-max=15 bitrate=300 {slices} '
    '! video/x-h264,profile=constrained-baseline ! rtph264pay name=pay0 pt=96 config-interval=-1',
    'h265': 'x265enc tune=zerolatency speed-preset=ultrafast key-int-max=15 bitrate=300 '
    '! video/x-h265,profile=main ! rtph265pay name=pay0 pt=96 config-interval=-1',
    'vp8': 'vp8enc deadline=1 keyframe-max-dist=15 ! rtpvp8pay name=pay0 pt=96',
}[args.codec].format(slices='sliced-threads=true threads=2' if args.sliced else 'sliced-threads=false threads=1')
AUDIO = '' if args.no_audio else (
    'audiotestsrc is-live=true wave=sine freq={tone} volume=0.5 '
    '! audio/x-raw,rate=8000,channels=1 ! alawenc ! rtppcmapay name=pay1 pt=8'
).format(tone=args.tone)
LAUNCH = (
    '( videotestsrc is-live=true pattern=solid-color foreground-color=0xff{rgb} '
    '! video/x-raw,width=320,height=180,framerate=15/1 ! {video} {audio} )'
).format(rgb=args.rgb, video=VIDEO, audio=AUDIO)

server = GstRtspServer.RTSPServer()
server.set_address('127.0.0.1')
server.set_service(args.port)
factory = GstRtspServer.RTSPMediaFactory()
factory.set_launch(LAUNCH)
factory.set_shared(True)
if args.credentials:
    user, password = args.credentials.split(':', 1)
    auth = GstRtspServer.RTSPAuth()
    token = GstRtspServer.RTSPToken()
    token.set_string('media.factory.role', 'camera-user')
    auth.add_basic(GstRtspServer.RTSPAuth.make_basic(user, password), token)
    server.set_auth(auth)
    permissions = GstRtspServer.RTSPPermissions()
    permissions.add_permission_for_role('camera-user', 'media.factory.access', True)
    permissions.add_permission_for_role('camera-user', 'media.factory.construct', True)
    factory.set_permissions(permissions)
server.get_mount_points().add_factory(args.path, factory)
server.attach(None)
print('listening', server.get_bound_port(), flush=True)

loop = GLib.MainLoop()
signal.signal(signal.SIGTERM, lambda *_: loop.quit())


def watch_parent():
    sys.stdin.read()
    GLib.idle_add(loop.quit)


threading.Thread(target=watch_parent, daemon=True).start()
loop.run()

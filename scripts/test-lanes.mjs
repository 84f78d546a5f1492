// Which test files run in the heavy lane; every other *.test.ts is in the fast lane (scripts/test.mjs).
//
// Fast lane (`npm test`, under a minute): pure and in-process tests. Real PostgreSQL, Redis and HTTP on loopback
// are fine; child processes are not: a fast-lane file that starts one (ffmpeg, Chromium, redis-server, another
// reeltime, openssl...) fails at once (scripts/test-fast-lane-guard.mjs), which is how a new file finds its way here.
// Heavy lane (both lanes: `bash scripts/test.sh`, CI): the files below, a few at a time. Each group says why.
// The runner starts the files it has no timing for in this order, so keep the longest first within a group.
// `node scripts/test.mjs --list` shows every file with its lane.

/** Record real media: ffmpeg, Chromium, Xvfb and PulseAudio, in real time. */
const RECORDERS = [
  'src/recorders/common/whep-ended.test.ts',
  'src/recorders/common/whep-replace.test.ts',
  'src/recorders/individual/media-path.test.ts',
  'src/recorders/mix/hold.test.ts',
  'src/recorders/individual/hold.test.ts',
  'src/recorders/mix/record.test.ts',
  'src/recorders/mix/idle.test.ts',
  'src/recorders/mix/loss.test.ts',
  'src/recorders/individual/record.test.ts',
  'src/recorders/individual/loss.test.ts',
  'src/recorders/individual/loss-chromium.test.ts',
  'src/recorders/individual/loss-opus.test.ts',
  'src/recorders/individual/simulcast.test.ts',
  'src/recorders/mix/sender-clock.test.ts',
  'src/recorders/individual/hold-restart.test.ts',
  'src/recorders/individual/follow.test.ts',
  'src/recorders/individual/ice-restart.test.ts',
  'src/recorders/individual/speakers.test.ts',
  'src/recorders/individual/speakers-chromium.test.ts',
  'src/recorders/web/record.test.ts',
  'src/recorders/web/page.test.ts',
  'src/recorders/individual/restart.test.ts',
  'src/recorders/individual/scene2.test.ts',
  'src/recorders/individual/mp4-only.test.ts',
  'src/recorders/individual/uid-taken.test.ts',
  'src/recorders/individual/browser.test.ts',
  'src/recorders/mix/browser.test.ts',
  'src/recorders/individual/s3.test.ts',
  'src/recorders/individual/slicer-crash.test.ts',
  'src/recorders/mix/images.test.ts',
  'src/recorders/web/recovery.test.ts',
  'src/recorders/web/upload-refused.test.ts',
  'src/recorders/web/audio-loss.test.ts',
  'src/ingress/rtmp-push.test.ts',
  'src/ingress/srt-push.test.ts',
  'src/ingress/rtsp-pull.test.ts',
  'src/ingress/whep-pull.test.ts',
];

/** Several reeltime processes, or one killed and restarted; a Redis or PostgreSQL outage on a private server. */
const PROCESSES = [
  'src/recording/dispatch/bullmq/postgres-outage-reports.test.ts',
  'src/recording/dispatch/bullmq/postgres-drop.test.ts',
  'src/recording/dispatch/bullmq/failover.test.ts',
  'src/recording/dispatch/bullmq/cross-process.test.ts',
  'src/recording/dispatch/bullmq/partition.test.ts',
  'src/recording/dispatch/bullmq/recorder-follows-channel.test.ts',
  'src/recording/dispatch/bullmq/redis-restart.test.ts',
  'src/server/sigkill-mix.test.ts',
  'src/server/sigkill.test.ts',
  'src/server/start.test.ts',
  'src/channel/placement/cross-node.test.ts',
  'src/channel/placement/browser-cross-node.test.ts',
  'src/channel/placement/directory.test.ts',
  'src/channel/membership/membership.test.ts',
  'src/chat/gateway/cross-process.test.ts',
  'src/chat/token-server/token-server.test.ts',
  'src/chat/token-server/caller-auth.test.ts',
  'src/cli/commands/serve.test.ts',
  'src/cli/commands/record.test.ts',
  'src/cli/commands/token.test.ts',
  'src/health/health.test.ts',
  'src/redis/redis.test.ts',
  'src/process/spawn-child.test.ts',
  'src/outbox/outbox.test.ts',
  'src/notify/dead-sender.test.ts',
  'test/import-each-module.test.ts',
  'src/net/tls.test.ts',
];

/** Chromium pages (console, docs, SDK, WebRTC in a browser). */
const BROWSER = [
  'src/channel/browser.test.ts',
  'src/channel/turn/turn.test.ts',
  'src/rules/rules.test.ts',
  'src/rules/rules-ingest.test.ts',
  'src/impairment/chromium-through-relay.test.ts',
  'src/impairment/viewer-layers.test.ts',
  'src/impairment/chromium-ice-restart.test.ts',
  'src/console/browser.test.ts',
  'src/console/ingress-browser.test.ts',
  'src/console/live-browser.test.ts',
  'src/openapi/docs-page.test.ts',
  'src/chat/sdk/browser.test.ts',
];

/** ffmpeg encodes or decodes media (no recorder). */
const MEDIA = [
  'src/media/capture/capture.test.ts',
  'src/media/push/cdn-pusher.test.ts',
  'src/media/mix/live/av-sync.test.ts',
  'src/media/mix/live/ogg-opus.test.ts',
  'src/media/mix/live/mix-pipeline.test.ts',
  'src/media/mix/live/mix-encoder.test.ts',
  'src/media/mix/live/frame-socket.test.ts',
  'src/media/mix/live/video-size.test.ts',
  'src/media/mix/compositor.test.ts',
  'src/media/push/gop-cache.test.ts',
  'src/media/track-pipeline.test.ts',
  'src/channel/webrtc/forward.test.ts',
  'src/channel/webrtc/local-tap.test.ts',
  'src/impairment/repair-through-channel.test.ts',
  // WebRTC peers through the relay: in the fast lane (SCHED_IDLE beside the heavy one) its viewer did not connect
  // within 20 s in a fresh-clone run of session 35, and fast-lane files are not retried alone.
  'src/impairment/through-channel.test.ts',
  'src/impairment/viewer-delay.test.ts',
  'src/channel/webrtc/keyframe-requests.test.ts',
  'src/channel/publisher/replay.test.ts',
  'src/channel/publisher/simulcast-publish.test.ts',
  'src/ingress/rtmp/rtmp.test.ts',
  'src/metrics/metrics.test.ts',
];

/** Object stores in their own processes (Azurite). */
const STORES = ['src/storage/uploaders/contract.test.ts', 'src/storage/module.test.ts'];

/** In-process but long: minutes of CPU. */
const LONG = ['src/recording/api/fuzz.test.ts'];

/**
 * The longest heavy files, longest first: a fresh clone has no timings
 * yet (.test-times.json), and one of these started late would end after the rest of the lane. Keep it in step when
 * a file's length changes much; every entry must also be in its group above.
 */
const LONGEST = [
  // Times from a fresh-clone run of the whole suite (3 to 5 heavy files at once, 2 cores), 2026-11-29.
  'src/media/capture/capture.test.ts', // 129 s
  'src/recorders/common/whep-ended.test.ts', // 87 s: ICE consent (30 s) twice
  'src/recorders/individual/loss.test.ts', // 95 s: three recordings through lossy relays
  'src/recorders/web/record.test.ts', // 93 s
  'src/recording/dispatch/bullmq/failover.test.ts', // 62 s (89 s with 15 s mix slices)
  'src/recorders/mix/record.test.ts', // 74 s
  'src/impairment/chromium-through-relay.test.ts', // 74 s: Chromium's bitrate ramp and its adaptation to a cap
  'src/ingress/whep-pull.test.ts', // 66 s
  'src/recording/dispatch/bullmq/postgres-outage-reports.test.ts', // 64 s
  'src/recorders/web/page.test.ts', // 54 s
  'src/ingress/rtsp-pull.test.ts', // 50 s: a recording across a camera's restart, three bad sources
  'src/recorders/individual/hold.test.ts', // 49 s
  'src/recorders/individual/record.test.ts', // 48 s
  'src/recorders/mix/hold.test.ts', // 44 s
  'src/recorders/individual/loss-chromium.test.ts', // 55 s alone: per codec three Chromium publishers, two through lossy relays, one recording
  'src/server/sigkill-mix.test.ts', // 20 s since its 4 s slices (43 s before)
  'src/recorders/individual/media-path.test.ts', // 41 s
  'src/console/browser.test.ts', // 39 s
  'src/recorders/mix/sender-clock.test.ts', // 37 s
  'src/recorders/individual/follow.test.ts', // 35 s
  'src/impairment/chromium-ice-restart.test.ts', // 35 s
  'src/rules/rules.test.ts', // 33 s
  'src/ingress/srt-push.test.ts', // 32 s: SRT's 5 s peer timeout, a recording
  'src/ingress/rtmp-push.test.ts', // 30 s: three pushes, a recording
  'src/recording/dispatch/bullmq/partition.test.ts', // 30 s
  'src/recorders/individual/ice-restart.test.ts', // 26 s
  'src/media/push/cdn-pusher.test.ts', // 26 s
  'src/recording/dispatch/bullmq/postgres-drop.test.ts', // 25 s
  'src/recorders/mix/loss.test.ts', // 23 s
  'src/recorders/individual/s3.test.ts', // 22 s
  'src/console/live-browser.test.ts', // 30 s alone: five 4 s slices first
  'src/cli/commands/record.test.ts', // 14 s, but 22 s of CPU in an earlier run
  // Times from session 29's first fresh-clone run: listed so that a fresh clone does not start them in the lane's last
  // minute, where each was the lane's last file in that run (it ended 20 s after most).
  'src/recorders/mix/browser.test.ts', // 21 s
  'src/channel/turn/turn.test.ts', // 21 s
  'src/impairment/viewer-layers.test.ts', // 20 s
  'src/server/sigkill.test.ts', // 20 s
  'src/channel/publisher/simulcast-publish.test.ts', // 19 s
  'src/media/track-pipeline.test.ts', // 19 s
  'src/recorders/web/audio-loss.test.ts', // 18 s
  'src/rules/rules-ingest.test.ts', // 17 s
  'src/recording/dispatch/bullmq/cross-process.test.ts', // 17 s
  'src/recorders/individual/hold-restart.test.ts', // 15 s
  'src/recording/dispatch/bullmq/recorder-follows-channel.test.ts', // 15 s
  'src/recording/dispatch/bullmq/redis-restart.test.ts', // 15 s
  'src/media/mix/live/mix-pipeline.test.ts', // 15 s
  'src/recorders/individual/restart.test.ts', // 14 s
  'src/console/ingress-browser.test.ts', // 14 s
  'src/recorders/individual/scene2.test.ts', // 13 s
  'src/channel/membership/membership.test.ts', // 12 s
  'src/metrics/metrics.test.ts', // 11 s
  'src/channel/browser.test.ts', // 11 s
  'src/channel/placement/browser-cross-node.test.ts', // 10 s
];

/**
 * Files that measure real-time behaviour against a bound (repair of lost packets before a hold runs out, a slicer's
 * input timeout against the pipeline's, A/V offsets): in whole-suite runs they failed when other files took their
 * CPU. The runner runs each of them beside two other files at most, never two of them at once, and starts every other
 * heavy file at the lowest CPU priority (nice 19), so these get the CPU first and the others still use what is left.
 */
export const TIMING_SENSITIVE = new Set([
  'src/recorders/individual/loss.test.ts',
  'src/recorders/individual/simulcast.test.ts',
  'src/recorders/individual/loss-opus.test.ts',
  'src/recorders/individual/loss-chromium.test.ts',
  'src/recorders/mix/loss.test.ts',
  'src/recorders/common/whep-replace.test.ts',
  'src/impairment/chromium-through-relay.test.ts',
  'src/impairment/repair-through-channel.test.ts',
  'src/channel/webrtc/keyframe-requests.test.ts',
  'src/media/mix/live/av-sync.test.ts',
  // A delay trend read from feedback stamped in this process: a stall of its event loop reads as a queue. Not PAIRED:
  // its live simulcast encode (0.6 of a core) beside the Chromium simulcast test made Chromium send its full picture
  // at a few frames a second (twice in two runs, session 29).
  'src/impairment/viewer-delay.test.ts',
  // Its layout samples read a region black when the mix fell behind (a run on a slower machine, and one in session 14).
  'src/recorders/mix/record.test.ts',
  // Speech intervals within 300 ms of the turns' edges: under the whole suite on a slow machine (session 25) one ended
  // 599 ms late; with two other recording files beside it, 0-20 ms.
  'src/recorders/individual/speakers.test.ts',
  // The same bound from Chromium's own levels: a WebAudio tone whose edges follow the page's audio clock (±30 ms alone).
  'src/recorders/individual/speakers-chromium.test.ts',
  // Audio chunks dropped as late cut its first user's tone (heard in 90 % of the last windows, 95 % asked) in a
  // fresh-clone run of session 16.
  'src/recorders/mix/sender-clock.test.ts',
  // Its A/V median read 60.27 ms against a 60 ms bound (a frame later than in its other runs) in a fresh-clone run of
  // session 16 with four files beside it.
  'src/recorders/web/page.test.ts',
  // An outage timer of its own: with the other files at nice 19, a run of session 17 saw no slice within 120 s after
  // PostgreSQL came back (it passes alone). (partition.test.ts was here too; its failure was the test reading
  // upload times for recording times, fixed in session 18.)
  'src/recording/dispatch/bullmq/postgres-drop.test.ts',
  // No gap over 1 s within a stream across a WHEP session that ends: LIGHT (nice 19) until session 35, when on an AMD
  // EPYC 2-core machine it failed in both whole-suite runs (video gaps of 1.7-1.9 s while it waited, the slices 1.9 s
  // short of the playlist) and passed alone each time. A fifth of a core over its minute and a half: PAIRED.
  'src/recorders/common/whep-ended.test.ts',
  // The same in session 35 (LIGHT before): at nice 19 its reeltime processes answered a stop 206 "upload timeout" in
  // one whole-suite run and left a dead recorder's spooled slice unadopted past its 120 s in another; alone, green.
  // A third to a half of a core over its minute and a half alone: PAIRED.
  'src/recording/dispatch/bullmq/failover.test.ts',
]);

/**
 * Timing-sensitive files that run with no other file beside them: Chromium's encoder under a CPU it shares answers
 * the node's keyframe requests late, and the lossy page's video fell to 0.88 of the control's with one file beside it
 * (session 15's slower machine), 0.95 with two.
 */
export const RUNS_ALONE = new Set([
  'src/recorders/individual/loss-chromium.test.ts',
  // Its A/V offsets through bursts and jitter: 133 ms against a 40 ms bound with one file beside it (event-loop
  // delay p99 218 ms), 16-26 ms in the runs where it had more CPU.
  'src/recorders/individual/loss.test.ts',
  // Its frame clock runs on the real event loop: one pair past 200 ms with one file beside it (fresh1, fresh6).
  'src/media/mix/live/av-sync.test.ts',
]);
/**
 * Timing-sensitive files that may run two at once, beside each other (and the company one of them would have): each
 * uses well under half a core (CPU over its time in a fresh-clone run of session 23: sender-clock 0.29, postgres-drop
 * 0.42, mix loss 0.38, whep-replace 0.30, simulcast 0.37, repair-through-channel 0.20; keyframe-requests is 4 s), so
 * two at normal priority leave each other more than a core, while the chain of sensitive files one after another
 * was 8 of the heavy lane's 14 minutes with the machine two thirds idle. Not here: those that run alone, and those
 * whose bound failed beside others (the mix's regions, Chromium under a cap, the web page's A/V median, Opus FEC at
 * 0.75 of a core).
 */
export const PAIRED = new Set([
  'src/recorders/common/whep-ended.test.ts',
  'src/recording/dispatch/bullmq/failover.test.ts',
  'src/recorders/mix/sender-clock.test.ts',
  'src/recording/dispatch/bullmq/postgres-drop.test.ts',
  'src/recorders/mix/loss.test.ts',
  'src/recorders/common/whep-replace.test.ts',
  'src/recorders/individual/simulcast.test.ts',
  'src/impairment/repair-through-channel.test.ts',
  'src/channel/webrtc/keyframe-requests.test.ts',
]);
for (const f of PAIRED) if (!TIMING_SENSITIVE.has(f) || RUNS_ALONE.has(f)) throw new Error(`scripts/test-lanes.mjs: ${f} is PAIRED but not TIMING_SENSITIVE, or runs alone`);

/**
 * Long files that mostly wait (ICE consent timeouts, outages held for their length, probes with timeouts): about a
 * quarter of one core on average, measured on a 2-core machine (`ℹ cpu_ms` over the file's time, 0.11-0.29 in a
 * whole-suite run of session 17). Up to LIGHT_COMPANY of them (two since session 18) run beside a timing-sensitive
 * file on top of its usual company while the CPU is a quarter idle (since session 19: on a machine twice as slow, two
 * of them at nice 19 beside a busy sensitive file starved, 8 s gaps in a WHEP recording), but none beside one that runs alone: the sensitive files run one after another,
 * and without company that chain was half of the heavy lane's time while the machine stood half idle.
 */
export const LIGHT = new Set([
  'src/media/capture/capture.test.ts', // 0.24 of a core over 131 s
  'src/recording/dispatch/bullmq/postgres-outage-reports.test.ts', // 0.23 over 77 s
  'src/ingress/srt-push.test.ts', // 0.25 over 33 s
  'src/media/push/cdn-pusher.test.ts', // 0.13 over 27 s
  'src/media/track-pipeline.test.ts', // 0.11 over 19 s
]);
export const LIGHT_COMPANY = 2;

/**
 * Files with no real-time bound (imports, request fuzzing, object-store protocols, token and CLI processes): a CPU
 * starved now and then makes them slower, never wrong. Up to BACKGROUND_COMPANY of them run beside a RUNS_ALONE file
 * under SCHED_IDLE (`chrt --idle`), which gets a core only when nothing else wants it: the loss test used two thirds
 * of one core of the two, and the rest stood idle for its two minutes.
 */
export const BACKGROUND = new Set([
  'test/import-each-module.test.ts',
  'src/recording/api/fuzz.test.ts',
  'src/storage/uploaders/contract.test.ts',
  'src/storage/module.test.ts',
  'src/chat/token-server/token-server.test.ts',
  'src/chat/token-server/caller-auth.test.ts',
  'src/cli/commands/token.test.ts',
  'src/health/health.test.ts',
  'src/server/start.test.ts',
  'src/channel/placement/directory.test.ts',
  'src/redis/redis.test.ts',
  'src/process/spawn-child.test.ts',
  'src/outbox/outbox.test.ts',
  'src/net/tls.test.ts',
  // Processes and their messages, no media (session 23: the lane's files that run alone left a core and a half idle
  // for a minute after the others above were done). Not membership or cross-node: they publish and wait for a viewer's
  // media, and under SCHED_IDLE beside the loss test a CLI publisher's viewer got no packet in 30 s (session 24's CI).
  'src/chat/gateway/cross-process.test.ts',
  'src/cli/commands/serve.test.ts',
  // Session 24: with the fast lane beside them, the other BACKGROUND files were done a minute before the files that
  // run alone, which left a core and a half idle meanwhile. A webhook sender killed, the API reference page, the chat
  // SDK in Chromium: no media and no real-time bound.
  'src/notify/dead-sender.test.ts',
  'src/openapi/docs-page.test.ts',
  'src/chat/sdk/browser.test.ts',
]);
export const BACKGROUND_COMPANY = 2;

for (const f of RUNS_ALONE) if (!TIMING_SENSITIVE.has(f)) throw new Error(`scripts/test-lanes.mjs: ${f} runs alone but is not TIMING_SENSITIVE`);

// The longest files first, then the groups, longest groups first.
export const HEAVY = [...new Set([...LONGEST, ...RECORDERS, ...MEDIA, ...LONG, ...PROCESSES, ...BROWSER, ...STORES])];
const grouped = new Set([...RECORDERS, ...MEDIA, ...LONG, ...PROCESSES, ...BROWSER, ...STORES]);
for (const f of LONGEST) if (!grouped.has(f)) throw new Error(`scripts/test-lanes.mjs: ${f} is in LONGEST but in no group`);
for (const f of TIMING_SENSITIVE) if (!grouped.has(f)) throw new Error(`scripts/test-lanes.mjs: ${f} is TIMING_SENSITIVE but in no group`);
for (const f of BACKGROUND) {
  if (!grouped.has(f)) throw new Error(`scripts/test-lanes.mjs: ${f} is BACKGROUND but in no group`);
  if (TIMING_SENSITIVE.has(f) || LIGHT.has(f)) throw new Error(`scripts/test-lanes.mjs: ${f} is BACKGROUND and TIMING_SENSITIVE or LIGHT`);
}
for (const f of LIGHT) {
  if (!grouped.has(f)) throw new Error(`scripts/test-lanes.mjs: ${f} is LIGHT but in no group`);
  if (TIMING_SENSITIVE.has(f)) throw new Error(`scripts/test-lanes.mjs: ${f} is both LIGHT and TIMING_SENSITIVE`);
}

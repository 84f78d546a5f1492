// Builds the exact acquire and start bodies of the record form, and the curl commands that send them. Pure.

export const LAYOUTS = [
  { value: 0, name: 'Floating', hint: 'first user full screen, others in small windows' },
  { value: 1, name: 'Best fit', hint: 'a grid that fits everyone' },
  { value: 2, name: 'Vertical', hint: 'one large, others in a column' },
];

export function defaultForm(channel) {
  return {
    mode: 'individual',
    cname: channel?.cname ?? '',
    uid: String(100000 + Math.floor(Math.random() * 899999)),
    token: '',
    channelType: channel?.profile === 'live' ? 1 : 0,
    streamTypes: 2,
    avFileType: 'hls',
    maxIdleTime: 30,
    layout: 1,
    width: 1280,
    height: 720,
    url: '',
    onhold: false,
    rtmpUrl: '',
    bucket: 'recordings',
    vendor: 1,
    region: 0,
    accessKey: 'local-access-key',
    secretKey: 'local-secret-key',
    prefix: 'console',
  };
}

function storageConfig(f) {
  const fileNamePrefix = f.prefix.split('/').map((s) => s.trim()).filter(Boolean);
  return {
    vendor: Number(f.vendor),
    region: Number(f.region),
    bucket: f.bucket,
    accessKey: f.accessKey,
    secretKey: f.secretKey,
    ...(fileNamePrefix.length ? { fileNamePrefix } : {}),
  };
}

export function acquireBody(f) {
  return { cname: f.cname, uid: f.uid, clientRequest: { scene: f.mode === 'web' ? 1 : 0, resourceExpiredHour: 24 } };
}

export function startBody(f) {
  const files = { avFileType: f.avFileType === 'hls+mp4' ? ['hls', 'mp4'] : ['hls'] };
  const token = f.token ? { token: f.token } : {};
  if (f.mode !== 'web') {
    const channel = { channelType: Number(f.channelType), streamTypes: Number(f.streamTypes), maxIdleTime: Number(f.maxIdleTime) };
    const transcodingConfig = {
      width: Number(f.width),
      height: Number(f.height),
      fps: 15,
      bitrate: 1000,
      mixedVideoLayout: Number(f.layout),
      backgroundColor: '#000000',
    };
    const individual = f.mode === 'individual';
    return {
      cname: f.cname,
      uid: f.uid,
      clientRequest: {
        ...token,
        recordingConfig: individual ? { ...channel, subscribeUidGroup: 0 } : { ...channel, transcodingConfig },
        recordingFileConfig: individual ? { avFileType: ['hls'] } : files,
        storageConfig: storageConfig(f),
      },
    };
  }
  const services = [
    {
      serviceName: 'web_recorder_service',
      errorHandlePolicy: 'error_abort',
      serviceParam: {
        url: f.url,
        audioProfile: 0,
        videoWidth: Number(f.width),
        videoHeight: Number(f.height),
        maxRecordingHour: 1,
        onhold: Boolean(f.onhold),
      },
    },
  ];
  if (f.rtmpUrl) {
    services.push({ serviceName: 'rtmp_publish_service', errorHandlePolicy: 'error_ignore', serviceParam: { outputs: [{ rtmpUrl: f.rtmpUrl }] } });
  }
  return {
    cname: f.cname,
    uid: f.uid,
    clientRequest: {
      ...token,
      ...(f.rtmpUrl ? {} : { recordingFileConfig: files }),
      storageConfig: storageConfig(f),
      extensionServiceConfig: { errorHandlePolicy: 'error_abort', extensionServices: services },
    },
  };
}

const quote = (s) => `'${s.replace(/'/g, `'\\''`)}'`;

/** curl commands for both calls; the credentials stay in shell variables, never on screen. */
export function curlCommands(origin, recordingBase, f) {
  const post = (path, body) =>
    `curl -s -u "$CUSTOMER_ID:$CUSTOMER_SECRET" -H 'Content-Type: application/json' \\\n  -d ${quote(JSON.stringify(body))} \\\n  ${origin}${path}`;
  return {
    acquire: post(`${recordingBase}/acquire`, acquireBody(f)),
    start: post(`${recordingBase}/resourceid/$RESOURCE_ID/mode/${f.mode}/start`, startBody(f)),
  };
}

/** A starting point for the session page's update box: flip onhold (web), or subscribe to everyone. */
export function updateTemplate(session) {
  if (session.mode === 'web') return holdBody(session.mode, !session.onhold);
  return { streamSubscribe: { audioUidList: { subscribeAudioUids: ['#allstream#'] }, videoUidList: { subscribeVideoUids: ['#allstream#'] } } };
}

/**
 * The update's clientRequest that pauses (true) or resumes (false): web mode's own field, or reeltime's
 * `recordingConfig.onhold` for individual and mix (docs/recording-api.md, "Pause and resume").
 */
export function holdBody(mode, onhold) {
  return mode === 'web' ? { webRecordingConfig: { onhold } } : { recordingConfig: { onhold } };
}

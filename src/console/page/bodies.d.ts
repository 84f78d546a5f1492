// Types of bodies.js for the tests that run it under Node (the page loads the .js as is).
export interface RecordForm {
  mode: 'individual' | 'mix' | 'web';
  cname: string;
  uid: string;
  token: string;
  channelType: number;
  streamTypes: number;
  avFileType: 'hls' | 'hls+mp4';
  maxIdleTime: number;
  layout: number;
  width: number;
  height: number;
  url: string;
  onhold: boolean;
  rtmpUrl: string;
  bucket: string;
  vendor: number;
  region: number;
  accessKey: string;
  secretKey: string;
  prefix: string;
}
export declare const LAYOUTS: readonly { value: number; name: string; hint: string }[];
export declare function defaultForm(channel?: { cname: string; profile: string | null }): RecordForm;
export declare function acquireBody(f: RecordForm): Record<string, unknown>;
export declare function startBody(f: RecordForm): Record<string, unknown>;
export declare function curlCommands(origin: string, recordingBase: string, f: RecordForm): { acquire: string; start: string };
export declare function updateTemplate(session: { mode: string; onhold: boolean }): Record<string, unknown>;
export declare function holdBody(mode: string, onhold: boolean): Record<string, unknown>;

// Minimal typing of the dev-only s3rver package, just what the tests use.
declare module 's3rver' {
  import type { Server } from 'node:http';
  interface S3rverOptions {
    address?: string;
    port?: number;
    directory: string;
    silent?: boolean;
    resetOnClose?: boolean;
    configureBuckets?: { name: string }[];
  }
  export default class S3rver {
    constructor(options: S3rverOptions);
    run(): Promise<{ address: string; port: number }>;
    close(): Promise<void>;
    httpServer?: Server;
    on(event: 'event', listener: (e: { Records: { eventName: string; s3: { object: { key: string } } }[] }) => void): this;
  }
}

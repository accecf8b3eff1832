import { Server } from 'node:net';
import { startFauxqs } from 'fauxqs';

export interface RunningSqs {
  endpoint: string;
  stop(): Promise<void>;
}

/**
 * Starts fauxqs in-process. fauxqs always asks its HTTP server to listen on 0.0.0.0; we must never
 * expose an emulator beyond loopback, so for the duration of its start-up we rewrite that host to
 * 127.0.0.1 at the `net.Server#listen` boundary (the only seam it leaves open).
 */
export async function startSqs(opts: { port?: number; dataDir?: string } = {}): Promise<RunningSqs> {
  const original = Server.prototype.listen;
  Server.prototype.listen = function patched(this: Server, ...args: unknown[]) {
    const first = args[0];
    if (first && typeof first === 'object' && (first as { host?: string }).host === '0.0.0.0') {
      args[0] = { ...(first as object), host: '127.0.0.1' };
    }
    return (original as (...a: unknown[]) => Server).apply(this, args);
  } as typeof original;
  try {
    const server = await startFauxqs({
      port: opts.port ?? 0,
      logger: false,
      // Only the host written into queue URLs (sqs.<region>.localhost); the SDK sends to SQS_ENDPOINT.
      host: 'localhost',
      ...(opts.dataDir ? { dataDir: opts.dataDir } : {}),
    });
    return {
      endpoint: `http://127.0.0.1:${server.port}`,
      stop: () => server.stop(),
    };
  } finally {
    Server.prototype.listen = original;
  }
}

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildOpenPhoneWebhookDeps } from '../../shared/src/composition/openphone-webhook';
import { isAppError } from '../../shared/src/errors';
import { receiveSmsWebhook } from '../../shared/src/use-cases/receive-sms-webhook';
import type { World } from '../agent/harness';

/** A test-only signing secret (base64 of 32 fixed bytes), never a real one. */
export const FOLLOW_WEBHOOK_SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;

/**
 * The OpenPhone webhook function's use case behind a real HTTP server on 127.0.0.1:0, composed over the
 * world's table and queue exactly as the Lambda composes it, with the test's clock (the emulator signs with
 * it). The emulator posts here; `world.work()` then runs the worker over what was queued.
 */
export async function startWebhookReceiver(world: World): Promise<{ url: string; stop(): Promise<void> }> {
  const deps = { ...buildOpenPhoneWebhookDeps(world.core), clock: world.servers.clock, log: world.log };
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers = Object.fromEntries(
      Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : v]),
    );
    try {
      const out = await receiveSmsWebhook(deps, { rawBody: Buffer.concat(chunks).toString('utf8'), headers });
      res.writeHead(out.status === 'enqueued' ? 202 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(out));
    } catch (e) {
      res.writeHead(isAppError(e) ? e.status : 500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: String(e) }));
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks/openphone`,
    stop: () => new Promise<void>((r) => server.close(() => r())),
  };
}

import { createECDH, type ECDH, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { decodeJwt, decodeProtectedHeader, importJWK, jwtVerify } from 'jose';
import type { BrowserPushSubscription } from '../../shared/src/contracts/push';

/**
 * A local Web Push service (RFC 8030) that behaves like the real ones where our sender can get it wrong:
 * it checks the VAPID JWT (RFC 8292: ES256, `aud` = this origin, `exp` in the future and within 24 h, and
 * the key the subscription was created with), requires TTL, validates Urgency and Topic, and decrypts the
 * `aes128gcm` body (RFC 8291) with the subscription's private key, so tests assert on what a browser would
 * actually read. It can be told to answer 404/410/429/503 for a subscription.
 */

// http_ece ships no types; this is the one function we use.
const require = createRequire(import.meta.url);
const ece = require('http_ece') as {
  decrypt(buffer: Buffer, params: { version: 'aes128gcm'; privateKey: ECDH; authSecret: string }): Buffer;
};

export type PushFailureStatus = 404 | 410 | 429 | 503;

export interface RecordedPush {
  subscriptionId: string;
  endpoint: string;
  /** The decrypted body parsed as JSON (the raw text when it is not JSON). */
  payload: unknown;
  rawPayload: string;
  ttl: number;
  urgency: string;
  topic?: string;
  vapid: { subject: string; publicKey: string; expiresAt: number };
  receivedAt: string;
}

/** Every request, accepted or not, so tests can count retries and see why one was refused. */
export interface PushAttempt {
  subscriptionId: string;
  status: number;
  reason?: string;
  at: string;
}

export interface PushServiceOptions {
  port?: number;
  /** Log each decrypted delivery (and each refusal) to stdout. */
  verbose?: boolean;
  log?: (line: string) => void;
}

export interface CreateSubscriptionOptions {
  /** The VAPID public key the "browser" subscribed with; pushes signed with another key are refused (403). */
  applicationServerKey?: string;
}

export interface PushService {
  url: string;
  origin: string;
  /** A browser-style subscription (`PushSubscription.toJSON()`); the service keeps the private key. */
  createSubscription(opts?: CreateSubscriptionOptions): BrowserPushSubscription;
  /** Answer `status` for this subscription: `times` requests, or every one from now on when omitted. */
  failWith(
    endpoint: string,
    status: PushFailureStatus,
    opts?: { times?: number; retryAfterSeconds?: number },
  ): void;
  /** The subscription disappears, as when the user revokes permission: every push gets 410. */
  expire(endpoint: string): void;
  deliveries(endpoint?: string): RecordedPush[];
  attempts(endpoint?: string): PushAttempt[];
  /** Resolves when `count` deliveries (in total, or for `endpoint`) have been recorded. */
  waitForDeliveries(count: number, opts?: { endpoint?: string; timeoutMs?: number }): Promise<RecordedPush[]>;
  reset(): void;
  stop(): Promise<void>;
}

interface Subscriber {
  id: string;
  endpoint: string;
  ecdh: ECDH;
  authSecret: string;
  applicationServerKey?: string;
  failures: { status: PushFailureStatus; remaining: number; retryAfterSeconds?: number }[];
}

/** RFC 8030 §8.4: one record of at most 4096 bytes. */
const MAX_BODY_BYTES = 4096;
const MAX_JWT_LIFETIME_SECONDS = 24 * 60 * 60;
const URGENCIES = new Set(['very-low', 'low', 'normal', 'high']);

export async function startPushService(opts: PushServiceOptions = {}): Promise<PushService> {
  const log = opts.log ?? ((line: string) => console.log(line));
  const subscribers = new Map<string, Subscriber>();
  const deliveries: RecordedPush[] = [];
  const attempts: PushAttempt[] = [];
  const waiters = new Set<() => void>();
  let origin = '';

  const server = createServer((req, res) => {
    handle(req, res).catch((e) => {
      if (!res.headersSent) send(res, 500, `internal error: ${e instanceof Error ? e.message : String(e)}`);
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', origin);
    // Control routes let a local stack in another process create "devices" and read what they received.
    if (req.method === 'POST' && url.pathname === '/subscriptions') {
      const body = await readBody(req);
      let parsed: CreateSubscriptionOptions = {};
      try {
        parsed = body.length ? (JSON.parse(body.toString('utf8')) as CreateSubscriptionOptions) : {};
      } catch {
        return send(res, 400, 'body must be JSON: {"applicationServerKey"?: string}');
      }
      return json(res, 201, createSubscription(parsed));
    }
    if (req.method === 'GET' && url.pathname === '/deliveries') return json(res, 200, deliveries);

    const match = /^\/push\/([\w-]+)$/.exec(url.pathname);
    if (!match) return send(res, 404, 'not found');
    if (req.method !== 'POST') return send(res, 405, 'method not allowed');
    const id = match[1] as string;
    const body = await readBody(req);
    const sub = subscribers.get(id);

    const refuse = (status: number, reason: string, headers: Record<string, string> = {}) => {
      attempts.push({ subscriptionId: id, status, reason, at: new Date().toISOString() });
      if (opts.verbose) log(`[push] ${status} for ${id.slice(0, 8)}: ${reason}`);
      send(res, status, reason, headers);
    };

    if (!sub) return refuse(404, 'no such subscription');
    const failure = sub.failures[0];
    if (failure) {
      failure.remaining--;
      if (failure.remaining <= 0) sub.failures.shift();
      const headers: Record<string, string> =
        failure.retryAfterSeconds === undefined ? {} : { 'retry-after': String(failure.retryAfterSeconds) };
      return refuse(failure.status, `scripted ${failure.status}`, headers);
    }

    const vapid = await verifyVapid(req.headers.authorization, origin, sub.applicationServerKey);
    if (!vapid.ok) return refuse(vapid.status, vapid.reason);

    const ttlHeader = header(req, 'ttl');
    if (ttlHeader === undefined || !/^\d+$/.test(ttlHeader))
      return refuse(400, 'missing or invalid TTL header');
    const urgency = header(req, 'urgency') ?? 'normal';
    if (!URGENCIES.has(urgency)) return refuse(400, `invalid Urgency: ${urgency}`);
    const topic = header(req, 'topic');
    if (topic !== undefined && !/^[A-Za-z0-9_-]{1,32}$/.test(topic)) {
      return refuse(400, 'Topic must be at most 32 URL-safe base64 characters');
    }
    if (header(req, 'content-encoding') !== 'aes128gcm')
      return refuse(415, 'Content-Encoding must be aes128gcm');
    if (body.length > MAX_BODY_BYTES)
      return refuse(413, `body of ${body.length} bytes exceeds ${MAX_BODY_BYTES}`);

    let plaintext: string;
    try {
      plaintext = ece
        .decrypt(body, { version: 'aes128gcm', privateKey: sub.ecdh, authSecret: sub.authSecret })
        .toString('utf8');
    } catch (e) {
      return refuse(400, `could not decrypt: ${e instanceof Error ? e.message : String(e)}`);
    }
    let payload: unknown = plaintext;
    try {
      payload = JSON.parse(plaintext);
    } catch {
      // Not JSON: record the text as is; the test decides whether that is wrong.
    }

    const record: RecordedPush = {
      subscriptionId: id,
      endpoint: sub.endpoint,
      payload,
      rawPayload: plaintext,
      ttl: Number(ttlHeader),
      urgency,
      ...(topic === undefined ? {} : { topic }),
      vapid: { subject: vapid.subject, publicKey: vapid.publicKey, expiresAt: vapid.exp },
      receivedAt: new Date().toISOString(),
    };
    deliveries.push(record);
    attempts.push({ subscriptionId: id, status: 201, at: record.receivedAt });
    if (opts.verbose) {
      log(
        `[push] delivered to ${id.slice(0, 8)} ttl=${record.ttl} urgency=${urgency} topic=${topic ?? '-'}: ${plaintext}`,
      );
    }
    for (const wake of waiters) wake();
    // RFC 8030 §5: 201 Created with the message's location.
    send(res, 201, '', { location: `${origin}/message/${randomUUID()}` });
  }

  function createSubscription(o: CreateSubscriptionOptions = {}): BrowserPushSubscription {
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    const id = randomBytes(24).toString('base64url');
    const sub: Subscriber = {
      id,
      endpoint: `${origin}/push/${id}`,
      ecdh,
      authSecret: randomBytes(16).toString('base64url'),
      ...(o.applicationServerKey ? { applicationServerKey: o.applicationServerKey } : {}),
      failures: [],
    };
    subscribers.set(id, sub);
    return {
      endpoint: sub.endpoint,
      expirationTime: null,
      keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: sub.authSecret },
    };
  }

  function subscriberFor(endpoint: string): Subscriber {
    const id = endpoint.split('/').pop() ?? '';
    const sub = subscribers.get(id);
    if (!sub) throw new Error('Unknown push subscription endpoint');
    return sub;
  }

  const idOf = (endpoint?: string) => (endpoint ? (endpoint.split('/').pop() ?? '') : undefined);

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: origin,
    origin,
    createSubscription,
    failWith(endpoint, status, o = {}) {
      subscriberFor(endpoint).failures.push({
        status,
        remaining: o.times ?? Number.POSITIVE_INFINITY,
        ...(o.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: o.retryAfterSeconds }),
      });
    },
    expire(endpoint) {
      subscriberFor(endpoint).failures.unshift({ status: 410, remaining: Number.POSITIVE_INFINITY });
    },
    deliveries(endpoint) {
      const id = idOf(endpoint);
      return deliveries.filter((d) => id === undefined || d.subscriptionId === id);
    },
    attempts(endpoint) {
      const id = idOf(endpoint);
      return attempts.filter((a) => id === undefined || a.subscriptionId === id);
    },
    waitForDeliveries(count, o = {}) {
      const id = idOf(o.endpoint);
      const matching = () => deliveries.filter((d) => id === undefined || d.subscriptionId === id);
      return new Promise((resolve, reject) => {
        const check = () => {
          if (matching().length < count) return;
          cleanup();
          resolve(matching());
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`Timed out waiting for ${count} push deliveries (got ${matching().length})`));
        }, o.timeoutMs ?? 5_000);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    reset() {
      deliveries.length = 0;
      attempts.length = 0;
      for (const s of subscribers.values()) s.failures = [];
    },
    stop() {
      return new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((e) => (e ? reject(e) : resolve()));
      });
    },
  };
}

/** The same service under the name pattern every emulator follows (`start<Name>Emulator`). */
export const startPushServiceEmulator = startPushService;

type VapidCheck =
  | { ok: true; subject: string; publicKey: string; exp: number }
  | { ok: false; status: 401 | 403; reason: string };

/** RFC 8292 §3: `Authorization: vapid t=<JWT>, k=<uncompressed P-256 public key, base64url>`. */
async function verifyVapid(
  authorization: string | undefined,
  audience: string,
  expectedKey: string | undefined,
): Promise<VapidCheck> {
  const m = /^vapid\s+(.+)$/i.exec(authorization ?? '');
  if (!m?.[1]) return { ok: false, status: 401, reason: 'missing vapid Authorization' };
  const params = new Map<string, string>();
  for (const part of m[1].split(',')) {
    const eq = part.indexOf('=');
    if (eq > 0) params.set(part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).trim());
  }
  const token = params.get('t');
  const k = params.get('k');
  if (!token || !k) return { ok: false, status: 401, reason: 'vapid Authorization needs t= and k=' };

  const point = Buffer.from(k, 'base64url');
  if (point.length !== 65 || point[0] !== 0x04) {
    return { ok: false, status: 401, reason: 'k is not an uncompressed P-256 public key' };
  }
  // Real push services bind a subscription to the applicationServerKey it was created with (RFC 8292 §4).
  if (expectedKey && k !== expectedKey.replace(/=+$/, '')) {
    return { ok: false, status: 403, reason: 'VAPID key does not match the subscription' };
  }
  try {
    if (decodeProtectedHeader(token).alg !== 'ES256') {
      return { ok: false, status: 401, reason: 'VAPID JWT must be ES256' };
    }
    const key = await importJWK(
      {
        kty: 'EC',
        crv: 'P-256',
        x: point.subarray(1, 33).toString('base64url'),
        y: point.subarray(33, 65).toString('base64url'),
      },
      'ES256',
    );
    const { payload } = await jwtVerify(token, key, {
      algorithms: ['ES256'],
      audience,
      requiredClaims: ['exp'],
    });
    const exp = payload.exp as number;
    const nowSeconds = Math.floor(Date.now() / 1000);
    if (exp > nowSeconds + MAX_JWT_LIFETIME_SECONDS) {
      return { ok: false, status: 401, reason: 'VAPID JWT exp is more than 24 hours ahead' };
    }
    const subject = typeof payload.sub === 'string' ? payload.sub : '';
    if (!subject.startsWith('mailto:') && !subject.startsWith('https:')) {
      return { ok: false, status: 401, reason: 'VAPID JWT sub must be a mailto: or https: URL' };
    }
    return { ok: true, subject, publicKey: k, exp };
  } catch (e) {
    const claims = safeClaims(token);
    return {
      ok: false,
      status: 401,
      reason: `VAPID JWT rejected: ${e instanceof Error ? e.message : String(e)}${claims}`,
    };
  }
}

function safeClaims(token: string): string {
  try {
    const c = decodeJwt(token);
    return ` (aud=${String(c.aud)}, exp=${String(c.exp)})`;
  } catch {
    return '';
  }
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function send(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
  res.end(text);
}

function json(res: ServerResponse, status: number, value: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

// `tsx scripts/emulators/push-service.ts [port]`: a standalone, verbose push service for the local stack.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const port = process.argv[2] ? Number(process.argv[2]) : 0;
  const service = await startPushService({ port, verbose: true });
  console.log(`push service listening on ${service.url} (POST /subscriptions creates a device)`);
}

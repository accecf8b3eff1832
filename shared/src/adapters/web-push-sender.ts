import type WebPush from 'web-push';
import { z } from 'zod';
import type { Config } from '../config';
import type { BrowserPushSubscription } from '../contracts/push';
import { ConfigError, describeZodIssues } from '../errors';
import type { PushSender, PushSendOptions, PushSendOutcome } from '../ports/push';

const base64urlKey = (bytes: number) =>
  z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, 'must be unpadded base64url')
    .refine((s) => Buffer.from(s, 'base64url').length === bytes, `must decode to ${bytes} bytes`);

export const vapidDetailsSchema = z.object({
  /** Who the push service contacts about abuse: `mailto:` or an https URL (RFC 8292 §2.1). */
  subject: z
    .string()
    .refine((s) => s.startsWith('mailto:') || s.startsWith('https://'), 'must be a mailto: or https: URL'),
  publicKey: base64urlKey(65),
  privateKey: base64urlKey(32),
});

export type VapidDetails = z.infer<typeof vapidDetailsSchema>;

/**
 * VAPID details from config, or undefined when no key pair is configured (push is then off, like every
 * optional integration). Half a key pair is a mistake worth failing the cold start over.
 */
export function vapidDetailsFromConfig(
  config: Pick<Config, 'VAPID_PUBLIC_KEY' | 'VAPID_PRIVATE_KEY' | 'VAPID_SUBJECT'>,
): VapidDetails | undefined {
  const { VAPID_PUBLIC_KEY: publicKey, VAPID_PRIVATE_KEY: privateKey, VAPID_SUBJECT: subject } = config;
  if (!publicKey && !privateKey) return undefined;
  if (!publicKey || !privateKey) {
    throw new ConfigError(
      'Invalid configuration: set both VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY, or neither',
    );
  }
  const parsed = vapidDetailsSchema.safeParse({ subject, publicKey, privateKey });
  if (!parsed.success)
    throw new ConfigError(`Invalid VAPID details: ${describeZodIssues(parsed.error.issues)}`);
  return parsed.data;
}

export interface WebPushSenderOptions {
  vapid: VapidDetails;
  /** Per-request timeout; a push service that hangs counts as a retryable failure. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/**
 * PushSender over the Web Push protocol (RFC 8030 + VAPID RFC 8292 + aes128gcm RFC 8291).
 *
 * `web-push` builds the request (encryption, VAPID JWT, TTL/Urgency/Topic headers) and `fetch` sends it.
 * We do not use `webpush.sendNotification` because it only speaks https, which would force a second code
 * path (or a self-signed certificate) for the local push service; with `generateRequestDetails` prod and
 * local run the same code. `web-push` (with its JWT and ASN.1 stack, about 100 KB) is imported on the first
 * send, not at cold start: the API and the worker load it only when they actually notify someone.
 */
export function createWebPushSender(opts: WebPushSenderOptions): PushSender {
  const parsed = vapidDetailsSchema.safeParse(opts.vapid);
  // The message names fields and rules only, never the key material.
  if (!parsed.success)
    throw new ConfigError(`Invalid VAPID details: ${describeZodIssues(parsed.error.issues)}`);
  const vapidDetails = parsed.data;
  const doFetch = opts.fetch ?? fetch;
  const timeoutMs = opts.timeoutMs ?? 10_000;
  let lib: Promise<typeof WebPush> | undefined;
  const webPush = () => {
    lib ??= import('web-push').then((m) => m.default);
    return lib;
  };

  return {
    async send(
      subscription: BrowserPushSubscription,
      payload: string,
      options: PushSendOptions,
    ): Promise<PushSendOutcome> {
      const webpush = await webPush();
      let details: ReturnType<typeof webpush.generateRequestDetails>;
      try {
        details = webpush.generateRequestDetails(
          { endpoint: subscription.endpoint, keys: subscription.keys },
          payload,
          {
            vapidDetails,
            // Explicit always: web-push's default TTL is four weeks, far too long for anything we send.
            TTL: options.ttlSeconds,
            urgency: options.urgency,
            ...(options.topic ? { topic: options.topic } : {}),
          },
        );
      } catch (e) {
        // Malformed subscription keys or an invalid topic: no retry can fix the request.
        return { kind: 'failed', reason: `could not build push request: ${errorMessage(e)}` };
      }

      const headers = new Headers();
      for (const [name, value] of Object.entries(details.headers)) {
        // fetch computes Content-Length from the body itself; a copied one can only disagree.
        if (name.toLowerCase() === 'content-length') continue;
        headers.set(name, String(value));
      }

      let response: Response;
      try {
        response = await doFetch(details.endpoint, {
          method: details.method,
          headers,
          body: details.body ? new Uint8Array(details.body) : null,
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (e) {
        return { kind: 'retryable', reason: `push service unreachable: ${errorMessage(e)}` };
      }
      // Drain the body so the connection is reused; its text helps explain refusals.
      const text = await response.text().catch(() => '');
      return classify(response.status, response.headers.get('retry-after'), text);
    },
  };
}

function classify(status: number, retryAfter: string | null, body: string): PushSendOutcome {
  if (status >= 200 && status < 300) return { kind: 'delivered', status };
  if (status === 404 || status === 410) return { kind: 'gone', status };
  const reason = `push service answered ${status}${body ? `: ${body.slice(0, 200)}` : ''}`;
  if (status === 429 || status >= 500) {
    const retryAfterMs = parseRetryAfter(retryAfter);
    return { kind: 'retryable', status, reason, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
  }
  return { kind: 'failed', status, reason };
}

/** `Retry-After` is either delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function errorMessage(e: unknown): string {
  if (e instanceof Error) {
    const cause = e.cause instanceof Error ? ` (${e.cause.message})` : '';
    return `${e.message}${cause}`;
  }
  return String(e);
}

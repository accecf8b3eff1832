import { createHmac, timingSafeEqual } from 'node:crypto';
import { ConfigError } from '../errors';

/**
 * OpenPhone (Quo) webhook signatures, both generations Quo delivers today:
 *
 * - legacy (webhooks created in the Quo app, or with the older API): one header
 *   `openphone-signature: hmac;1;<timestamp>;<base64 digest>`, HMAC-SHA256 over `<timestamp>.<raw body>`
 *   keyed with the base64-DECODED signing key. Quo's support article says future versions may put several
 *   signatures in the header separated by commas. The timestamp unit is never stated in words; the documented
 *   example (1639710054089) has 13 digits, i.e. milliseconds, which is what we require.
 * - standard (webhooks created with `Quo-Api-Version` 2026-03-30 and later, Standard Webhooks / Svix style):
 *   `webhook-id`, `webhook-timestamp` (Unix SECONDS) and `webhook-signature: v1,<base64> [v1,<base64> …]`
 *   (space separated, so a rotated key can sign alongside the old one), HMAC-SHA256 over
 *   `<id>.<timestamp>.<raw body>` keyed with the base64 part of the `whsec_…` secret.
 *
 * One configured secret serves both schemes: an optional `whsec_` prefix is stripped and the rest is base64
 * decoded. Both schemes sign the raw body bytes, so callers must pass the body exactly as received.
 * Timestamps more than `toleranceSeconds` (default 5 minutes) from `now` are rejected, which bounds replay;
 * the delivery id returned on success is what the caller de-duplicates on for replays inside the window.
 */

export type OpenPhoneSignatureScheme = 'legacy' | 'standard';

export type OpenPhoneSignatureFailure =
  /** Neither `webhook-signature` nor `openphone-signature` is present, or a standard header is missing. */
  | 'missing_headers'
  /** A header is present but does not parse (wrong field count, non-numeric timestamp, bad base64 length …). */
  | 'malformed_header'
  /** Well-formed, but only signature versions we do not implement (e.g. `v1a`, or legacy `hmac;2`). */
  | 'unsupported_version'
  /** The timestamp looks like the other unit (seconds where milliseconds are expected, or vice versa). */
  | 'timestamp_unit_mismatch'
  /** Older or newer than the tolerance allows. */
  | 'timestamp_out_of_range'
  /** Parsed fine, fresh, but no signature matches this body and key. */
  | 'bad_signature';

export type OpenPhoneSignatureResult =
  | {
      ok: true;
      scheme: OpenPhoneSignatureScheme;
      /**
       * The id to claim for idempotency: the `webhook-id` header (standard; stable across Quo's retries of the
       * same message), or the event's own `id` from the body (legacy has no delivery header). Null only when a
       * correctly signed legacy body is not JSON with a string `id`; the payload parser will reject it anyway.
       */
      deliveryId: string | null;
      timestampMs: number;
    }
  | { ok: false; scheme: OpenPhoneSignatureScheme | null; reason: OpenPhoneSignatureFailure };

/** Header names as Quo sends them; lookups are case-insensitive. */
export const OPENPHONE_LEGACY_HEADER = 'openphone-signature';
export const STANDARD_WEBHOOK_HEADERS = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
} as const;

export const DEFAULT_SIGNATURE_TOLERANCE_SECONDS = 300;

export type HeaderBag = Headers | Record<string, string | string[] | undefined>;
export type RawBody = string | Uint8Array;

export interface VerifyOpenPhoneSignatureInput {
  rawBody: RawBody;
  headers: HeaderBag;
  /** The signing secret: base64 (legacy, as revealed in the app) or `whsec_<base64>` (standard). */
  secret: string;
  /** Current time in epoch milliseconds (or a Date); injected so tests are deterministic. */
  now?: number | Date;
  toleranceSeconds?: number;
}

const SHA256_BYTES = 32;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const DIGITS = /^\d{1,16}$/;

export function verifyOpenPhoneSignature(input: VerifyOpenPhoneSignatureInput): OpenPhoneSignatureResult {
  const key = decodeSigningSecret(input.secret);
  const nowMs = input.now === undefined ? Date.now() : Number(input.now);
  const toleranceMs = (input.toleranceSeconds ?? DEFAULT_SIGNATURE_TOLERANCE_SECONDS) * 1000;
  const body = toBytes(input.rawBody);

  // The current scheme wins when both are present: it is the one that covers a delivery id.
  if (header(input.headers, STANDARD_WEBHOOK_HEADERS.signature) !== undefined) {
    return verifyStandard(input.headers, body, key, nowMs, toleranceMs);
  }
  if (header(input.headers, OPENPHONE_LEGACY_HEADER) !== undefined) {
    return verifyLegacy(input.headers, body, key, nowMs, toleranceMs);
  }
  return { ok: false, scheme: null, reason: 'missing_headers' };
}

function verifyStandard(
  headers: HeaderBag,
  body: Buffer,
  key: Buffer,
  nowMs: number,
  toleranceMs: number,
): OpenPhoneSignatureResult {
  const fail = (reason: OpenPhoneSignatureFailure) => ({
    ok: false as const,
    scheme: 'standard' as const,
    reason,
  });
  const id = header(headers, STANDARD_WEBHOOK_HEADERS.id);
  const ts = header(headers, STANDARD_WEBHOOK_HEADERS.timestamp);
  const sig = header(headers, STANDARD_WEBHOOK_HEADERS.signature) ?? '';
  if (!id || !ts) return fail('missing_headers');
  if (!DIGITS.test(ts) || id.length > 256) return fail('malformed_header');

  const seconds = Number(ts);
  // 13+ digits is a millisecond clock; reporting it as such saves an operator an afternoon.
  if (ts.length >= 12) return fail('timestamp_unit_mismatch');
  const timestampMs = seconds * 1000;
  if (Math.abs(nowMs - timestampMs) > toleranceMs) return fail('timestamp_out_of_range');

  const entries = sig.split(' ').filter(Boolean);
  if (entries.length === 0) return fail('malformed_header');
  const v1 = [];
  for (const entry of entries) {
    const comma = entry.indexOf(',');
    if (comma <= 0) return fail('malformed_header');
    if (entry.slice(0, comma) === 'v1') v1.push(entry.slice(comma + 1));
  }
  if (v1.length === 0) return fail('unsupported_version');

  const expected = hmac(key, Buffer.from(`${id}.${ts}.`, 'utf8'), body);
  if (!v1.some((candidate) => digestMatches(candidate, expected))) return fail('bad_signature');
  return { ok: true, scheme: 'standard', deliveryId: id, timestampMs };
}

function verifyLegacy(
  headers: HeaderBag,
  body: Buffer,
  key: Buffer,
  nowMs: number,
  toleranceMs: number,
): OpenPhoneSignatureResult {
  const fail = (reason: OpenPhoneSignatureFailure) => ({
    ok: false as const,
    scheme: 'legacy' as const,
    reason,
  });
  const parts = (header(headers, OPENPHONE_LEGACY_HEADER) ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  if (parts.length === 0) return fail('malformed_header');

  // Check every candidate and report the most telling failure if none verifies.
  let worst: OpenPhoneSignatureFailure = 'unsupported_version';
  const rank: OpenPhoneSignatureFailure[] = [
    'unsupported_version',
    'malformed_header',
    'timestamp_unit_mismatch',
    'timestamp_out_of_range',
    'bad_signature',
  ];
  const note = (reason: OpenPhoneSignatureFailure) => {
    if (rank.indexOf(reason) > rank.indexOf(worst)) worst = reason;
  };

  for (const part of parts) {
    const fields = part.split(';');
    if (fields.length !== 4) {
      note('malformed_header');
      continue;
    }
    const [scheme, version, ts = '', digest = ''] = fields;
    if (scheme !== 'hmac' || version !== '1') {
      note('unsupported_version');
      continue;
    }
    if (!DIGITS.test(ts)) {
      note('malformed_header');
      continue;
    }
    // A 10-digit value is a seconds clock: the signer and we disagree on the unit, which is not a replay.
    if (ts.length <= 11) {
      note('timestamp_unit_mismatch');
      continue;
    }
    const timestampMs = Number(ts);
    if (Math.abs(nowMs - timestampMs) > toleranceMs) {
      note('timestamp_out_of_range');
      continue;
    }
    const expected = hmac(key, Buffer.from(`${ts}.`, 'utf8'), body);
    if (!digestMatches(digest, expected)) {
      note('bad_signature');
      continue;
    }
    return { ok: true, scheme: 'legacy', deliveryId: eventIdOf(body), timestampMs };
  }
  return fail(worst);
}

export interface SignOpenPhoneInput {
  rawBody: RawBody;
  secret: string;
  /** Epoch milliseconds (legacy puts them in the header as is; standard sends whole seconds). */
  timestampMs: number;
}

/** Headers for a legacy delivery. Used by the emulator and `simulate:sms`; real deliveries are signed by Quo. */
export function signOpenPhoneLegacy(input: SignOpenPhoneInput): Record<string, string> {
  const ts = String(Math.trunc(input.timestampMs));
  const digest = hmac(
    decodeSigningSecret(input.secret),
    Buffer.from(`${ts}.`, 'utf8'),
    toBytes(input.rawBody),
  );
  return { [OPENPHONE_LEGACY_HEADER]: `hmac;1;${ts};${digest.toString('base64')}` };
}

/** Headers for a standard delivery; `webhookId` is the delivery id Quo would reuse on retries. */
export function signOpenPhoneStandard(
  input: SignOpenPhoneInput & { webhookId: string },
): Record<string, string> {
  const ts = String(Math.floor(input.timestampMs / 1000));
  const digest = hmac(
    decodeSigningSecret(input.secret),
    Buffer.from(`${input.webhookId}.${ts}.`, 'utf8'),
    toBytes(input.rawBody),
  );
  return {
    [STANDARD_WEBHOOK_HEADERS.id]: input.webhookId,
    [STANDARD_WEBHOOK_HEADERS.timestamp]: ts,
    [STANDARD_WEBHOOK_HEADERS.signature]: `v1,${digest.toString('base64')}`,
  };
}

/**
 * A misconfigured secret is an operator problem, not a bad delivery: throwing (→ 5xx) makes Quo retry the
 * delivery later instead of us answering 401 and the event being given up on.
 */
function decodeSigningSecret(secret: string): Buffer {
  const b64 = secret.trim().replace(/^whsec_/, '');
  if (!b64 || !BASE64.test(b64) || b64.length % 4 === 1) {
    throw new ConfigError('OPENPHONE_WEBHOOK_SECRET must be base64 (optionally prefixed with whsec_)');
  }
  const key = Buffer.from(b64, 'base64');
  if (key.length === 0) throw new ConfigError('OPENPHONE_WEBHOOK_SECRET decodes to an empty key');
  return key;
}

function hmac(key: Buffer, prefix: Buffer, body: Buffer): Buffer {
  return createHmac('sha256', key).update(prefix).update(body).digest();
}

/** Compares decoded digests in constant time; a wrong length or non-base64 value simply does not match. */
function digestMatches(candidateB64: string, expected: Buffer): boolean {
  if (!BASE64.test(candidateB64)) return false;
  const candidate = Buffer.from(candidateB64, 'base64');
  return candidate.length === SHA256_BYTES && timingSafeEqual(candidate, expected);
}

function toBytes(body: RawBody): Buffer {
  return typeof body === 'string'
    ? Buffer.from(body, 'utf8')
    : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const bag = headers as Record<string, string | string[] | undefined>;
  for (const [k, v] of Object.entries(bag)) {
    if (k.toLowerCase() !== name) continue;
    return Array.isArray(v) ? v.join(name === OPENPHONE_LEGACY_HEADER ? ',' : ' ') : v;
  }
  return undefined;
}

function eventIdOf(body: Buffer): string | null {
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    const id = (parsed as { id?: unknown } | null)?.id;
    return typeof id === 'string' && id.length > 0 && id.length <= 200 ? id : null;
  } catch {
    return null;
  }
}

import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors';
import {
  type OpenPhoneSignatureResult,
  signOpenPhoneLegacy,
  signOpenPhoneStandard,
  verifyOpenPhoneSignature,
} from './openphone-signature';

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const KEY_B64 = Buffer.from('demo-signing-key-0123456789abcdef').toString('base64');
const WHSEC = `whsec_${KEY_B64}`;
const OTHER_KEY_B64 = Buffer.from('someone-else-entirely-0123456789').toString('base64');
const BODY = JSON.stringify({
  id: 'EVc67ec998b35c41d388af50799aeeba3e',
  object: 'event',
  type: 'message.received',
  data: { object: { id: 'AC1', text: 'No heat in unit 2' } },
});

/** An independent implementation of the documented algorithm, so the tests do not just mirror the code. */
function referenceDigest(keyB64: string, signed: string): string {
  return createHmac('sha256', Buffer.from(keyB64, 'base64')).update(signed, 'utf8').digest('base64');
}

const legacyHeader = (ts: number | string, body = BODY, keyB64 = KEY_B64) =>
  `hmac;1;${ts};${referenceDigest(keyB64, `${ts}.${body}`)}`;

const standardHeaders = (id: string, tsSeconds: number | string, body = BODY, keyB64 = KEY_B64) => ({
  'webhook-id': id,
  'webhook-timestamp': String(tsSeconds),
  'webhook-signature': `v1,${referenceDigest(keyB64, `${id}.${tsSeconds}.${body}`)}`,
});

const nowS = NOW / 1000;

type Case = {
  name: string;
  headers: Record<string, string>;
  body?: string;
  secret?: string;
  expect: Partial<OpenPhoneSignatureResult> & { ok: boolean };
};

const cases: Case[] = [
  // legacy scheme
  {
    name: 'legacy: valid (delivery id is the event id from the body)',
    headers: { 'openphone-signature': legacyHeader(NOW) },
    expect: {
      ok: true,
      scheme: 'legacy',
      deliveryId: 'EVc67ec998b35c41d388af50799aeeba3e',
      timestampMs: NOW,
    },
  },
  {
    name: 'legacy: valid with the whsec_-prefixed form of the same key',
    headers: { 'openphone-signature': legacyHeader(NOW) },
    secret: WHSEC,
    expect: { ok: true, scheme: 'legacy' },
  },
  {
    name: 'legacy: header name in any case',
    headers: { 'OpenPhone-Signature': legacyHeader(NOW) },
    expect: { ok: true, scheme: 'legacy' },
  },
  {
    name: 'legacy: tampered body',
    headers: { 'openphone-signature': legacyHeader(NOW) },
    body: BODY.replace('No heat', 'All good'),
    expect: { ok: false, scheme: 'legacy', reason: 'bad_signature' },
  },
  {
    name: 'legacy: wrong key',
    headers: { 'openphone-signature': legacyHeader(NOW, BODY, OTHER_KEY_B64) },
    expect: { ok: false, reason: 'bad_signature' },
  },
  {
    name: 'legacy: keyed with the base64 TEXT instead of the decoded key',
    headers: {
      'openphone-signature': `hmac;1;${NOW};${createHmac('sha256', KEY_B64).update(`${NOW}.${BODY}`).digest('base64')}`,
    },
    expect: { ok: false, reason: 'bad_signature' },
  },
  {
    name: 'legacy: stale (5 min + 1 ms old)',
    headers: { 'openphone-signature': legacyHeader(NOW - 300_001) },
    expect: { ok: false, reason: 'timestamp_out_of_range' },
  },
  {
    name: 'legacy: exactly 5 min old is still accepted',
    headers: { 'openphone-signature': legacyHeader(NOW - 300_000) },
    expect: { ok: true },
  },
  {
    name: 'legacy: from the future (6 min ahead)',
    headers: { 'openphone-signature': legacyHeader(NOW + 360_000) },
    expect: { ok: false, reason: 'timestamp_out_of_range' },
  },
  {
    name: 'legacy: seconds where milliseconds are expected (correctly signed)',
    headers: { 'openphone-signature': legacyHeader(nowS) },
    expect: { ok: false, reason: 'timestamp_unit_mismatch' },
  },
  {
    name: 'legacy: several signatures, comma separated, one valid',
    headers: { 'openphone-signature': `${legacyHeader(NOW, BODY, OTHER_KEY_B64)},${legacyHeader(NOW)}` },
    expect: { ok: true, scheme: 'legacy' },
  },
  {
    name: 'legacy: unknown version',
    headers: { 'openphone-signature': legacyHeader(NOW).replace('hmac;1;', 'hmac;2;') },
    expect: { ok: false, reason: 'unsupported_version' },
  },
  {
    name: 'legacy: three fields',
    headers: { 'openphone-signature': `hmac;1;${NOW}` },
    expect: { ok: false, reason: 'malformed_header' },
  },
  {
    name: 'legacy: non-numeric timestamp',
    headers: { 'openphone-signature': `hmac;1;yesterday;${referenceDigest(KEY_B64, 'x')}` },
    expect: { ok: false, reason: 'malformed_header' },
  },
  {
    name: 'legacy: empty header',
    headers: { 'openphone-signature': '' },
    expect: { ok: false, reason: 'malformed_header' },
  },
  {
    name: 'legacy: truncated digest',
    headers: { 'openphone-signature': legacyHeader(NOW).slice(0, -8) },
    expect: { ok: false, reason: 'bad_signature' },
  },
  {
    name: 'legacy: digest that is not base64',
    headers: { 'openphone-signature': `hmac;1;${NOW};not*base64!` },
    expect: { ok: false, reason: 'bad_signature' },
  },
  {
    name: 'legacy: valid signature over a non-JSON body has no delivery id',
    headers: { 'openphone-signature': legacyHeader(NOW, 'not json') },
    body: 'not json',
    expect: { ok: true, deliveryId: null },
  },

  // standard scheme
  {
    name: 'standard: valid (delivery id is webhook-id)',
    headers: standardHeaders('msg_2rY1', nowS),
    secret: WHSEC,
    expect: { ok: true, scheme: 'standard', deliveryId: 'msg_2rY1', timestampMs: NOW },
  },
  {
    name: 'standard: secret given without the whsec_ prefix',
    headers: standardHeaders('msg_2rY1', nowS),
    expect: { ok: true, scheme: 'standard' },
  },
  {
    name: 'standard: tampered body',
    headers: standardHeaders('msg_2rY1', nowS),
    body: `${BODY} `,
    secret: WHSEC,
    expect: { ok: false, scheme: 'standard', reason: 'bad_signature' },
  },
  {
    name: 'standard: webhook-id swapped (the id is covered by the signature)',
    headers: { ...standardHeaders('msg_2rY1', nowS), 'webhook-id': 'msg_other' },
    secret: WHSEC,
    expect: { ok: false, reason: 'bad_signature' },
  },
  {
    name: 'standard: wrong key',
    headers: standardHeaders('msg_2rY1', nowS, BODY, OTHER_KEY_B64),
    secret: WHSEC,
    expect: { ok: false, reason: 'bad_signature' },
  },
  {
    name: 'standard: stale',
    headers: standardHeaders('msg_2rY1', nowS - 301),
    secret: WHSEC,
    expect: { ok: false, reason: 'timestamp_out_of_range' },
  },
  {
    name: 'standard: future',
    headers: standardHeaders('msg_2rY1', nowS + 301),
    secret: WHSEC,
    expect: { ok: false, reason: 'timestamp_out_of_range' },
  },
  {
    name: 'standard: milliseconds where seconds are expected (correctly signed)',
    headers: standardHeaders('msg_2rY1', NOW),
    secret: WHSEC,
    expect: { ok: false, reason: 'timestamp_unit_mismatch' },
  },
  {
    name: 'standard: key rotation, space-separated signatures, second one valid',
    headers: (() => {
      const good = standardHeaders('msg_2rY1', nowS);
      const old = standardHeaders('msg_2rY1', nowS, BODY, OTHER_KEY_B64);
      return { ...good, 'webhook-signature': `${old['webhook-signature']} ${good['webhook-signature']}` };
    })(),
    secret: WHSEC,
    expect: { ok: true, scheme: 'standard' },
  },
  {
    name: 'standard: only an asymmetric v1a signature',
    headers: { ...standardHeaders('msg_2rY1', nowS), 'webhook-signature': 'v1a,AAAA' },
    secret: WHSEC,
    expect: { ok: false, reason: 'unsupported_version' },
  },
  {
    name: 'standard: signature without a version prefix',
    headers: { ...standardHeaders('msg_2rY1', nowS), 'webhook-signature': referenceDigest(KEY_B64, 'x') },
    secret: WHSEC,
    expect: { ok: false, reason: 'malformed_header' },
  },
  {
    name: 'standard: webhook-id missing',
    headers: (() => {
      const { 'webhook-id': _id, ...rest } = standardHeaders('msg_2rY1', nowS);
      return rest;
    })(),
    secret: WHSEC,
    expect: { ok: false, reason: 'missing_headers' },
  },
  {
    name: 'standard: non-numeric timestamp',
    headers: { ...standardHeaders('msg_2rY1', nowS), 'webhook-timestamp': '2026-01-15T12:00:00Z' },
    secret: WHSEC,
    expect: { ok: false, reason: 'malformed_header' },
  },
  {
    name: 'both schemes present: the standard one decides',
    headers: { ...standardHeaders('msg_2rY1', nowS), 'openphone-signature': 'garbage' },
    secret: WHSEC,
    expect: { ok: true, scheme: 'standard' },
  },

  // neither
  {
    name: 'no signature headers at all',
    headers: {},
    expect: { ok: false, scheme: null, reason: 'missing_headers' },
  },
];

describe('verifyOpenPhoneSignature', () => {
  it.each(cases)('$name', (c) => {
    const result = verifyOpenPhoneSignature({
      rawBody: c.body ?? BODY,
      headers: c.headers,
      secret: c.secret ?? KEY_B64,
      now: NOW,
    });
    expect(result).toMatchObject(c.expect);
  });

  it('verifies the raw bytes, so a Uint8Array body works and re-serialised JSON does not', () => {
    const headers = { 'openphone-signature': legacyHeader(NOW) };
    const bytes = new TextEncoder().encode(BODY);
    expect(verifyOpenPhoneSignature({ rawBody: bytes, headers, secret: KEY_B64, now: NOW }).ok).toBe(true);
    const reformatted = JSON.stringify(JSON.parse(BODY), null, 2);
    expect(
      verifyOpenPhoneSignature({ rawBody: reformatted, headers, secret: KEY_B64, now: NOW }),
    ).toMatchObject({
      ok: false,
      reason: 'bad_signature',
    });
  });

  it('accepts a fetch Headers object', () => {
    const headers = new Headers(standardHeaders('msg_h', nowS));
    expect(verifyOpenPhoneSignature({ rawBody: BODY, headers, secret: WHSEC, now: new Date(NOW) }).ok).toBe(
      true,
    );
  });

  it('honours a custom tolerance', () => {
    const headers = { 'openphone-signature': legacyHeader(NOW - 20_000) };
    const verify = (toleranceSeconds: number) =>
      verifyOpenPhoneSignature({ rawBody: BODY, headers, secret: KEY_B64, now: NOW, toleranceSeconds }).ok;
    expect(verify(30)).toBe(true);
    expect(verify(10)).toBe(false);
  });

  it('gives a replayed delivery the same id, so the idempotency claim catches it', () => {
    const headers = standardHeaders('msg_replayed', nowS);
    const first = verifyOpenPhoneSignature({ rawBody: BODY, headers, secret: WHSEC, now: NOW });
    const again = verifyOpenPhoneSignature({ rawBody: BODY, headers, secret: WHSEC, now: NOW + 60_000 });
    expect(first).toMatchObject({ ok: true, deliveryId: 'msg_replayed' });
    expect(again).toMatchObject({ ok: true, deliveryId: 'msg_replayed' });
  });

  it.each(['', 'not base64 at all!', 'whsec_', 'whsec_***'])(
    'rejects an unusable secret %j as a config error',
    (secret) => {
      expect(() =>
        verifyOpenPhoneSignature({
          rawBody: BODY,
          headers: { 'openphone-signature': 'x' },
          secret,
          now: NOW,
        }),
      ).toThrow(ConfigError);
    },
  );
});

describe('signOpenPhoneLegacy / signOpenPhoneStandard', () => {
  it('legacy headers match the documented algorithm and verify', () => {
    const headers = signOpenPhoneLegacy({ rawBody: BODY, secret: KEY_B64, timestampMs: NOW });
    expect(headers['openphone-signature']).toBe(legacyHeader(NOW));
    expect(verifyOpenPhoneSignature({ rawBody: BODY, headers, secret: KEY_B64, now: NOW })).toMatchObject({
      ok: true,
      scheme: 'legacy',
    });
  });

  it('standard headers use whole seconds, match the documented algorithm and verify', () => {
    const headers = signOpenPhoneStandard({
      rawBody: BODY,
      secret: WHSEC,
      timestampMs: NOW + 999,
      webhookId: 'msg_1',
    });
    expect(headers).toEqual(standardHeaders('msg_1', nowS));
    expect(verifyOpenPhoneSignature({ rawBody: BODY, headers, secret: WHSEC, now: NOW })).toMatchObject({
      ok: true,
      scheme: 'standard',
      deliveryId: 'msg_1',
    });
  });
});

import { afterAll, beforeAll, expect, it } from 'vitest';
import { handler } from '../../functions/openphone-webhook';
import { buildMessageReceived, signDelivery } from '../../scripts/simulate-sms';
import {
  apiGatewayEvent,
  type InboundBackends,
  type Prng,
  parseResult,
  prng,
  startInboundBackends,
  TEST_WEBHOOK_SECRET,
} from './fixtures';

/**
 * Fuzzing the real webhook handler (SPEC §6.7: bad input gets a 4xx with a reason, never a 5xx or a crash):
 * a few hundred deliveries built from a seeded PRNG — mutated bodies (signed after mutation, so they reach the
 * parser, or before, so they must fail the signature), random and half-valid signature headers, odd
 * encodings. Every answer must be 200/202/400/401 with a JSON body, and the queue must hold exactly one event
 * per 202 (no partial writes). A failure prints the case's seed and index, so it can be replayed.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20260115);
const CASES = Number(process.env.FUZZ_CASES ?? 400);
/**
 * Astral-plane characters (emoji) and U+FFFE/U+FFFF are in the fuzz too: the queue adapter writes every
 * non-ASCII character as a \u escape (`asciiJson` in sqs-event-queue.ts), so SQS and fauxqs accept them.
 * FUZZ_FULL_UNICODE=0 replaces them, to tell a queue-encoding defect apart from a parser one.
 */
const FULL_UNICODE = process.env.FUZZ_FULL_UNICODE !== '0';
const clean = (s: string) => (FULL_UNICODE ? s : s.replace(/[\u{10000}-\u{10FFFF}\uFFFE\uFFFF]/gu, '\u00bf'));

let be: InboundBackends;
beforeAll(async () => {
  be = await startInboundBackends();
});
afterAll(async () => {
  await be?.stop();
});

const ODD_STRINGS = [
  '',
  ' ',
  '\u0000',
  '\ud800',
  '\udfff\ud800',
  '👍',
  'Thanks 🙏 see you',
  '\uffff',
  '\u202ertl',
  '../../etc/passwd',
  '\u0024{jndi:ldap://x}',
  '<script>alert(1)</script>',
  "'; DROP TABLE x; --",
  'x'.repeat(5000),
  '+1'.repeat(30),
  '1e309',
  '-0',
  'null',
  '__proto__',
  'constructor',
];

function randomValue(r: Prng, depth = 0): unknown {
  switch (r.int(depth > 3 ? 6 : 9)) {
    case 0:
      return null;
    case 1:
      return r.bool();
    case 2:
      return r.pick([0, -1, 1.5, 2 ** 53 + 1, 1e308, Number.MAX_SAFE_INTEGER]);
    case 3:
      return clean(r.pick(ODD_STRINGS));
    case 4:
      return randomString(r, r.int(60));
    case 5:
      return new Date(r.int(2 ** 31) * 1000).toISOString();
    case 6:
      return Array.from({ length: r.int(4) }, () => randomValue(r, depth + 1));
    default: {
      const o: Record<string, unknown> = {};
      for (let i = r.int(4); i > 0; i--)
        o[r.pick(['id', 'type', 'data', 'object', 'text', 'from', randomString(r, 5)])] = randomValue(
          r,
          depth + 1,
        );
      return o;
    }
  }
}

function randomString(r: Prng, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) {
    const band = r.int(4);
    // Lone surrogates, raw or beside a JSON escape, can pair up into astral characters once parsed.
    const high = FULL_UNICODE ? 0xd800 + r.int(0x800) : 0xe000 + r.int(0x1ffe);
    s += String.fromCharCode(
      band === 0 ? r.int(32) : band === 1 ? 32 + r.int(95) : band === 2 ? 0x80 + r.int(0x700) : high,
    );
  }
  return clean(s);
}

/** Replaces, deletes or adds one node somewhere in a parsed body. */
function mutateJson(r: Prng, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || r.bool(0.15)) return randomValue(r);
  const clone: Record<string, unknown> | unknown[] = Array.isArray(value)
    ? [...value]
    : { ...(value as object) };
  const keys = Object.keys(clone);
  if (keys.length === 0 || r.bool(0.1)) {
    (clone as Record<string, unknown>)[r.pick(['extra', 'id', 'type', '__proto__', 'data'])] = randomValue(r);
    return clone;
  }
  const k = r.pick(keys);
  if (r.bool(0.15)) {
    delete (clone as Record<string, unknown>)[k];
    return clone;
  }
  (clone as Record<string, unknown>)[k] = mutateJson(r, (clone as Record<string, unknown>)[k]);
  return clone;
}

function mutateText(r: Prng, s: string): string {
  switch (r.int(6)) {
    case 0:
      return s.slice(0, r.int(s.length));
    case 1: {
      const i = r.int(s.length);
      return s.slice(0, i) + randomString(r, 1 + r.int(4)) + s.slice(i);
    }
    case 2: {
      const i = r.int(s.length);
      return s.slice(0, i) + s.slice(i + 1 + r.int(5));
    }
    case 3:
      return `${'['.repeat(5000 + r.int(5000))}1${']'.repeat(r.int(2) ? 5000 : 0)}`;
    case 4:
      return `${s}${s}`;
    default:
      return s.replace(/"/g, r.bool() ? "'" : '\\"');
  }
}

type Fuzzed = { body: string; headers: Record<string, string>; isBase64Encoded?: boolean };

function randomHeaders(r: Prng, body: string): Record<string, string> {
  const ts = () =>
    r.pick([
      String(Date.now()),
      String(Math.floor(Date.now() / 1000)),
      '',
      '-1',
      '0',
      '1e12',
      '9'.repeat(r.int(40)),
      randomString(r, 8),
      String(Date.now() - 10 * 60_000),
    ]);
  const sig = () =>
    r.pick(['', 'v1,', 'v1,AAAA', 'v1a,abc', 'v2,xyz', ',', `v1,${'A'.repeat(44)}`, randomString(r, 30)]);
  const good = signDelivery({
    rawBody: body,
    secret: TEST_WEBHOOK_SECRET,
    scheme: r.bool() ? 'standard' : 'legacy',
  });
  switch (r.int(6)) {
    case 0:
      return {
        'webhook-id': randomString(r, r.int(300)),
        'webhook-timestamp': ts(),
        'webhook-signature': sig(),
      };
    case 1:
      return {
        'openphone-signature': r.pick([
          `hmac;1;${ts()};${sig()}`,
          'hmac;1',
          ';;;',
          `hmac;2;${Date.now()};AAAA`,
          `${randomString(r, 10)},${randomString(r, 10)}`,
          `hmac;1;${Date.now()};${'A'.repeat(43)}=`,
        ]),
      };
    case 2: {
      // A correct signature with one header damaged.
      const k = r.pick(Object.keys(good));
      return { ...good, [k]: mutateText(r, good[k] ?? '').slice(0, 2000) };
    }
    case 3:
      // Both schemes at once, one of them nonsense.
      return { ...good, 'openphone-signature': `hmac;1;${ts()};${sig()}`, 'Webhook-Signature': sig() };
    case 4:
      return Object.fromEntries(Object.entries(good).map(([k, v]) => [k.toUpperCase(), v]));
    default:
      return {};
  }
}

function fuzzCase(r: Prng, i: number): Fuzzed {
  const built = buildMessageReceived({
    from: `+1415555${String(1000 + (i % 9000)).padStart(4, '0')}`,
    to: '+14155550100',
    text: r.pick([
      'Hello',
      'No heat!',
      clean('👍 Liked it'),
      '👍',
      'Loved “See you then”',
      'Is the rent due on the 1st?',
      randomString(r, 40),
    ]),
    scheme: r.bool() ? 'standard' : 'legacy',
  }).rawBody;
  const base = r.bool(0.1)
    ? built.replace('"message.received"', r.bool() ? '"message.delivered"' : '"contact.updated"')
    : built;
  const sign = (body: string) =>
    signDelivery({ rawBody: body, secret: TEST_WEBHOOK_SECRET, scheme: r.bool() ? 'standard' : 'legacy' });
  switch (r.int(5)) {
    case 0: {
      // Structurally mutated JSON, correctly signed: exercises the parser.
      const body = JSON.stringify(mutateJson(r, JSON.parse(base)));
      return { body: body ?? 'undefined', headers: sign(body ?? 'undefined') };
    }
    case 1: {
      // Byte-level damage, correctly signed.
      const body = mutateText(r, base);
      return { body, headers: sign(body), isBase64Encoded: false };
    }
    case 2: {
      // Signed, then damaged: must be a 401.
      const headers = sign(base);
      return { body: mutateText(r, base), headers };
    }
    case 3:
      return { body: r.bool() ? base : randomString(r, r.int(200)), headers: randomHeaders(r, base) };
    default: {
      // base64 flag set on text that may not be base64.
      const body = r.bool() ? Buffer.from(mutateText(r, base)).toString('base64') : mutateText(r, base);
      return { body, headers: sign(base), isBase64Encoded: true };
    }
  }
}

it(`${CASES} fuzzed deliveries (seed ${SEED}): never a 5xx, never a throw, one event per 202`, async () => {
  const r = prng(SEED);
  const cases = Array.from({ length: CASES }, (_, i) => fuzzCase(r, i));
  const statuses = new Map<number, number>();
  const accepted = new Set<string>();
  const failures: string[] = [];
  // In small concurrent waves: the handler must also hold up when deliveries overlap.
  for (let start = 0; start < cases.length; start += 20) {
    await Promise.all(
      cases.slice(start, start + 20).map(async (c, j) => {
        const index = start + j;
        let result: unknown;
        try {
          result = await handler(apiGatewayEvent(c));
        } catch (e) {
          failures.push(`#${index} threw ${String(e)}`);
          return;
        }
        let parsed: ReturnType<typeof parseResult>;
        try {
          parsed = parseResult(result);
        } catch {
          failures.push(`#${index} answered a body that is not JSON`);
          return;
        }
        statuses.set(parsed.status, (statuses.get(parsed.status) ?? 0) + 1);
        if (![200, 202, 400, 401].includes(parsed.status)) {
          failures.push(
            `#${index} → ${parsed.status} ${JSON.stringify(parsed.body)} body=${JSON.stringify(c.body.slice(0, 200))}`,
          );
        }
        if (
          parsed.status >= 400 &&
          typeof (parsed.body.error as { message?: unknown })?.message !== 'string'
        ) {
          failures.push(`#${index} → ${parsed.status} without an error message`);
        }
        if (parsed.status === 202) accepted.add(String(parsed.body.eventId));
      }),
    );
  }
  expect(failures, `seed ${SEED}`).toEqual([]);
  // The run must have reached every branch, or it proves little.
  for (const s of [200, 202, 400, 401]) expect(statuses.get(s) ?? 0, `answers with ${s}`).toBeGreaterThan(5);
  const queued = (await be.drain()).map((b) => String(JSON.parse(b).id));
  expect(queued.sort()).toEqual([...accepted].sort());
  const fivexx = [...statuses].filter(([s]) => s >= 500).reduce((n, [, c]) => n + c, 0);
  console.info(
    `[figure] webhook fuzz: ${CASES} deliveries (seed ${SEED}, full unicode ${FULL_UNICODE}): ${fivexx}×5xx; ` +
      `${[...statuses].map(([k, v]) => `${v}×${k}`).join(', ')}; ${queued.length} queued = the ${accepted.size} accepted (202)`,
  );
}, 120_000);

import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { z } from 'zod';
import { signOpenPhoneLegacy, signOpenPhoneStandard } from '../shared/src/domain/openphone-signature';
import { describeZodIssues, ValidationError } from '../shared/src/errors';
import { messageEvent } from './emulators/openphone-payloads';
import { DEMO_LINES } from './emulators/seed/demo-team';

/**
 * `npm run simulate:sms -- --from +14155550111 [--to +14155550100] [--scheme legacy|standard] "text"`
 *
 * Sends one `message.received` delivery to the running local stack exactly as Quo would, signed over the raw
 * bytes in the chosen scheme with the stack's webhook secret, then prints the HTTP answer. The stack's address
 * and secret come from .local/runtime.json, which `npm start` writes.
 *
 * The scheme picks the webhook generation, as at Quo: `standard` sends the 2026-03-30 body (`data.resource` +
 * `data.context`), `legacy` the app-created webhook's `data.object` (text in `body`, `to` a string).
 */

export const localRuntime = z.object({
  url: z.string().url(),
  openPhoneWebhookSecret: z.string().min(1),
  sharedNumber: z.string().optional(),
  env: z.record(z.string(), z.string()).default({}),
});
export type LocalRuntime = z.infer<typeof localRuntime>;

/** Reads what `npm start` wrote; a clear message when the stack is not running (or never ran). */
export function readLocalRuntime(path = '.local/runtime.json'): LocalRuntime {
  let raw: string;
  try {
    raw = readFileSync(resolve(path), 'utf8');
  } catch {
    throw new ValidationError(`No ${path}: start the local stack first (npm start)`);
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new ValidationError(`${path} is not JSON; restart the local stack (npm start)`);
  }
  const parsed = localRuntime.safeParse(json);
  if (!parsed.success) throw new ValidationError(`${path}: ${describeZodIssues(parsed.error.issues)}`);
  return parsed.data;
}

const e164 = (label: string) =>
  z.string().transform((value, ctx) => {
    // People type numbers the way they read them; Quo always sends E.164.
    const phone = parsePhoneNumberFromString(value, 'US');
    if (!phone?.isValid()) {
      ctx.addIssue({ code: 'custom', message: `${label} must be a phone number (E.164, e.g. +14155550111)` });
      return z.NEVER;
    }
    return phone.number;
  });

export const simulateSmsInput = z.object({
  from: e164('--from'),
  to: e164('--to').optional(),
  scheme: z.enum(['legacy', 'standard']).default('standard'),
  text: z.string().min(1, 'the message text is required').max(1600),
});
export type SimulateSmsInput = z.input<typeof simulateSmsInput>;

export interface BuiltDelivery {
  eventId: string;
  rawBody: string;
}

/**
 * One `message.received` event as Quo delivers it (ids in Quo's formats: EV…, AC…, PN…, CN…), in the body of
 * the webhook generation that signs with `scheme`: legacy → `data.object` (app-style: `body`, `to` a string),
 * standard → the 2026-03-30 `data.resource` + `data.context`.
 */
export function buildMessageReceived(input: {
  from: string;
  to: string;
  text: string;
  scheme: 'legacy' | 'standard';
  phoneNumberId?: string;
  now?: Date;
  eventId?: string;
  media?: Array<{ url: string; type: string }>;
}): BuiltDelivery {
  const at = (input.now ?? new Date()).toISOString();
  const eventId = input.eventId ?? `EV${randomBytes(16).toString('hex')}`;
  const phoneNumberId =
    input.phoneNumberId ??
    Object.values(DEMO_LINES).find((l) => l.number === input.to)?.id ??
    `PN${createHash('sha256').update(input.to).digest('hex').slice(0, 8)}`;
  const event = messageEvent({
    scheme: input.scheme,
    type: 'message.received',
    eventId,
    at,
    appStyle: input.scheme === 'legacy',
    message: {
      id: `AC${randomBytes(16).toString('hex')}`,
      from: input.from,
      to: [input.to],
      direction: 'incoming',
      text: input.text,
      media: input.media ?? [],
      status: 'received',
      createdAt: at,
      userId: null,
      phoneNumberId,
      conversationId: `CN${createHash('sha256').update(`${phoneNumberId}|${input.from}`).digest('hex').slice(0, 24)}`,
    },
  });
  return { eventId, rawBody: JSON.stringify(event) };
}

/** The signature headers Quo would add; `webhookId` is the standard scheme's delivery id. */
export function signDelivery(input: {
  rawBody: string;
  secret: string;
  scheme: 'legacy' | 'standard';
  timestampMs?: number;
  webhookId?: string;
}): Record<string, string> {
  const timestampMs = input.timestampMs ?? Date.now();
  return input.scheme === 'legacy'
    ? signOpenPhoneLegacy({ rawBody: input.rawBody, secret: input.secret, timestampMs })
    : signOpenPhoneStandard({
        rawBody: input.rawBody,
        secret: input.secret,
        timestampMs,
        webhookId: input.webhookId ?? `msg_${randomBytes(12).toString('hex')}`,
      });
}

export interface SimulatedAnswer {
  status: number;
  body: unknown;
  eventId: string;
  webhookId?: string;
}

export async function simulateSms(runtime: LocalRuntime, input: SimulateSmsInput): Promise<SimulatedAnswer> {
  const parsed = simulateSmsInput.safeParse(input);
  if (!parsed.success) throw new ValidationError(describeZodIssues(parsed.error.issues));
  const { from, scheme, text } = parsed.data;
  const to = parsed.data.to ?? runtime.sharedNumber ?? DEMO_LINES.shared.number;
  const { eventId, rawBody } = buildMessageReceived({ from, to, text, scheme });
  const headers = signDelivery({ rawBody, secret: runtime.openPhoneWebhookSecret, scheme });
  const res = await fetch(new URL('/webhooks/openphone', runtime.url), {
    method: 'POST',
    // Quo's deliveries come from its own client; the user agent only helps reading the stack's logs.
    headers: { 'content-type': 'application/json', 'user-agent': 'switchboard-simulate-sms', ...headers },
    body: rawBody,
  });
  const textBody = await res.text();
  let body: unknown = textBody;
  try {
    body = JSON.parse(textBody);
  } catch {
    // Not JSON (a proxy error page, say): print it as it came.
  }
  return {
    status: res.status,
    body,
    eventId,
    ...(headers['webhook-id'] ? { webhookId: headers['webhook-id'] } : {}),
  };
}

async function main(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      from: { type: 'string' },
      to: { type: 'string' },
      scheme: { type: 'string' },
      runtime: { type: 'string' },
    },
    allowPositionals: true,
  });
  const runtime = readLocalRuntime(values.runtime);
  const answer = await simulateSms(runtime, {
    from: values.from ?? '',
    ...(values.to ? { to: values.to } : {}),
    ...(values.scheme ? { scheme: values.scheme as 'legacy' | 'standard' } : {}),
    text: positionals.join(' '),
  });
  console.log(`POST ${runtime.url}/webhooks/openphone → HTTP ${answer.status}`);
  console.log(JSON.stringify(answer.body, null, 2));
  if (answer.status >= 400) process.exitCode = 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((e: unknown) => {
    console.error(e instanceof Error ? e.message : String(e));
    if (e instanceof ValidationError) {
      console.error('usage: npm run simulate:sms -- --from +14155550111 [--scheme legacy|standard] "text"');
    }
    process.exitCode = 2;
  });
}

import { createHash, randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { describeZodIssues, ValidationError } from '../shared/src/errors';
import {
  callCompletedEvent,
  callSummaryEvent,
  callTranscriptEvent,
  type PayloadCall,
} from './emulators/openphone-payloads';
import { DEMO_LINES } from './emulators/seed/demo-team';
import { type LocalRuntime, readLocalRuntime, signDelivery, simulateSmsInput } from './simulate-sms';

/**
 * `npm run simulate:call -- --from +14155550111 [--duration 95] [--summary "…"] [--next "…"] "what they said"`
 *
 * A completed incoming call on the shared line, delivered to the running local stack as Quo delivers it
 * (follow #20): `call.completed`, then `call.summary.completed` (when a summary or next step is given) and
 * `call.transcript.completed` (the caller's words, when given), each signed like a real delivery. The worker
 * merges them into one call entry in the caller's conversation and, once something was said, runs once:
 * notes to memory, follow-ups as cards.
 */
export const simulateCallInput = z.object({
  from: simulateSmsInput.shape.from,
  scheme: z.enum(['legacy', 'standard']).default('standard'),
  durationSeconds: z
    .number()
    .int()
    .min(1)
    .max(4 * 3600)
    .default(90),
  summary: z.array(z.string().min(1).max(500)).max(10).default([]),
  nextSteps: z.array(z.string().min(1).max(500)).max(10).default([]),
  said: z.string().max(2000).default(''),
});
export type SimulateCallInput = z.input<typeof simulateCallInput>;

/** The call's deliveries in Quo's order: completed, summary, transcript. */
export function buildCallDeliveries(input: SimulateCallInput, now = new Date()): string[] {
  const parsed = simulateCallInput.safeParse(input);
  if (!parsed.success) throw new ValidationError(describeZodIssues(parsed.error.issues));
  const i = parsed.data;
  const line = DEMO_LINES.shared;
  const start = new Date(now.getTime() - i.durationSeconds * 1000).toISOString();
  const call: PayloadCall = {
    id: `AC${randomBytes(16).toString('hex')}`,
    direction: 'incoming',
    status: 'answered',
    participant: i.from,
    line: line.number,
    phoneNumberId: line.id,
    conversationId: `CN${createHash('sha256').update(`${line.id}|${i.from}`).digest('hex').slice(0, 24)}`,
    userId: 'USowner',
    durationSeconds: i.durationSeconds,
    createdAt: start,
    answeredAt: start,
    completedAt: now.toISOString(),
  };
  const at = call.completedAt;
  const ev = () => `EV${randomBytes(16).toString('hex')}`;
  const dialogue = i.said
    ? [{ content: i.said, start: 0, end: Math.min(30, i.durationSeconds), identifier: i.from, userId: null }]
    : [];
  return [
    callCompletedEvent({ scheme: i.scheme, eventId: ev(), at, call }),
    ...(i.summary.length || i.nextSteps.length
      ? [
          callSummaryEvent({
            scheme: i.scheme,
            eventId: ev(),
            at,
            call,
            summary: i.summary,
            nextSteps: i.nextSteps,
          }),
        ]
      : []),
    ...(dialogue.length
      ? [callTranscriptEvent({ scheme: i.scheme, eventId: ev(), at, call, dialogue })]
      : []),
  ].map((b) => JSON.stringify(b));
}

/** Posts the call's deliveries; `clock` (tests) stamps and signs them at another time than now. */
export async function simulateCall(
  runtime: Pick<LocalRuntime, 'url' | 'openPhoneWebhookSecret'>,
  input: SimulateCallInput,
  clock: () => Date = () => new Date(),
) {
  const scheme = input.scheme ?? 'standard';
  const out: Array<{ type: string; status: number }> = [];
  for (const rawBody of buildCallDeliveries(input, clock())) {
    const headers = signDelivery({
      rawBody,
      secret: runtime.openPhoneWebhookSecret,
      scheme,
      timestampMs: clock().getTime(),
    });
    const res = await fetch(new URL('/webhooks/openphone', runtime.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'switchboard-simulate-call', ...headers },
      body: rawBody,
    });
    await res.text();
    out.push({ type: (JSON.parse(rawBody) as { type: string }).type, status: res.status });
  }
  return out;
}

async function main(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      from: { type: 'string' },
      scheme: { type: 'string' },
      duration: { type: 'string' },
      summary: { type: 'string', multiple: true },
      next: { type: 'string', multiple: true },
      runtime: { type: 'string' },
    },
    allowPositionals: true,
  });
  const runtime = readLocalRuntime(values.runtime);
  const sent = await simulateCall(runtime, {
    from: values.from ?? '',
    ...(values.scheme ? { scheme: values.scheme as 'legacy' | 'standard' } : {}),
    ...(values.duration ? { durationSeconds: Number(values.duration) } : {}),
    summary: values.summary ?? [],
    nextSteps: values.next ?? [],
    said: positionals.join(' '),
  });
  for (const s of sent) console.log(`POST ${runtime.url}/webhooks/openphone ${s.type} → HTTP ${s.status}`);
  if (sent.some((s) => s.status >= 400)) process.exitCode = 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((e: unknown) => {
    console.error(e instanceof Error ? e.message : String(e));
    if (e instanceof ValidationError)
      console.error(
        'usage: npm run simulate:call -- --from +14155550111 [--duration 95] [--summary "…"] [--next "…"] "what the caller said"',
      );
    process.exitCode = 2;
  });
}

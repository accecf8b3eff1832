import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  type Message,
  type MessageAttributeValue,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
  StartMessageMoveTaskCommand,
} from '@aws-sdk/client-sqs';
import type { OpsContext } from './context';

export interface DeadLetter {
  messageId: string;
  /** Why the worker gave up (the `reason` attribute our dead-letter sink sets), when it was set. */
  reason?: string;
  eventId?: string;
  type?: string;
  correlationId?: string;
  receiveCount?: number;
  sentAt?: string;
  /** The ledger's last word on the event, when the body names one. */
  ledger?: { status: string; reason: string; at: string };
  body: string;
}

/** How long a peeked message stays hidden while the list is gathered, before it is made visible again. */
const PEEK_SECONDS = 30;

/**
 * Reads up to `limit` dead letters without consuming them: each page is received with a short visibility
 * timeout (so the next page brings new messages), and every message is made visible again at the end.
 */
export async function listDeadLetters(
  ctx: OpsContext,
  limit: number,
): Promise<{
  approximateCount: number;
  letters: DeadLetter[];
}> {
  const approximateCount = await approximateMessages(ctx.sqs, ctx.env.DLQ_URL);
  const seen = new Map<string, Message>();
  try {
    while (seen.size < limit) {
      const page = await receivePage(ctx.sqs, ctx.env.DLQ_URL, Math.min(10, limit - seen.size), PEEK_SECONDS);
      const fresh = page.filter((m) => m.MessageId && !seen.has(m.MessageId));
      if (fresh.length === 0) break;
      for (const m of fresh) seen.set(m.MessageId as string, m);
    }
  } finally {
    await releaseAll(ctx.sqs, ctx.env.DLQ_URL, [...seen.values()]);
  }
  const letters = await Promise.all([...seen.values()].map((m) => describe(ctx, m)));
  return { approximateCount, letters };
}

export interface ReplayResult {
  mode: 'message-move' | 'receive-send-delete';
  /** Message-move task handle (AWS), or the count moved one by one. */
  taskHandle?: string;
  moved: number;
  /** Why message move was not used, when it was not. */
  fallbackReason?: string;
}

/**
 * Back to the events queue. On AWS that is SQS message move (the service moves the whole queue and
 * reports progress under the task handle); where message move is unavailable (fauxqs answers InvalidAction)
 * each message is received, sent to the events queue with its attributes, and only then deleted, so a crash
 * in between leaves a copy in both queues (the worker's ledger drops the duplicate) rather than none.
 */
export async function replayDeadLetters(
  ctx: OpsContext,
  opts: { limit: number; forceFallback?: boolean },
): Promise<ReplayResult> {
  if (!opts.forceFallback) {
    try {
      const [source, destination] = await Promise.all([
        queueArn(ctx.sqs, ctx.env.DLQ_URL),
        queueArn(ctx.sqs, ctx.env.EVENTS_QUEUE_URL),
      ]);
      const waiting = await approximateMessages(ctx.sqs, ctx.env.DLQ_URL);
      // Message move takes the whole queue; `limit` applies to the one-by-one path only.
      const res = await ctx.sqs.send(
        new StartMessageMoveTaskCommand({ SourceArn: source, DestinationArn: destination }),
      );
      return { mode: 'message-move', moved: waiting, taskHandle: res.TaskHandle ?? '' };
    } catch (e) {
      if (!moveUnavailable(e)) throw e;
      return { ...(await moveOneByOne(ctx, opts.limit)), fallbackReason: errorName(e) };
    }
  }
  return { ...(await moveOneByOne(ctx, opts.limit)), fallbackReason: 'forced' };
}

function moveUnavailable(e: unknown): boolean {
  const name = errorName(e);
  return name === 'InvalidAction' || name === 'UnsupportedOperation' || name === 'UnknownOperationException';
}

function errorName(e: unknown): string {
  return typeof e === 'object' && e !== null && 'name' in e
    ? String((e as { name: unknown }).name)
    : String(e);
}

async function moveOneByOne(ctx: OpsContext, limit: number): Promise<ReplayResult> {
  let moved = 0;
  while (moved < limit) {
    const page = await receivePage(ctx.sqs, ctx.env.DLQ_URL, Math.min(10, limit - moved), PEEK_SECONDS);
    if (page.length === 0) break;
    for (const m of page) {
      await ctx.sqs.send(
        new SendMessageCommand({
          QueueUrl: ctx.env.EVENTS_QUEUE_URL,
          MessageBody: m.Body ?? '',
          ...(m.MessageAttributes ? { MessageAttributes: withoutReason(m.MessageAttributes) } : {}),
        }),
      );
      await ctx.sqs.send(
        new DeleteMessageCommand({ QueueUrl: ctx.env.DLQ_URL, ReceiptHandle: m.ReceiptHandle }),
      );
      moved++;
    }
  }
  return { mode: 'receive-send-delete', moved };
}

/** The dead-letter reason belongs to the failed attempt, not to the replayed message. */
function withoutReason(attrs: Record<string, MessageAttributeValue>) {
  const { reason: _reason, ...rest } = attrs;
  return rest;
}

async function receivePage(sqs: SQSClient, url: string, max: number, visibility: number) {
  const res = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: url,
      MaxNumberOfMessages: max,
      VisibilityTimeout: visibility,
      WaitTimeSeconds: 0,
      MessageAttributeNames: ['All'],
      MessageSystemAttributeNames: ['All'],
    }),
  );
  return res.Messages ?? [];
}

async function releaseAll(sqs: SQSClient, url: string, messages: Message[]) {
  for (let i = 0; i < messages.length; i += 10) {
    const batch = messages.slice(i, i + 10);
    await sqs.send(
      new ChangeMessageVisibilityBatchCommand({
        QueueUrl: url,
        Entries: batch.map((m, j) => ({
          Id: String(j),
          ReceiptHandle: m.ReceiptHandle,
          VisibilityTimeout: 0,
        })),
      }),
    );
  }
}

async function approximateMessages(sqs: SQSClient, url: string): Promise<number> {
  const res = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['ApproximateNumberOfMessages'] }),
  );
  return Number(res.Attributes?.ApproximateNumberOfMessages ?? 0);
}

async function queueArn(sqs: SQSClient, url: string): Promise<string> {
  const res = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }));
  return res.Attributes?.QueueArn ?? '';
}

async function describe(ctx: OpsContext, m: Message): Promise<DeadLetter> {
  const body = m.Body ?? '';
  const event = parseEventFields(body);
  const entry = event.eventId ? await ctx.ledger.get(event.eventId) : undefined;
  const sent = Number(m.Attributes?.SentTimestamp);
  return {
    messageId: m.MessageId ?? '',
    ...(m.MessageAttributes?.reason?.StringValue ? { reason: m.MessageAttributes.reason.StringValue } : {}),
    ...event,
    ...(m.Attributes?.ApproximateReceiveCount
      ? { receiveCount: Number(m.Attributes.ApproximateReceiveCount) }
      : {}),
    ...(Number.isFinite(sent) ? { sentAt: new Date(sent).toISOString() } : {}),
    ...(entry ? { ledger: { status: entry.status, reason: entry.reason, at: entry.at } } : {}),
    body,
  };
}

/** A dead letter's body is usually one of our events, but may be anything (that is often why it is here). */
function parseEventFields(body: string): { eventId?: string; type?: string; correlationId?: string } {
  let v: unknown;
  try {
    v = JSON.parse(body);
  } catch {
    return {};
  }
  if (!v || typeof v !== 'object') return {};
  const o = v as Record<string, unknown>;
  const str = (k: string) => (typeof o[k] === 'string' ? (o[k] as string) : undefined);
  const out: { eventId?: string; type?: string; correlationId?: string } = {};
  const id = str('id');
  const type = str('type');
  const correlationId = str('correlationId');
  if (id) out.eventId = id;
  if (type) out.type = type;
  if (correlationId) out.correlationId = correlationId;
  return out;
}

import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { createApp } from '../../functions/api/app';
import { startClerkEmulator } from '../../scripts/emulators/clerk';
import { startOpenPhoneEmulator } from '../../scripts/emulators/openphone';
import { generateDevKeyPair } from '../../scripts/local/dev-auth';
import { devRoutes } from '../../scripts/local/dev-routes';
import { ensureQueues } from '../../scripts/local/queues';
import { startSqs } from '../../scripts/local/sqs';
import { makeSqsClient } from '../../shared/src/adapters/sqs-event-queue';
import { devUserId, signDevSessionToken } from '../../shared/src/auth/dev-session';
import { buildApiDeps } from '../../shared/src/composition/api';
import { buildCore } from '../../shared/src/composition/core';
import { parseConfig } from '../../shared/src/config';
import { type EventEnvelope, eventEnvelope } from '../../shared/src/contracts/events';
import { freshTable } from '../helpers';

export const ORIGIN = 'https://switchboard.test';
export const TEAM = 'oakproperties.example';
export const ADMIN = `alex@${TEAM}`;
export const MEMBER = `sam@${TEAM}`;

/**
 * The API in-process (`app.request()`) against DynamoDB Local and fauxqs, with a Core built exactly as the
 * Lambda builds it. Sessions are signed with a throwaway key pair whose public half is CLERK_JWT_KEY, so
 * every request goes through the production verifyToken path.
 */
export async function startApiHarness(
  opts: { stage?: 'test' | 'local'; chatTimeoutMs?: number; env?: Record<string, string> } = {},
) {
  const table = await freshTable('api');
  const sqs = await startSqs();
  const sqsClient = makeSqsClient({ region: 'us-east-1', endpoint: sqs.endpoint });
  const queues = await ensureQueues(sqsClient, {
    prefix: `api-${Date.now().toString(36)}`,
    visibilityTimeoutSeconds: 30,
    maxReceiveCount: 3,
  });
  // The decision-time checks look recipients up in the address book, as the deployed API does.
  const openphone = await startOpenPhoneEmulator({ apiKey: 'op_api_test' });
  const keys = generateDevKeyPair();
  // Tokens are stock v2 tokens (no email): the API looks every user up in this Clerk emulator.
  const clerk = await startClerkEmulator();
  const core = buildCore(
    parseConfig({
      STAGE: opts.stage ?? 'test',
      AWS_REGION: 'us-east-1',
      TABLE_NAME: table.tableName,
      DYNAMODB_ENDPOINT: table.endpoint,
      SQS_ENDPOINT: sqs.endpoint,
      EVENTS_QUEUE_URL: queues.queueUrl,
      LOG_LEVEL: 'ERROR',
      ALLOWED_EMAIL_DOMAINS: TEAM,
      ADMIN_EMAILS: ADMIN,
      CLERK_JWT_KEY: keys.publicKeyPem,
      CLERK_AUTHORIZED_PARTIES: ORIGIN,
      DEV_AUTH_PRIVATE_KEY: keys.privateKeyPem,
      CLERK_SECRET_KEY: clerk.secretKey,
      CLERK_API_URL: clerk.url,
      VAPID_PUBLIC_KEY: 'BPublicVapidKeyForTests',
      VAPID_PRIVATE_KEY: 'never-in-a-response',
      OPENPHONE_API_KEY: 'op_api_test',
      OPENPHONE_API_BASE: openphone.url,
      ...opts.env,
    }),
    'api-test',
  );
  const api = buildApiDeps(core);
  const app = createApp(async () => api, {
    ...(opts.stage === 'local' ? { extraRoutes: devRoutes } : {}),
    chatTimeoutMs: opts.chatTimeoutMs ?? 4000,
    chatPollMs: 50,
  });

  const known = new Set<string>();
  /**
   * A session for `email`: the user is registered in the Clerk emulator (verified unless `unverified`) and the
   * token is a stock v2 token carrying only their id; `extra` adds custom claims (a customised template).
   */
  async function token(
    email: string,
    o: {
      now?: Date;
      ttlSeconds?: number;
      privateKeyPem?: string;
      azp?: string;
      name?: string;
      unverified?: boolean;
      extra?: Record<string, unknown>;
    } = {},
  ) {
    const userId = devUserId(email);
    if (!known.has(userId)) {
      const [firstName, ...rest] = (o.name ?? '').split(' ');
      clerk.addUser({
        email,
        verified: !o.unverified,
        ...(firstName ? { firstName } : {}),
        ...(rest.length ? { lastName: rest.join(' ') } : {}),
      });
      known.add(userId);
    }
    const { token } = await signDevSessionToken(o.privateKeyPem ?? keys.privateKeyPem, {
      userId,
      azp: o.azp ?? ORIGIN,
      issuer: 'https://clerk.switchboard.test',
      ...(o.extra ? { extra: o.extra } : {}),
      ...(o.now ? { now: o.now } : {}),
      ...(o.ttlSeconds ? { ttlSeconds: o.ttlSeconds } : {}),
    });
    return token;
  }

  async function call(
    method: string,
    path: string,
    o: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
  ) {
    const headers: Record<string, string> = { ...o.headers };
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    if (o.body !== undefined) headers['content-type'] = 'application/json';
    return app.request(path, {
      method,
      headers,
      ...(o.body !== undefined ? { body: typeof o.body === 'string' ? o.body : JSON.stringify(o.body) } : {}),
    });
  }

  /** Drains the events queue (what the worker would receive). */
  async function receiveEvents(): Promise<EventEnvelope[]> {
    const out: EventEnvelope[] = [];
    for (;;) {
      const r = await sqsClient.send(
        new ReceiveMessageCommand({ QueueUrl: queues.queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
      );
      if (!r.Messages?.length) return out;
      for (const m of r.Messages) {
        out.push(eventEnvelope.parse(JSON.parse(m.Body ?? '{}')));
        // Consumed: a message left behind would come back after its visibility timeout into a later test.
        await sqsClient.send(
          new DeleteMessageCommand({ QueueUrl: queues.queueUrl, ReceiptHandle: m.ReceiptHandle }),
        );
      }
    }
  }

  return {
    app,
    core,
    /** The deps the app serves from (a copy of core plus the API's own): set a test clock here. */
    api,
    keys,
    clerk,
    token,
    call,
    receiveEvents,
    openphone,
    async stop() {
      sqsClient.destroy();
      core.sqs.destroy();
      core.dynamo.raw.destroy();
      table.raw.destroy();
      await sqs.stop();
      await clerk.stop();
      await openphone.stop();
    },
  };
}
export type ApiHarness = Awaited<ReturnType<typeof startApiHarness>>;

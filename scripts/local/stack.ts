import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { join, resolve } from 'node:path';
import { makeDynamoClients } from '../../shared/src/adapters/dynamo/client';
import { createDynamoPushSubscriptionStore } from '../../shared/src/adapters/dynamo/push-subscription-store';
import { ensureTable } from '../../shared/src/adapters/dynamo/table';
import { makeSqsClient } from '../../shared/src/adapters/sqs-event-queue';
import { resetComposition } from '../../shared/src/composition/core';
import { resetWorkerDeps } from '../../shared/src/composition/worker';
import { pwaSecurityHeaders } from '../../shared/src/domain/security-headers';
import { SCHEDULES } from '../../shared/src/schedules';
import type { BuiltBundles } from '../build/bundles';
import type { SchedulerEmulator } from '../emulators/scheduler';
import { devAuthEnv } from './dev-auth';
import { type DynamoEngine, defaultDynamoEngine, startDynamo } from './dynamodb';
import { type Emulators, localSecrets, startEmulators } from './emulators';
import { type HttpHandler, type Route, type StreamingHandler, startGateway } from './gateway';
import { bundledModules, sourceModules } from './handler-modules';
import { LIVE_PATH, type LiveSocketHandler } from './live-sockets';
import { ensureQueues } from './queues';
import { startScheduler } from './scheduler';
import { startSqs } from './sqs';
import { type SqsHandler, startSqsPoller } from './sqs-poller';
import { startLocalTimers } from './timers';
import { requireGit } from './tools-check';

export interface LocalStackOptions {
  /** Gateway port; 0 picks a free one (tests). */
  port?: number;
  /** Folder for data kept between runs; undefined keeps everything in memory (tests). */
  dataDir?: string;
  fresh?: boolean;
  /** Extra environment for the handlers (tests point integrations at their own emulators). */
  env?: Record<string, string>;
  visibilityTimeoutSeconds?: number;
  maxReceiveCount?: number;
  schedules?: boolean;
  /** Vendor emulators (OpenPhone, Twilio, Google, ClickUp, push service, git); on by default. */
  emulators?: boolean;
  /** Real-time checks of the Scheduler emulator, ms (0: only `scheduler.advance()` fires, for tests). */
  schedulerTickMs?: number;
  /** OpenPhone emulator fault injection (the mid-send crash test holds sends). */
  openphone?: { holdSends?: boolean; deliveredWebhooks?: 'legacy' | 'standard' };
  log?: (line: string) => void;
  /**
   * Run the artifacts the CDK app builds instead of the TypeScript sources (`npm start -- --bundled`);
   * `true` builds them if the sources changed since the last build.
   */
  bundled?: boolean | BuiltBundles;
  /** The built PWA the gateway serves; web/dist (what `npm run build:web` writes) by default. */
  staticRoot?: string;
  /** Force the DynamoDB implementation; by default DynamoDB Local when Java is installed, else dynalite. */
  dynamo?: DynamoEngine;
}

export interface LocalStack {
  url: string;
  env: Record<string, string>;
  emulators?: Emulators;
  /** The EventBridge Scheduler emulator: tests advance its clock instead of waiting. */
  scheduler: SchedulerEmulator;
  /** The demo device subscribed on the local push service at start. */
  demoDevice?: { endpoint: string };
  stop(): Promise<void>;
}

/**
 * The whole system on one machine: DynamoDB Local, fauxqs, the table and queues, then the same handler
 * modules the CDK app deploys behind a gateway (HTTP → API Gateway v2 events), an SQS poller (→ SQS batch
 * events) and a scheduler (→ EventBridge inputs).
 */
export async function startLocalStack(opts: LocalStackOptions = {}): Promise<LocalStack> {
  const log = opts.log ?? (() => {});
  const stops: Array<() => Promise<void> | void> = [];
  const stopAll = async () => {
    for (const s of stops.reverse()) await Promise.resolve(s()).catch(() => {});
  };
  try {
    if (opts.dataDir && opts.fresh) rmSync(opts.dataDir, { recursive: true, force: true });
    const engine = opts.dynamo ?? defaultDynamoEngine();
    // dynalite keeps LevelDB files, DynamoDB Local its own: separate folders, so a switch never misreads.
    const dynamoDir = engine === 'dynalite' ? 'dynalite' : 'dynamodb';
    if (opts.dataDir) {
      mkdirSync(join(opts.dataDir, dynamoDir), { recursive: true });
      mkdirSync(join(opts.dataDir, 'sqs'), { recursive: true });
    }
    const dynamo = await startDynamo({
      ...(opts.dataDir ? { path: resolve(opts.dataDir, dynamoDir) } : {}),
      engine,
      log,
    });
    stops.push(() => dynamo.stop());
    log(`${dynamo.engine === 'dynalite' ? 'DynamoDB (dynalite)' : 'DynamoDB Local '} ${dynamo.endpoint}`);
    const sqs = await startSqs(opts.dataDir ? { dataDir: resolve(opts.dataDir, 'sqs') } : {});
    stops.push(() => sqs.stop());
    log(`SQS (fauxqs)    ${sqs.endpoint}`);

    const tableName = 'switchboard-local';
    const { raw } = makeDynamoClients({ region: 'us-east-1', endpoint: dynamo.endpoint });
    await ensureTable(raw, tableName);
    raw.destroy();
    const sqsClient = makeSqsClient({ region: 'us-east-1', endpoint: sqs.endpoint });
    stops.push(() => sqsClient.destroy());
    const maxReceiveCount = opts.maxReceiveCount ?? 15;
    const queues = await ensureQueues(sqsClient, {
      prefix: 'switchboard-local',
      visibilityTimeoutSeconds: opts.visibilityTimeoutSeconds ?? 30,
      // Enough receives to outlast the worker's reconciliation window for an interrupted send (6 min).
      maxReceiveCount,
    });

    const timers = await startLocalTimers({
      sqs: sqsClient,
      queues,
      ...(opts.schedulerTickMs !== undefined ? { tickMs: opts.schedulerTickMs } : {}),
    });
    stops.push(() => timers.emulator.stop());
    log(`Scheduler       ${timers.emulator.url}`);

    let gatewayUrl = '';
    let emulators: Emulators | undefined;
    if (opts.emulators !== false) {
      requireGit();
      emulators = await startEmulators({
        gatewayUrl: () => gatewayUrl,
        secrets: localSecrets(opts.dataDir),
        ...(opts.dataDir ? { dataDir: resolve(opts.dataDir) } : {}),
        ...(opts.openphone ? { openphone: opts.openphone } : {}),
        log,
      });
      const e = emulators;
      stops.push(() => e.stop());
    }

    const env: Record<string, string> = {
      ...emulators?.env,
      MEMORY_DIR: resolve(
        opts.dataDir ?? join(process.env.TMPDIR ?? '/tmp', `switchboard-${process.pid}-${Date.now()}`),
        'memory-work',
      ),
      STAGE: 'local',
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      TABLE_NAME: tableName,
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      SQS_ENDPOINT: sqs.endpoint,
      EVENTS_QUEUE_URL: queues.queueUrl,
      DLQ_URL: queues.dlqUrl,
      ...timers.env,
      EVENTS_MAX_RECEIVE_COUNT: String(maxReceiveCount),
      LOG_LEVEL: 'WARN',
      ...devAuthEnv({
        dir: opts.dataDir,
        env: { ...process.env, ...opts.env },
        ...(emulators ? { clerk: emulators.clerk } : {}),
      }),
      ...opts.env,
    };
    Object.assign(process.env, env);
    // The handlers read process.env at their first invocation; a later stack in the same process (tests,
    // benchmarks) must not inherit this one's endpoints.
    stops.push(() => {
      for (const k of Object.keys(env)) delete process.env[k];
      delete process.env.PUBLIC_BASE_URL;
      delete process.env.LIVE_ENDPOINT;
      delete process.env.LIVE_SOCKET_URL;
      resetComposition();
      resetWorkerDeps();
    });
    resetComposition();
    resetWorkerDeps();

    const modules = opts.bundled
      ? await bundledModules(opts.bundled === true ? undefined : opts.bundled, log)
      : sourceModules();
    stops.push(() => modules.dispose());
    if (opts.bundled) log('Functions      the CDK-built bundles (--bundled)');
    const fn =
      <T>(load: () => Promise<{ handler: unknown }>) =>
      async () =>
        (await load()).handler as T;
    const routes: Route[] = [
      { method: '*', path: '/health', handler: fn<HttpHandler>(modules.api) },
      // As on AWS (function URL in RESPONSE_STREAM mode behind CloudFront): the chat stream is passed live.
      {
        method: 'POST',
        path: '/api/chat',
        handler: fn<HttpHandler>(modules.api),
        streaming: fn<StreamingHandler>(modules.apiStream),
      },
      // The demo team's dev sign-in exists on the local stack only (never in a Lambda bundle).
      { method: '*', path: '/api/dev/*', handler: fn<HttpHandler>(() => import('./dev-routes')) },
      { method: '*', path: '/api/*', handler: fn<HttpHandler>(modules.api) },
      { method: 'POST', path: '/webhooks/openphone', handler: fn<HttpHandler>(modules.webhook) },
      { method: 'POST', path: '/webhooks/twilio/status', handler: fn<HttpHandler>(modules.twilioStatus) },
    ];
    const gateway: Server = await startGateway({
      port: opts.port ?? 3000,
      routes,
      staticRoot: opts.staticRoot ?? resolve('web/dist'),
      liveSocket: fn<LiveSocketHandler>(modules.liveSocket),
      staticHeaders: pwaSecurityHeaders({
        clerkPublishableKey: opts.env?.CLERK_PUBLISHABLE_KEY ?? process.env.CLERK_PUBLISHABLE_KEY,
        onAws: false,
      }),
    });
    stops.push(() => new Promise<void>((r) => gateway.close(() => r())));
    const address = gateway.address();
    const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : opts.port}`;
    gatewayUrl = url;
    process.env.PUBLIC_BASE_URL = opts.env?.PUBLIC_BASE_URL ?? url;
    env.PUBLIC_BASE_URL = process.env.PUBLIC_BASE_URL;
    // The live channel: apps open `/live` on the gateway, functions post to its management API.
    for (const [k, v] of Object.entries({ LIVE_ENDPOINT: url, LIVE_SOCKET_URL: LIVE_PATH })) {
      process.env[k] = opts.env?.[k] ?? v;
      env[k] = process.env[k] ?? v;
    }

    // A demo device on the local push service, so approval pushes are delivered (and logged decrypted)
    // even though an offline browser cannot subscribe to a real push service.
    let demoDevice: { endpoint: string } | undefined;
    if (emulators) {
      const sub = emulators.push.createSubscription({ applicationServerKey: env.VAPID_PUBLIC_KEY });
      const { doc } = makeDynamoClients({ region: 'us-east-1', endpoint: dynamo.endpoint });
      await createDynamoPushSubscriptionStore({ doc, tableName }).put({
        subscription: sub,
        userId: 'demo-device',
        userAgent: 'local push service (demo device)',
        // It stands in for an admin's phone too, so `npm run ops -- alarm:test` shows the alarm push locally.
        admin: true,
      });
      demoDevice = { endpoint: sub.endpoint };
    }
    if (opts.dataDir) {
      writeFileSync(
        join(opts.dataDir, 'runtime.json'),
        JSON.stringify(
          {
            url,
            openPhoneWebhookSecret: env.OPENPHONE_WEBHOOK_SECRET,
            sharedNumber: env.OPENPHONE_SHARED_NUMBER,
            env,
          },
          null,
          2,
        ),
        { mode: 0o600 },
      );
    }

    const poller = startSqsPoller({
      client: sqsClient,
      queueUrl: queues.queueUrl,
      queueArn: queues.queueArn,
      handler: fn<SqsHandler>(modules.worker),
      onError: (e) => log(`worker error: ${String(e)}`),
    });
    stops.push(() => poller.stop());

    if (opts.schedules !== false) {
      // The same inputs EventBridge sends (shared/src/schedules.ts), to the same handler module.
      const scheduler = startScheduler(
        SCHEDULES.map((s) => ({
          name: s.name,
          everyMinutes: s.everyMinutes,
          invoke: async () =>
            ((await modules.emailPoll()).handler as (e: unknown) => Promise<unknown>)(s.input),
        })),
        (name, e) => log(`schedule ${name} failed: ${String(e)}`),
      );
      stops.push(() => scheduler.stop());
    }

    return {
      url,
      env,
      scheduler: timers.emulator,
      ...(emulators ? { emulators } : {}),
      ...(demoDevice ? { demoDevice } : {}),
      stop: stopAll,
    };
  } catch (e) {
    await stopAll();
    throw e;
  }
}

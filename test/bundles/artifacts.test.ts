import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { contributors, initLoadedBytes } from '../../scripts/bench/bundles.bench';
import { TRIAGE_MODEL_FILE } from '../../scripts/build/after-bundle';
import {
  type BuiltBundles,
  type BuiltFunction,
  ensureBundles,
  runtimeFiles,
} from '../../scripts/build/bundles';
import { LAMBDA_GLOBALS_IMPORT, stageArtifact } from '../../scripts/build/lambda-folder';
import { startGoogleEmulator } from '../../scripts/emulators/google';
import { DEMO_DRIVE_IDS } from '../../scripts/emulators/seed/google-data';
import { createGoogleAuth } from '../../shared/src/adapters/google/auth';
import { createTriageClassifier } from '../../shared/src/domain/triage/classifier';
import { MODEL_PATH } from '../../shared/src/domain/triage/model-file';
import { createSandboxRunner } from '../../shared/src/tools/sandbox';
import { freshTable } from '../helpers';

/**
 * Everything a function loads at run time is in its artifact: each CDK-built artifact is copied alone into a
 * clean folder (plus the AWS SDK one level up, as the Lambda runtime provides it), imported in a fresh Node
 * process and invoked with a real event shape. A missing file, an external that is not shipped or a
 * module-scope read of something absent fails here, not on AWS.
 */
let built: BuiltBundles;
let table: Awaited<ReturnType<typeof freshTable>>;
const stages: Array<ReturnType<typeof stageArtifact>> = [];

beforeAll(async () => {
  built = await ensureBundles();
  table = await freshTable('artifacts');
}, 300_000);
afterAll(() => {
  for (const s of stages) s.remove();
});

const fn = (name: string): BuiltFunction => {
  const f = built.functions.find((x) => x.name === name);
  if (!f) throw new Error(`no artifact for ${name}`);
  return f;
};

/** The child: Lambda's streaming globals, the handler imported, one invocation, its result as JSON. */
const CHILD = `
const [file, eventJson, streaming] = process.argv.slice(1);
const { handler } = await import(file);
const context = { awsRequestId: 'r-1', functionName: 'fn', getRemainingTimeInMillis: () => 30000 };
const event = JSON.parse(eventJson);
let out;
try {
  if (streaming === '1') {
    const { Writable } = await import('node:stream');
    const chunks = []; let meta = {};
    const stream = new Writable({ write(c, _e, done) { chunks.push(Buffer.from(c)); done(); } });
    stream.setMetadata = (m) => { meta = m; };
    await handler(event, stream, context);
    await new Promise((r) => (stream.writableFinished ? r() : stream.on('finish', r)));
    out = { ok: true, result: { statusCode: meta.statusCode, body: Buffer.concat(chunks).toString() } };
  } else {
    out = { ok: true, result: await handler(event, context) };
  }
} catch (e) {
  out = { ok: false, error: { name: e?.name, code: e?.code, message: String(e?.message ?? e) } };
}
console.log(JSON.stringify(out));
process.exit(0);
`;

async function invoke(name: string, event: unknown, env: Record<string, string> = {}, streaming = false) {
  const stage = stageArtifact(fn(name).dir);
  stages.push(stage);
  const file = pathToFileURL(join(stage.task, 'index.mjs')).href;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      '--import',
      LAMBDA_GLOBALS_IMPORT,
      '--input-type=module',
      '-e',
      CHILD,
      file,
      JSON.stringify(event),
      streaming ? '1' : '0',
    ],
    {
      cwd: stage.task,
      env: {
        PATH: process.env.PATH ?? '',
        ...fn(name).environment,
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'local',
        AWS_SECRET_ACCESS_KEY: 'local',
        TABLE_NAME: table.tableName,
        DYNAMODB_ENDPOINT: table.endpoint,
        EVENTS_QUEUE_URL: 'http://127.0.0.1:9/000000000000/events',
        // On AWS read from SSM at the first invocation (PUBLIC_BASE_URL_PARAMETER); given here, none is read.
        PUBLIC_BASE_URL: 'https://switchboard.example',
        LOG_LEVEL: 'ERROR',
        // Secrets Manager is unreachable here: no group secrets to read.
        SECRETS_ARNS: '',
        ...env,
      },
      timeout: 60_000,
    },
  );
  return JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as {
    ok: boolean;
    result?: { statusCode?: number; body?: string; batchItemFailures?: unknown[] } & Record<string, unknown>;
    error?: { name?: string; code?: string; message: string };
  };
}

const httpEvent = (method: string, path: string, body?: string, headers: Record<string, string> = {}) => ({
  version: '2.0',
  routeKey: `${method} ${path}`,
  rawPath: path,
  rawQueryString: '',
  headers: { host: 'example.execute-api.us-east-1.amazonaws.com', ...headers },
  requestContext: {
    accountId: '000000000000',
    apiId: 'example',
    domainName: 'example.execute-api.us-east-1.amazonaws.com',
    domainPrefix: 'example',
    http: { method, path, protocol: 'HTTP/1.1', sourceIp: '203.0.113.9', userAgent: 'test' },
    requestId: 'req-1',
    routeKey: `${method} ${path}`,
    stage: '$default',
    time: new Date().toUTCString(),
    timeEpoch: Date.now(),
  },
  ...(body ? { body, isBase64Encoded: false } : { isBase64Encoded: false }),
});

describe('each CDK-built artifact runs from a clean folder', () => {
  test('every function was built, with nothing but runtime files and no source maps', () => {
    expect(built.functions.map((f) => f.name)).toEqual(
      expect.arrayContaining([
        'agent-worker',
        'api',
        'api-stream',
        'email-poll',
        'openphone-webhook',
        'twilio-status',
        'pdf-text',
      ]),
    );
    for (const f of built.functions) {
      expect(runtimeFiles(f.dir).map((x) => x.path)).toContain('index.mjs');
      // No maps shipped, so no --enable-source-maps either (it parses the map at init): bundle-settings.ts.
      expect(readdirSync(f.dir).filter((p) => p.endsWith('.map'))).toEqual([]);
      expect(f.environment.NODE_OPTIONS ?? '').not.toContain('--enable-source-maps');
      expect(f.environment.STAGE).toBe('aws');
    }
  });

  test('size budgets of what is loaded at init (SPEC §7, issue 16): webhook ≤ 300 KB, worker ≤ 3 MB, the rest ≤ 1.5 MB', () => {
    // index.mjs and every chunk it imports statically: all of it is loaded at init (bundles.bench.ts).
    const main = (name: string) => initLoadedBytes(fn(name).dir) ?? Number.POSITIVE_INFINITY;
    const MB = 1024 * 1024;
    expect(main('openphone-webhook')).toBeLessThanOrEqual(300 * 1024);
    expect(main('agent-worker')).toBeLessThanOrEqual(3 * MB);
    for (const name of [
      'api',
      'api-stream',
      'email-poll',
      'twilio-status',
      'live-socket',
      'alarm-push',
      'pdf-text',
    ])
      expect(main(name), name).toBeLessThanOrEqual(1.5 * MB);
    // Code splitting: what the API imports on first use (decision checks, the memory workspace) is a chunk.
    expect(runtimeFiles(fn('api').dir).some((f) => /^[\w-]+-[A-Z0-9]{8}\.mjs$/.test(f.path))).toBe(true);
  });

  test('api answers GET /health', async () => {
    const out = await invoke('api', httpEvent('GET', '/health'));
    expect(out).toMatchObject({ ok: true, result: { statusCode: 200 } });
  });

  test('api-stream streams GET /health through the function URL handler', async () => {
    const out = await invoke('api-stream', httpEvent('GET', '/health'), {}, true);
    expect(out).toMatchObject({ ok: true, result: { statusCode: 200 } });
  });

  test('openphone-webhook refuses an unsigned delivery with a 4xx', async () => {
    const out = await invoke(
      'openphone-webhook',
      httpEvent('POST', '/webhooks/openphone', JSON.stringify({ type: 'message.received' }), {
        'content-type': 'application/json',
      }),
      { OPENPHONE_WEBHOOK_SECRET: Buffer.from('secret').toString('base64') },
    );
    expect(out.ok).toBe(true);
    expect(out.result?.statusCode).toBeGreaterThanOrEqual(400);
    expect(out.result?.statusCode).toBeLessThan(500);
  });

  test('twilio-status refuses an unsigned callback with a 4xx', async () => {
    const out = await invoke(
      'twilio-status',
      httpEvent('POST', '/webhooks/twilio/status', 'MessageSid=SM1&MessageStatus=sent', {
        'content-type': 'application/x-www-form-urlencoded',
      }),
      { TWILIO_AUTH_TOKEN: 'token' },
    );
    expect(out.ok).toBe(true);
    expect(out.result?.statusCode).toBeGreaterThanOrEqual(400);
    expect(out.result?.statusCode).toBeLessThan(500);
  });

  test('email-poll reads its schedule input and names the missing Google settings', async () => {
    const out = await invoke('email-poll', { source: 'general' });
    expect(out).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/GOOGLE_SERVICE_ACCOUNT_JSON/) },
    });
  });

  test('agent-worker consumes an SQS batch (a ping) and reports no failures', async () => {
    const body = JSON.stringify({
      id: 'evt-ping-1',
      correlationId: 'corr-1',
      key: 'system:ping',
      occurredAt: new Date().toISOString(),
      type: 'system.ping',
      payload: { note: 'artifact test' },
    });
    const event = {
      Records: [
        {
          messageId: 'm-1',
          receiptHandle: 'rh-1',
          body,
          attributes: { ApproximateReceiveCount: '1', SentTimestamp: String(Date.now()) },
          messageAttributes: {},
          md5OfBody: '',
          eventSource: 'aws:sqs',
          eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:events',
          awsRegion: 'us-east-1',
        },
      ],
    };
    const memory = join(stages[0]?.root ?? '/tmp', 'memory');
    const out = await invoke('agent-worker', event, { MEMORY_DIR: memory });
    expect(out).toMatchObject({ ok: true, result: { batchItemFailures: [] } });
  });

  test('run_code runs in the sandbox worker file and wasm shipped in the worker artifact', async () => {
    const stage = stageArtifact(fn('agent-worker').dir);
    stages.push(stage);
    const runner = createSandboxRunner({ workerUrl: pathToFileURL(join(stage.task, 'sandbox-worker.mjs')) });
    try {
      const result = await runner.run('[3, 4, 5].map((n) => n * n).reduce((a, b) => a + b)');
      expect(result).toMatchObject({ ok: true, value: 50 });
    } finally {
      await runner.close();
    }
  });

  test('the triage model ships whole in the worker artifact (its lazy chunk) and classifies from a clean folder', async () => {
    // Triage failures are logged and the run goes on (a failed classification never loses an event), so the
    // bundled flow would pass without a model: this imports the chunk the worker would, from the staged folder.
    const stage = stageArtifact(fn('agent-worker').dir);
    stages.push(stage);
    const chunk = readdirSync(stage.task).find((f) => /^triage-model\.generated-[\w-]+\.mjs$/.test(f));
    expect(chunk, 'the triage model chunk').toBeDefined();
    // The chunk reads the brotli copy beside it (after-bundle.ts `compressedTriageModel`), not a JSON literal.
    expect(statSync(join(stage.task, chunk as string)).size).toBeLessThan(4 * 1024);
    expect(statSync(join(stage.task, TRIAGE_MODEL_FILE)).size).toBeLessThan(statSync(MODEL_PATH).size / 2);
    const shipped = (await import(pathToFileURL(join(stage.task, chunk as string)).href)).default;
    expect(shipped).toEqual(JSON.parse(readFileSync(MODEL_PATH, 'utf8')));
    const classifier = createTriageClassifier(shipped);
    const keywords: string[] = [];
    expect(
      await classifier.classify('the ceiling light started smoking when I switched it on', keywords),
    ).toMatchObject({
      triageClass: 'emergency',
      kind: 'fire',
    });
    expect(
      (await classifier.classify('is the 2 bed on Elm still available? we have a small dog', keywords))
        .triageClass,
    ).toBe('lead');
  });

  test('whole artifacts (every file loaded at run time, issue 16): none over 5 MiB', () => {
    const MiB = 1024 * 1024;
    for (const f of built.functions) {
      const total = runtimeFiles(f.dir).reduce((n, x) => n + x.bytes, 0);
      expect(total, `${f.name}: ${(total / 1024).toFixed(0)} KiB`).toBeLessThanOrEqual(5 * MiB);
    }
  });

  test('pdf.js ships only in the pdf-text function, which reads a Drive PDF from a clean folder', async () => {
    for (const name of ['agent-worker', 'api-stream']) {
      expect(
        runtimeFiles(fn(name).dir).some((f) => f.path.startsWith('node_modules/unpdf')),
        name,
      ).toBe(false);
    }
    expect(contributors(fn('pdf-text').dir).map(([what]) => what)).not.toContain('unpdf');
    expect(runtimeFiles(fn('pdf-text').dir).map((f) => f.path)).toContain(
      'node_modules/unpdf/dist/pdfjs.mjs',
    );
    const google = await startGoogleEmulator();
    try {
      const auth = createGoogleAuth({ serviceAccount: google.serviceAccountJson, subject: google.mailbox });
      const { token } = await auth.getAccessToken();
      const out = await invoke(
        'pdf-text',
        { fileId: DEMO_DRIVE_IDS.leasePdf, accessToken: token, maxBytes: 10 * 1024 * 1024 },
        { GOOGLE_API_BASE: `${google.url}/` },
      );
      expect(out).toMatchObject({ ok: true, result: { pages: 1, truncated: false } });
      expect(String(out.result?.text)).toContain('Lease summary: 12 Oak St #2');
    } finally {
      await google.stop();
    }
  });
});

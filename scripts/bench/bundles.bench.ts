import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { type BenchRow, percentile } from './types';

/**
 * Per-function bundle sizes and module init time, built with the same esbuild settings the CDK's
 * TsFunction uses (ESM, minified, node22, AWS SDK left to the runtime). Init is timed in fresh Node
 * processes against an empty handler bundled the same way (SPEC §7: webhook < 300 KB, worker < 3 MB,
 * none > 5 MB, init ≤ 1.5× the empty handler).
 */
const FUNCTIONS = ['openphone-webhook', 'twilio-status', 'email-poll', 'api', 'api-stream', 'agent-worker'];
const TARGETS: Record<string, string> = { 'openphone-webhook': '< 300 KB', 'agent-worker': '< 3 MB' };

export async function run(): Promise<BenchRow[]> {
  const out = resolve('.local/bench-bundles');
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'empty.ts'), 'export const handler = async () => ({ statusCode: 200 });\n');
  // A second baseline: an otherwise empty handler that creates the AWS SDK clients every function needs
  // (the SDK ships with the Lambda runtime but still has to be loaded at init).
  writeFileSync(
    join(out, 'sdk-only.ts'),
    [
      "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';",
      "import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';",
      "import { SQSClient } from '@aws-sdk/client-sqs';",
      "const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));",
      "const sqs = new SQSClient({ region: 'us-east-1' });",
      'export const handler = async () => ({ statusCode: 200, doc: !!doc, sqs: !!sqs });',
    ].join('\n'),
  );
  const entries = [
    ...FUNCTIONS.map((f) => [f, resolve('functions', `${f}.ts`)]),
    ['empty', join(out, 'empty.ts')],
    ['sdk-only', join(out, 'sdk-only.ts')],
  ];
  const rows: BenchRow[] = [];
  const files: Record<string, string> = {};
  for (const [name, entry] of entries as Array<[string, string]>) {
    const outfile = join(out, `${name}.mjs`);
    await build({
      entryPoints: [entry],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node22',
      minify: true,
      external: ['@aws-sdk/*'],
      banner: {
        js: "import { createRequire as __cr } from 'module'; const require = __cr(import.meta.url);",
      },
      logLevel: 'silent',
    });
    files[name] = outfile;
    if (FUNCTIONS.includes(name)) {
      rows.push({
        name: `${name} bundle`,
        value: statSync(outfile).size / 1024,
        unit: 'KB',
        target: TARGETS[name] ?? '< 5 MB',
      });
    }
  }
  const initMs = (file: string) => {
    const samples: number[] = [];
    for (let i = 0; i < 5; i++) {
      const script = `const t=performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)}); console.log(performance.now()-t)`;
      const outText = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
        env: { ...process.env, TABLE_NAME: 'x', EVENTS_QUEUE_URL: 'http://localhost/q' },
        cwd: resolve('.'),
      });
      samples.push(Number(outText.toString().trim().split('\n').pop()));
    }
    return percentile(samples, 50);
  };
  const empty = initMs(files.empty as string);
  const sdkOnly = initMs(files['sdk-only'] as string);
  rows.push({ name: 'empty handler init', value: empty, unit: 'ms' });
  rows.push({
    name: 'SDK-clients-only handler init',
    value: sdkOnly,
    unit: 'ms',
    baseline: empty,
    ratio: sdkOnly / empty,
  });
  for (const name of FUNCTIONS) {
    const v = initMs(files[name] as string);
    rows.push({
      name: `${name} module init (median of 5 cold processes)`,
      value: v,
      unit: 'ms',
      baseline: sdkOnly,
      ratio: v / sdkOnly,
      target: '≤ 1.5× (baseline: SDK-clients-only handler)',
    });
  }
  return rows;
}

if (import.meta.url === pathToFileURL(resolve(process.argv[1] ?? '')).href) {
  console.table(await run());
  process.exit();
}

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { BUNDLE } from '../../infra/lib/bundle-settings';
import { type BuiltFunction, ensureBundles, runtimeFiles } from '../build/bundles';
import { LAMBDA_GLOBALS_IMPORT, stageArtifact } from '../build/lambda-folder';
import { type BenchRow, percentile } from './types';

/**
 * Per-function size and module init of the artifacts the CDK app builds (`cdk synth`, see
 * scripts/build/bundles.ts), each against its SPEC §7 target, plus the largest contributors of each bundle
 * from esbuild's metafile so a regression names its cause. Init is timed in fresh Node processes importing
 * each artifact from a clean folder (scripts/build/lambda-folder.ts) with the environment the template
 * gives it (NODE_OPTIONS included), against an otherwise empty handler that creates the same AWS SDK
 * clients, bundled with the same esbuild settings, measured in the same run.
 */
const KB = 1024;
const SIZE_TARGETS: Record<string, number> = {
  'openphone-webhook': 300 * KB,
  'agent-worker': 3 * KB * KB,
};
const DEFAULT_TARGET = 1.5 * KB * KB;
const INIT_TARGET = 1.5;
const ROUNDS = 7;
const TOP = 4;

const fmtBytes = (n: number) =>
  n >= KB * KB ? `${(n / KB / KB).toFixed(2)} MB` : `${(n / KB).toFixed(0)} KB`;

export async function run(): Promise<BenchRow[]> {
  const built = await ensureBundles({ log: (l) => console.log(`  ${l}`) });
  const baselines = await buildBaselines(resolve('.local/bench-bundles'));
  const rows: BenchRow[] = [];
  for (const fn of built.functions) rows.push(...sizeRows(fn));
  rows.push(...initRows(built.functions, baselines));
  return rows;
}

function sizeRows(fn: BuiltFunction): BenchRow[] {
  const files = runtimeFiles(fn.dir);
  const main = files.find((f) => f.path === 'index.mjs')?.bytes ?? 0;
  const total = files.reduce((n, f) => n + f.bytes, 0);
  const limit = SIZE_TARGETS[fn.name] ?? DEFAULT_TARGET;
  const mark = (v: number, max: number) => (v <= max ? '✓' : '✗');
  const rows: BenchRow[] = [
    {
      name: `${fn.name}: index.mjs (loaded at init)`,
      value: main / KB,
      unit: 'KB',
      target: `≤ ${fmtBytes(limit)} ${mark(main, limit)}`,
    },
  ];
  const atInit = initLoadedBytes(fn.dir);
  if (atInit !== undefined && atInit > main) {
    rows.push({
      name: `${fn.name}: index.mjs + the chunks it imports statically (all loaded at init)`,
      value: atInit / KB,
      unit: 'KB',
      target: `≤ ${fmtBytes(limit)} ${mark(atInit, limit)}`,
    });
  }
  if (files.length > 1) {
    rows.push({
      name: `${fn.name}: whole artifact (${files.length} runtime files)`,
      value: total / KB,
      unit: 'KB',
      target: `≤ 5 MB ${mark(total, 5 * KB * KB)}`,
    });
  }
  for (const [what, bytes] of contributors(fn.dir).slice(0, TOP)) {
    rows.push({ name: `  ${fn.name} ← ${what}`, value: bytes / KB, unit: 'KB' });
  }
  return rows;
}

/**
 * What init really loads: index.mjs and every chunk reachable from it by static `import` (code splitting
 * puts modules shared with a lazily imported part into chunks that the entry then imports at once).
 */
export function initLoadedBytes(dir: string): number | undefined {
  const metaPath = join(dir, 'index.meta.json');
  if (!existsSync(metaPath)) return undefined;
  const { outputs } = JSON.parse(readFileSync(metaPath, 'utf8')) as {
    outputs: Record<string, { bytes: number; imports?: Array<{ path: string; kind: string }> }>;
  };
  const entry = Object.keys(outputs).find((p) => p.endsWith('index.mjs'));
  const seen = new Set<string>();
  const queue = entry ? [entry] : [];
  for (let p = queue.pop(); p !== undefined; p = queue.pop()) {
    if (seen.has(p)) continue;
    seen.add(p);
    for (const i of outputs[p]?.imports ?? [])
      if (i.kind === 'import-statement' && outputs[i.path]) queue.push(i.path);
  }
  return [...seen].reduce((n, p) => n + (outputs[p]?.bytes ?? 0), 0);
}

/** Bytes in index.mjs per npm package (or per source folder of ours), largest first. */
export function contributors(dir: string): Array<[string, number]> {
  const metaPath = join(dir, 'index.meta.json');
  if (!existsSync(metaPath)) return [];
  const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as {
    outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }>;
  };
  const out = Object.entries(meta.outputs).find(([p]) => p.endsWith('index.mjs'))?.[1];
  const by = new Map<string, number>();
  for (const [path, v] of Object.entries(out?.inputs ?? {})) {
    const pkg = path.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)?.[1];
    const key = pkg ?? `(ours) ${path.split('/').slice(0, 3).join('/')}`;
    by.set(key, (by.get(key) ?? 0) + v.bytesInOutput);
  }
  return [...by.entries()].sort((a, b) => b[1] - a[1]);
}

/** The empty handler and the SDK-clients-only handler, bundled with the functions' esbuild settings. */
async function buildBaselines(out: string): Promise<Record<'empty' | 'sdk-only', string>> {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const sources = {
    empty: 'export const handler = async () => ({ statusCode: 200 });\n',
    // The clients every function builds (composition.ts): DynamoDB (document client) and SQS. The runtime
    // ships the SDK, but loading it is still init time, so the baseline pays it too.
    'sdk-only': [
      "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';",
      "import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';",
      "import { SQSClient } from '@aws-sdk/client-sqs';",
      "const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));",
      "const sqs = new SQSClient({ region: 'us-east-1' });",
      'export const handler = async () => ({ statusCode: 200, doc: !!doc, sqs: !!sqs });',
    ].join('\n'),
  };
  const dirs = {} as Record<'empty' | 'sdk-only', string>;
  for (const [name, source] of Object.entries(sources) as Array<['empty' | 'sdk-only', string]>) {
    const dir = join(out, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'handler.ts'), source);
    await build({
      entryPoints: [join(dir, 'handler.ts')],
      outfile: join(dir, 'dist', 'index.mjs'),
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: BUNDLE.target,
      minify: BUNDLE.minify,
      sourcemap: BUNDLE.sourceMap,
      external: [...BUNDLE.external],
      banner: { js: BUNDLE.banner },
      logLevel: 'silent',
    });
    dirs[name] = join(dir, 'dist');
  }
  return dirs;
}

function initRows(fns: BuiltFunction[], baselines: Record<'empty' | 'sdk-only', string>): BenchRow[] {
  const env = fns[0]?.environment ?? {};
  const entries = [
    { name: 'empty', dir: baselines.empty, environment: env },
    { name: 'sdk-only', dir: baselines['sdk-only'], environment: env },
    ...fns,
  ];
  const staged = entries.map((e) => ({ ...e, stage: stageArtifact(e.dir), samples: [] as number[] }));
  try {
    // Round-robin, so a burst of load on this shared machine hits every entry alike.
    for (let i = 0; i < ROUNDS; i++) {
      for (const s of staged) s.samples.push(importMs(join(s.stage.task, 'index.mjs'), s.environment));
    }
  } finally {
    for (const s of staged) s.stage.remove();
  }
  const med = (name: string) => percentile(staged.find((s) => s.name === name)?.samples ?? [], 50);
  const empty = med('empty');
  const sdkOnly = med('sdk-only');
  const flags = env.NODE_OPTIONS ? ` (NODE_OPTIONS=${env.NODE_OPTIONS})` : '';
  const rows: BenchRow[] = [
    { name: `empty handler init${flags}`, value: empty, unit: 'ms' },
    {
      name: 'SDK-clients-only handler init',
      value: sdkOnly,
      unit: 'ms',
      baseline: empty,
      ratio: sdkOnly / empty,
    },
  ];
  for (const fn of fns) {
    const v = med(fn.name);
    rows.push({
      name: `${fn.name} module init (median of ${ROUNDS} cold processes)`,
      value: v,
      unit: 'ms',
      baseline: sdkOnly,
      ratio: v / sdkOnly,
      target: `≤ ${INIT_TARGET}× SDK-clients-only ${v / sdkOnly <= INIT_TARGET ? '✓' : '✗'}`,
    });
  }
  return rows;
}

/** One cold import in a fresh process, as the Lambda runtime's init phase does it. */
function importMs(file: string, environment: Record<string, string>): number {
  const script = `const t=performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)}); console.log(performance.now()-t)`;
  const out = execFileSync(
    process.execPath,
    ['--import', LAMBDA_GLOBALS_IMPORT, '--input-type=module', '-e', script],
    {
      env: {
        PATH: process.env.PATH,
        ...environment,
        AWS_REGION: 'us-east-1',
        TABLE_NAME: 'bench',
        EVENTS_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/bench',
      },
      cwd: resolve(file, '..'),
    },
  );
  return Number(out.toString().trim().split('\n').pop());
}

if (import.meta.url === pathToFileURL(resolve(process.argv[1] ?? '')).href) {
  console.table(await run());
  process.exit();
}

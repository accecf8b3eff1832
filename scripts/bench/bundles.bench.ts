import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { BUNDLE } from '../../infra/lib/bundle-settings';
import { type BuiltFunction, ensureBundles, runtimeFiles } from '../build/bundles';
import {
  LAMBDA_GLOBALS_IMPORT,
  lambdaNodeArgs,
  lambdaRuntimeEnv,
  stageArtifact,
} from '../build/lambda-folder';
import { type BenchRow, percentile } from './types';

/**
 * Per-function size and module init of the artifacts the CDK app builds (`cdk synth`, see
 * scripts/build/bundles.ts), each against its SPEC §7 target, plus the largest contributors of each bundle
 * from esbuild's metafile so a regression names its cause. Init is measured as deployed: fresh Node processes
 * started with the Lambda runtime's flags for the function's memory size, importing each artifact from a
 * clean folder (scripts/build/lambda-folder.ts) with the environment the template gives it, against an
 * otherwise empty handler that creates the same AWS SDK clients, bundled with the same esbuild settings,
 * measured in the same run, interleaved (see `initRows` for which figure is compared and why).
 */
const KB = 1024;
const SIZE_TARGETS: Record<string, number> = {
  'openphone-webhook': 300 * KB,
  'agent-worker': 3 * KB * KB,
};
const DEFAULT_TARGET = 1.5 * KB * KB;
const INIT_TARGET = 1.5;
/** Cold processes per function; `BENCH_ROUNDS=…` for more (each costs about a third of a second per entry). */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
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

interface InitEntry {
  name: string;
  dir: string;
  environment: Record<string, string>;
  memorySize: number;
}
interface InitSample {
  /** Wall time of the `import()`. */
  wall: number;
  /** CPU time of the whole process (all threads) during the `import()`. */
  cpu: number;
}

/**
 * Every function and the baselines, each imported ROUNDS times in fresh processes, in a new random order each
 * round so a burst of load on this shared machine falls on every entry alike. The SDK-clients-only baseline
 * runs once per memory size in the set: the runtime sizes V8's heap from it (`lambdaNodeArgs`).
 */
function measureInit(
  fns: BuiltFunction[],
  baselines: Record<'empty' | 'sdk-only', string>,
): Map<string, InitSample[]> {
  const env = fns[0]?.environment ?? {};
  const sizes = [...new Set(fns.map((f) => f.memorySize))].sort((a, b) => a - b);
  const entries: InitEntry[] = [
    { name: 'empty', dir: baselines.empty, environment: env, memorySize: sizes[0] ?? 512 },
    ...sizes.map((m) => ({
      name: `sdk-only@${m}`,
      dir: baselines['sdk-only'],
      environment: env,
      memorySize: m,
    })),
    ...fns,
  ];
  const staged = entries.map((e) => ({ ...e, stage: stageArtifact(e.dir) }));
  const samples = new Map<string, InitSample[]>(entries.map((e) => [e.name, []]));
  try {
    for (let i = 0; i < ROUNDS; i++) {
      for (const s of shuffled(staged)) samples.get(s.name)?.push(importCost(s.stage.task, s));
    }
  } finally {
    for (const s of staged) s.stage.remove();
  }
  return samples;
}

function shuffled<T>(items: T[]): T[] {
  const a = [...items];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [a[i], a[j]] = [a[j] as T, a[i] as T];
  }
  return a;
}

/**
 * The figure is the MEDIAN CPU TIME of the import, against the SDK-clients-only handler's at the same memory
 * size. Why CPU: every function here has less than one vCPU on Lambda (1,769 MB buys one), so a cold start's
 * init runs CPU-bound and its wall time is its CPU time over the CPU share; and on this shared 2-core machine
 * wall time mostly measures the neighbours (waiting for a core), while CPU time does not. Why the median: CPU
 * time is not free of load either (caches, frequency), and the median of many interleaved rounds moves little
 * between runs. Wall time (min and median) is printed beside it: the minimum is the run least disturbed.
 */
function initRows(fns: BuiltFunction[], baselines: Record<'empty' | 'sdk-only', string>): BenchRow[] {
  const samples = measureInit(fns, baselines);
  const stat = (name: string, k: keyof InitSample, p: number) =>
    percentile(
      (samples.get(name) ?? []).map((s) => s[k]),
      p,
    );
  const wallNote = (name: string) =>
    `wall min ${stat(name, 'wall', 0).toFixed(0)} / median ${stat(name, 'wall', 50).toFixed(0)} ms`;
  const rows: BenchRow[] = [
    {
      name: `empty handler init, CPU median of ${ROUNDS} (${wallNote('empty')})`,
      value: stat('empty', 'cpu', 50),
      unit: 'ms',
    },
  ];
  for (const m of [...new Set(fns.map((f) => f.memorySize))].sort((a, b) => a - b)) {
    const b = `sdk-only@${m}`;
    rows.push({
      name: `SDK-clients-only handler init at ${m} MB, CPU median (${wallNote(b)})`,
      value: stat(b, 'cpu', 50),
      unit: 'ms',
    });
  }
  for (const fn of fns) {
    const b = `sdk-only@${fn.memorySize}`;
    const ratio = stat(fn.name, 'cpu', 50) / stat(b, 'cpu', 50);
    const wallMin = stat(fn.name, 'wall', 0) / stat(b, 'wall', 0);
    const wallMed = stat(fn.name, 'wall', 50) / stat(b, 'wall', 50);
    rows.push({
      name: `${fn.name} init, CPU median of ${ROUNDS} (${wallNote(fn.name)}; wall ${wallMin.toFixed(2)}× / ${wallMed.toFixed(2)}×)`,
      value: stat(fn.name, 'cpu', 50),
      unit: 'ms',
      baseline: stat(b, 'cpu', 50),
      ratio,
      target: `≤ ${INIT_TARGET}× SDK-clients-only ${ratio <= INIT_TARGET ? '✓' : '✗'}`,
    });
  }
  return rows;
}

/** One cold import in a fresh process started as the Lambda runtime starts it (flags, variables, cwd). */
function importCost(task: string, e: InitEntry): InitSample {
  const file = pathToFileURL(join(task, 'index.mjs')).href;
  const script = [
    'const c = process.cpuUsage(); const t = performance.now();',
    `await import(${JSON.stringify(file)});`,
    'const wall = performance.now() - t; const d = process.cpuUsage(c);',
    'console.log(JSON.stringify({ wall, cpu: (d.user + d.system) / 1000 }));',
  ].join('\n');
  const out = execFileSync(
    process.execPath,
    [...lambdaNodeArgs(e.memorySize), '--import', LAMBDA_GLOBALS_IMPORT, '--input-type=module', '-e', script],
    {
      env: {
        PATH: process.env.PATH,
        ...e.environment,
        ...lambdaRuntimeEnv(e.memorySize, task),
        AWS_REGION: 'us-east-1',
        TABLE_NAME: 'bench',
        EVENTS_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/bench',
      },
      cwd: task,
    },
  );
  return JSON.parse(out.toString().trim().split('\n').pop() ?? '{}') as InitSample;
}

if (import.meta.url === pathToFileURL(resolve(process.argv[1] ?? '')).href) {
  console.table(await run());
  process.exit();
}

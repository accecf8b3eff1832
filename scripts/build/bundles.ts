import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';

/**
 * The Lambda artifacts exactly as the CDK app builds them (`cdk synth` → cdk.out/asset.<hash>/), for the
 * bundle benchmark, the artifact-import tests and `npm start -- --bundled`. Synthesis runs the real app
 * (infra/lib/app.ts) in a child process into `.local/bundles/cdk.out`, once per change of its inputs: a
 * digest of the sources, the infra code and the lockfile decides whether the last build is still good, so a
 * test run (or CI) bundles once and later runs reuse it.
 */
export interface BuiltFunction {
  /** kebab-case construct id: `agent-worker`, `openphone-webhook`, … */
  name: string;
  /** The artifact folder (what Lambda unzips into /var/task). */
  dir: string;
  /** The handler module inside `dir` (`index.mjs`). */
  entry: string;
  /** The environment the template gives the function (only literal values; references are dropped). */
  environment: Record<string, string>;
  /** MemorySize in MB from the template (Lambda's default, 128, when absent): the runtime sizes V8's heap from it. */
  memorySize: number;
}

export interface BuiltBundles {
  outdir: string;
  functions: BuiltFunction[];
}

const ROOT = resolve(import.meta.dirname, '..', '..');
const INPUTS = ['functions', 'shared/src', 'infra/lib', 'infra/bin', 'scripts/build'];
/** The stack holding the functions (`Switchboard-<stage>-Stateless`; older apps: `SwitchboardStateless`). */
const STATELESS_TEMPLATE = /Stateless\.template\.json$/;

function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return listFiles(p);
    return /\.test\.tsx?$/.test(e.name) ? [] : [p];
  });
}

/** What the artifacts depend on: every non-test source file's content, plus the lockfile. */
export function bundleInputsDigest(root = ROOT): string {
  const h = createHash('sha256');
  const files = [...INPUTS.flatMap((d) => listFiles(join(root, d))), join(root, 'package-lock.json')];
  for (const f of files.sort()) h.update(relative(root, f)).update('\0').update(readFileSync(f)).update('\0');
  return h.digest('hex');
}

// `OpenPhoneWebhook` is functions/openphone-webhook.ts: the brand is one word in file names.
const kebab = (s: string) =>
  s
    .replace('OpenPhone', 'Openphone')
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase();

/** Reads the synthesized template: each Lambda function → its asset folder and literal environment. */
export function readBuiltFunctions(outdir: string): BuiltFunction[] {
  const file = readdirSync(outdir).find((f) => STATELESS_TEMPLATE.test(f));
  if (!file) throw new Error(`No *Stateless.template.json in ${outdir}`);
  const template = JSON.parse(readFileSync(join(outdir, file), 'utf8')) as {
    Resources: Record<string, { Type: string; Properties: Record<string, unknown> }>;
  };
  const fns: BuiltFunction[] = [];
  for (const [logicalId, r] of Object.entries(template.Resources)) {
    if (r.Type !== 'AWS::Lambda::Function') continue;
    const key = (r.Properties.Code as { S3Key?: string }).S3Key;
    const dir = join(outdir, `asset.${key?.replace(/\.zip$/, '')}`);
    // Logical ids are `<ConstructId>Fn<hash>` (TsFunction names its inner function `Fn`).
    const id = logicalId.replace(/Fn[0-9A-F]{8}$/, '');
    if (!key || !existsSync(dir) || id === logicalId) continue;
    const vars = (r.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables;
    const environment = Object.fromEntries(
      Object.entries(vars ?? {}).filter((e): e is [string, string] => typeof e[1] === 'string'),
    );
    const memorySize = typeof r.Properties.MemorySize === 'number' ? r.Properties.MemorySize : 128;
    fns.push({ name: kebab(id), dir, entry: join(dir, 'index.mjs'), environment, memorySize });
  }
  return fns.sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * Synthesizes the app (bundling every function with esbuild, metafiles on) unless the last build in
 * `outdir` was made from the same inputs. `force` rebuilds regardless.
 */
export async function ensureBundles(
  opts: { outdir?: string; force?: boolean; log?: (l: string) => void } = {},
): Promise<BuiltBundles> {
  const outdir = resolve(opts.outdir ?? join(ROOT, '.local', 'bundles', 'cdk.out'));
  const stamp = join(outdir, 'switchboard-inputs.sha256');
  const digest = bundleInputsDigest();
  // Test files in parallel workers may ask at once: one builds, the others wait for it and reuse the build.
  const unlock = await lock(`${outdir}.lock`);
  try {
    const fresh = existsSync(stamp) && readFileSync(stamp, 'utf8') === digest;
    if (!fresh || opts.force) {
      rmSync(outdir, { recursive: true, force: true });
      opts.log?.('Bundling the functions with the CDK app (cdk synth)…');
      await synth(outdir);
      writeFileSync(stamp, digest);
    }
  } finally {
    unlock();
  }
  return { outdir, functions: readBuiltFunctions(outdir) };
}

/** A cross-process lock: a directory only one process can create; a holder gone for 5 minutes is stale. */
async function lock(path: string): Promise<() => void> {
  mkdirSync(dirname(path), { recursive: true });
  for (;;) {
    try {
      mkdirSync(path);
      return () => rmSync(path, { recursive: true, force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const since = statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? Date.now();
      if (Date.now() - since > 5 * 60_000) rmSync(path, { force: true, recursive: true });
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

const pickEnv = (names: string[]) =>
  Object.fromEntries(names.filter((n) => process.env[n] !== undefined).map((n) => [n, process.env[n]]));

async function synth(outdir: string) {
  const tsx = join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
  try {
    await promisify(execFile)(process.execPath, [tsx, join(ROOT, 'infra', 'bin', 'app.ts')], {
      cwd: ROOT,
      // Only what a shell needs: a stack running in this process (tests, `npm start -- --bundled`) sets
      // STAGE, endpoints and settings in process.env, which the app would bake into the templates.
      env: {
        ...pickEnv(['PATH', 'HOME', 'TMPDIR', 'LANG', 'npm_config_cache', 'npm_config_userconfig']),
        CDK_OUTDIR: outdir,
        // Read by TsFunction: write esbuild's metafile beside each bundle (the benchmark names contributors).
        CDK_CONTEXT_JSON: JSON.stringify({ 'switchboard:metafile': true }),
      },
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (e) {
    const err = e as { stderr?: string; stdout?: string; message: string };
    throw new Error(`cdk synth failed: ${err.message}\n${(err.stderr ?? err.stdout ?? '').slice(-4000)}`);
  }
}

/** Files of an artifact that are loaded at run time (not maps, not the metafile), with their sizes. */
export function runtimeFiles(dir: string): Array<{ path: string; bytes: number }> {
  const walk = (d: string): string[] =>
    readdirSync(d, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(join(d, e.name)) : [join(d, e.name)],
    );
  return walk(dir)
    .filter((p) => !p.endsWith('.map') && !p.endsWith('.meta.json'))
    .map((p) => ({ path: relative(dir, p), bytes: statSync(p).size }));
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const built = await ensureBundles({ force: process.argv.includes('--force'), log: console.log });
  for (const f of built.functions) console.log(`${f.name.padEnd(20)} ${relative(ROOT, f.dir)}`);
}

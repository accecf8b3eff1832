import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..', '..');

/**
 * A folder laid out the way Lambda runs a function: the artifact alone in `task/` (copied, so nothing
 * beside the repository's node_modules can be resolved by accident) and the AWS SDK v3 one level up in
 * `node_modules/@aws-sdk`, standing in for the copy the Node.js runtime provides. An import that works
 * here needs nothing but the artifact and the SDK.
 */
export function stageArtifact(artifactDir: string): { root: string; task: string; remove(): void } {
  const root = mkdtempSync(join(tmpdir(), 'switchboard-lambda-'));
  const task = join(root, 'task');
  cpSync(artifactDir, task, {
    recursive: true,
    filter: (src) => !src.endsWith('.map') && !src.endsWith('.meta.json'),
  });
  const sdk = join(root, 'node_modules', '@aws-sdk');
  mkdirSync(sdk, { recursive: true });
  // Symlinks resolve to the repository's copies, whose own dependencies (@smithy/*, …) resolve from there,
  // as the runtime's SDK resolves its own.
  for (const pkg of readdirSync(join(ROOT, 'node_modules', '@aws-sdk'))) {
    symlinkSync(join(ROOT, 'node_modules', '@aws-sdk', pkg), join(sdk, pkg), 'dir');
  }
  return { root, task, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/**
 * What the Lambda Node.js runtime defines before it loads a response-streaming handler, as JavaScript
 * source for a fresh process (`--import data:…`): `awslambda.streamifyResponse` and
 * `awslambda.HttpResponseStream.from`. The local gateway installs the same (scripts/local/lambda-streaming.ts).
 */
export const LAMBDA_GLOBALS_SOURCE = [
  'const g = globalThis; g.awslambda ??= {};',
  'g.awslambda.streamifyResponse ??= (fn) => Object.assign(fn, { streaming: true });',
  'g.awslambda.HttpResponseStream ??= { from(stream, meta) { stream.setMetadata?.(meta); return stream; } };',
].join('\n');

export const LAMBDA_GLOBALS_IMPORT = `data:text/javascript,${encodeURIComponent(LAMBDA_GLOBALS_SOURCE)}`;

/**
 * The flags the Lambda Node.js runtime starts `node` with (its `/var/runtime/bootstrap`: `--expose-gc
 * --max-http-header-size 81920` and a heap sized from the function's memory — a tenth for the young
 * generation, half of that per semi-space, the rest old space; see test/contracts/vendor/aws/README.md).
 * The young generation's size decides how many scavenges module init pays, so init is measured with them.
 */
export function lambdaNodeArgs(memorySizeMb: number): string[] {
  const newSpace = Math.floor(memorySizeMb / 10);
  return [
    '--expose-gc',
    '--max-http-header-size',
    '81920',
    `--max-semi-space-size=${Math.floor(newSpace / 2)}`,
    `--max-old-space-size=${memorySizeMb - newSpace}`,
  ];
}

/** The variables the runtime sets that code may read at init (the rest are credentials and endpoints). */
export function lambdaRuntimeEnv(memorySizeMb: number, taskRoot: string): Record<string, string> {
  return {
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(memorySizeMb),
    AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
    LAMBDA_TASK_ROOT: taskRoot,
    TZ: ':UTC',
  };
}

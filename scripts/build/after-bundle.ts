import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { build } from 'esbuild';
import { BUNDLE } from '../../infra/lib/bundle-settings';

/**
 * Runs in each artifact folder right after esbuild (infra/lib/ts-function.ts, commandHooks.afterBundling) and
 * adds the files the bundle loads at run time beside itself, only where its code refers to them:
 *
 * - `sandbox-worker.mjs` + `emscripten-module.wasm`: run_code starts a worker thread from a separate file
 *   (shared/src/tools/sandbox.ts looks for it beside the bundle) and QuickJS loads its wasm beside that;
 * - `node_modules/unpdf`: pdf.js (1.6 MB) is left out of the bundle (`external`) and imported only when a PDF
 *   is read (shared/src/adapters/google/google-drive.ts), so it costs nothing at init.
 */
const ROOT = resolve(import.meta.dirname, '..', '..');
const require = createRequire(join(ROOT, 'package.json'));

export async function afterBundle(outDir: string): Promise<string[]> {
  const main = readFileSync(join(outDir, 'index.mjs'), 'utf8');
  const added: string[] = [];
  if (main.includes('sandbox-worker.mjs')) added.push(...(await addSandboxWorker(outDir)));
  if (/import\(\s*["']unpdf["']\s*\)/.test(main)) added.push(...addUnpdf(outDir));
  return added;
}

async function addSandboxWorker(outDir: string): Promise<string[]> {
  await build({
    entryPoints: [join(ROOT, 'shared', 'src', 'tools', 'sandbox-worker.ts')],
    outfile: join(outDir, 'sandbox-worker.mjs'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: BUNDLE.target,
    minify: BUNDLE.minify,
    external: [...BUNDLE.external],
    banner: { js: BUNDLE.banner },
    logLevel: 'warning',
  });
  // The release-sync variant the worker uses fetches `emscripten-module.wasm` relative to its own module,
  // which after bundling is sandbox-worker.mjs.
  const variant = dirname(require.resolve('@jitl/quickjs-wasmfile-release-sync/wasm'));
  copyFileSync(join(variant, 'emscripten-module.wasm'), join(outDir, 'emscripten-module.wasm'));
  return ['sandbox-worker.mjs', 'emscripten-module.wasm'];
}

function addUnpdf(outDir: string): string[] {
  const src = join(ROOT, 'node_modules', 'unpdf');
  const dest = join(outDir, 'node_modules', 'unpdf');
  mkdirSync(join(dest, 'dist'), { recursive: true });
  const pkg = JSON.parse(readFileSync(join(src, 'package.json'), 'utf8')) as Record<string, unknown>;
  // Only what an ESM import of `unpdf` and its own `unpdf/pdfjs` reaches.
  const files = ['dist/index.mjs', 'dist/pdfjs.mjs'];
  for (const f of files) copyFileSync(join(src, f), join(dest, f));
  copyFileSync(join(src, 'LICENSE'), join(dest, 'LICENSE'));
  writeFileSync(
    join(dest, 'package.json'),
    JSON.stringify({
      name: pkg.name,
      version: pkg.version,
      type: 'module',
      license: pkg.license,
      exports: { '.': './dist/index.mjs', './pdfjs': './dist/pdfjs.mjs' },
    }),
  );
  return files.map((f) => `node_modules/unpdf/${f}`);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const outDir = process.argv[2];
  if (!outDir || !existsSync(join(outDir, 'index.mjs'))) {
    console.error('usage: after-bundle.ts <artifact folder with index.mjs>');
    process.exit(2);
  }
  const added = await afterBundle(outDir);
  if (added.length) console.error(`  + ${added.join(', ')}`);
}

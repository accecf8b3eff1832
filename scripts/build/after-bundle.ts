import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { brotliCompressSync, constants } from 'node:zlib';
import { build, type Plugin } from 'esbuild';
import { BUNDLE } from '../../infra/lib/bundle-settings';
import { MODEL_PATH } from '../../shared/src/domain/triage/model-file';

/**
 * Runs in each artifact folder right after esbuild (infra/lib/ts-function.ts, commandHooks.afterBundling).
 *
 * First, with `--split <entry>`, it bundles the handler again with code splitting (issue 16): CDK's esbuild
 * step writes one `--outfile`, which inlines every `import()`; split, what a handler imports only on first
 * use (the API's decision checks and their Google/OpenPhone tools, the memory workspace's isomorphic-git,
 * the SSM / Secrets Manager settings source) becomes chunk files beside `index.mjs`, loaded when first
 * needed, so the file loaded at init carries only the hot path. Same settings as the first pass
 * (bundle-settings.ts); the chunks sit in the same folder, so `import.meta.url` lookups beside the bundle
 * (the sandbox worker, unpdf's node_modules) resolve as before.
 *
 * Then it adds the files the bundle loads at run time beside itself, only where its code refers to them:
 *
 * - `sandbox-worker.mjs` + `emscripten-module.wasm`: run_code starts a worker thread from a separate file
 *   (shared/src/tools/sandbox.ts looks for it beside the bundle) and QuickJS loads its wasm beside that;
 * - `triage-model.json.br`: the triage model, brotli-compressed (`compressedTriageModel`);
 * - `node_modules/unpdf`: pdf.js (1.6 MB) is left out of the bundle (`external`) and imported only when a PDF
 *   is read (shared/src/adapters/pdf-text-local.ts), only in the pdf-text function's artifact (`PDF_READERS`).
 */
const ROOT = resolve(import.meta.dirname, '..', '..');
const require = createRequire(join(ROOT, 'package.json'));

/**
 * zod's classic and mini entry points re-export every locale as a namespace (`export * as locales`), which
 * esbuild cannot tree-shake: 64 files, about 260 KB in each function that uses zod, parsed at init. We never
 * call `z.locales.*`, so that one re-export is given an empty module. English messages are untouched: zod
 * configures them from `locales/en.js` directly (and shared/src/zod-mini.ts does the same for zod/mini).
 */
export const withoutZodLocales: Plugin = {
  name: 'without-zod-locales',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (a) =>
      /[\\/]zod[\\/]v4[\\/]/.test(a.importer) ? { path: 'zod-locales', namespace: 'empty' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'empty' }, () => ({ contents: 'export {};', loader: 'js' }));
  },
};

/**
 * mimetext (the Gmail send path) imports `mime-types` only to validate an attachment's content type, and
 * with it mime-db: 134 KB of object literal parsed at the email poller's init (and carried by the worker and
 * the streaming API) for a check we never reach — we send plain text, never attachments. Only for imports
 * from mimetext, `mime-types` becomes the one function it calls, accepting a full `type/subtype` as the
 * original does (mime-types itself is untouched for anyone else, e.g. form-data). Likewise its core-js
 * `trim` helper becomes the built-in String.prototype.trim (Node 22 has it; core-js-pure is 12 KB).
 */
export const leanMimetext: Plugin = {
  name: 'lean-mimetext',
  setup(b) {
    b.onResolve({ filter: /^(mime-types|@babel\/runtime-corejs3\/core-js\/instance\/trim)$/ }, (a) =>
      /[\\/]mimetext[\\/]/.test(a.importer) ? { path: a.path, namespace: 'lean-mimetext' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'lean-mimetext' }, (a) => ({
      contents:
        a.path === 'mime-types'
          ? 'export function contentType(t) { return typeof t === "string" && /^[\\w!#$&^.+-]+\\/[\\w!#$&^.+-]+/.test(t) ? t : false; }'
          : 'export default function trim() { return String.prototype.trim; }',
      loader: 'js',
    }));
  },
};

/** The triage model's file beside the bundle: the generated JSON, brotli-compressed at build time. */
export const TRIAGE_MODEL_FILE = 'triage-model.json.br';

/**
 * The triage model (shared/src/domain/triage/triage-model.generated.json, imported on first classify) is
 * megabytes of JSON, and as an esbuild chunk it was as big an object literal in both the worker and the
 * streaming API: at 1.4 MB, most of the room left under the 5 MiB artifact budget. Its weights and index are
 * base64, so the chunk instead reads a brotli copy beside itself (under 40% of the JSON) and parses it with
 * JSON.parse: same default export, same lazy first use. Sources, tests and the local stack import the JSON
 * as before.
 */
export const compressedTriageModel: Plugin = {
  name: 'compressed-triage-model',
  setup(b) {
    b.onLoad({ filter: /[\\/]triage-model\.generated\.json$/ }, () => ({
      contents: [
        "import { readFileSync } from 'node:fs';",
        "import { brotliDecompressSync } from 'node:zlib';",
        `const packed = readFileSync(new URL('./${TRIAGE_MODEL_FILE}', import.meta.url));`,
        "export default JSON.parse(brotliDecompressSync(packed).toString('utf8'));",
      ].join('\n'),
      loader: 'js',
    }));
  },
};

export async function splitBundle(outDir: string, entry: string): Promise<void> {
  const metafile = existsSync(join(outDir, 'index.meta.json'));
  const out = await build({
    entryPoints: { index: entry },
    outdir: outDir,
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: BUNDLE.target,
    minify: BUNDLE.minify,
    external: [...BUNDLE.external],
    banner: { js: BUNDLE.banner },
    outExtension: { '.js': '.mjs' },
    chunkNames: '[name]-[hash]',
    plugins: [withoutZodLocales, leanMimetext, compressedTriageModel],
    metafile,
    logLevel: 'warning',
  });
  if (metafile) writeFileSync(join(outDir, 'index.meta.json'), JSON.stringify(out.metafile));
}

/**
 * The one function that reads PDFs in process on AWS (functions/pdf-text.ts). The worker and the streaming API
 * still refer to unpdf (their in-process reader, used by the local stack and tests, where it resolves from the
 * repository), but on AWS they read PDFs through that function (PDF_TEXT_FUNCTION), so they do not carry it.
 */
const PDF_READERS = [/[\\/]functions[\\/]pdf-text\.ts$/];

export async function afterBundle(outDir: string, entry?: string): Promise<string[]> {
  // Every module file of the artifact (the entry and its chunks) may be the one that refers to a file.
  const main = readdirSync(outDir)
    .filter((f) => f.endsWith('.mjs'))
    .map((f) => readFileSync(join(outDir, f), 'utf8'))
    .join('\n');
  const added: string[] = [];
  if (main.includes('sandbox-worker.mjs')) added.push(...(await addSandboxWorker(outDir)));
  const readsPdfs = !entry || PDF_READERS.some((r) => r.test(entry));
  if (readsPdfs && /import\(\s*["']unpdf["']\s*\)/.test(main)) added.push(...addUnpdf(outDir));
  if (main.includes(TRIAGE_MODEL_FILE)) added.push(addTriageModel(outDir));
  return added;
}

function addTriageModel(outDir: string): string {
  const json = readFileSync(MODEL_PATH);
  const packed = brotliCompressSync(json, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: json.length },
  });
  writeFileSync(join(outDir, TRIAGE_MODEL_FILE), packed);
  return TRIAGE_MODEL_FILE;
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
  const [outDir, flag, entry] = process.argv.slice(2);
  if (!outDir || !existsSync(join(outDir, 'index.mjs')) || (flag && (flag !== '--split' || !entry))) {
    console.error('usage: after-bundle.ts <artifact folder with index.mjs> [--split <handler entry>]');
    process.exit(2);
  }
  if (entry) await splitBundle(outDir, entry);
  const added = await afterBundle(outDir, entry);
  if (added.length) console.error(`  + ${added.join(', ')}`);
}

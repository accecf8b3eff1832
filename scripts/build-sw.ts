import { stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const SERVICE_WORKER_ENTRY = resolve(root, 'web/src/sw.ts');

export interface BuildServiceWorkerOptions {
  minify?: boolean;
  sourcemap?: boolean;
}

/**
 * Bundles web/src/sw.ts into one classic script (IIFE): module service workers are still missing on some
 * browsers our team uses, and a classic worker registers everywhere. The PWA build calls this with its
 * output path so sw.js is served from the site root (its scope must cover `/chat`).
 */
export async function buildServiceWorker(
  outFile: string,
  opts: BuildServiceWorkerOptions = {},
): Promise<{ outFile: string; bytes: number }> {
  await build({
    entryPoints: [SERVICE_WORKER_ENTRY],
    outfile: outFile,
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: ['es2020', 'chrome100', 'safari16', 'firefox100'],
    minify: opts.minify ?? true,
    sourcemap: opts.sourcemap ?? false,
    legalComments: 'none',
    logLevel: 'warning',
  });
  return { outFile, bytes: (await stat(outFile)).size };
}

// `tsx scripts/build-sw.ts <out/sw.js>`
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const out = process.argv[2];
  if (!out) {
    console.error('usage: tsx scripts/build-sw.ts <out-file>');
    process.exit(1);
  }
  const { outFile, bytes } = await buildServiceWorker(resolve(out));
  console.log(`service worker written to ${outFile} (${bytes} bytes)`);
}

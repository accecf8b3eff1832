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
 * Bundles web/src/sw.ts into one classic script (IIFE) without a precache list. The PWA's own build makes
 * sw.js with vite-plugin-pwa (injectManifest, web/vite.config.ts); this bundle is what the push tests load
 * into a bare page, where only the push and click handlers matter.
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

import { resolve } from 'node:path';
import { build } from 'vite';

/**
 * `vite build` of web/ into `outDir`: what `npm run build:web` ships (production React, the service worker),
 * for the browser tests and the benches that must load the real app, each into a folder of its own.
 */
export async function buildPwa(outDir: string, logLevel: 'warn' | 'error' = 'warn') {
  // Vitest sets NODE_ENV=test, which would make Vite emit a development build (dev React, no service
  // worker registration); the browser must get what `npm run build:web` ships.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({
      configFile: resolve('web/vite.config.ts'),
      mode: 'production',
      logLevel,
      build: { outDir, emptyOutDir: true },
    });
  } finally {
    process.env.NODE_ENV = nodeEnv;
  }
}

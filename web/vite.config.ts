import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';
import { buildServiceWorker } from '../scripts/build-sw';

const webRoot = dirname(fileURLToPath(import.meta.url));

/** Bundles the push service worker next to index.html, so /sw.js is served at the root (scope `/`). */
function serviceWorker(): Plugin {
  let outDir = '';
  return {
    name: 'switchboard-service-worker',
    apply: 'build',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    async closeBundle() {
      await buildServiceWorker(resolve(outDir, 'sw.js'));
    },
  };
}

/**
 * The PWA: `npm run build:web` writes web/dist, which the local gateway (and CloudFront on AWS) serves.
 * `vite --config web/vite.config.ts` serves it with hot reload and forwards /api to a running `npm start`.
 */
export default defineConfig({
  root: webRoot,
  plugins: [react(), serviceWorker()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
    target: 'es2022',
    // The timing report is about the build machine, not the app; it only adds noise to `npm start`.
    rolldownOptions: { checks: { bundlerTimings: false } },
  },
  server: {
    port: 5173,
    proxy: { '/api': 'http://127.0.0.1:3000', '/health': 'http://127.0.0.1:3000' },
  },
});

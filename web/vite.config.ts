import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';

const webRoot = dirname(fileURLToPath(import.meta.url));

/**
 * The PWA: `npm run build:web` writes web/dist, which the local gateway (and CloudFront on AWS) serves.
 * `vite --config web/vite.config.ts` serves it with hot reload and forwards /api to a running `npm start`.
 *
 * The service worker is vite-plugin-pwa's `injectManifest` strategy: web/src/sw.ts is our own worker (push,
 * notification clicks, and later issues' notification actions) into which the plugin injects the list of
 * the build's files to precache — the app shell, so a cold open with no network still shows the app. It is
 * built as a classic script (IIFE) at /sw.js, scope `/`. The manifest stays our hand-written
 * web/public/manifest.webmanifest; the icons are rendered from one SVG (web/scripts/render-icons.ts).
 */
export default defineConfig({
  root: webRoot,
  plugins: [
    react(),
    VitePWA({
      strategies: 'injectManifest',
      srcDir: 'src',
      filename: 'sw.ts',
      // The page asks before a new version takes over (the update prompt), never mid-approval.
      registerType: 'prompt',
      injectRegister: false,
      manifest: false,
      injectManifest: {
        rollupFormat: 'iife',
        // Shell only: scripts, styles, the page, icons and the manifest. Never API answers (SPEC §5).
        globPatterns: ['**/*.{js,css,html,svg,png,webmanifest}'],
        globIgnores: ['**/*.map'],
        maximumFileSizeToCacheInBytes: 3 * 1024 * 1024,
      },
      devOptions: { enabled: false },
    }),
  ],
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

import { defineConfig } from 'vitest/config';

// One runner for the repo. Integration tests start real emulators (DynamoDB Local, fauxqs, HTTP
// emulators) on 127.0.0.1, so they run in forks with generous timeouts; the 2-core CI box sets the pool size.
export default defineConfig({
  test: {
    include: ['**/*.test.ts', '**/*.test.tsx'],
    exclude: ['node_modules/**', 'cdk.out/**', 'dist/**', '.local/**'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    globalSetup: ['test/global-setup.ts'],
    // expect.poll waits 1 s by default; a browser or worker on a loaded 2-core CI box can take longer.
    expect: { poll: { timeout: 15_000, interval: 100 } },
  },
});

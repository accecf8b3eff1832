import { afterAll, beforeAll, expect, test } from 'vitest';
import { createApp } from '../../functions/api/app';
import { buildApiDeps } from '../../shared/src/composition/api';
import type { Metrics } from '../../shared/src/ports/metrics';
import { type ApiHarness, startApiHarness } from './harness';

/**
 * The API counts what people decide (CardsApproved, CardsDenied…) through the metered action store; on AWS
 * those counts are EMF lines written at flush, so every request must end with one — or the dashboard's
 * decisions would never leave the process.
 */
let h: ApiHarness;
beforeAll(async () => {
  h = await startApiHarness();
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

test('every request flushes the metrics, answered or refused', async () => {
  let flushed = 0;
  const metrics: Metrics = { count() {}, milliseconds() {}, flush: () => void flushed++ };
  const api = { ...buildApiDeps(h.core), metrics };
  const app = createApp(async () => api);
  expect((await app.request('/health')).status).toBe(200);
  expect((await app.request('/api/conversations')).status).toBe(401);
  expect(flushed).toBe(2);
});

import { expect, test } from 'vitest';
import { LIVE_CONNECTIONS_CACHE_MS } from '../../../shared/src/adapters/api-gateway-live';
import { LIVE_SETTLE_MS } from './use-resource';

test("the app's catch-up after its socket opens comes after the publishers' socket lists can have it", () => {
  // A publisher reuses a list read just before the socket connected for up to LIVE_CONNECTIONS_CACHE_MS; the
  // margin covers the list's read itself (one DynamoDB Query).
  expect(LIVE_SETTLE_MS - LIVE_CONNECTIONS_CACHE_MS).toBeGreaterThanOrEqual(500);
});

import { describe, expect, it } from 'vitest';
import { rollingWindowLimiter, sharedRateLimiter } from './rate-limiter';

/** A fake clock whose sleep advances time, so the limiter is tested without waiting. */
function fakeTime() {
  let now = 0;
  const sleep = async (ms: number) => {
    now += ms;
  };
  return { clock: () => now, sleep, at: () => now };
}

describe('rollingWindowLimiter', () => {
  it('lets 10 requests start at once, then spaces the rest so no window holds more than 10', async () => {
    const t = fakeTime();
    const limiter = rollingWindowLimiter({ requests: 10, windowMs: 1100, ...t });
    const starts: number[] = [];
    for (let i = 0; i < 25; i++) {
      await limiter.acquire();
      starts.push(t.at());
    }
    expect(starts.slice(0, 10).every((s) => s === 0)).toBe(true);
    expect(starts[10]).toBe(1100);
    for (let i = 0; i < starts.length; i++) {
      const inWindow = starts.filter((s) => s > (starts[i] as number) - 1100 && s <= (starts[i] as number));
      expect(inWindow.length).toBeLessThanOrEqual(10);
    }
  });

  it('serves concurrent callers in order', async () => {
    const t = fakeTime();
    const limiter = rollingWindowLimiter({ requests: 2, windowMs: 1000, ...t });
    const order: number[] = [];
    await Promise.all([0, 1, 2, 3, 4].map((i) => limiter.acquire().then(() => order.push(i))));
    expect(order).toEqual([0, 1, 2, 3, 4]);
    expect(t.at()).toBe(2000);
  });

  it('is shared per key within the container', () => {
    const make = () => rollingWindowLimiter({ requests: 1, windowMs: 1 });
    expect(sharedRateLimiter('k1', make)).toBe(sharedRateLimiter('k1', make));
    expect(sharedRateLimiter('k1', make)).not.toBe(sharedRateLimiter('k2', make));
  });
});

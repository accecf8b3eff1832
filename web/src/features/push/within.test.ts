import { expect, test, vi } from 'vitest';
import { within } from './use-push';

test('a push subscription that never answers fails with the reason instead of spinning forever', async () => {
  vi.useFakeTimers();
  try {
    const never = new Promise<never>(() => {});
    const waiting = within(never, 15_000, 'the push service did not answer');
    const outcome = expect(waiting).rejects.toThrow('the push service did not answer');
    await vi.advanceTimersByTimeAsync(15_000);
    await outcome;
    await expect(within(Promise.resolve(7), 15_000, 'x')).resolves.toBe(7);
  } finally {
    vi.useRealTimers();
  }
});

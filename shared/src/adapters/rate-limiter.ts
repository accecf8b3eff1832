/**
 * A client-side limiter that keeps a caller under a vendor's request rate: at most `requests` starts in any
 * rolling window of `windowMs`. Callers wait their turn in order (FIFO). Clock and sleep are injected so tests
 * advance time instead of waiting.
 *
 * Quo allows 10 requests per second per API key, counted in one-second windows on its side. A rolling window
 * guarantees that limit for our starts; the window is a little longer than a second (1.1 s by default) so
 * network jitter between our clock and theirs does not tip an 11th request into one of their seconds.
 *
 * The limiter is per container (per Lambda instance or local process): the OpenPhone tools and the executor in
 * one container share it through `sharedRateLimiter`, but two containers on the same key each keep their own
 * budget. A global limiter would need a shared counter (a DynamoDB write per request) that the agent's per-turn
 * request budget does not have; Quo's 429 is handled instead (reads retried with backoff, a send retried only
 * after a reconcile shows it did not go out).
 */
export interface RateLimiter {
  /** Resolves when the caller may start one request. */
  acquire(): Promise<void>;
}

export interface RateLimiterOptions {
  requests: number;
  windowMs: number;
  clock?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export function rollingWindowLimiter(opts: RateLimiterOptions): RateLimiter {
  const clock = opts.clock ?? Date.now;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const starts: number[] = [];
  let queue: Promise<void> = Promise.resolve();

  async function turn() {
    for (;;) {
      const now = clock();
      while (starts.length && (starts[0] as number) <= now - opts.windowMs) starts.shift();
      if (starts.length < opts.requests) {
        starts.push(now);
        return;
      }
      await sleep((starts[0] as number) + opts.windowMs - now);
    }
  }

  return {
    acquire() {
      const mine = queue.then(turn);
      // A failure of one waiter must not block the ones behind it.
      queue = mine.catch(() => undefined);
      return mine;
    },
  };
}

const shared = new Map<string, RateLimiter>();

/** One limiter per key (e.g. the vendor's base URL and API key) for the whole container. */
export function sharedRateLimiter(key: string, make: () => RateLimiter): RateLimiter {
  let limiter = shared.get(key);
  if (!limiter) {
    limiter = make();
    shared.set(key, limiter);
  }
  return limiter;
}

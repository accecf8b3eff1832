/**
 * A port whose adapter is built on its first call (every port method is async, so a call can wait for the
 * import). A failed build is not kept: the next call tries again.
 */
export function lazyPort<T extends object>(build: () => Promise<T>): T {
  let built: Promise<T> | undefined;
  const port = () => {
    built ??= build();
    built.catch(() => {
      built = undefined;
    });
    return built;
  };
  return new Proxy({} as T, {
    get(_target, prop) {
      // Not a thenable: `await lazyPort(...)` must not try to call a `then` method.
      if (prop === 'then' || typeof prop === 'symbol') return undefined;
      return async (...args: unknown[]) => {
        const p = await port();
        const method = (p as Record<string, unknown>)[prop];
        if (typeof method !== 'function') throw new TypeError(`${prop} is not a method of this port`);
        return method.apply(p, args);
      };
    },
  });
}

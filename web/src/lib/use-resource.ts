import { useCallback, useEffect, useRef, useState } from 'react';

export interface Resource<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => Promise<T | undefined>;
}

/**
 * Loads something and keeps it fresh. Polls only while the page is visible (a phone in a pocket costs
 * nothing) and refreshes on focus; a failed refresh keeps the last good data on screen with the error.
 */
export function useResource<T>(
  load: () => Promise<T>,
  key: string,
  opts: { intervalMs?: number; paused?: boolean } = {},
): Resource<T> {
  const [state, setState] = useState<{ key: string; data?: T; error?: unknown; loading: boolean }>({
    key,
    loading: true,
  });
  const loadRef = useRef(load);
  loadRef.current = load;
  const keyRef = useRef(key);
  keyRef.current = key;

  const reload = useCallback(async () => {
    const forKey = keyRef.current;
    try {
      const data = await loadRef.current();
      if (keyRef.current === forKey) setState({ key: forKey, data, loading: false });
      return data;
    } catch (error) {
      if (keyRef.current === forKey) setState((s) => ({ ...s, key: forKey, error, loading: false }));
      return undefined;
    }
  }, []);

  useEffect(() => {
    setState((s) => (s.key === key ? s : { key, loading: true }));
    void reload();
  }, [key, reload]);

  const { intervalMs, paused } = opts;
  useEffect(() => {
    if (!intervalMs || paused) return;
    const tick = () => {
      if (document.visibilityState === 'visible') void reload();
    };
    const timer = window.setInterval(tick, intervalMs);
    document.addEventListener('visibilitychange', tick);
    return () => {
      window.clearInterval(timer);
      document.removeEventListener('visibilitychange', tick);
    };
  }, [intervalMs, paused, reload]);

  const current = state.key === key ? state : { loading: true, data: undefined, error: undefined };
  return { data: current.data, error: current.error, loading: current.loading, reload };
}

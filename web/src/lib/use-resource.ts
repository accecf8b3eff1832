import { useCallback, useEffect, useRef, useState } from 'react';
import type { LiveUpdate } from '../../../shared/src/contracts/live';
import { useLiveStatus, useLiveUpdates } from './live';

export interface Resource<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => Promise<T | undefined>;
}

/**
 * Loads something and keeps it fresh. With `refreshOn`, a live update it accepts reloads it at once, and
 * polling runs only while the live channel is down; otherwise it polls. Polling happens only while the page
 * is visible (a phone in a pocket costs nothing) and it refreshes on focus; a failed refresh keeps the last
 * good data on screen with the error.
 */
export function useResource<T>(
  load: () => Promise<T>,
  key: string,
  opts: { intervalMs?: number; paused?: boolean; refreshOn?: (u: LiveUpdate) => boolean } = {},
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

  const refreshOn = opts.refreshOn;
  const pausedRef = useRef(opts.paused);
  pausedRef.current = opts.paused;
  useLiveUpdates((u) => {
    if (refreshOn?.(u) && !pausedRef.current) void reload();
  });
  const live = useLiveStatus() === 'live' && refreshOn !== undefined;
  // Back live after a gap: whatever changed meanwhile sent no hint this tab received.
  const wasLive = useRef(live);
  useEffect(() => {
    if (live && !wasLive.current) void reload();
    wasLive.current = live;
  }, [live, reload]);

  const { paused } = opts;
  const intervalMs = live ? undefined : opts.intervalMs;
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

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
 * A publisher reads the list of open sockets at most this often (shared/src/adapters/api-gateway-live.ts,
 * `cacheMs`), so a change written just after this tab's socket opened can go to a list without it: one
 * more reload once that window has passed catches it.
 */
const LIVE_SETTLE_MS = 1_500;

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
  // Back live after a gap: whatever changed meanwhile sent no hint this tab received, nor what changes while
  // the publishers' socket lists do not have this tab yet (LIVE_SETTLE_MS).
  const wasLive = useRef(live);
  useEffect(() => {
    const cameLive = live && !wasLive.current;
    wasLive.current = live;
    if (!cameLive) return;
    void reload();
    // Not while paused (a turn streaming into the screen reloads when it ends, and not before).
    const settle = window.setTimeout(() => {
      if (!pausedRef.current) void reload();
    }, LIVE_SETTLE_MS);
    return () => window.clearTimeout(settle);
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

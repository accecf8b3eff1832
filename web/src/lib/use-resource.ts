import { useCallback, useEffect, useRef, useState } from 'react';
import type { LiveUpdate } from '../../../shared/src/contracts/live';
import { useLiveStatus, useLiveUpdates } from './live';

export interface Resource<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => Promise<T | undefined>;
  /** Which request the data on screen came from (requests are numbered in the order they were sent; 0: none). */
  loadedBy: number;
  /** How many requests have been sent so far: data with `loadedBy` above this was asked for after now. */
  sent: () => number;
}

/**
 * A publisher reuses its list of open sockets for up to a second (`cacheMs` in
 * shared/src/adapters/api-gateway-live.ts; on AWS each publisher is its own Lambda container), so a change
 * written in the second after this tab's socket opened can be posted to a list without it, and with the
 * socket up nothing polls. One more reload once that window has passed catches such a change.
 */
export const LIVE_SETTLE_MS = 1_500;

/**
 * Loads something and keeps it fresh. With `refreshOn`, a live update it accepts reloads it at once, and
 * polling runs only while the live channel is down; otherwise it polls. Polling happens only while the page
 * is visible (a phone in a pocket costs nothing) and it refreshes on focus; a failed refresh keeps the last
 * good data on screen with the error. While `paused` nothing reloads by itself (no poll, hint or catch-up):
 * whoever paused reloads when it resumes (a chat turn does when its stream ends). An answer older than the
 * data on screen is dropped, so responses arriving out of order never step the screen back.
 */
export function useResource<T>(
  load: () => Promise<T>,
  key: string,
  opts: { intervalMs?: number; paused?: boolean; refreshOn?: (u: LiveUpdate) => boolean } = {},
): Resource<T> {
  const [state, setState] = useState<{
    key: string;
    data?: T;
    error?: unknown;
    loading: boolean;
    loadedBy: number;
  }>({ key, loading: true, loadedBy: 0 });
  const sentRef = useRef(0);
  const sent = useCallback(() => sentRef.current, []);
  const loadRef = useRef(load);
  loadRef.current = load;
  const keyRef = useRef(key);
  keyRef.current = key;

  const reload = useCallback(async () => {
    const forKey = keyRef.current;
    const n = ++sentRef.current;
    // What a later request already put on screen stays.
    const newer = (s: { key: string; loadedBy: number }) => s.key === forKey && s.loadedBy > n;
    try {
      const data = await loadRef.current();
      if (keyRef.current === forKey)
        setState((s) => (newer(s) ? s : { key: forKey, data, loading: false, loadedBy: n }));
      return data;
    } catch (error) {
      if (keyRef.current === forKey)
        setState((s) => (newer(s) ? s : { ...s, key: forKey, error, loading: false }));
      return undefined;
    }
  }, []);

  useEffect(() => {
    setState((s) => (s.key === key ? s : { key, loading: true, loadedBy: 0 }));
    void reload();
  }, [key, reload]);

  const refreshOn = opts.refreshOn;
  const pausedRef = useRef(opts.paused);
  pausedRef.current = opts.paused;
  useLiveUpdates((u) => {
    if (refreshOn?.(u) && !pausedRef.current) void reload();
  });
  const live = useLiveStatus() === 'live' && refreshOn !== undefined;
  useLiveCatchUp(live, pausedRef, reload);

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

  const current =
    state.key === key ? state : { loading: true, data: undefined, error: undefined, loadedBy: 0 };
  return {
    data: current.data,
    error: current.error,
    loading: current.loading,
    reload,
    loadedBy: current.loadedBy,
    sent,
  };
}

/**
 * Back live (the socket opened, or reopened after a gap): reload now — whatever changed meanwhile sent no hint
 * this tab received — and once more after LIVE_SETTLE_MS, for what changed while the publishers' socket lists
 * did not have this socket yet. Neither while paused.
 */
function useLiveCatchUp(
  live: boolean,
  pausedRef: { current: boolean | undefined },
  reload: () => Promise<unknown>,
) {
  const wasLive = useRef(live);
  useEffect(() => {
    const cameLive = live && !wasLive.current;
    wasLive.current = live;
    if (!cameLive) return;
    if (!pausedRef.current) void reload();
    const settle = window.setTimeout(() => {
      if (!pausedRef.current) void reload();
    }, LIVE_SETTLE_MS);
    return () => window.clearTimeout(settle);
  }, [live, pausedRef, reload]);
}

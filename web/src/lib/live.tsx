import { createContext, type ReactNode, useContext, useEffect, useRef, useState } from 'react';
import {
  LIVE_TOKEN_PARAM,
  type LiveClientMessage,
  type LiveUpdate,
  liveUpdate,
} from '../../../shared/src/contracts/live';
import type { GetToken } from './api';

type Listener = (u: LiveUpdate) => void;
export type LiveStatus = 'off' | 'connecting' | 'live' | 'down';

/**
 * The app's end of the live channel: one socket per tab to the URL the API's public config names, with the
 * session token as a query parameter (a browser WebSocket sends no headers). Updates are hints the screens
 * refetch on. While the socket is down the screens poll; it reconnects with a growing pause (1 s → 30 s)
 * and pings every 5 minutes to stay inside API Gateway's 10-minute idle timeout.
 */
export class LiveClient {
  private ws: WebSocket | undefined;
  private listeners = new Set<Listener>();
  private statusListeners = new Set<(s: LiveStatus) => void>();
  private retries = 0;
  private stopped = false;
  private timer: number | undefined;
  private pinger: number | undefined;
  status: LiveStatus = 'off';

  constructor(
    private readonly url: string | undefined,
    private readonly getToken: GetToken,
  ) {}

  start() {
    if (!this.url) return;
    this.stopped = false;
    void this.open();
  }

  stop() {
    this.stopped = true;
    window.clearTimeout(this.timer);
    window.clearInterval(this.pinger);
    this.ws?.close();
    this.ws = undefined;
    this.setStatus('off');
  }

  subscribe(fn: Listener) {
    this.listeners.add(fn);
    return () => void this.listeners.delete(fn);
  }

  onStatus(fn: (s: LiveStatus) => void) {
    this.statusListeners.add(fn);
    return () => void this.statusListeners.delete(fn);
  }

  send(msg: LiveClientMessage) {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg));
  }

  private setStatus(s: LiveStatus) {
    this.status = s;
    for (const fn of this.statusListeners) fn(s);
  }

  private async open() {
    if (this.stopped || !this.url) return;
    this.setStatus('connecting');
    const token = await this.getToken().catch(() => null);
    if (!token || this.stopped) return this.retry();
    const base = this.url.startsWith('/')
      ? `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${this.url}`
      : this.url;
    const ws = new WebSocket(`${base}?${LIVE_TOKEN_PARAM}=${encodeURIComponent(token)}`);
    this.ws = ws;
    ws.onopen = () => {
      this.retries = 0;
      this.setStatus('live');
      window.clearInterval(this.pinger);
      this.pinger = window.setInterval(() => this.send({ action: 'ping' }), 5 * 60_000);
    };
    ws.onmessage = (e) => {
      let parsed: ReturnType<typeof liveUpdate.safeParse>;
      try {
        parsed = liveUpdate.safeParse(JSON.parse(String(e.data)));
      } catch {
        return;
      }
      if (parsed.success) for (const fn of this.listeners) fn(parsed.data);
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      window.clearInterval(this.pinger);
      this.retry();
    };
  }

  private retry() {
    if (this.stopped) return;
    this.setStatus('down');
    const wait = Math.min(30_000, 1000 * 2 ** this.retries++);
    this.timer = window.setTimeout(() => void this.open(), wait);
  }
}

const LiveContext = createContext<LiveClient | null>(null);

export function LiveProvider({
  url,
  getToken,
  children,
}: {
  url: string | undefined;
  getToken: GetToken;
  children: ReactNode;
}) {
  const [client] = useState(() => new LiveClient(url, getToken));
  useEffect(() => {
    client.start();
    return () => client.stop();
  }, [client]);
  return <LiveContext.Provider value={client}>{children}</LiveContext.Provider>;
}

export function useLiveClient(): LiveClient | null {
  return useContext(LiveContext);
}

/** Calls `fn` for every live update (the latest `fn`, without resubscribing on each render). */
export function useLiveUpdates(fn: Listener) {
  const client = useLiveClient();
  const ref = useRef(fn);
  ref.current = fn;
  useEffect(() => client?.subscribe((u) => ref.current(u)), [client]);
}

/** Whether updates arrive live right now (screens poll only when they do not). */
export function useLiveStatus(): LiveStatus {
  const client = useLiveClient();
  const [status, setStatus] = useState<LiveStatus>(client?.status ?? 'off');
  useEffect(() => {
    if (!client) return;
    setStatus(client.status);
    return client.onStatus(setStatus);
  }, [client]);
  return status;
}

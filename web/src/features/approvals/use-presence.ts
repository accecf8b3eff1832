import { useEffect, useRef, useState } from 'react';
import { useLiveClient, useLiveStatus, useLiveUpdates } from '../../lib/live';
import { useMe } from '../auth/auth-context';

/** Said again this often while the card is on screen, so someone who opens it later learns who is here. */
const HEARTBEAT_MS = 60_000;
/** A viewer not heard from for this long has gone (a closed laptop sends no "left"). */
const STALE_MS = 150_000;

export interface Viewer {
  userId: string;
  name: string;
}

/**
 * "Sam is viewing" (cards #18) over the live channel: while `active` (a waiting card is on screen) this tab
 * tells the team it is viewing the conversation — on open, when the socket (re)connects, every minute, and
 * "left" on close or when the page is hidden. It answers a newcomer's "viewing" with its own, so both see
 * each other without waiting for the heartbeat. Returns the others viewing now (the server names them from
 * their verified sockets, never from what a browser says). Without a live channel it returns nobody.
 */
export function usePresence(conversationId: string, active: boolean): Viewer[] {
  const client = useLiveClient();
  const status = useLiveStatus();
  const me = useMe();
  const [seen, setSeen] = useState<Map<string, { name: string; at: number }>>(new Map());
  const [now, setNow] = useState(() => Date.now());
  const activeRef = useRef(active);
  activeRef.current = active;

  const say = (state: 'viewing' | 'left') => client?.send({ action: 'presence', conversationId, state });

  useEffect(() => {
    if (!active || status !== 'live' || !client) return;
    const announce = () => {
      if (document.visibilityState === 'visible')
        client.send({ action: 'presence', conversationId, state: 'viewing' });
      else client.send({ action: 'presence', conversationId, state: 'left' });
      setNow(Date.now());
    };
    announce();
    const timer = window.setInterval(announce, HEARTBEAT_MS);
    document.addEventListener('visibilitychange', announce);
    const leave = () => client.send({ action: 'presence', conversationId, state: 'left' });
    window.addEventListener('pagehide', leave);
    return () => {
      window.clearInterval(timer);
      document.removeEventListener('visibilitychange', announce);
      window.removeEventListener('pagehide', leave);
      leave();
    };
  }, [active, status, client, conversationId]);

  useLiveUpdates((u) => {
    if (u.type !== 'presence' || u.conversationId !== conversationId || u.userId === me.id) return;
    setSeen((prev) => {
      const next = new Map(prev);
      if (u.state === 'left') next.delete(u.userId);
      else {
        // A newcomer: answer with our own "viewing" so they see us now, not at our next heartbeat.
        if (!prev.has(u.userId) && activeRef.current) say('viewing');
        next.set(u.userId, { name: u.name, at: Date.now() });
      }
      return next;
    });
    setNow(Date.now());
  });

  return [...seen.entries()]
    .filter(([, v]) => now - v.at < STALE_MS)
    .map(([userId, v]) => ({ userId, name: v.name }));
}

import { useEffect, useRef, useState } from 'react';
import { useLiveClient, useLiveStatus, useLiveUpdates } from '../../lib/live';
import { useMe } from '../auth/auth-context';

/** Said again this often while the card is on screen, so someone who opens it later learns who is here. */
const HEARTBEAT_MS = 60_000;
/** A viewer not heard from for this long has gone (a closed laptop sends no "left"). */
const STALE_MS = 150_000;
/**
 * Another's "viewing" is answered with ours at most this often per person: always the first time, and again
 * when they say it anew (a reloaded page or a new socket has forgotten us, though we still hold them), but
 * never back and forth (their answer to our answer comes within this window).
 */
const ANSWER_EVERY_MS = 5_000;

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
  const answeredAt = useRef(new Map<string, number>());

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
    const at = Date.now();
    if (u.state === 'viewing' && activeRef.current) {
      // Answer with our own "viewing" so they see us now, not at our next heartbeat. Decided here, not in the
      // state updater below (React may run an updater later, or twice): a reconnected viewer we still held
      // was never answered, and saw us only a minute later. (The cards-team e2e test's lost answers had a
      // second cause on the server: the publisher's cached list of sockets, api-gateway-live.ts.)
      const last = answeredAt.current.get(u.userId);
      if (last === undefined || at - last > ANSWER_EVERY_MS) {
        answeredAt.current.set(u.userId, at);
        say('viewing');
      }
    }
    setSeen((prev) => {
      const next = new Map(prev);
      if (u.state === 'left') next.delete(u.userId);
      else next.set(u.userId, { name: u.name, at });
      return next;
    });
    setNow(at);
  });

  return [...seen.entries()]
    .filter(([, v]) => now - v.at < STALE_MS)
    .map(([userId, v]) => ({ userId, name: v.name }));
}

import type { SessionUser } from '../contracts/api';
import { liveClientMessage } from '../contracts/live';
import { ForbiddenError, UnauthorizedError, ValidationError } from '../errors';
import type { LiveConnections, LiveUpdates } from '../ports/live-updates';

export interface LiveSocketDeps {
  connections: LiveConnections;
  live: LiveUpdates;
  verifySession: (token: string | undefined) => Promise<SessionUser>;
  /** The PWA's origin: a socket opened by a page on any other origin is refused (cross-site WebSocket hijacking). */
  appOrigin: string;
  clock: () => Date;
}

/**
 * $connect: the browser cannot send headers on a WebSocket, so its session token comes as a query
 * parameter and is verified exactly as the API verifies it; the connection is kept with who opened it.
 */
export async function connectLive(
  deps: LiveSocketDeps,
  input: { connectionId: string; token: string | undefined; origin: string | undefined },
): Promise<SessionUser> {
  if (input.origin && input.origin !== deps.appOrigin)
    throw new ForbiddenError('This socket only serves the app on its own site.');
  if (!input.token)
    throw new UnauthorizedError('Sign in required: open the socket with ?token=<session token>.');
  const user = await deps.verifySession(input.token);
  await deps.connections.put({
    connectionId: input.connectionId,
    userId: user.id,
    name: user.name ?? user.email,
    connectedAt: deps.clock().toISOString(),
  });
  return user;
}

export async function disconnectLive(deps: LiveSocketDeps, connectionId: string): Promise<void> {
  await deps.connections.delete(connectionId);
}

/**
 * $default: what an app says on its socket. `ping` only keeps the socket open; `presence` is passed on to
 * the team with the name recorded at connect (never a name from the message itself).
 */
export async function receiveLiveMessage(
  deps: LiveSocketDeps,
  input: { connectionId: string; body: string | undefined },
): Promise<void> {
  let raw: unknown;
  try {
    raw = JSON.parse(input.body ?? '');
  } catch {
    throw new ValidationError('A socket message is a JSON object with an "action".');
  }
  const parsed = liveClientMessage.safeParse(raw);
  if (!parsed.success)
    throw new ValidationError('Unknown socket message; the actions are "ping" and "presence".');
  const msg = parsed.data;
  if (msg.action === 'ping') return;
  const who = await deps.connections.get(input.connectionId);
  if (!who) throw new UnauthorizedError('This socket is not signed in; reconnect.');
  await deps.live.publish({
    type: 'presence',
    conversationId: msg.conversationId,
    userId: who.userId,
    name: who.name,
    state: msg.state,
  });
}

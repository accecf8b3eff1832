import type { LiveUpdate } from '../contracts/live';

/**
 * Tells open apps that something changed (a card, a message, a conversation). Best-effort by contract:
 * `publish` never throws into the caller — a failed delivery is logged and the app's polling fallback
 * picks the change up — so no use case ever fails or retries because a browser was unreachable.
 */
export interface LiveUpdates {
  publish(update: LiveUpdate): Promise<void>;
}

/** For deployments and tests without a live channel. */
export const noLiveUpdates: LiveUpdates = { publish: async () => {} };

/** One open app's socket: who it is (from the verified session at connect) and until when it is kept. */
export interface LiveConnection {
  connectionId: string;
  userId: string;
  name: string;
  connectedAt: string;
}

/** The open sockets of the team (API Gateway knows them only by id; we keep who is behind each). */
export interface LiveConnections {
  put(c: LiveConnection): Promise<void>;
  get(connectionId: string): Promise<LiveConnection | undefined>;
  delete(connectionId: string): Promise<void>;
  list(): Promise<LiveConnection[]>;
}

/**
 * Where each email poll remembers how far it got. The cursor is the newest `internalDate` handled plus the
 * ids already handled near it (Gmail timestamps are milliseconds but several messages can share one, and
 * search may surface a message a little late), and the ids claimed but not yet enqueued. Writes are
 * compare-and-set on `version`, so two overlapping polls can never both claim the same email.
 */
export interface InflightEmail {
  id: string;
  internalDate: number;
  /** Epoch ms when a poll claimed it; past the lease, another poll re-sends it (a crashed poll). */
  claimedAt: number;
}

export interface EmailCursor {
  /** Newest internalDate (epoch ms) claimed so far. */
  internalDate: number;
  /** id → internalDate of messages claimed within the look-back window before `internalDate`. */
  seen: Record<string, number>;
  inflight: InflightEmail[];
  /** 0 when the cursor has never been written. */
  version: number;
}

export interface EmailCursorStore {
  get(name: string): Promise<EmailCursor | undefined>;
  /** Writes `next` as version `expectedVersion + 1` if the stored version is still `expectedVersion`. */
  compareAndSet(name: string, expectedVersion: number, next: Omit<EmailCursor, 'version'>): Promise<boolean>;
}

/**
 * A phone call as its three Quo events build it up, in whatever order they arrive (completed, summary,
 * transcript). Each event merges its own fields; the merged record is what the conversation entry shows and
 * what the call's run reads.
 */
export interface CallRecord {
  callId: string;
  /** The outside party. */
  party?: string;
  direction?: 'incoming' | 'outgoing';
  status?: string | null;
  durationSeconds?: number | null;
  completed?: boolean;
  summary?: string[];
  nextSteps?: string[];
  /** `speaker: text` lines, cut to what a person (and a prompt) reads. */
  transcript?: string[];
  transcriptTruncated?: boolean;
  /** When the first of its events was handled: the entry's place in the conversation, fixed. */
  firstSeenAt: string;
  /** The conversation the entry is in, once known. */
  conversationId?: string;
  /** The event that started the call's run (a redelivery of that event may go on with it). */
  runBy?: string;
}

export type CallPatch = Partial<Omit<CallRecord, 'callId' | 'firstSeenAt' | 'runBy'>>;

export interface CallStore {
  /** Sets the patch's fields (absent ones untouched) and returns the whole record. */
  merge(callId: string, patch: CallPatch, at: string): Promise<CallRecord>;
  /** Claims the call's one run for `eventId`; true also when that same event claimed it before (a redelivery). */
  claimRun(callId: string, eventId: string): Promise<boolean>;
}

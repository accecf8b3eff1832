/**
 * What the domain needs from the team's phone system (OpenPhone / Quo): the workspace lines, contacts,
 * text messages and calls. Types are ours, not the vendor's: phone numbers are E.164 where they can be,
 * nullable vendor fields are settled, and lists carry an opaque page token.
 *
 * Errors (from shared/src/errors): NotFoundError for a missing id, ValidationError for input we refuse to
 * send, ForbiddenError when the provider refuses the line or resource, UpstreamError for everything else
 * (`retryable` says whether a later attempt may succeed). Reads are retried with backoff inside the adapter;
 * `sendMessage` is never retried, see `findSentMessage`.
 */

export interface PhoneLine {
  /** Provider id of the line (`PN…`). */
  id: string;
  /** E.164. */
  number: string;
  name: string;
  users: Array<{ id: string; email: string | null; name: string; role: string | null }>;
}

export interface ContactPhone {
  label: string;
  /** As stored at the provider (people type numbers in every format). */
  value: string;
  /** The same number in E.164, or null when it cannot be parsed as a valid number. */
  e164: string | null;
}

export interface Contact {
  id: string;
  firstName: string;
  lastName: string;
  /** "First Last", or the company, or the first number: something a person recognises. */
  displayName: string;
  company: string | null;
  role: string | null;
  phones: ContactPhone[];
  emails: Array<{ label: string; value: string }>;
  externalId: string | null;
  createdAt: string | null;
  updatedAt: string | null;
}

export interface ContactInput {
  firstName: string;
  lastName?: string | null;
  company?: string | null;
  role?: string | null;
  /** Numbers are normalised to E.164 before they are sent; an unparseable number is a ValidationError. */
  phones?: Array<{ label: string; number: string }>;
  emails?: Array<{ label: string; value: string }>;
  externalId?: string | null;
}

/** Fields left out stay as they are; a list given replaces the list at the provider. */
export type ContactPatch = Partial<ContactInput>;

export interface SmsMessage {
  id: string;
  direction: 'incoming' | 'outgoing';
  /** E.164 of the sender (our line for outgoing). */
  from: string;
  to: string[];
  text: string;
  /** queued | sent | delivered | undelivered | received (the provider may add more). */
  status: string;
  lineId: string | null;
  userId: string | null;
  createdAt: string;
  updatedAt: string | null;
}

export interface SendMessageInput {
  /** The sending line: its id (`PN…`) or its E.164 number. */
  from: string;
  /** One recipient, any format libphonenumber-js can read (normalised to E.164). */
  to: string;
  text: string;
  /** Send as this workspace member (defaults to the line's owner at the provider). */
  userId?: string;
}

export interface FindSentMessageInput {
  /** The line the message was sent from (id or E.164). */
  from: string;
  to: string;
  /** Matched exactly (after trimming), as the approved action's text is what was sent. */
  text: string;
  /** When the send was attempted (recorded before the POST); messages older than this do not match. */
  since: Date | string;
}

export interface Page<T> {
  items: T[];
  /** Pass back to get the next page; null on the last page. */
  nextPageToken: string | null;
}

export interface ListMessagesInput {
  /** Our line (id or E.164). */
  line: string;
  /** The other party or parties of the conversation (any format; normalised to E.164). */
  participants: string[];
  createdAfter?: Date | string;
  createdBefore?: Date | string;
  /** 1–100; default 20. */
  maxResults?: number;
  pageToken?: string;
}

export interface CallRecord {
  id: string;
  lineId: string;
  direction: 'incoming' | 'outgoing';
  /** completed | missed | no-answer | busy | … as the provider reports it. */
  status: string;
  /** The outside parties (E.164). */
  participants: string[];
  durationSeconds: number;
  userId: string | null;
  createdAt: string;
  answeredAt: string | null;
  completedAt: string | null;
}

export interface ListCallsInput {
  line: string;
  /** The provider supports exactly one participant per call listing (1:1 calls). */
  participant: string;
  createdAfter?: Date | string;
  createdBefore?: Date | string;
  maxResults?: number;
  pageToken?: string;
}

export type AiArtifactStatus = 'absent' | 'in-progress' | 'completed' | 'failed';

export interface CallSummary {
  callId: string;
  status: AiArtifactStatus;
  summary: string[];
  nextSteps: string[];
}

export interface CallTranscript {
  callId: string;
  status: AiArtifactStatus;
  durationSeconds: number;
  createdAt: string;
  dialogue: Array<{
    /** E.164 of the speaker when the provider knows it. */
    speaker: string | null;
    /** Set when the speaker is a workspace member. */
    userId: string | null;
    text: string;
    startSeconds: number;
    endSeconds: number;
  }>;
}

export interface SmsGateway {
  listPhoneNumbers(): Promise<PhoneLine[]>;

  /** Every contact of the workspace (a small team's address book; the adapter pages through it, bounded). */
  listContacts(): Promise<Contact[]>;
  getContact(id: string): Promise<Contact>;
  createContact(input: ContactInput): Promise<Contact>;
  updateContact(id: string, patch: ContactPatch): Promise<Contact>;
  deleteContact(id: string): Promise<void>;

  /**
   * Sends one text. Never retried: a POST that timed out may still have been delivered. When the outcome is
   * unknown the error says so (`outcomeUnknown` on the adapter's error) and the caller reconciles with
   * `findSentMessage` before deciding to send again.
   */
  sendMessage(input: SendMessageInput): Promise<SmsMessage>;
  /** The outgoing message with exactly this text to this recipient since `since`, or null. */
  findSentMessage(input: FindSentMessageInput): Promise<SmsMessage | null>;
  listMessages(input: ListMessagesInput): Promise<Page<SmsMessage>>;
  getMessage(id: string): Promise<SmsMessage>;

  listCalls(input: ListCallsInput): Promise<Page<CallRecord>>;
  getCall(id: string): Promise<CallRecord>;
  /** NotFoundError when the call has no summary (plan without AI features, or not generated yet). */
  getCallSummary(callId: string): Promise<CallSummary>;
  getCallTranscript(callId: string): Promise<CallTranscript>;
}

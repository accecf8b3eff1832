import type { DmarcVerdict } from '../domain/email-auth';

/**
 * The team's shared inbox as the domain sees it: find mail, read one message as plain text, list what
 * arrived since a point in time (for the polls), reply inside a thread, send to explicit recipients, and
 * find a message we may already have sent (so a retried approval never sends twice). Gmail is the
 * production adapter.
 */
export interface MailSummary {
  id: string;
  threadId: string;
  from: string;
  to: string;
  subject: string;
  /** ISO 8601, from Gmail's internalDate (when the message reached the mailbox). */
  date: string;
  snippet: string;
  labels: string[];
  unread: boolean;
}

export interface MailMessage extends MailSummary {
  cc?: string;
  replyTo?: string;
  /** Epoch milliseconds; the polls order and deduplicate by it. */
  internalDate: number;
  /** Plain-text body (HTML converted, quoted history dropped), at most the requested limit. */
  text: string;
  truncated: boolean;
  /** RFC 5322 Message-ID and References, needed to thread a reply. */
  messageIdHeader?: string;
  references?: string;
  attachments: { filename: string; mimeType: string; size: number }[];
  /** Gmail's DMARC verdict (its own top-most Authentication-Results header), when it wrote one. */
  dmarc?: DmarcVerdict;
}

export interface MailRef {
  id: string;
  threadId: string;
}

export interface ReplyInput {
  /** The message being answered; the reply goes to its Reply-To (or From) in the same thread. */
  replyToMessageId: string;
  text: string;
  cc?: string[];
  /** Our idempotency reference (the pending action id); it becomes the reply's Message-ID. */
  clientRef: string;
}

/**
 * An email with explicit recipients: a new message, or (with `thread`) one that stays in an existing thread.
 * Unlike `sendReply`, the recipients are exactly the approved ones, never derived from the original.
 */
export interface OutgoingMail {
  to: string[];
  cc?: string[];
  /** Required for a new email; a threaded one defaults to "Re: <the thread's subject>". */
  subject?: string;
  text: string;
  /**
   * Gmail thread to stay in. In-Reply-To defaults to the thread's latest message (or the one whose
   * Message-ID is `inReplyTo`), References to that message's chain plus its Message-ID.
   */
  thread?: { threadId: string; inReplyTo?: string; references?: string };
  /** Our idempotency reference (the pending action id); it becomes the Message-ID. */
  clientRef: string;
}

export interface SentMail {
  id: string;
  threadId: string;
  messageIdHeader: string;
}

export interface Mailbox {
  search(query: string, opts?: { limit?: number }): Promise<MailSummary[]>;
  read(id: string, opts?: { bodyLimit?: number }): Promise<MailMessage>;
  /** Messages matching `query` received at or after `sinceMs` (a little earlier is allowed; never later). */
  listSince(input: { query: string; sinceMs: number; limit?: number }): Promise<MailRef[]>;
  sendReply(input: ReplyInput): Promise<SentMail>;
  /** Sends to explicit recipients, threaded when `thread` is given; `findSent` finds it by `clientRef`. */
  send(input: OutgoingMail): Promise<SentMail & { threaded: boolean }>;
  findSent(input: { clientRef: string; threadId?: string }): Promise<SentMail | undefined>;
}

import { gmail } from '@googleapis/gmail';
import type { OAuth2Client } from 'google-auth-library';
import { createMimeMessage } from 'mimetext';
import { z } from 'zod';
import { dmarcVerdict } from '../../domain/email-auth';
import { NotFoundError, ValidationError } from '../../errors';
import type {
  Mailbox,
  MailMessage,
  MailRef,
  MailSummary,
  OutgoingMail,
  ReplyInput,
  SentMail,
} from '../../ports/mailbox';
import { callGoogle, type GoogleRetryOptions, googleRetryConfig, parseGoogle } from './google-errors';
import { extractMailText, gmailHeaderSchema, gmailPartSchema, headerOf } from './mail-text';

export interface GmailMailboxOptions {
  /** A JWT client from `createGoogleAuth` (domain-wide delegation to `address`). */
  auth: OAuth2Client;
  /** The impersonated shared inbox; replies are sent from it. */
  address: string;
  /** Display name on replies (e.g. the team name). */
  fromName?: string;
  /** `GOOGLE_API_BASE` locally; unset in production. */
  rootUrl?: string;
  /** Default body limit for `read` (`EMAIL_BODY_LIMIT`). */
  bodyLimit?: number;
  retry?: GoogleRetryOptions;
}

const listSchema = z.object({
  messages: z.array(z.object({ id: z.string(), threadId: z.string() })).optional(),
  nextPageToken: z.string().optional(),
});

const messageSchema = z.object({
  id: z.string(),
  threadId: z.string(),
  labelIds: z.array(z.string()).optional(),
  snippet: z.string().optional(),
  internalDate: z.string().regex(/^\d+$/),
  payload: gmailPartSchema.optional(),
});

const metadataSchema = messageSchema.extend({
  payload: z.object({ headers: z.array(gmailHeaderSchema).optional() }).optional(),
});

const sendSchema = z.object({ id: z.string(), threadId: z.string() });

const threadSchema = z.object({ id: z.string(), messages: z.array(metadataSchema).optional() });

const SUMMARY_HEADERS = ['From', 'To', 'Subject', 'Date'];
const REPLY_HEADERS = ['From', 'Reply-To', 'To', 'Cc', 'Subject', 'Message-ID', 'References'];

/** Splits an address list on commas that are not inside quotes or angle brackets. */
function splitAddresses(list: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  let angle = false;
  for (const ch of list) {
    if (ch === '"') quoted = !quoted;
    if (ch === '<') angle = true;
    if (ch === '>') angle = false;
    if (ch === ',' && !quoted && !angle) {
      if (cur.trim()) out.push(cur.trim());
      cur = '';
    } else cur += ch;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

const addressOf = (mailbox: string) => (/<([^>]+)>/.exec(mailbox)?.[1] ?? mailbox).trim().toLowerCase();

/**
 * The reply's Message-ID is derived from the action id, so "did this reply go out?" is a search for that id
 * (`rfc822msgid:`) rather than a guess. Unconfirmed: that Gmail always keeps a client-supplied Message-ID on
 * `messages.send`; `findSent` therefore also checks the thread for our `X-Switchboard-Ref` header.
 */
export function replyMessageId(clientRef: string, address: string): string {
  const safe = clientRef.replace(/[^A-Za-z0-9._-]/g, '-');
  return `<sb.${safe}@${address.split('@')[1] ?? 'switchboard.local'}>`;
}

export function createGmailMailbox(opts: GmailMailboxOptions): Mailbox {
  const client = gmail({
    version: 'v1',
    auth: opts.auth,
    ...(opts.rootUrl ? { rootUrl: opts.rootUrl } : {}),
    retryConfig: googleRetryConfig(opts.retry),
  });
  const users = client.users;
  const bodyLimit = opts.bodyLimit ?? 4000;
  const me = opts.address.toLowerCase();

  const listPage = async (q: string, max: number, pageToken?: string) => {
    const res = await callGoogle('email search', () =>
      users.messages.list({ userId: 'me', q, maxResults: max, ...(pageToken ? { pageToken } : {}) }),
    );
    return parseGoogle(listSchema, res.data, 'messages.list');
  };

  const getMetadata = async (id: string, headers: string[]) => {
    const res = await callGoogle('email', () =>
      users.messages.get({ userId: 'me', id, format: 'metadata', metadataHeaders: headers }),
    );
    return parseGoogle(metadataSchema, res.data, 'messages.get');
  };

  const summarize = (m: z.infer<typeof metadataSchema>): MailSummary => {
    const h = m.payload?.headers;
    const labels = m.labelIds ?? [];
    return {
      id: m.id,
      threadId: m.threadId,
      from: headerOf(h, 'From') ?? '',
      to: headerOf(h, 'To') ?? '',
      subject: headerOf(h, 'Subject') ?? '',
      date: new Date(Number(m.internalDate)).toISOString(),
      snippet: m.snippet ?? '',
      labels,
      unread: labels.includes('UNREAD'),
    };
  };

  const sentFrom = (m: z.infer<typeof metadataSchema>): SentMail => ({
    id: m.id,
    threadId: m.threadId,
    messageIdHeader: headerOf(m.payload?.headers, 'Message-ID') ?? '',
  });

  const compose = (m: {
    to: string[];
    cc?: string[];
    subject: string;
    text: string;
    clientRef: string;
    messageIdHeader: string;
    inReplyTo?: string;
    references?: string;
  }) => {
    const msg = createMimeMessage();
    msg.setSender(opts.fromName ? { name: opts.fromName, addr: me } : me);
    msg.setTo(m.to);
    if (m.cc?.length) msg.setCc(m.cc);
    msg.setSubject(m.subject);
    msg.setHeader('Message-ID', m.messageIdHeader);
    msg.setHeader('X-Switchboard-Ref', m.clientRef);
    if (m.inReplyTo) {
      msg.setHeader('In-Reply-To', m.inReplyTo);
      msg.setHeader('References', m.references || m.inReplyTo);
    }
    msg.addMessage({
      contentType: 'text/plain',
      data: Buffer.from(m.text, 'utf8').toString('base64'),
      encoding: 'base64',
    });
    return msg.asEncoded();
  };

  /** The message a threaded send answers: the one named by `inReplyTo`, else the thread's latest. */
  const threadParent = async (threadId: string, inReplyTo?: string) => {
    const res = await callGoogle('email thread', () =>
      users.threads.get({
        userId: 'me',
        id: threadId,
        format: 'metadata',
        metadataHeaders: ['Message-ID', 'References', 'Subject'],
      }),
    );
    const messages = [...(parseGoogle(threadSchema, res.data, 'threads.get').messages ?? [])].sort(
      (a, b) => Number(a.internalDate) - Number(b.internalDate),
    );
    const wanted = inReplyTo?.trim().toLowerCase();
    const named = wanted
      ? messages.find((m) => headerOf(m.payload?.headers, 'Message-ID')?.trim().toLowerCase() === wanted)
      : undefined;
    const parent = named ?? messages.at(-1);
    const h = parent?.payload?.headers;
    return {
      messageId: headerOf(h, 'Message-ID'),
      references: headerOf(h, 'References'),
      subject: headerOf(h, 'Subject') ?? headerOf(messages[0]?.payload?.headers, 'Subject') ?? '',
      matched: Boolean(named),
    };
  };

  return {
    async search(query, o = {}) {
      const limit = Math.min(Math.max(o.limit ?? 10, 1), 25);
      const page = await listPage(query, limit);
      return Promise.all(
        (page.messages ?? []).map(async (ref) => summarize(await getMetadata(ref.id, SUMMARY_HEADERS))),
      );
    },

    async read(id, o = {}): Promise<MailMessage> {
      const res = await callGoogle('email', () => users.messages.get({ userId: 'me', id, format: 'full' }));
      const m = parseGoogle(messageSchema, res.data, 'messages.get');
      const h = m.payload?.headers;
      const body = extractMailText(m.payload, o.bodyLimit ?? bodyLimit);
      const cc = headerOf(h, 'Cc');
      const replyTo = headerOf(h, 'Reply-To');
      const messageIdHeader = headerOf(h, 'Message-ID');
      const references = headerOf(h, 'References');
      // Gmail lists headers in message order: its own Authentication-Results comes first.
      const dmarc = dmarcVerdict(
        (h ?? []).filter((x) => x.name.toLowerCase() === 'authentication-results').map((x) => x.value),
      );
      return {
        ...summarize(m),
        ...(cc ? { cc } : {}),
        ...(replyTo ? { replyTo } : {}),
        ...(messageIdHeader ? { messageIdHeader } : {}),
        ...(references ? { references } : {}),
        ...(dmarc ? { dmarc } : {}),
        internalDate: Number(m.internalDate),
        text: body.text,
        truncated: body.truncated,
        attachments: body.attachments,
      };
    },

    async listSince({ query, sinceMs, limit = 500 }) {
      // Gmail's `after:` takes epoch seconds; one second earlier keeps a message stamped within the same
      // second as the cursor (the caller filters by exact internalDate).
      const after = `after:${Math.max(0, Math.floor(sinceMs / 1000) - 1)}`;
      const q = query.trim() ? `(${query}) ${after}` : after;
      const refs: MailRef[] = [];
      let pageToken: string | undefined;
      do {
        const page = await listPage(q, Math.min(100, limit - refs.length), pageToken);
        refs.push(...(page.messages ?? []));
        pageToken = page.nextPageToken;
      } while (pageToken && refs.length < limit);
      return refs;
    },

    async sendReply(input: ReplyInput): Promise<SentMail> {
      if (!input.text.trim()) throw new ValidationError('A reply needs some text');
      const orig = await getMetadata(input.replyToMessageId, REPLY_HEADERS);
      const h = orig.payload?.headers;
      const from = headerOf(h, 'From') ?? '';
      // Answering our own sent message (a follow-up) goes to its recipients, not back to us.
      const to = addressOf(from) === me ? (headerOf(h, 'To') ?? '') : (headerOf(h, 'Reply-To') ?? from);
      const recipients = splitAddresses(to);
      if (!recipients.length) throw new ValidationError('The original message has no address to reply to');
      const subject = headerOf(h, 'Subject') ?? '';
      const parentId = headerOf(h, 'Message-ID');
      const references = [headerOf(h, 'References'), parentId].filter(Boolean).join(' ').trim();
      const messageIdHeader = replyMessageId(input.clientRef, me);

      const raw = compose({
        to: recipients,
        ...(input.cc?.length ? { cc: input.cc } : {}),
        subject: /^\s*re\s*:/i.test(subject) ? subject : `Re: ${subject}`,
        text: input.text,
        clientRef: input.clientRef,
        messageIdHeader,
        ...(parentId ? { inReplyTo: parentId, references } : {}),
      });
      const res = await callGoogle('email send', () =>
        users.messages.send({ userId: 'me', requestBody: { raw, threadId: orig.threadId } }),
      );
      const sent = parseGoogle(sendSchema, res.data, 'messages.send');
      return { id: sent.id, threadId: sent.threadId, messageIdHeader };
    },

    async send(input: OutgoingMail) {
      if (!input.text.trim()) throw new ValidationError('An email needs some text');
      const to = input.to.flatMap(splitAddresses);
      if (!to.length) throw new ValidationError('An email needs at least one recipient');
      const messageIdHeader = replyMessageId(input.clientRef, me);
      let subject = input.subject?.trim() ?? '';
      let threading: { inReplyTo: string; references: string } | undefined;
      if (input.thread) {
        const parent = await threadParent(input.thread.threadId, input.thread.inReplyTo);
        const inReplyTo = input.thread.inReplyTo ?? parent.messageId;
        if (inReplyTo) {
          // The chain is the parent's References plus the parent itself (RFC 5322 §3.6.4); a caller that
          // knows better (it read the message) may pass its own.
          const chain =
            input.thread.references ??
            (parent.matched || !input.thread.inReplyTo
              ? [parent.references, inReplyTo].filter(Boolean).join(' ')
              : inReplyTo);
          threading = { inReplyTo, references: chain.includes(inReplyTo) ? chain : `${chain} ${inReplyTo}` };
        }
        if (!subject) subject = /^\s*re\s*:/i.test(parent.subject) ? parent.subject : `Re: ${parent.subject}`;
      }
      if (!subject) throw new ValidationError('A new email needs a subject');
      const raw = compose({
        to,
        ...(input.cc?.length ? { cc: input.cc.flatMap(splitAddresses) } : {}),
        subject,
        text: input.text,
        clientRef: input.clientRef,
        messageIdHeader,
        ...(threading ?? {}),
      });
      const res = await callGoogle('email send', () =>
        users.messages.send({
          userId: 'me',
          requestBody: { raw, ...(input.thread ? { threadId: input.thread.threadId } : {}) },
        }),
      );
      const sent = parseGoogle(sendSchema, res.data, 'messages.send');
      return {
        id: sent.id,
        threadId: sent.threadId,
        messageIdHeader,
        // Gmail starts a new thread when the subject or the references do not match the requested one.
        threaded: input.thread ? sent.threadId === input.thread.threadId : false,
      };
    },

    async findSent({ clientRef, threadId }) {
      const messageId = replyMessageId(clientRef, me);
      const hit = (await listPage(`in:sent rfc822msgid:${messageId.slice(1, -1)}`, 1)).messages?.[0];
      if (hit) return sentFrom(await getMetadata(hit.id, ['Message-ID']));
      if (!threadId) return undefined;
      try {
        const res = await callGoogle('email thread', () =>
          users.threads.get({
            userId: 'me',
            id: threadId,
            format: 'metadata',
            metadataHeaders: ['Message-ID', 'X-Switchboard-Ref'],
          }),
        );
        const thread = parseGoogle(threadSchema, res.data, 'threads.get');
        const mine = thread.messages?.find(
          (m) => headerOf(m.payload?.headers, 'X-Switchboard-Ref') === clientRef,
        );
        return mine ? sentFrom(mine) : undefined;
      } catch (e) {
        if (e instanceof NotFoundError) return undefined;
        throw e;
      }
    },
  };
}

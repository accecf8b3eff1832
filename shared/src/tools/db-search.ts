import Fuse from 'fuse.js';
import { DateTime } from 'luxon';
import MiniSearch, { type SearchResult } from 'minisearch';
import { z } from 'zod';
import type { Conversation, Message } from '../contracts/conversations';
import { NotFoundError } from '../errors';
import type { ConversationArchive } from '../ports/conversation-archive';
import { capOutput, lazyInput, type Tool } from './tool';

/**
 * Search over the team's stored conversations (SPEC §3.4, database row). DynamoDB has no full-text search,
 * so each warm function keeps an in-memory MiniSearch index of the most recent conversations and brings it
 * up to date on every call: one gsi1 query lists the conversations by recency, and only those whose
 * `lastMessageAt` moved (or whose copy is older than `maxAgeMs`) have their latest messages re-read. The
 * limits and the way out when they bite are in docs/SEARCH.md.
 */
export interface SearchCaps {
  /** Most recent conversations indexed. */
  maxConversations: number;
  /** Latest messages read per conversation. */
  messagesPerConversation: number;
  /** A conversation copy older than this is re-read even if `lastMessageAt` did not move (tool results do not move it). */
  maxAgeMs: number;
  /** Calls within this window reuse the last refresh (several search calls in one agent turn). */
  minRefreshMs: number;
  /** Conversations read in parallel while refreshing. */
  concurrency: number;
}

export const DEFAULT_SEARCH_CAPS: SearchCaps = {
  maxConversations: 300,
  messagesPerConversation: 150,
  maxAgeMs: 5 * 60_000,
  minRefreshMs: 2_000,
  concurrency: 8,
};

/** One searchable message. SMS entries (in or out) carry the other party's phone. */
export interface IndexedMessage {
  id: string;
  conversationId: string;
  messageId: string;
  at: string;
  role: string;
  author: string;
  text: string;
  title: string;
  contact: string;
  source: Conversation['source'];
  sms?: { direction: 'in' | 'out'; phone: string; name?: string };
}

interface Cached {
  conversation: Conversation;
  loadedAt: number;
  docs: IndexedMessage[];
}

/** Tools whose executed calls are outgoing texts; `reply_to_sender` is left out (its text is also the SMS reply). */
const SENT_TEXT: Record<string, { text: string; to?: string }> = {
  send_message: { text: 'text', to: 'to' },
  send_email: { text: 'body' },
};

/** Phone numbers compare by their last 10 digits, so "+1 (415) 555-0100" and "4155550100" are one person. */
export const phoneKey = (phone: string) => phone.replace(/\D/g, '').slice(-10);

function toDocs(c: Conversation, messages: Message[]): IndexedMessage[] {
  const contactName = c.contact?.name ?? '';
  const contactPhone = c.contact?.phone;
  const base = {
    conversationId: c.id,
    title: c.title,
    contact: [contactName, contactPhone].filter(Boolean).join(' '),
    source: c.source,
  };
  const docs: IndexedMessage[] = [];
  for (const m of messages) {
    const doc = { ...base, id: `${c.id}|${m.id}`, messageId: m.id, at: m.createdAt, role: m.role };
    if (m.role === 'tool') {
      // Only an executed write is a fact worth finding (the proposal message has no `_result` twin yet).
      const spec = m.tool ? SENT_TEXT[m.tool.name] : undefined;
      const args = (m.tool?.args ?? {}) as Record<string, unknown>;
      const text = spec ? args[spec.text] : undefined;
      if (!spec || !m.id.endsWith('_result') || m.tool?.error || typeof text !== 'string') continue;
      const to = spec.to ? args[spec.to] : undefined;
      const toName = (m.tool?.result as { to?: unknown } | undefined)?.to;
      docs.push({
        ...doc,
        role: 'outbound',
        author: m.author.name,
        text,
        ...(typeof to === 'string' && m.tool?.name === 'send_message'
          ? {
              sms: {
                direction: 'out' as const,
                phone: to,
                ...(typeof toName === 'string' && toName ? { name: toName } : {}),
              },
            }
          : {}),
      });
      continue;
    }
    if (!m.text.trim()) continue;
    const isSms = m.channel === 'sms' && contactPhone !== undefined && m.role !== 'system';
    docs.push({
      ...doc,
      author: m.author.name,
      text: m.text,
      ...(isSms
        ? {
            sms: {
              direction: m.role === 'assistant' ? ('out' as const) : ('in' as const),
              phone: contactPhone,
              ...(contactName ? { name: contactName } : {}),
            },
          }
        : {}),
    });
  }
  return docs;
}

async function mapLimit<T, R>(items: T[], limit: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/**
 * The in-memory index over the archive. Refreshes are single-flight (parallel tool calls share one) and
 * incremental (only changed conversations are re-read and re-indexed).
 */
export class ConversationCorpus {
  private readonly cache = new Map<string, Cached>();
  private readonly index = new MiniSearch<IndexedMessage>({
    fields: ['text', 'title', 'contact', 'author'],
    storeFields: [],
    searchOptions: { boost: { title: 2, contact: 2 } },
  });
  private readonly docs = new Map<string, IndexedMessage>();
  private refreshing: Promise<void> | undefined;
  private refreshedAt = Number.NEGATIVE_INFINITY;
  private listedAll = true;
  readonly caps: SearchCaps;

  constructor(
    private readonly archive: ConversationArchive,
    caps: Partial<SearchCaps> = {},
    private readonly clock: () => number = Date.now,
  ) {
    this.caps = { ...DEFAULT_SEARCH_CAPS, ...caps };
  }

  async refresh(): Promise<void> {
    if (this.clock() - this.refreshedAt < this.caps.minRefreshMs) return;
    this.refreshing ??= this.load().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async load(): Promise<void> {
    const now = this.clock();
    const convs = await this.archive.recentConversations({ limit: this.caps.maxConversations });
    this.listedAll = convs.length < this.caps.maxConversations;
    const keep = new Set(convs.map((c) => c.id));
    for (const id of [...this.cache.keys()]) if (!keep.has(id)) this.drop(id);
    const stale = convs.filter((c) => {
      const hit = this.cache.get(c.id);
      return (
        !hit ||
        hit.conversation.lastMessageAt !== c.lastMessageAt ||
        now - hit.loadedAt > this.caps.maxAgeMs ||
        hit.conversation.contact?.name !== c.contact?.name
      );
    });
    const loaded = await mapLimit(stale, this.caps.concurrency, async (c) => ({
      c,
      messages: await this.archive.latestMessages(c.id, { limit: this.caps.messagesPerConversation }),
    }));
    for (const { c, messages } of loaded) {
      this.drop(c.id);
      const docs = toDocs(c, messages);
      this.cache.set(c.id, { conversation: c, loadedAt: now, docs });
      for (const d of docs) this.docs.set(d.id, d);
      this.index.addAll(docs);
    }
    this.refreshedAt = this.clock();
  }

  /** A deleted conversation leaves this index now, not at the next refresh (issue 19's admin delete). */
  forget(conversationId: string): void {
    this.drop(conversationId);
  }

  private drop(conversationId: string) {
    const hit = this.cache.get(conversationId);
    if (!hit) return;
    for (const d of hit.docs) {
      if (this.index.has(d.id)) this.index.discard(d.id);
      this.docs.delete(d.id);
    }
    this.cache.delete(conversationId);
  }

  /** Ranked message hits: all words (prefix, a little fuzz) first, any word when that finds nothing. */
  search(
    query: string,
    filter?: (d: IndexedMessage) => boolean,
  ): { hits: { doc: IndexedMessage; result: SearchResult }[]; match: 'all words' | 'any word' } {
    const run = (combineWith: 'AND' | 'OR') =>
      this.index
        .search(query, {
          combineWith,
          prefix: (term) => term.length >= 3,
          fuzzy: (term) => (term.length >= 5 ? 0.2 : false),
          ...(filter
            ? {
                filter: (r: SearchResult) => {
                  const d = this.docs.get(r.id as string);
                  return d ? filter(d) : false;
                },
              }
            : {}),
        })
        .flatMap((result) => {
          const doc = this.docs.get(result.id as string);
          return doc ? [{ doc, result }] : [];
        });
    const all = run('AND');
    return all.length ? { hits: all, match: 'all words' } : { hits: run('OR'), match: 'any word' };
  }

  conversations(): Conversation[] {
    return [...this.cache.values()].map((c) => c.conversation);
  }

  messagesOf(conversationId: string): IndexedMessage[] {
    return this.cache.get(conversationId)?.docs ?? [];
  }

  /** Every text to or from one phone number across conversations, oldest first. */
  smsTimeline(key: string): IndexedMessage[] {
    const out: IndexedMessage[] = [];
    for (const c of this.cache.values())
      for (const d of c.docs) if (d.sms && phoneKey(d.sms.phone) === key) out.push(d);
    return out.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.id.localeCompare(b.id)));
  }

  /** The people we have texts with: phone key → display name (from their conversations) and phone. */
  smsContacts(): { key: string; phone: string; name: string }[] {
    const byKey = new Map<string, { key: string; phone: string; name: string; at: string }>();
    for (const c of this.cache.values()) {
      for (const d of c.docs) {
        if (!d.sms) continue;
        const key = phoneKey(d.sms.phone);
        const prev = byKey.get(key);
        const name =
          d.sms.name ??
          (c.conversation.contact?.phone && phoneKey(c.conversation.contact.phone) === key
            ? c.conversation.contact.name
            : undefined);
        if (!prev) byKey.set(key, { key, phone: d.sms.phone, name: name ?? '', at: d.at });
        else if (name && (!prev.name || d.at > prev.at)) byKey.set(key, { ...prev, name, at: d.at });
      }
    }
    return [...byKey.values()].map(({ key, phone, name }) => ({ key, phone, name }));
  }

  /** What the last refresh covered, so answers can say how far back they looked. */
  coverage() {
    const convs = this.conversations();
    const oldest = convs.reduce<string | undefined>(
      (min, c) => (min === undefined || c.lastMessageAt < min ? c.lastMessageAt : min),
      undefined,
    );
    return {
      conversations: convs.length,
      messages: this.docs.size,
      complete: this.listedAll,
      ...(oldest && !this.listedAll ? { olderThanNotSearched: oldest } : {}),
    };
  }
}

export interface DbSearchToolDeps {
  corpus: ConversationCorpus;
  timezone: string;
}

const OUTPUT_MAX = 10_000;
/** A date or time the agent gives ("2025-03-01", "2025-03-01T17:00") is team-local unless it has an offset. */
const utcFrom = (value: string, zone: string) =>
  DateTime.fromISO(value, { zone }).toUTC().toISO() ?? new Date(value).toISOString();
const local = (iso: string, zone: string) =>
  DateTime.fromISO(iso, { zone: 'utc' }).setZone(zone).toISO({ suppressMilliseconds: true }) ?? iso;

/** A window of `radius` characters around the first matched term, so the model sees why it matched. */
export function snippet(text: string, terms: string[], radius = 80): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const lower = flat.toLowerCase();
  const at = terms
    .map((t) => lower.indexOf(t.toLowerCase()))
    .filter((i) => i >= 0)
    .sort((a, b) => a - b)[0];
  if (at === undefined || flat.length <= radius * 2) return flat.slice(0, radius * 2);
  const start = Math.max(0, at - radius);
  const end = Math.min(flat.length, at + radius);
  return `${start > 0 ? '…' : ''}${flat.slice(start, end)}${end < flat.length ? '…' : ''}`;
}

const searchConversationsInput = lazyInput(() =>
  z.object({
    query: z.string().trim().min(1).max(200).describe('Words to find (names, addresses, topics)'),
    source: z
      .enum(['sms', 'email', 'chat'])
      .optional()
      .describe('Only conversations started by this channel'),
    since: z
      .string()
      .trim()
      .regex(/^\d{4}-\d{2}-\d{2}/, 'must be an ISO date')
      .optional()
      .describe('Only messages at or after this date or time (team time zone unless it has an offset)'),
    limit: z.number().int().min(1).max(20).default(8),
  }),
);

export const searchConversations: Tool<typeof searchConversationsInput, DbSearchToolDeps> = {
  name: 'search_conversations',
  group: 'database',
  kind: 'read',
  description:
    'Full-text search over the team’s stored conversations (texts, emails, chats, sent messages), best matches first, grouped by conversation with matching snippets. Covers the most recent conversations (see `searched`).',
  input: searchConversationsInput,
  async run(deps, input) {
    await deps.corpus.refresh();
    const since = input.since ? utcFrom(input.since, deps.timezone) : undefined;
    const { hits, match } = deps.corpus.search(
      input.query,
      (d) => (!input.source || d.source === input.source) && (!since || d.at >= since),
    );
    const groups = new Map<string, { score: number; matches: typeof hits }>();
    for (const h of hits) {
      const g = groups.get(h.doc.conversationId) ?? { score: 0, matches: [] };
      g.score += h.result.score;
      g.matches.push(h);
      groups.set(h.doc.conversationId, g);
    }
    const convs = new Map(deps.corpus.conversations().map((c) => [c.id, c]));
    const ranked = [...groups.entries()].sort((a, b) => b[1].score - a[1].score).slice(0, input.limit);
    return capOutput(
      {
        query: input.query,
        match,
        searched: deps.corpus.coverage(),
        count: ranked.length,
        hits: ranked.map(([id, g]) => {
          const c = convs.get(id);
          return {
            conversationId: id,
            title: c?.title ?? '',
            source: c?.source,
            ...(c?.contact?.name || c?.contact?.phone
              ? { contact: { name: c.contact.name, phone: c.contact.phone } }
              : {}),
            lastMessageAt: c ? local(c.lastMessageAt, deps.timezone) : undefined,
            matches: g.matches
              .sort((a, b) => b.result.score - a.result.score)
              .slice(0, 3)
              .map(({ doc, result }) => ({
                messageId: doc.messageId,
                at: local(doc.at, deps.timezone),
                role: doc.role,
                author: doc.author,
                snippet: snippet(doc.text, result.terms),
              })),
          };
        }),
      },
      OUTPUT_MAX,
    );
  },
  summarize: (i) => `Search conversations for “${i.query}”`,
};

const CONTEXT = 5;

const smsOut = (d: IndexedMessage, zone: string, match = false) => ({
  at: local(d.at, zone),
  direction: d.sms?.direction ?? 'in',
  from: d.sms?.direction === 'out' ? 'team' : d.author,
  text: d.text.length > 600 ? `${d.text.slice(0, 599)}…` : d.text,
  ...(match ? { match: true } : {}),
});

type SmsContact = { key: string; phone: string; name: string };

/** A phone number matches exactly (by its last 10 digits); a name fuzzily, with near-ties kept in order. */
export function findContacts(contacts: SmsContact[], query: string): SmsContact[] {
  if (/^[+\d\s().-]+$/.test(query) && query.replace(/\D/g, '').length >= 7) {
    const key = phoneKey(query);
    return contacts.filter((c) => c.key === key);
  }
  const fuse = new Fuse(contacts, {
    keys: [
      { name: 'name', weight: 0.9 },
      { name: 'phone', weight: 0.1 },
    ],
    threshold: 0.4,
    ignoreLocation: true,
    includeScore: true,
  });
  const found = fuse.search(query);
  const best = found[0]?.score ?? 1;
  // Near-ties are reported so the agent can ask which person was meant.
  return found.filter((r) => (r.score ?? 1) - best <= 0.1).map((r) => r.item);
}

const searchSmsInput = lazyInput(() =>
  z.object({
    query: z.string().trim().min(1).max(200).describe('Keywords to find in text messages'),
    contact: z
      .string()
      .trim()
      .min(2)
      .max(100)
      .optional()
      .describe('Only texts with this contact (phone number, or a name matched fuzzily)'),
    limit: z.number().int().min(1).max(10).default(5),
  }),
);

export const searchSmsHistory: Tool<typeof searchSmsInput, DbSearchToolDeps> = {
  name: 'search_sms_history',
  group: 'database',
  kind: 'read',
  description:
    'Keyword search over text messages (SMS) to and from contacts; each hit comes with the 5 texts before and after it in that person’s thread.',
  input: searchSmsInput,
  async run(deps, input) {
    await deps.corpus.refresh();
    const only = input.contact ? findContacts(deps.corpus.smsContacts(), input.contact)[0]?.key : undefined;
    if (input.contact && !only)
      throw new NotFoundError(`No text history with a contact matching “${input.contact}”.`);
    const { hits, match } = deps.corpus.search(
      input.query,
      (d) => d.sms !== undefined && (!only || phoneKey(d.sms.phone) === only),
    );
    const names = new Map(deps.corpus.smsContacts().map((c) => [c.key, c]));
    // One window per contact thread; overlapping windows (hits close together) merge into one.
    const windows: { key: string; from: number; to: number; matched: Set<string>; score: number }[] = [];
    const timelines = new Map<string, IndexedMessage[]>();
    for (const { doc, result } of hits) {
      const key = phoneKey(doc.sms?.phone ?? '');
      const timeline = timelines.get(key) ?? deps.corpus.smsTimeline(key);
      timelines.set(key, timeline);
      const i = timeline.findIndex((d) => d.id === doc.id);
      if (i < 0) continue;
      const w = { key, from: Math.max(0, i - CONTEXT), to: Math.min(timeline.length - 1, i + CONTEXT) };
      const overlap = windows.find((x) => x.key === key && w.from <= x.to + 1 && x.from <= w.to + 1);
      if (overlap) {
        overlap.from = Math.min(overlap.from, w.from);
        overlap.to = Math.max(overlap.to, w.to);
        overlap.matched.add(doc.id);
        overlap.score = Math.max(overlap.score, result.score);
      } else windows.push({ ...w, matched: new Set([doc.id]), score: result.score });
    }
    const top = windows.sort((a, b) => b.score - a.score).slice(0, input.limit);
    return capOutput(
      {
        query: input.query,
        match,
        searched: deps.corpus.coverage(),
        count: top.length,
        hits: top.map((w) => {
          const c = names.get(w.key);
          return {
            contact: { name: c?.name || undefined, phone: c?.phone },
            messages: (timelines.get(w.key) ?? [])
              .slice(w.from, w.to + 1)
              .map((d) => smsOut(d, deps.timezone, w.matched.has(d.id))),
          };
        }),
      },
      OUTPUT_MAX,
    );
  },
  summarize: (i) => `Search texts for “${i.query}”`,
};

const contactHistoryInput = lazyInput(() =>
  z.object({
    contact: z
      .string()
      .trim()
      .min(2)
      .max(100)
      .describe('Contact name (fuzzy, e.g. "maria lopez") or phone number'),
    limit: z.number().int().min(1).max(100).default(30).describe('How many of the latest texts'),
    before: z
      .string()
      .trim()
      .regex(/^\d{4}-\d{2}-\d{2}/, 'must be an ISO date or date-time')
      .refine((s) => !Number.isNaN(Date.parse(s)), 'must be a real date')
      .optional()
      .describe('Only texts before this time (to page back; team time zone unless it has an offset)'),
  }),
);

export const getContactSmsHistory: Tool<typeof contactHistoryInput, DbSearchToolDeps> = {
  name: 'get_contact_sms_history',
  group: 'database',
  kind: 'read',
  description:
    'The text-message history with one contact, oldest first (latest `limit` texts). Finds the contact by a fuzzy name or a phone number.',
  input: contactHistoryInput,
  async run(deps, input) {
    await deps.corpus.refresh();
    const contacts = deps.corpus.smsContacts();
    const ranked = findContacts(contacts, input.contact);
    const chosen = ranked[0];
    if (!chosen) {
      const known = contacts
        .map((c) => c.name || c.phone)
        .slice(0, 15)
        .join(', ');
      throw new NotFoundError(
        `No text history with a contact matching “${input.contact}”.${known ? ` People with texts: ${known}.` : ''} Try search_contacts for their number.`,
      );
    }
    const before = input.before ? utcFrom(input.before, deps.timezone) : undefined;
    const timeline = deps.corpus.smsTimeline(chosen.key).filter((d) => !before || d.at < before);
    const shown = timeline.slice(-input.limit);
    return capOutput(
      {
        contact: { name: chosen.name || undefined, phone: chosen.phone },
        ...(ranked.length > 1
          ? { otherMatches: ranked.slice(1, 5).map((c) => ({ name: c.name || undefined, phone: c.phone })) }
          : {}),
        total: timeline.length,
        ...(timeline.length > shown.length ? { earlierTexts: timeline.length - shown.length } : {}),
        messages: shown.map((d) => smsOut(d, deps.timezone)),
      },
      OUTPUT_MAX,
    );
  },
  summarize: (i) => `Read the texts with ${i.contact}`,
};

export const dbSearchTools = [searchConversations, searchSmsHistory, getContactSmsHistory] as const;

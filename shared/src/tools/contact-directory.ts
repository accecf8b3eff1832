import Fuse from 'fuse.js';
import type { Contact, SmsGateway } from '../ports/sms-gateway';

export interface DirectoryEntry {
  id: string;
  name: string;
  company: string | null;
  role: string | null;
  phones: string[];
  emails: string[];
  /** Team members (their email is on one of the team's domains) are answered from the assistant's line. */
  internal: boolean;
}

const CACHE_MS = 5 * 60 * 1000;

/** The one address in a query like "maria@x.example" or "Maria <maria@x.example>", lower-cased; else null. */
export function emailIdentity(query: string): string | null {
  const inner = query.match(/<([^<>]+)>/)?.[1] ?? query;
  const m = inner.trim().toLowerCase();
  return /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/.test(m) ? m : null;
}

/**
 * libphonenumber (about 140 KB with its metadata) loads with the first look-up by number (issue 16). The
 * promise is kept: each `import()` resolves its specifier again, and look-ups are on every inbound turn.
 */
let phoneModule: Promise<typeof import('../domain/phone')> | undefined;
const phoneNumbers = () => {
  phoneModule ??= import('../domain/phone');
  return phoneModule;
};

/**
 * The team's address book from OpenPhone, cached for 5 minutes (SPEC §3.4) and searched fuzzily by name,
 * number or company. Numbers are compared in E.164 so "(415) 555-0111" finds "+14155550111".
 */
export function contactDirectory(sms: SmsGateway, teamDomains: string[], clock: () => number = Date.now) {
  let cache: { at: number; entries: DirectoryEntry[]; fuse: Fuse<DirectoryEntry> } | undefined;
  const domains = teamDomains.map((d) => d.toLowerCase());

  const toEntry = (c: Contact): DirectoryEntry => {
    const emails = c.emails.map((e) => e.value.toLowerCase());
    return {
      id: c.id,
      name: c.displayName,
      company: c.company,
      role: c.role,
      phones: c.phones.map((p) => p.e164 ?? p.value),
      emails,
      internal: emails.some((e) => domains.includes(e.split('@')[1] ?? '')),
    };
  };

  async function load() {
    if (cache && clock() - cache.at < CACHE_MS) return cache;
    const entries = (await sms.listContacts()).map(toEntry);
    const fuse = new Fuse(entries, {
      keys: [
        { name: 'name', weight: 3 },
        { name: 'company', weight: 1 },
        { name: 'role', weight: 0.5 },
        { name: 'emails', weight: 1 },
      ],
      threshold: 0.35,
      ignoreLocation: true,
      includeScore: true,
    });
    cache = { at: clock(), entries, fuse };
    return cache;
  }

  return {
    /**
     * A number or an email address is an identity: only a contact carrying exactly it is returned (a fuzzy
     * match would turn mallory@evil.example into Maria, issue 12 item 6). Names, companies and roles are
     * searched fuzzily, as a person looking someone up would.
     */
    async search(query: string, limit = 5): Promise<DirectoryEntry[]> {
      const { entries, fuse } = await load();
      const address = emailIdentity(query);
      if (address) return entries.filter((e) => e.emails.includes(address)).slice(0, limit);
      const phone = /\d{3}/.test(query) ? (await phoneNumbers()).toE164(query) : null;
      if (phone) return entries.filter((e) => e.phones.includes(phone)).slice(0, limit);
      return fuse.search(query, { limit }).map((r) => r.item);
    },
    /**
     * Contacts whose name or address resembles an identity that matched no one exactly: shown to a person as
     * "might be …?", never used to address or personalise anything.
     */
    async lookalikes(query: string, limit = 3): Promise<DirectoryEntry[]> {
      const { fuse } = await load();
      const address = emailIdentity(query);
      const probe = address ? (address.split('@')[0] ?? address).replace(/[._-]+/g, ' ') : query;
      return fuse.search(probe, { limit }).map((r) => r.item);
    },
    async byPhone(number: string): Promise<DirectoryEntry | undefined> {
      const e164 = (await phoneNumbers()).toE164(number) ?? number;
      return (await load()).entries.find((e) => e.phones.includes(e164));
    },
    /** The contact with this email address (case-insensitive), for one thread per person. */
    async byEmail(address: string): Promise<DirectoryEntry | undefined> {
      const a = emailIdentity(address);
      return a ? (await load()).entries.find((e) => e.emails.includes(a)) : undefined;
    },
    invalidate() {
      cache = undefined;
    },
  };
}
export type ContactDirectory = ReturnType<typeof contactDirectory>;

import { DateTime } from 'luxon';
import { ApiError } from './errors';

/** What the search needs of a stored message: labels, date and lower-cased header/body text. */
export interface SearchableMessage {
  labelIds: string[];
  internalDate: number;
  index: {
    from: string;
    to: string;
    cc: string;
    subject: string;
    text: string;
    messageId: string;
    filenames: string[];
  };
}

export type Predicate = (m: SearchableMessage) => boolean;

const CATEGORY_LABELS: Record<string, string> = {
  primary: 'CATEGORY_PERSONAL',
  personal: 'CATEGORY_PERSONAL',
  social: 'CATEGORY_SOCIAL',
  promotions: 'CATEGORY_PROMOTIONS',
  updates: 'CATEGORY_UPDATES',
  forums: 'CATEGORY_FORUMS',
};

/**
 * Dates in `after:`/`before:` are midnight Pacific time; plain integers are epoch seconds (Gmail API guide,
 * "Searching for messages"). Emulator choice, not confirmed: `after:` is inclusive and `before:` exclusive.
 */
function parseQueryDate(v: string): number {
  if (/^\d{9,}$/.test(v)) return Number(v) * 1000;
  const m = /^(\d{4})[/-](\d{1,2})[/-](\d{1,2})$/.exec(v);
  if (!m) throw new ApiError(400, `Invalid date in query: ${v}`, 'invalidArgument');
  return DateTime.fromObject(
    { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) },
    { zone: 'America/Los_Angeles' },
  ).toMillis();
}

/** `newer_than:2d` — d, m (months) and y are Gmail's units; `h` is an emulator extension (unconfirmed in Gmail). */
function parseRelative(v: string, now: number): number {
  const m = /^(\d+)([dhmy])$/i.exec(v);
  if (!m) throw new ApiError(400, `Invalid relative date in query: ${v}`, 'invalidArgument');
  const n = Number(m[1]);
  const unit = (m[2] ?? 'd').toLowerCase();
  const dt = DateTime.fromMillis(now);
  const back =
    unit === 'h' ? { hours: n } : unit === 'd' ? { days: n } : unit === 'm' ? { months: n } : { years: n };
  return dt.minus(back).toMillis();
}

function textMatch(m: SearchableMessage, word: string): boolean {
  const w = word.toLowerCase();
  const i = m.index;
  return [i.from, i.to, i.cc, i.subject, i.text].some((f) => f.includes(w));
}

function operator(key: string, values: string[], mode: 'all' | 'any', now: number): Predicate {
  const combine = (test: (m: SearchableMessage, v: string) => boolean): Predicate =>
    mode === 'all' ? (m) => values.every((v) => test(m, v)) : (m) => values.some((v) => test(m, v));
  const lower = values.map((v) => v.toLowerCase());
  const labelFor = (v: string) => v.toUpperCase().replace(/[-\s/]/g, '_');
  switch (key.toLowerCase()) {
    case 'from':
      return combine((m, v) => m.index.from.includes(v.toLowerCase()));
    case 'to':
      return combine((m, v) => m.index.to.includes(v.toLowerCase()) || m.index.cc.includes(v.toLowerCase()));
    case 'cc':
      return combine((m, v) => m.index.cc.includes(v.toLowerCase()));
    case 'subject':
      return combine((m, v) => m.index.subject.includes(v.toLowerCase()));
    case 'is':
      return combine((m, v) => {
        const w = v.toLowerCase();
        if (w === 'read') return !m.labelIds.includes('UNREAD');
        return m.labelIds.includes(w.toUpperCase());
      });
    case 'in':
      return combine((m, v) => v.toLowerCase() === 'anywhere' || m.labelIds.includes(labelFor(v)));
    case 'label':
      return combine((m, v) => m.labelIds.some((l) => l.toUpperCase() === labelFor(v)));
    case 'category':
      return combine((m, v) =>
        m.labelIds.includes(CATEGORY_LABELS[v.toLowerCase()] ?? `CATEGORY_${labelFor(v)}`),
      );
    case 'after':
    case 'newer':
      return combine((m, v) => m.internalDate >= parseQueryDate(v));
    case 'before':
    case 'older':
      return combine((m, v) => m.internalDate < parseQueryDate(v));
    case 'newer_than':
      return combine((m, v) => m.internalDate >= parseRelative(v, now));
    case 'older_than':
      return combine((m, v) => m.internalDate < parseRelative(v, now));
    case 'rfc822msgid':
      return combine((m, v) => m.index.messageId === v.replace(/^<|>$/g, '').toLowerCase());
    case 'has':
      return combine((m, v) => v.toLowerCase() === 'attachment' && m.index.filenames.length > 0);
    case 'filename':
      return combine((m, v) => m.index.filenames.some((f) => f.includes(v.toLowerCase())));
    default:
      // Gmail treats an unknown operator as plain text.
      return (m) => lower.every((v) => textMatch(m, `${key}:${v}`));
  }
}

/** A small recursive-descent parser: implicit AND, `OR`, `-` negation, `( )` groups, `{ }` any-of, quotes. */
export class GmailQuery {
  private i = 0;
  constructor(
    private readonly s: string,
    private readonly now: number,
  ) {}

  static compile(q: string, now: number): Predicate {
    const p = new GmailQuery(q, now);
    const pred = p.and();
    p.ws();
    if (p.i < p.s.length) throw new ApiError(400, `Invalid query near: ${p.s.slice(p.i)}`, 'invalidArgument');
    return pred;
  }

  private ws() {
    while (this.i < this.s.length && /\s/.test(this.s[this.i] ?? '')) this.i++;
  }

  private and(close?: string): Predicate {
    const parts: Predicate[] = [];
    for (;;) {
      this.ws();
      if (this.i >= this.s.length || (close && this.s[this.i] === close)) break;
      parts.push(this.or(close));
    }
    return (m) => parts.every((p) => p(m));
  }

  private or(close?: string): Predicate {
    const alts = [this.unary(close)];
    for (;;) {
      const save = this.i;
      this.ws();
      if (/^OR\s/.test(this.s.slice(this.i, this.i + 3))) {
        this.i += 2;
        this.ws();
        alts.push(this.unary(close));
      } else {
        this.i = save;
        break;
      }
    }
    return alts.length === 1 ? (alts[0] as Predicate) : (m) => alts.some((a) => a(m));
  }

  private unary(close?: string): Predicate {
    this.ws();
    if (this.s[this.i] === '-') {
      this.i++;
      const inner = this.unary(close);
      return (m) => !inner(m);
    }
    return this.primary(close);
  }

  private quoted(): string {
    const end = this.s.indexOf('"', this.i + 1);
    const stop = end < 0 ? this.s.length : end;
    const v = this.s.slice(this.i + 1, stop);
    this.i = stop + 1;
    return v;
  }

  private word(): string {
    const start = this.i;
    while (this.i < this.s.length && !/[\s(){}"]/.test(this.s[this.i] ?? '')) this.i++;
    return this.s.slice(start, this.i);
  }

  /** The value list of `key:(a b)` / `key:(a OR b)` / `key:{a b}`. */
  private group(open: string): { values: string[]; mode: 'all' | 'any' } {
    const closeCh = open === '(' ? ')' : '}';
    const end = this.s.indexOf(closeCh, this.i);
    const inner = this.s.slice(this.i + 1, end < 0 ? this.s.length : end);
    this.i = end < 0 ? this.s.length : end + 1;
    const tokens = inner.split(/\s+/).filter(Boolean);
    const any = open === '{' || tokens.includes('OR');
    return {
      values: tokens.filter((t) => t !== 'OR').map((t) => t.replace(/^"|"$/g, '')),
      mode: any ? 'any' : 'all',
    };
  }

  private primary(close?: string): Predicate {
    const ch = this.s[this.i];
    if (ch === '(') {
      this.i++;
      const inner = this.and(')');
      if (this.s[this.i] === ')') this.i++;
      return inner;
    }
    if (ch === '{') {
      this.i++;
      const alts: Predicate[] = [];
      for (;;) {
        this.ws();
        if (this.i >= this.s.length || this.s[this.i] === '}') break;
        alts.push(this.unary('}'));
      }
      if (this.s[this.i] === '}') this.i++;
      return (m) => alts.some((a) => a(m));
    }
    if (ch === '"') {
      const phrase = this.quoted();
      return (m) => textMatch(m, phrase);
    }
    if (ch === close) return () => true;
    const token = this.word();
    const colon = token.indexOf(':');
    if (colon <= 0) return (m) => textMatch(m, token);
    const key = token.slice(0, colon);
    let rest = token.slice(colon + 1);
    if (rest === '' && (this.s[this.i] === '(' || this.s[this.i] === '{')) {
      const g = this.group(this.s[this.i] as string);
      return operator(key, g.values, g.mode, this.now);
    }
    if (rest === '' && this.s[this.i] === '"') rest = this.quoted();
    return operator(key, [rest], 'all', this.now);
  }
}

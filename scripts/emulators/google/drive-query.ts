import type { SeedDriveFile } from '../seed/google-data';
import { ApiError } from './errors';

export type DriveFile = SeedDriveFile & { trashed: boolean; createdTime: string; size?: number };

/**
 * Drive's query language, subset: `name contains|=|!=`, `mimeType =|!=|contains`, `fullText contains`,
 * `'<id>' in parents`, `trashed =`, `modifiedTime >|<`, combined with and/or/not and parentheses.
 * `name contains` is a word-prefix match as Drive documents; `fullText contains` is an emulator
 * approximation (case-insensitive substring of name and content).
 */
export function compileDriveQuery(q: string): (f: DriveFile) => boolean {
  const tokens: string[] = [];
  const re = /\s*('(?:\\.|[^'\\])*'|\(|\)|!=|<=|>=|=|<|>|[A-Za-z_]+)/y;
  let pos = 0;
  while (pos < q.length) {
    if (/^\s*$/.test(q.slice(pos))) break;
    re.lastIndex = pos;
    const m = re.exec(q);
    if (!m) throw new ApiError(400, 'Invalid Value', 'invalid');
    tokens.push(m[1] ?? '');
    pos = re.lastIndex;
  }
  let i = 0;
  const peek = () => tokens[i];
  const next = () => {
    const t = tokens[i++];
    if (t === undefined) throw new ApiError(400, 'Invalid Value', 'invalid');
    return t;
  };
  const str = (t: string) => {
    if (!t.startsWith("'")) throw new ApiError(400, 'Invalid Value', 'invalid');
    return t.slice(1, -1).replace(/\\(.)/g, '$1');
  };
  const contentOf = (f: DriveFile) =>
    [
      f.name,
      f.text ?? '',
      ...(f.doc ?? []).map((b) => (b.kind === 'table' ? b.rows.flat().join(' ') : b.text)),
      ...(f.sheets ?? []).flatMap((s) => s.rows.flat()),
    ]
      .join('\n')
      .toLowerCase();
  const term = (): ((f: DriveFile) => boolean) => {
    const t = next();
    if (t === '(') {
      const inner = expr();
      if (next() !== ')') throw new ApiError(400, 'Invalid Value', 'invalid');
      return inner;
    }
    if (t.toLowerCase() === 'not') {
      const inner = term();
      return (f) => !inner(f);
    }
    if (t.startsWith("'")) {
      const value = str(t);
      if (next().toLowerCase() !== 'in') throw new ApiError(400, 'Invalid Value', 'invalid');
      if (next() !== 'parents') throw new ApiError(400, 'Invalid Value', 'invalid');
      return (f) => f.parents.includes(value);
    }
    const field = t;
    const op = next().toLowerCase();
    const raw = next();
    if (field === 'trashed') {
      const want = raw === 'true';
      return op === '!=' ? (f) => f.trashed !== want : (f) => f.trashed === want;
    }
    const value = str(raw);
    const v = value.toLowerCase();
    if (field === 'name') {
      if (op === 'contains')
        return (f) =>
          f.name.toLowerCase().startsWith(v) ||
          f.name
            .toLowerCase()
            .split(/\s+/)
            .some((w) => w.startsWith(v));
      if (op === '=') return (f) => f.name === value;
      if (op === '!=') return (f) => f.name !== value;
    }
    if (field === 'mimeType') {
      if (op === '=') return (f) => f.mimeType === value;
      if (op === '!=') return (f) => f.mimeType !== value;
      if (op === 'contains') return (f) => f.mimeType.includes(value);
    }
    if (field === 'fullText' && op === 'contains') {
      const phrase = v.replace(/^"|"$/g, '');
      return (f) => contentOf(f).includes(phrase);
    }
    if (field === 'modifiedTime' && ['<', '>', '<=', '>='].includes(op)) {
      const at = Date.parse(value);
      return (f) => {
        const m = Date.parse(f.modifiedTime);
        return op === '<' ? m < at : op === '>' ? m > at : op === '<=' ? m <= at : m >= at;
      };
    }
    throw new ApiError(400, 'Invalid Value', 'invalid');
  };
  const conj = (): ((f: DriveFile) => boolean) => {
    const parts = [term()];
    while (peek()?.toLowerCase() === 'and') {
      i++;
      parts.push(term());
    }
    return (f) => parts.every((p) => p(f));
  };
  const expr = (): ((f: DriveFile) => boolean) => {
    const parts = [conj()];
    while (peek()?.toLowerCase() === 'or') {
      i++;
      parts.push(conj());
    }
    return (f) => parts.some((p) => p(f));
  };
  if (tokens.length === 0) return () => true;
  const pred = expr();
  if (i < tokens.length) throw new ApiError(400, 'Invalid Value', 'invalid');
  return pred;
}

/** `fields=nextPageToken,files(id,name)` → the selected file fields; undefined = the API's defaults. */
export function selectedFileFields(fields: string | undefined, listing: boolean): string[] | 'all' {
  const defaults = ['kind', 'id', 'name', 'mimeType'];
  if (!fields) return defaults;
  if (fields === '*') return 'all';
  if (listing) {
    const m = /files\(([^)]*)\)/.exec(fields);
    if (m) return (m[1] ?? '').split(',').map((s) => s.trim());
    return /(^|,)\s*files\s*(,|$)/.test(fields) ? 'all' : defaults;
  }
  return fields.split(',').map((s) => s.trim());
}

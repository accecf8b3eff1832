/**
 * `GET /messages` of Quo's 2026-03-30 API (https://api.quo.com/messages, `Quo-Api-Version` header): the
 * workspace's messages across all conversations, newest first, filtered by `from` (equality), `to` (the exact
 * recipient set: a bare value, or a comma-separated `to[all]`), `status`, `direction`, `phoneNumberId`,
 * `userId` and a createdAt range (`createdAfter`/`createdBefore`: the stored docs do not show these names, see
 * test/contracts/vendor/quo/README.md); `limit` 1–50 (default 10) and an opaque `after` cursor answered as
 * `nextCursor`. Lets a test see what was sent without knowing any id in advance.
 */
export interface ListableMessage {
  id: string;
  from: string;
  to: string[];
  status: string;
  direction: string;
  phoneNumberId: string;
  userId: string | null;
  createdAt: string;
}

export type ListOutcome<M> =
  | { ok: true; data: M[]; nextCursor: string | null }
  | { ok: false; path: string; message: string; value: unknown };

const MAX_LIMIT = 50;

export function listMessages2026<M extends ListableMessage>(all: M[], q: URLSearchParams): ListOutcome<M> {
  const rawLimit = q.get('limit');
  const limit = rawLimit === null ? 10 : Number(rawLimit);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    return {
      ok: false,
      path: '/query/limit',
      message: `must be an integer from 1 to ${MAX_LIMIT}`,
      value: rawLimit,
    };
  }
  const toAll = q.get('to[all]');
  const to = toAll !== null ? toAll.split(',').filter(Boolean) : q.getAll('to');
  const window = { after: q.get('createdAfter'), before: q.get('createdBefore') };
  for (const [name, v] of Object.entries(window)) {
    if (v !== null && Number.isNaN(Date.parse(v))) {
      return {
        ok: false,
        path: `/query/created${name === 'after' ? 'After' : 'Before'}`,
        message: 'must be an ISO-8601 date-time',
        value: v,
      };
    }
  }
  const eq = (field: keyof ListableMessage, m: M) => {
    const want = q.get(field);
    return want === null || String(m[field]) === want;
  };
  const matching = all
    .filter(
      (m) =>
        eq('from', m) &&
        eq('status', m) &&
        eq('direction', m) &&
        eq('phoneNumberId', m) &&
        eq('userId', m) &&
        (to.length === 0 || (to.length === m.to.length && to.every((t) => m.to.includes(t)))) &&
        (!window.after || Date.parse(m.createdAt) > Date.parse(window.after)) &&
        (!window.before || Date.parse(m.createdAt) < Date.parse(window.before)),
    )
    .sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt) || b.id.localeCompare(a.id));
  let start = 0;
  const after = q.get('after');
  if (after) {
    const lastId = decodeCursor(after);
    const at = lastId === null ? -1 : matching.findIndex((m) => m.id === lastId);
    if (at < 0)
      return { ok: false, path: '/query/after', message: 'is not a cursor from this list', value: after };
    start = at + 1;
  }
  const data = matching.slice(start, start + limit);
  const last = data.at(-1);
  const more = start + limit < matching.length;
  return { ok: true, data, nextCursor: more && last ? encodeCursor(last.id) : null };
}

function encodeCursor(id: string) {
  return Buffer.from(JSON.stringify({ lastId: id })).toString('base64url');
}

function decodeCursor(cursor: string): string | null {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { lastId?: unknown };
    return typeof v.lastId === 'string' ? v.lastId : null;
  } catch {
    return null;
  }
}

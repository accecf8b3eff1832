import { type FormEvent, Fragment, useState } from 'react';
import type { SearchResponse } from '../../../../shared/src/contracts/api';
import { describeError } from '../../lib/api';
import { shortTime } from '../../lib/format';
import { chatPath, Link } from '../../lib/router';
import { useApi } from '../auth/auth-context';
import { contactName } from './source-icon';

/** Wraps each matched term in <mark> (text only: React escapes it, nothing is parsed as HTML). */
export function Highlight({ text, terms }: { text: string; terms: string[] }) {
  const words = terms.filter((t) => t.length > 1).map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  if (!words.length) return <>{text}</>;
  // Split keeps the matches at odd positions; each piece is keyed by where it starts in the text.
  const parts = text.split(new RegExp(`(${words.join('|')})`, 'gi'));
  let at = 0;
  const pieces = parts.map((p, i) => {
    const piece = { p, match: i % 2 === 1, start: at };
    at += p.length;
    return piece;
  });
  return (
    <>
      {pieces.map(({ p, match, start }) =>
        match ? <mark key={start}>{p}</mark> : <Fragment key={start}>{p}</Fragment>,
      )}
    </>
  );
}

/** Full-text search over the team's conversations, results with the matching words highlighted. */
export function InboxSearch() {
  const api = useApi();
  const [query, setQuery] = useState('');
  const [result, setResult] = useState<SearchResponse | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const q = query.trim();
    if (!q) return setResult(null);
    setBusy(true);
    setError(null);
    try {
      setResult(await api.search(q));
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <search className="inbox-search">
      <form onSubmit={(e) => void submit(e)}>
        <input
          type="search"
          id="inbox-search"
          aria-label="Search conversations"
          placeholder="Search conversations"
          value={query}
          onChange={(e) => {
            setQuery(e.target.value);
            if (!e.target.value) setResult(null);
          }}
        />
        <button type="submit" className="btn" disabled={busy}>
          Search
        </button>
      </form>
      {error && <p className="form-error">{error}</p>}
      {result && (
        <div className="search-results" aria-live="polite">
          <p className="muted">
            {result.results.length === 0
              ? `Nothing found for “${result.query}”.`
              : `${result.results.length} conversation${result.results.length === 1 ? '' : 's'} mention “${result.query}”.`}
            {!result.searched.complete && ` Searched the ${result.searched.conversations} most recent.`}
          </p>
          <ul className="conv-list">
            {result.results.map((r) => (
              <li key={r.conversation.id}>
                <Link
                  href={chatPath(r.conversation.id)}
                  className="conv-row search-hit"
                  data-search-hit={r.conversation.id}
                >
                  <span className="conv-main">
                    <span className="conv-top">
                      <span className="conv-name">{contactName(r.conversation)}</span>
                      <time dateTime={r.conversation.lastMessageAt}>
                        {shortTime(r.conversation.lastMessageAt)}
                      </time>
                    </span>
                    {r.matches.map((m) => (
                      <span key={m.messageId} className="search-snippet">
                        <Highlight text={m.snippet} terms={result.terms} />
                      </span>
                    ))}
                  </span>
                </Link>
              </li>
            ))}
          </ul>
        </div>
      )}
    </search>
  );
}

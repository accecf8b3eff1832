import { useState } from 'react';
import type { DeletionPreview } from '../../../../shared/src/contracts/deletion';
import { Shell } from '../../components/shell';
import { Banner, EmptyState, ErrorState, Loading } from '../../components/states';
import { describeError } from '../../lib/api';
import { fullTime } from '../../lib/format';
import { chatPath, Link } from '../../lib/router';
import { useResource } from '../../lib/use-resource';
import { useApi, useMe } from '../auth/auth-context';
import './delete-conversation.css';

/** What the person types: a word a thumb can type, unlike a conversation id. */
const WORD = 'DELETE';

const n = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

type Tombstone = Awaited<ReturnType<ReturnType<typeof useApi>['deleteConversation']>>['tombstone'];

/**
 * The admin delete's confirm screen (issue 19, `/admin/delete?id=`): what goes, what stays (the tombstone, and
 * the memory repository's history, which is team memory and not rewritten), and the conversation's id typed
 * again before anything is erased — a privacy request is not undone.
 */
export function DeleteConversationScreen({ id }: { id?: string }) {
  const me = useMe();
  const [done, setDone] = useState<Tombstone>();
  if (!me.isAdmin || !id)
    return (
      <Shell title="Delete conversation" back="/">
        <EmptyState title={id ? 'Admins only' : 'No conversation chosen'}>
          {id
            ? 'Only an admin can delete a conversation.'
            : 'Open a conversation and choose Delete from More.'}
        </EmptyState>
      </Shell>
    );
  return (
    <Shell title="Delete conversation" back={done ? '/' : chatPath(id)}>
      {done ? <Deleted tombstone={done} /> : <Confirm id={id} onDeleted={setDone} />}
    </Shell>
  );
}

function Confirm({ id, onDeleted }: { id: string; onDeleted: (t: Tombstone) => void }) {
  const api = useApi();
  const preview = useResource(() => api.deletionPreview(id), `deletion-${id}`);
  if (preview.loading && !preview.data) return <Loading label="Counting what it holds…" />;
  if (!preview.data)
    return <ErrorState message={describeError(preview.error)} onRetry={() => void preview.reload()} />;
  return <ConfirmForm preview={preview.data} onDeleted={onDeleted} />;
}

function ConfirmForm({
  preview,
  onDeleted,
}: {
  preview: DeletionPreview;
  onDeleted: (t: Tombstone) => void;
}) {
  const api = useApi();
  const [typed, setTyped] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const id = preview.conversationId;
  const submit = async () => {
    setBusy(true);
    setError(undefined);
    try {
      // The API takes the id itself as the confirmation (a stray request names no id twice).
      onDeleted((await api.deleteConversation(id, id)).tombstone);
    } catch (e) {
      setError(describeError(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="card delete-confirm" aria-labelledby="delete-title">
      <h2 id="delete-title" className="delete-title">
        Delete “{preview.title}” for good?
      </h2>
      <p>Started {fullTime(preview.createdAt)}. Deleting erases everything it holds:</p>
      <WhatGoes preview={preview} />
      <p className="delete-stays">
        <strong>What stays:</strong> a record that you deleted it, and when — no words, names or numbers. The
        memory repository's history is team memory and is <strong>not rewritten</strong>: notes the assistant
        wrote from this conversation stay in it; remove them in Memory if they must go.
      </p>
      <p className="muted small">Export it first (More › Export) if anyone may need it.</p>
      <label className="delete-type" htmlFor="delete-confirm-word">
        Type <strong>{WORD}</strong> to confirm
      </label>
      <input
        id="delete-confirm-word"
        autoComplete="off"
        autoCapitalize="characters"
        spellCheck={false}
        value={typed}
        onChange={(e) => setTyped(e.target.value)}
      />
      {error && <Banner kind="error">{error}</Banner>}
      <div className="delete-actions">
        <Link href={chatPath(id)} className="btn">
          Keep it
        </Link>
        <button
          type="button"
          className="btn btn-danger"
          disabled={busy || typed.trim().toUpperCase() !== WORD}
          onClick={() => void submit()}
        >
          {busy ? 'Deleting…' : 'Delete for good'}
        </button>
      </div>
    </section>
  );
}

/** Everything the conversation holds, counted as the export counts it. */
function WhatGoes({ preview }: { preview: DeletionPreview }) {
  const c = preview.counts;
  const waiting = preview.pendingCards
    ? ` (${preview.pendingCards} still waiting: nothing will be sent)`
    : '';
  return (
    <ul className="delete-list">
      <li>
        {n(c.messages, 'message')}, with {n(c.media, 'photo or file', 'photos or files')}
      </li>
      <li>
        {n(c.cards, 'card')}
        {waiting}
      </li>
      <li>
        {n(c.runs, 'assistant run')} with their steps, and {n(c.audit, 'audit entry', 'audit entries')}
      </li>
      <li>{n(c.facts, 'fact')} the policy keeps about it, and its search entries</li>
    </ul>
  );
}

function Deleted({ tombstone }: { tombstone: Tombstone }) {
  const erased = Object.entries(tombstone.erased ?? {})
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${n} ${k}`)
    .join(', ');
  return (
    <section className="card delete-confirm" role="status">
      <h2 className="delete-title">Deleted</h2>
      <p>
        {tombstone.conversationId} was deleted by {tombstone.deletedBy} at {fullTime(tombstone.deletedAt)}.
      </p>
      <p className="muted small">Erased: {erased || 'nothing was left'}.</p>
      <Link href="/" className="btn">
        Back to the inbox
      </Link>
    </section>
  );
}

/** The tombstones on the admin screen: who deleted which conversation, and when. */
export function RecentDeletions() {
  const api = useApi();
  const res = useResource(() => api.deletions(), 'deletions');
  if (!res.data || res.data.tombstones.length === 0) return null;
  return (
    <section className="card admin-card" aria-labelledby="deletions-title">
      <h2 id="deletions-title" className="field-label">
        Deleted conversations
      </h2>
      <ul className="delete-list">
        {res.data.tombstones.slice(0, 10).map((t) => (
          <li key={t.conversationId}>
            <code>{t.conversationId}</code> ({t.source}) by {t.deletedBy}, {fullTime(t.deletedAt)}
            {t.state === 'deleting' ? ' — not finished: delete it again to finish' : ''}
          </li>
        ))}
      </ul>
    </section>
  );
}

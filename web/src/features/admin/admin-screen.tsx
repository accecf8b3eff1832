import { useEffect, useState } from 'react';
import { Shell } from '../../components/shell';
import { Banner, EmptyState, ErrorState, Loading } from '../../components/states';
import { describeError } from '../../lib/api';
import { fullTime } from '../../lib/format';
import { Link } from '../../lib/router';
import { useResource } from '../../lib/use-resource';
import { useApi, useMe } from '../auth/auth-context';
import { RecentDeletions } from './delete-conversation';
import { VendorStatus } from './vendor-status';

/** The system instructions the assistant works by, editable by admins, with every earlier version kept. */
export function AdminScreen() {
  const me = useMe();
  if (!me.isAdmin) {
    return (
      <Shell title="Admin">
        <EmptyState title="Admins only">
          Only admins can change the assistant's instructions. Ask an admin if something should change.
        </EmptyState>
      </Shell>
    );
  }
  return <Instructions />;
}

type InstructionsData = Awaited<ReturnType<ReturnType<typeof useApi>['instructions']>>;
type Version = InstructionsData['history'][number];

function Instructions() {
  const api = useApi();
  const res = useResource(() => api.instructions(), 'instructions');
  const [text, setText] = useState('');
  useEffect(() => {
    if (res.data) setText(res.data.current?.text ?? '');
  }, [res.data]);

  return (
    <Shell title="Admin" subtitle="System instructions">
      <VendorStatus />
      <section className="card admin-card">
        <p className="field-label">Policy</p>
        <p className="muted small">
          The rules that decide what the assistant may do alone and what needs a person: edit, try and save
          them.
        </p>
        <Link href="/admin/policy" className="btn">
          Edit the policy
        </Link>
      </section>
      {res.loading && !res.data && <Loading label="Loading instructions…" />}
      {res.error !== undefined && !res.data && (
        <ErrorState message={describeError(res.error)} onRetry={() => void res.reload()} />
      )}
      {res.data && (
        <InstructionsEditor current={res.data.current} text={text} onText={setText} reload={res.reload} />
      )}
      {res.data && <InstructionsHistory history={res.data.history} onRestore={setText} />}
      <RecentDeletions />
    </Shell>
  );
}

function InstructionsEditor(props: {
  current: InstructionsData['current'];
  text: string;
  onText: (text: string) => void;
  reload: () => Promise<unknown>;
}) {
  const api = useApi();
  const { current, text } = props;
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const save = async () => {
    setSaving(true);
    setError(null);
    setSaved(false);
    try {
      await api.saveInstructions(text);
      await props.reload();
      setSaved(true);
    } catch (e) {
      setError(describeError(e));
    } finally {
      setSaving(false);
    }
  };
  const dirty = text.trim() !== (current?.text ?? '').trim();
  return (
    <section className="card admin-card">
      <label htmlFor="instructions" className="field-label">
        Instructions the assistant follows in every run
      </label>
      <p className="muted small">
        {current
          ? `Last changed by ${current.updatedBy}, ${fullTime(current.updatedAt)}.`
          : 'No instructions yet: the assistant uses its built-in defaults.'}
      </p>
      <textarea
        id="instructions"
        className="instructions"
        value={text}
        placeholder="e.g. Sign texts as “Oak Properties”. Never promise a repair time before the vendor confirms."
        onChange={(e) => {
          props.onText(e.target.value);
          setSaved(false);
        }}
      />
      {error && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
      {saved && <Banner kind="info">Saved. The next run uses these instructions.</Banner>}
      <div className="approval-buttons">
        <button
          type="button"
          className="btn btn-ghost"
          disabled={!dirty || saving}
          onClick={() => props.onText(current?.text ?? '')}
        >
          Discard
        </button>
        <button
          type="button"
          className="btn btn-primary"
          disabled={!dirty || saving || !text.trim()}
          onClick={() => void save()}
        >
          {saving ? 'Saving…' : 'Save'}
        </button>
      </div>
    </section>
  );
}

/** Every earlier version, newest first; any but the current one can be put back into the editor. */
function InstructionsHistory({
  history,
  onRestore,
}: {
  history: Version[];
  onRestore: (text: string) => void;
}) {
  return (
    <section className="history">
      <h2>History</h2>
      {history.length === 0 ? (
        <p className="muted">No earlier versions.</p>
      ) : (
        <ol>
          {history.map((v, i) => (
            <li key={v.updatedAt}>
              <details>
                <summary>
                  {i === 0 ? 'Current · ' : ''}
                  {v.updatedBy} · {fullTime(v.updatedAt)}
                </summary>
                <pre>{v.text}</pre>
                {i > 0 && (
                  <button type="button" className="link-btn" onClick={() => onRestore(v.text)}>
                    Restore this version into the editor
                  </button>
                )}
              </details>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

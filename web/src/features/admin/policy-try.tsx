import { useState } from 'react';
import type { TryPolicyResponse } from '../../../../shared/src/contracts/workspace-files';
import { describeError } from '../../lib/api';
import { useApi } from '../auth/auth-context';

type Mode = 'query' | 'call';

const DECISION: Record<string, string> = {
  allow: 'Allowed without a person',
  require_approval: 'Needs a person to approve',
  deny: 'Refused',
};

/**
 * "Try it": asks the edited, unsaved rules a question (`qualified_lead(X)`) or whether a call may go ahead
 * ("may I send_message to +1…?"), with optional facts to assume. Shows the decision and its derivation, or
 * what is missing. Nothing is saved and no vendor is called.
 */
export function PolicyTry({ path, text }: { path: string; text: string }) {
  const api = useApi();
  const [mode, setMode] = useState<Mode>('call');
  const [query, setQuery] = useState('known_contact(X)');
  const [tool, setTool] = useState('send_message');
  const [args, setArgs] = useState('{ "to": "+14155550111", "text": "Hi Maria" }');
  const [facts, setFacts] = useState('contact("+14155550111", "ct_maria", false)');
  const [result, setResult] = useState<TryPolicyResponse>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const run = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const factList = facts
        .split('\n')
        .map((f) => f.trim())
        .filter(Boolean);
      const parsedArgs = mode === 'call' ? parseArgs(args) : undefined;
      const body =
        mode === 'query'
          ? { path, text, query, facts: factList }
          : { path, text, call: { tool, args: parsedArgs ?? {} }, facts: factList };
      setResult(await api.tryPolicy(body));
    } catch (e) {
      setResult(undefined);
      setError(describeError(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="policy-try" aria-labelledby="policy-try-title">
      <h2 id="policy-try-title">Try it on this edit (not saved)</h2>
      <div className="segmented" role="radiogroup" aria-label="What to try">
        {(['call', 'query'] as const).map((m) => (
          <label key={m} className={mode === m ? 'on' : ''}>
            <input type="radio" name="try-mode" checked={mode === m} onChange={() => setMode(m)} />
            {m === 'call' ? 'May the assistant…?' : 'Ask the policy'}
          </label>
        ))}
      </div>
      {mode === 'query' ? (
        <Field id="try-query" label="Question (capitalised names are answers to find)">
          <input id="try-query" value={query} onChange={(e) => setQuery(e.target.value)} />
        </Field>
      ) : (
        <>
          <Field id="try-tool" label="Tool">
            <input id="try-tool" value={tool} list="try-tools" onChange={(e) => setTool(e.target.value)} />
          </Field>
          <datalist id="try-tools">
            {['send_message', 'send_email', 'create_contact', 'create_calendar_event', 'escalate'].map(
              (t) => (
                <option key={t} value={t} />
              ),
            )}
          </datalist>
          <Field id="try-args" label="Arguments (JSON)">
            <textarea id="try-args" rows={2} value={args} onChange={(e) => setArgs(e.target.value)} />
          </Field>
        </>
      )}
      <Field id="try-facts" label="Facts to assume, one per line (optional)">
        <textarea id="try-facts" rows={2} value={facts} onChange={(e) => setFacts(e.target.value)} />
      </Field>
      <button type="button" className="btn" disabled={busy} onClick={() => void run()}>
        {busy ? 'Checking…' : 'Try it'}
      </button>
      {error && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
      {result && <TryResult result={result} />}
    </section>
  );
}

function parseArgs(text: string): Record<string, unknown> {
  try {
    const v = JSON.parse(text || '{}');
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // fall through to the sentence below
  }
  throw new Error('Arguments must be a JSON object, e.g. { "to": "+14155550111", "text": "Hi" }.');
}

function Field({ id, label, children }: { id: string; label: string; children: React.ReactNode }) {
  return (
    <div className="policy-try-field">
      <label htmlFor={id} className="field-label">
        {label}
      </label>
      {children}
    </div>
  );
}

function TryResult({ result }: { result: TryPolicyResponse }) {
  if (result.issues.length)
    return <p className="error-text">Fix the problems above first: the edited rules do not load.</p>;
  const o = result.outcome;
  if (!o) return null;
  const headline = o.type === 'call' ? DECISION[o.decision] : o.summary;
  const tone = o.type === 'call' ? o.decision : o.status === 'proved' ? 'allow' : 'deny';
  const why = o.type === 'call' ? o.why : o.answers.flatMap((a) => a.why);
  const missing = [
    ...o.missing.tools,
    ...o.missing.questions,
    ...(o.type === 'query' ? o.missing.focus : []),
  ];
  return (
    <div className={`policy-try-result tone-${tone}`} role="status">
      <p className="policy-try-headline">{headline}</p>
      {o.type === 'call' && <p>{o.reason}</p>}
      {o.type === 'query' &&
        o.answers.map((a) => (
          <p key={JSON.stringify(a.bindings)}>
            <code>{JSON.stringify(a.bindings)}</code>
          </p>
        ))}
      {why.length > 0 && (
        <>
          <p className="field-label">Why</p>
          <ul className="policy-try-why">
            {why.map((w) => (
              <li key={w}>{w}</li>
            ))}
          </ul>
        </>
      )}
      {missing.length > 0 && (
        <>
          <p className="field-label">Missing (add it as a fact to assume)</p>
          <ul className="policy-try-why">
            {missing.map((m) => (
              <li key={m}>{m}</li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

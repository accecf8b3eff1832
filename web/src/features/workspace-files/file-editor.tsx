import { type ReactNode, useEffect, useRef, useState } from 'react';
import type {
  RulebaseIssueBody,
  WorkspaceFileResponse,
} from '../../../../shared/src/contracts/workspace-files';
import { Banner } from '../../components/states';
import { offsetOf, positionOf } from './text-position';

export type EditorIssue = Pick<RulebaseIssueBody, 'line' | 'column' | 'message'>;

export interface SaveOutcome {
  issues?: EditorIssue[];
  conflict?: string;
  error?: string;
}

type EditorProps = {
  file: WorkspaceFileResponse;
  validate?: (text: string) => Promise<EditorIssue[]>;
  onSave: (text: string, message: string) => Promise<SaveOutcome | undefined>;
  aside?: (text: string) => ReactNode;
};

/**
 * One file: read-only when this person may not change it, otherwise an editor whose problems are listed
 * under the text by line and column (tap one to jump there), checked while typing when `validate` is given.
 */
export function FileEditor({ file, validate, onSave, aside }: EditorProps) {
  const draft = useFileDraft(file, validate, onSave);
  const { text, issues, outcome } = draft;
  const [cursor, setCursor] = useState({ line: 1, column: 1 });
  const area = useRef<HTMLTextAreaElement>(null);

  const jump = (i: EditorIssue) => {
    const el = area.current;
    if (!el) return;
    const at = offsetOf(text, i.line, i.column);
    el.focus();
    el.setSelectionRange(at, Math.min(text.length, at + 1));
    setCursor({ line: i.line, column: i.column });
  };

  const id = `wsf-text-${file.path.replace(/[^a-z0-9]/gi, '-')}`;
  return (
    <section className="card wsf-editor" aria-label={file.path}>
      <header className="wsf-editor-head">
        <code className="wsf-path">{file.path}</code>
        {!file.canWrite && <span className="wsf-readonly">read only</span>}
      </header>
      <label htmlFor={id} className="field-label">
        {file.canWrite ? 'Edit the file' : 'Contents'}
      </label>
      <textarea
        id={id}
        ref={area}
        className={`wsf-text${issues.length ? ' has-issues' : ''}`}
        value={text}
        readOnly={!file.canWrite}
        spellCheck={false}
        aria-invalid={issues.length > 0}
        aria-describedby={issues.length ? `${id}-issues` : undefined}
        onChange={(e) => draft.edit(e.target.value)}
        onSelect={(e) => setCursor(positionOf(text, e.currentTarget.selectionStart))}
      />
      <p className="muted small wsf-cursor" aria-live="off">
        Line {cursor.line}, column {cursor.column}
      </p>
      <IssueList id={`${id}-issues`} issues={issues} onJump={jump} />
      {file.canWrite && (
        <SaveBar
          dirty={draft.dirty}
          saving={draft.saving}
          blocked={issues.length > 0}
          message={draft.message}
          onMessage={draft.setMessage}
          onDiscard={() => draft.setText(file.text)}
          onSave={() => void draft.save()}
        />
      )}
      {outcome === 'saved' && <Banner kind="info">Saved and committed with your name.</Banner>}
      {outcome && outcome !== 'saved' && outcome.conflict && <Banner kind="warn">{outcome.conflict}</Banner>}
      {outcome && outcome !== 'saved' && outcome.error && <Banner kind="error">{outcome.error}</Banner>}
      {aside?.(text)}
    </section>
  );
}

/** The text being edited, its problems and the save: a new version resets it, typing re-checks it. */
function useFileDraft(
  file: WorkspaceFileResponse,
  validate: EditorProps['validate'],
  onSave: EditorProps['onSave'],
) {
  const [text, setText] = useState(file.text);
  const [message, setMessage] = useState('');
  const [issues, setIssues] = useState<EditorIssue[]>([]);
  const [outcome, setOutcome] = useState<SaveOutcome | 'saved' | undefined>();
  const [saving, setSaving] = useState(false);
  const dirty = text !== file.text;

  // A new version (after a save) replaces the text; a refetch of the same version never wipes an edit.
  // biome-ignore lint/correctness/useExhaustiveDependencies: keyed on the version on purpose
  useEffect(() => {
    setText(file.text);
    setIssues([]);
  }, [file.version, file.path]);

  // Checked a moment after typing stops, so errors show before Save without a request per key.
  useEffect(() => {
    if (!validate || !dirty) return;
    let live = true;
    const t = window.setTimeout(() => {
      validate(text).then(
        (found) => live && setIssues(found),
        () => undefined,
      );
    }, 500);
    return () => {
      live = false;
      window.clearTimeout(t);
    };
  }, [text, validate, dirty]);

  const save = async () => {
    setSaving(true);
    const r = await onSave(text, message.trim());
    setSaving(false);
    setOutcome(r ?? 'saved');
    if (r?.issues) setIssues(r.issues);
    if (!r) setMessage('');
  };
  const edit = (next: string) => {
    setText(next);
    setOutcome(undefined);
  };
  return { text, setText, edit, message, setMessage, issues, outcome, saving, dirty, save };
}

function IssueList({
  id,
  issues,
  onJump,
}: {
  id: string;
  issues: EditorIssue[];
  onJump: (i: EditorIssue) => void;
}) {
  if (issues.length === 0) return null;
  return (
    <div id={id} className="wsf-issues" role="alert">
      <p className="wsf-issues-title">
        {issues.length === 1 ? '1 problem' : `${issues.length} problems`} — fix before saving
      </p>
      <ul>
        {issues.map((i) => (
          <li key={`${i.line}:${i.column}:${i.message}`}>
            <button type="button" className="link-btn wsf-issue" onClick={() => onJump(i)}>
              <strong>
                Line {i.line}, column {i.column}
              </strong>
              : {i.message}
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}

function SaveBar(p: {
  dirty: boolean;
  saving: boolean;
  blocked: boolean;
  message: string;
  onMessage: (m: string) => void;
  onDiscard: () => void;
  onSave: () => void;
}) {
  return (
    <div className="wsf-savebar">
      <label className="field-label" htmlFor="wsf-message">
        What changed (optional, kept in the history)
      </label>
      <input
        id="wsf-message"
        value={p.message}
        maxLength={200}
        placeholder="e.g. allow texts to vendors until 9pm"
        onChange={(e) => p.onMessage(e.target.value)}
      />
      <div className="approval-buttons">
        <button type="button" className="btn btn-ghost" disabled={!p.dirty || p.saving} onClick={p.onDiscard}>
          Discard
        </button>
        <button
          type="button"
          className="btn btn-primary"
          disabled={!p.dirty || p.saving || p.blocked}
          onClick={p.onSave}
        >
          {p.saving ? 'Saving…' : 'Save'}
        </button>
      </div>
    </div>
  );
}

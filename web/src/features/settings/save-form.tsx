import type { ReactNode } from 'react';
import { Banner } from '../../components/states';

export type SaveStatus = { kind: 'saved' | 'error'; text: string } | undefined;

/**
 * A Settings form that is saved as a whole: its fields, what the last save said (saved, or why not) and the
 * one submit button, which reads "Saving…" while the request runs.
 */
export function SaveForm(props: {
  className: string;
  label?: string;
  status: SaveStatus;
  saving: boolean;
  submit: string;
  onSave: () => Promise<void>;
  children: ReactNode;
}) {
  const { status } = props;
  return (
    <form
      className={props.className}
      {...(props.label ? { 'aria-label': props.label } : {})}
      onSubmit={(e) => {
        e.preventDefault();
        void props.onSave();
      }}
    >
      {props.children}
      {status?.kind === 'saved' && <Banner kind="info">{status.text}</Banner>}
      {status?.kind === 'error' && (
        <p className="error-text" role="alert">
          {status.text}
        </p>
      )}
      <button type="submit" className="btn btn-primary" disabled={props.saving}>
        {props.saving ? 'Saving…' : props.submit}
      </button>
    </form>
  );
}

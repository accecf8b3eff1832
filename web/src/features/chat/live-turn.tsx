import type { ChatUIMessage } from '../../../../shared/src/contracts/api';
import type { PendingAction } from '../../../../shared/src/contracts/conversations';
import { Markdown } from '../../components/markdown';
import { ApprovalCard } from '../approvals/approval-card';
import { ToolActivity } from './timeline';

type Contact = { name?: string; phone?: string; email?: string } | undefined;

const PROGRESS: Record<string, string> = {
  queued: 'Sent. Waiting for the assistant…',
  running: 'Switchboard is working…',
  timeout: 'Still working on it — this conversation updates by itself.',
  failed: 'The assistant could not finish this turn.',
};

/**
 * The turn being streamed right now (useChat's messages), shown under the stored conversation until the
 * stream ends and the stored records replace it. A card the stored conversation already shows (a reload
 * can land while the stream is still open) is not shown twice: the stored one is the one to act on.
 */
export function LiveTurn({
  messages,
  stored,
  contact,
  onDecided,
}: {
  messages: ChatUIMessage[];
  stored: PendingAction[] | undefined;
  contact: Contact;
  onDecided: (a?: PendingAction) => void;
}) {
  const shown = new Set(stored?.map((a) => a.id));
  return (
    <ol className="timeline live" aria-live="polite">
      {messages.map((m) =>
        m.role === 'user' ? (
          <li key={m.id}>
            <div className="bubble-wrap right">
              <div className="bubble role-user">
                <p className="bubble-text">
                  {m.parts.map((p) => (p.type === 'text' ? p.text : '')).join('')}
                </p>
              </div>
              <span className="bubble-meta">You · sending</span>
            </div>
          </li>
        ) : (
          m.parts.map((p, i) => {
            if (p.type === 'data-approval' && shown.has(p.data.id)) return null;
            // Parts have no ids of their own; a streamed message only ever grows at its end.
            const key = `${m.id}-${i}`;
            return <LivePart key={key} part={p} contact={contact} onDecided={onDecided} />;
          })
        ),
      )}
    </ol>
  );
}

/** One part of the assistant's streamed message: text, a tool call, a card, or the run's progress. */
function LivePart({
  part: p,
  contact,
  onDecided,
}: {
  part: ChatUIMessage['parts'][number];
  contact: Contact;
  onDecided: (a?: PendingAction) => void;
}) {
  if (p.type === 'text') {
    return (
      <li>
        <div className="bubble-wrap left">
          <div className="bubble role-assistant">
            <Markdown text={p.text} />
          </div>
          <span className="bubble-meta">Switchboard</span>
        </div>
      </li>
    );
  }
  if (p.type === 'dynamic-tool') {
    const tool = {
      name: p.toolName,
      args: p.input,
      ...(p.state === 'output-available' ? { result: p.output } : {}),
      ...(p.state === 'output-error' ? { error: p.errorText } : {}),
    };
    return (
      <li>
        <ToolActivity messages={[{ id: p.toolCallId, text: p.toolName, tool }]} />
      </li>
    );
  }
  if (p.type === 'data-approval') {
    return (
      <li>
        <ApprovalCard action={p.data} contact={contact} onDecided={onDecided} />
      </li>
    );
  }
  if (p.type === 'data-run' && PROGRESS[p.data.status]) {
    return (
      <li className="progress-note" role="status">
        {(p.data.status === 'queued' || p.data.status === 'running') && (
          <span className="typing" aria-hidden="true">
            <i />
            <i />
            <i />
          </span>
        )}
        {PROGRESS[p.data.status]}
      </li>
    );
  }
  return null;
}

import type { ConversationDetail } from '../../../../shared/src/contracts/api';
import type { Message, PendingAction } from '../../../../shared/src/contracts/conversations';
import { PHOTO_NOTE } from '../../../../shared/src/contracts/media';
import { ToolIcon } from '../../components/icons';
import { Markdown } from '../../components/markdown';
import { clockTime, formatPhone, humanize } from '../../lib/format';
import { ApprovalCard } from '../approvals/approval-card';
import { MediaThumbs } from '../media/media-thumbs';
import { ResearchCard } from '../research/research-card';
import { CallEntryView } from './call-entry';

type Item =
  | { kind: 'message'; at: string; message: Message }
  | { kind: 'tools'; at: string; messages: Message[] }
  | { kind: 'action'; at: string; action: PendingAction };

/** Messages and cards in the order they happened; consecutive tool steps fold into one collapsed group. */
export function buildTimeline(detail: Pick<ConversationDetail, 'messages' | 'actions'>): Item[] {
  const items: Item[] = [
    ...detail.messages.map((m) => ({ kind: 'message' as const, at: m.createdAt, message: m })),
    ...detail.actions.map((a) => ({ kind: 'action' as const, at: a.createdAt, action: a })),
  ].sort((a, b) => a.at.localeCompare(b.at));
  const out: Item[] = [];
  for (const item of items) {
    const last = out.at(-1);
    if (item.kind === 'message' && item.message.role === 'tool') {
      if (last?.kind === 'tools') last.messages.push(item.message);
      else out.push({ kind: 'tools', at: item.at, messages: [item.message] });
    } else {
      out.push(item);
    }
  }
  return out;
}

export function Timeline({
  detail,
  meId,
  onDecided,
}: {
  detail: ConversationDetail;
  meId: string;
  onDecided: (a?: PendingAction) => void;
}) {
  const contact = detail.conversation.contact;
  const items = buildTimeline(detail);
  return (
    <ol className="timeline">
      {items.map((item, index) => {
        if (item.kind === 'tools') {
          return (
            <li key={`t-${item.messages[0]?.id}`}>
              <ToolActivity messages={item.messages} />
            </li>
          );
        }
        if (item.kind === 'action') {
          return (
            <li key={item.action.id} id={`card-${item.action.id}`}>
              <ApprovalCard
                action={item.action}
                contact={contact}
                onDecided={onDecided}
                media={answeredMessage(items, index)?.media}
                answers={answeredMessage(items, index)}
              />
            </li>
          );
        }
        return (
          <li key={item.message.id}>
            <Bubble message={item.message} mine={item.message.author.id === meId} />
          </li>
        );
      })}
    </ol>
  );
}

export function Bubble({ message: m, mine }: { message: Message; mine: boolean }) {
  if (m.call) return <CallEntryView message={m} />;
  if (m.research && m.id === `m_research_${m.research.taskId}`)
    return <ResearchCard taskId={m.research.taskId} />;
  if (m.role === 'system') return <p className="system-note">{m.text}</p>;
  const side = m.role === 'user' ? 'right' : 'left';
  const channel = m.channel === 'sms' ? ' · text' : m.channel === 'email' ? ' · email' : '';
  const who = m.role === 'assistant' ? 'Switchboard' : mine ? 'You' : formatPhone(m.author.name);
  return (
    <div className={`bubble-wrap ${side}`}>
      <div className={`bubble role-${m.role}`}>
        {m.role === 'assistant' ? (
          <Markdown text={m.text} />
        ) : (
          !(m.media?.length && m.text === PHOTO_NOTE) && <p className="bubble-text">{m.text}</p>
        )}
        {m.media?.length ? <MediaThumbs media={m.media} /> : null}
      </div>
      <span className="bubble-meta">
        {who}
        {channel} · <time dateTime={m.createdAt}>{clockTime(m.createdAt)}</time>
      </span>
    </div>
  );
}

/** The last inbound message before a card: the card shows what it answers (its photos, or the email). */
function answeredMessage(items: Item[], index: number) {
  for (let i = index - 1; i >= 0; i--) {
    const it = items[i];
    if (it?.kind === 'message' && it.message.role === 'inbound') return it.message;
  }
  return undefined;
}

/** What the assistant looked up on the way, folded by default: useful to check, noise to read every time. */
export function ToolActivity({ messages }: { messages: Array<Pick<Message, 'id' | 'tool' | 'text'>> }) {
  const failed = messages.filter((m) => m.tool?.error).length;
  const names = [...new Set(messages.map((m) => humanize(m.tool?.name ?? m.text)))];
  return (
    <details className="tool-activity">
      <summary>
        <ToolIcon width={16} height={16} />
        <span>
          {messages.length === 1 ? '1 step' : `${messages.length} steps`}: {names.join(', ')}
          {failed > 0 && <span className="error-text"> · {failed} failed</span>}
        </span>
      </summary>
      <ul>
        {messages.map((m) => (
          <li key={m.id}>
            <strong>{m.tool?.name ?? m.text}</strong>
            {m.tool && (
              <>
                <pre>{JSON.stringify(m.tool.args, null, 2)}</pre>
                {m.tool.error ? (
                  <p className="error-text">{m.tool.error}</p>
                ) : (
                  m.tool.result !== undefined && <pre className="result">{preview(m.tool.result)}</pre>
                )}
              </>
            )}
          </li>
        ))}
      </ul>
    </details>
  );
}

function preview(v: unknown): string {
  const s = typeof v === 'string' ? v : JSON.stringify(v, null, 2);
  return s.length > 1500 ? `${s.slice(0, 1500)}…` : s;
}

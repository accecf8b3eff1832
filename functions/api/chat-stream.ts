import { createUIMessageStream, type UIMessageStreamWriter } from 'ai';
import type { ChatUIMessage } from '../../shared/src/contracts/api';
import type { Message } from '../../shared/src/contracts/conversations';
import { isAppError } from '../../shared/src/errors';
import type { Log } from '../../shared/src/ports/logger';
import type { ChatUpdate } from '../../shared/src/use-cases/run-chat-inline';

export { createUIMessageStreamResponse } from 'ai';

/**
 * Maps a chat turn's updates onto the `ai` UI message stream protocol, so `useChat` in the PWA renders it
 * live: the model's text as it is written (text parts), stored assistant messages, tool activity as
 * (dynamic) tool parts, cards as `data-approval` parts and the run's progress as one `data-run` part updated
 * in place (same id). The updates come from the turn run right here (run-chat-inline.ts) or, where the
 * turn runs in the worker, from following what it stores (watchRun).
 */
export function chatStream(
  deps: { log: Log },
  input: { conversationId: string; afterMessageId: string },
  updates: AsyncIterable<ChatUpdate>,
) {
  return createUIMessageStream<ChatUIMessage>({
    execute: async ({ writer }) => {
      writer.write({ type: 'start', messageId: `a_${input.afterMessageId}` });
      const streamed: string[] = [];
      const open = new Map<string, string>();
      for await (const u of updates) {
        if (u.type === 'progress') {
          writer.write({
            type: 'data-run',
            id: 'run',
            data: {
              conversationId: input.conversationId,
              status: u.status,
              ...(u.runId ? { runId: u.runId } : {}),
            },
          });
        } else if (u.type === 'action') {
          writer.write({ type: 'data-approval', id: u.action.id, data: u.action });
        } else if (u.type === 'delta') {
          if (!open.has(u.id)) writer.write({ type: 'text-start', id: u.id });
          open.set(u.id, (open.get(u.id) ?? '') + u.text);
          writer.write({ type: 'text-delta', id: u.id, delta: u.text });
        } else if (u.type === 'delta-end') {
          writer.write({ type: 'text-end', id: u.id });
          streamed.push(sameText(open.get(u.id) ?? ''));
          open.delete(u.id);
        } else if (!(u.message.role === 'assistant' && streamed.includes(sameText(u.message.text)))) {
          // The answer (or the text before a tool call) the person already watched being written is not sent a
          // second time.
          writeMessage(writer, u.message);
        }
      }
      writer.write({ type: 'finish' });
    },
    onError: (e) => {
      deps.log.error('chat.stream_failed', { conversationId: input.conversationId, error: String(e) });
      return isAppError(e)
        ? e.message
        : 'Lost track of the reply; reload the conversation to see where it stands.';
    },
  });
}

/**
 * A streamed block and the stored message compared without whitespace: the planner joins a reply's text blocks
 * with a line break, the stream concatenates them.
 */
const sameText = (s: string) => s.replace(/\s+/g, '');

function writeMessage(writer: UIMessageStreamWriter<ChatUIMessage>, m: Message) {
  if (m.role === 'tool' && m.tool) {
    const toolCallId = m.actionId ?? m.id;
    writer.write({
      type: 'tool-input-available',
      toolCallId,
      toolName: m.tool.name,
      input: m.tool.args,
      dynamic: true,
    });
    if (m.tool.error) {
      writer.write({ type: 'tool-output-error', toolCallId, errorText: m.tool.error, dynamic: true });
    } else {
      writer.write({
        type: 'tool-output-available',
        toolCallId,
        output: m.tool.result ?? m.text,
        dynamic: true,
      });
    }
    return;
  }
  // Stored messages are complete; they are sent whole rather than re-chunked into fake token deltas.
  writer.write({ type: 'text-start', id: m.id });
  writer.write({ type: 'text-delta', id: m.id, delta: m.text });
  writer.write({ type: 'text-end', id: m.id });
}

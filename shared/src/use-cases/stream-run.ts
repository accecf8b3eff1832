import type { RunProgressStatus } from '../contracts/api';
import type { Message, PendingAction } from '../contracts/conversations';
import { ConflictError } from '../errors';
import type { ActionStore } from '../ports/action-store';
import type { RunStore } from '../ports/run-store';
import { inputLock } from './get-conversation';
import { type PostChatDeps, type PostChatInput, postChatMessage } from './post-chat-message';

export interface ChatTurnDeps extends PostChatDeps {
  actions: ActionStore;
}

/**
 * A chat turn from the PWA: refused while a card in the conversation awaits a decision (the input lock is
 * enforced here, not only greyed out in the browser), otherwise stored and enqueued by postChatMessage.
 */
export async function startChatTurn(deps: ChatTurnDeps, input: PostChatInput) {
  if (input.conversationId) {
    const lock = inputLock(await deps.actions.listByConversation(input.conversationId));
    if (lock) throw new ConflictError(lock.reason, { lock });
  }
  return postChatMessage(deps, input);
}

export type RunUpdate =
  | { type: 'message'; message: Message }
  | { type: 'action'; action: PendingAction }
  | { type: 'progress'; status: RunProgressStatus; runId?: string };

export interface WatchRunDeps {
  conversations: PostChatDeps['conversations'];
  actions: ActionStore;
  runs: RunStore;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export interface WatchRunInput {
  conversationId: string;
  /** The person's message that started the turn: everything stored after it belongs to the answer. */
  afterMessageId: string;
  timeoutMs: number;
  pollMs?: number;
  signal?: AbortSignal;
}

const PAUSED_OR_DONE = new Set<RunProgressStatus>(['awaiting_approval', 'completed', 'failed']);
const orderKey = (m: Message) => `${m.createdAt}#${m.id}`;

/**
 * Follows the run a chat turn started by reading what the worker persists — the same records the PWA
 * reloads later — and yields each new assistant/tool message, each card (again whenever its status
 * changes) and the run's status. Primary course: poll messages and cards → learn the run id from the first
 * record that carries one → stop once the run pauses on an approval or ends (after one more read, so
 * nothing written just before the status flip is missed) → or at the deadline, reporting `timeout`.
 */
export async function* watchRun(deps: WatchRunDeps, input: WatchRunInput): AsyncGenerator<RunUpdate> {
  const now = deps.now ?? Date.now;
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const deadline = now() + input.timeoutMs;
  const seenMessages = new Set<string>();
  const seenActions = new Map<string, number>();
  let after: Message | undefined;
  let runId: string | undefined;
  let status: RunProgressStatus = 'queued';
  let finalPass = false;
  yield { type: 'progress', status };

  while (!input.signal?.aborted) {
    const [messages, actions] = await Promise.all([
      deps.conversations.listMessages(input.conversationId),
      deps.actions.listByConversation(input.conversationId),
    ]);
    after ??= messages.find((m) => m.id === input.afterMessageId);
    if (after) {
      const cursor = orderKey(after);
      for (const m of messages) {
        if (orderKey(m) <= cursor || seenMessages.has(m.id)) continue;
        seenMessages.add(m.id);
        runId ??= m.runId;
        // Another person's message or an inbound text landing meanwhile is not part of this answer.
        if (m.role === 'assistant' || m.role === 'tool' || m.role === 'system')
          yield { type: 'message', message: m };
      }
      for (const a of actions.sort((x, y) => x.createdAt.localeCompare(y.createdAt))) {
        if (a.createdAt < after.createdAt || seenActions.get(a.id) === a.version) continue;
        seenActions.set(a.id, a.version);
        runId ??= a.runId;
        yield { type: 'action', action: a };
      }
      if (!runId) {
        const active = await deps.runs.findActive(input.conversationId);
        if (active && active.createdAt >= after.createdAt) runId = active.id;
      }
    }
    if (runId) {
      const run = await deps.runs.get(input.conversationId, runId);
      if (run && run.status !== status) {
        status = run.status;
        yield { type: 'progress', status, runId };
      }
    }
    if (finalPass) return;
    if (PAUSED_OR_DONE.has(status)) {
      finalPass = true;
      continue;
    }
    if (now() >= deadline) {
      yield { type: 'progress', status: 'timeout', ...(runId ? { runId } : {}) };
      return;
    }
    await sleep(input.pollMs ?? 300);
  }
}

import type { Message, PendingAction } from '../contracts/conversations';
import type { EventOf } from '../contracts/events';
import type { Run } from '../contracts/runs';
import type { ActionStore } from '../ports/action-store';
import type { ConversationStore } from '../ports/conversation-store';
import type { Model } from '../ports/model';
import type { TurnStore, TurnWrite } from '../ports/turn-store';
import { trackChatTurn } from './chat-turns';
import { type ProcessEventDeps, processEvent } from './process-event';
import type { RunUpdate } from './stream-run';

/** What a chat turn run in the streaming function tells the browser: the run's records, and text as written. */
export type ChatUpdate =
  | RunUpdate
  /** A piece of the model's answer as it writes it (display only; the stored message is the truth). */
  | { type: 'delta'; id: string; text: string }
  /** The model call that wrote block `id` returned. */
  | { type: 'delta-end'; id: string };

export interface InlineChatOptions {
  /** With no update for this long, the run's status is sent again: the connection stays open through CloudFront. */
  heartbeatMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * A PWA chat turn run right here, in the streaming function (issue 19), by the worker's own use case
 * (processEvent: the event ledger, the pending-action gate, the durable run) — so the answer can stream as the
 * model writes it. Nothing is written per delta: the model's text goes to the browser only, and the run
 * persists what it always did. Primary course: run the event with the model and the stores tapped → yield each
 * text delta, each committed message and card, and the run's status → end when the run ends or pauses on a card
 * (a decision resumes it through the queue, as always). A failure hands the event to the worker at once (the
 * queue's copy); the delayed copy the route enqueued first covers a function that dies mid-turn.
 */
export async function* runChatInline(
  deps: ProcessEventDeps,
  event: EventOf<'chat.message'>,
  opts: InlineChatOptions = {},
): AsyncGenerator<ChatUpdate> {
  const out = channel<ChatUpdate>();
  const runId = `run_${event.id}`;
  let status: RunUpdate & { type: 'progress' } = { type: 'progress', status: 'running', runId };
  const sink = (u: ChatUpdate) => {
    if (u.type === 'progress') status = u;
    out.push(u);
  };
  out.push(status);
  const done = processEvent(tapped(deps, event.payload.conversationId, sink), event).then(
    (r) => {
      // A run that ended without a status write (the gate answered, or a duplicate) is simply over.
      if (status.status === 'running')
        sink({ type: 'progress', status: 'completed', runId: r.runId ?? runId });
    },
    async (e: unknown) => {
      deps.log.warn('chat.inline_failed', { eventId: event.id, error: String(e) });
      // The worker takes it from the durable steps stored so far; the PWA keeps following the conversation.
      await deps.queue.send(event).catch((err: unknown) => {
        deps.log.error('chat.requeue_failed', { eventId: event.id, error: String(err) });
      });
      sink({ type: 'progress', status: 'timeout', runId });
    },
  );
  trackChatTurn(done);
  void done.finally(() => out.close());
  yield* out.drain(opts.heartbeatMs ?? 10_000, () => status, opts.sleep);
}

type Sink = (u: ChatUpdate) => void;

/** The worker's deps with the model and every store the run writes through tapped for the browser. */
function tapped(deps: ProcessEventDeps, conversationId: string, sink: Sink): ProcessEventDeps {
  const mine = (c: string) => c === conversationId;
  const onMessage = (m: Message) => {
    if (mine(m.conversationId) && m.role !== 'user' && m.role !== 'inbound')
      sink({ type: 'message', message: m });
  };
  const onAction = (a: PendingAction | undefined) => {
    if (a && mine(a.conversationId)) sink({ type: 'action', action: a });
  };
  return {
    ...deps,
    ...(deps.model ? { model: streamingModel(deps.model, sink) } : {}),
    ...(deps.turns ? { turns: tappedTurns(deps.turns, conversationId, sink, onMessage, onAction) } : {}),
    conversations: tap<ConversationStore>(deps.conversations, {
      appendMessage: (real) => async (m) => {
        await real(m);
        onMessage(m);
      },
    }),
    actions: tap<ActionStore>(deps.actions, {
      create: (real) => async (a) => {
        await real(a);
        onAction(a);
      },
      transition: (real) => async (c, a, from, to, patch) => {
        const moved = await real(c, a, from, to, patch);
        onAction(moved);
        return moved;
      },
    }),
  };
}

/** What a turn's one transaction wrote, once it holds: its messages, new cards and the run's status. */
function tappedTurns(
  inner: TurnStore,
  conversationId: string,
  sink: Sink,
  onMessage: (m: Message) => void,
  onAction: (a: PendingAction) => void,
): TurnStore {
  return {
    conversationIdFor: (k) => inner.conversationIdFor(k),
    load: (c, r) => inner.load(c, r),
    recentMessages: (c, n) => inner.recentMessages(c, n),
    async commit(c, writes) {
      await inner.commit(c, writes);
      if (c !== conversationId) return;
      for (const w of writes) committed(w, sink, onMessage, onAction);
    },
  };
}

function committed(
  w: TurnWrite,
  sink: Sink,
  onMessage: (m: Message) => void,
  onAction: (a: PendingAction) => void,
) {
  if (w.kind === 'message') onMessage(w.message);
  else if (w.kind === 'action.create') onAction(w.action);
  else if (w.kind === 'run.update' && w.patch.status)
    sink({ type: 'progress', status: w.patch.status as Run['status'], runId: w.runId });
}

/**
 * Main-tier model calls with their text forwarded as it is written. Structured calls (a forced tool) and
 * helper calls (summaries, reviews) are not answers and stay silent. Text is held until it is clearly not the
 * planner's NO_ACTION_NEEDED marker, which is never shown to a person.
 */
export function streamingModel(inner: Model, to: Sink): Model {
  let calls = 0;
  const sink: Sink = (u) => {
    try {
      to(u);
    } catch {
      // Display only: the turn goes on whatever happens to the browser.
    }
  };
  return {
    get name() {
      return inner.name;
    },
    async complete(req) {
      if (req.tier === 'helper' || req.toolChoice) return inner.complete(req);
      const id = `text_${++calls}`;
      let held = '';
      let open = false;
      let silent = false;
      const flush = (text: string) => {
        open = true;
        sink({ type: 'delta', id, text });
      };
      try {
        return await inner.complete({
          ...req,
          onText: (delta) => {
            if (silent) return;
            if (open) return flush(delta);
            held += delta;
            if (NO_ACTION.startsWith(held.trimStart().slice(0, NO_ACTION.length))) {
              if (held.trimStart().startsWith(NO_ACTION)) silent = true;
              return;
            }
            flush(held);
          },
        });
      } finally {
        if (!open && !silent && held) flush(held);
        if (open) sink({ type: 'delta-end', id });
      }
    },
  };
}
const NO_ACTION = 'NO_ACTION_NEEDED';

/** The store with some methods wrapped (each gets the real one, bound); everything else passes through. */
function tap<T extends object>(real: T, wraps: { [K in keyof T]?: (inner: T[K]) => T[K] }): T {
  return new Proxy(real, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      const wrap = wraps[prop as keyof T];
      if (!wrap || typeof value !== 'function') return value;
      return wrap(value.bind(target) as T[keyof T]);
    },
  });
}

/**
 * A queue between the run (pushing as things happen) and the HTTP stream (pulling). Every `heartbeatMs` with
 * nothing waiting, the current status is repeated so an idle connection is not cut.
 */
function channel<T>() {
  const items: T[] = [];
  let wake: (() => void) | undefined;
  let closed = false;
  return {
    push(x: T) {
      items.push(x);
      wake?.();
    },
    close() {
      closed = true;
      wake?.();
    },
    async *drain(heartbeatMs: number, current: () => T, sleep = unrefSleep): AsyncGenerator<T> {
      let beat: Promise<'beat'> | undefined;
      for (;;) {
        while (items.length) yield items.shift() as T;
        if (closed) return;
        beat ??= sleep(heartbeatMs).then(() => 'beat' as const);
        const woke = new Promise<'item'>((r) => {
          wake = () => r('item');
        });
        const why = await Promise.race([woke, beat]);
        wake = undefined;
        if (why === 'beat') {
          beat = undefined;
          if (!items.length && !closed) yield current();
        }
      }
    },
  };
}

/** A pending heartbeat never keeps a process alive on its own. */
function unrefSleep(ms: number) {
  return new Promise<void>((r) => {
    const t = setTimeout(r, ms) as { unref?: () => void };
    t.unref?.();
  });
}

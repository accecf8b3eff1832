/**
 * The chat turns still running in this process (run-chat-inline.ts), in a module of their own: the streaming
 * handler waits on them after every request, and importing this costs nothing at cold start, where importing
 * run-chat-inline would bring the worker's whole event pipeline into api-stream's init (issue 16).
 */
const running = new Set<Promise<void>>();

/** Counts a turn as running until it settles, whether or not anyone is still reading its stream. */
export function trackChatTurn(turn: Promise<void>): void {
  running.add(turn);
  void turn.finally(() => running.delete(turn));
}

/**
 * Resolves when every chat turn of this process has ended. The streaming handler waits for it before it
 * returns: a person who closes the app mid-answer must not freeze the turn with the Lambda container.
 */
export async function chatTurnsSettled(): Promise<void> {
  while (running.size) await Promise.allSettled([...running]);
}

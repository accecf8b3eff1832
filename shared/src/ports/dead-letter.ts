/** Where a message that can never succeed goes at once (malformed, or a non-retryable failure), with why. */
export interface DeadLetterSink {
  send(body: string, reason: string): Promise<void>;
}

import { z } from 'zod';

export const usage = z.object({
  inputTokens: z.number().default(0),
  outputTokens: z.number().default(0),
  cacheReadTokens: z.number().default(0),
  cacheWriteTokens: z.number().default(0),
  costUsd: z.number().default(0),
  modelCalls: z.number().default(0),
});
export type Usage = z.infer<typeof usage>;

export const runStatus = z.enum(['running', 'awaiting_approval', 'completed', 'failed']);

export const run = z.object({
  id: z.string(),
  conversationId: z.string(),
  status: runStatus,
  mode: z.enum(['claude', 'rules']),
  /** What started the run: the event type and key, for logs and the PWA. */
  trigger: z.object({ type: z.string(), key: z.string(), eventIds: z.array(z.string()) }),
  iteration: z.number().int(),
  nextSeq: z.number().int(),
  awaitingActionId: z.string().optional(),
  outcome: z.string().optional(),
  usage,
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Run = z.infer<typeof run>;

export const stepKind = z.enum([
  'input',
  'model_call',
  'plan',
  'tool_call',
  'tool_result',
  'approval_requested',
  'approval_decided',
  'decision',
  'response',
  'error',
]);
export type StepKind = z.infer<typeof stepKind>;

export const runStep = z.object({
  runId: z.string(),
  seq: z.number().int().nonnegative(),
  kind: stepKind,
  at: z.string(),
  data: z.unknown(),
});
export type RunStep = z.infer<typeof runStep>;

/**
 * The one hook every tool call passes through (SPEC §3.6): the model's calls, the deterministic planner's,
 * and the policy solver's own data fetches. The policy engine implements it (agent/policy-runtime.ts); every
 * implementation first refuses writes to protected paths (domain/protected-paths.ts), whatever the kind.
 */
export type CallOrigin = 'model' | 'planner' | 'solver' | 'system';

export interface ToolCallRequest {
  tool: string;
  kind: 'read' | 'write' | 'internal';
  args: Record<string, unknown>;
  origin: CallOrigin;
  conversationId: string;
}

export interface GuardVerdict {
  decision: 'allow' | 'require_approval' | 'deny';
  /** A sentence the agent can relay to a person. */
  reason: string;
  /** "Why this is allowed": derivation lines shown on the approval card. */
  why?: string[];
  /** "What is missing" when blocked: data tools to call, or questions to ask a person. */
  missing?: { tools: string[]; questions: string[] };
}

export interface GuardEnv {
  now: Date;
  timezone: string;
  /** Lets the solver fetch a missing base fact through a (guarded) read tool. */
  callReadTool(name: string, args: Record<string, unknown>): Promise<unknown>;
}

export interface ToolGuard {
  check(call: ToolCallRequest, env: GuardEnv): Promise<GuardVerdict>;
}

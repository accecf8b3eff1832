import { z } from 'zod';
import type { PolicyRuntime } from '../domain/policy/guard';
import { lazyInput, type Tool } from './tool';

export interface PolicyToolDeps {
  policy: PolicyRuntime;
  /**
   * How ask_policy fetches a missing base fact: the runtime's guarded read-tool call (the same function it
   * puts in GuardEnv). Without it, queries use established facts only.
   */
  callReadTool?(name: string, args: Record<string, unknown>): Promise<unknown>;
}

const askPolicyInput = lazyInput(() =>
  z.object({
    query: z
      .string()
      .trim()
      .min(1)
      .max(500)
      .describe('A symbolic query, e.g. qualified_lead(lead_of_interest) or sending_line(To, Line), To = …'),
  }),
);

/**
 * The model asks the policy directly (SPEC §3.6). Queries are symbolic: entity ids must come through context
 * variables (set_focus), not literals the model might have invented.
 */
export const askPolicy: Tool<typeof askPolicyInput, PolicyToolDeps> = {
  name: 'ask_policy',
  group: 'policy',
  kind: 'read',
  description:
    'Ask the team policy whether something holds, e.g. qualified_lead(lead_of_interest). Use context variables ' +
    '(see set_focus) instead of literal ids; capitalised names are variables to solve for. Answers come with ' +
    'the derivation, or with what is missing: data to fetch, focus to set, or questions to ask a person.',
  input: askPolicyInput,
  async run(deps, input, ctx) {
    const r = await deps.policy.query(
      input.query,
      {
        now: ctx.now,
        timezone: ctx.timezone,
        ...(deps.callReadTool ? { callReadTool: deps.callReadTool } : {}),
      },
      { symbolic: true, maxAnswers: 5 },
    );
    return {
      status: r.status,
      summary: r.summary,
      answers: r.answers.map((a) => ({
        bindings: a.bindings,
        why: a.why,
        ...(a.validUntil ? { validUntil: a.validUntil } : {}),
      })),
      missing: {
        tools: r.missing.tools.map((t) => (t.error ? `${t.text} (${t.error})` : t.text)),
        focus: r.missing.focus,
        questions: r.missing.questions.map((q) => ({ ask: q.question, recordAs: q.answerPattern })),
      },
    };
  },
  summarize: (i) => `Ask the policy: ${i.query}`,
};

const setFocusInput = lazyInput(() =>
  z.object({
    name: z
      .string()
      .regex(/^[a-z][a-z0-9_]*$/)
      .describe('A context variable declared in the policy, e.g. lead_of_interest'),
    value: z
      .union([z.string().trim().min(1).max(200), z.number().finite()])
      .describe('The entity id to focus on'),
  }),
);

/**
 * Rebinds a context variable when the conversation's focus shifts ("what about my other booking?"). Internal:
 * it changes only the conversation's focus, so it needs no approval, but the policy refuses fixed variables
 * (the current user) and values its `where` clause does not establish.
 */
export const setFocus: Tool<typeof setFocusInput, PolicyToolDeps> = {
  name: 'set_focus',
  group: 'policy',
  kind: 'internal',
  description:
    'Point a policy context variable (e.g. lead_of_interest, booking_of_interest) at the entity the conversation ' +
    'is now about, so symbolic queries follow it. Use ids from established facts or tool results.',
  input: setFocusInput,
  async run(deps, input, ctx) {
    return deps.policy.setFocus(input.name, input.value, {
      now: ctx.now,
      timezone: ctx.timezone,
      ...(deps.callReadTool ? { callReadTool: deps.callReadTool } : {}),
    });
  },
  summarize: (i) => `Focus ${i.name} on ${i.value}`,
};

export const policyTools = [askPolicy, setFocus] as const;

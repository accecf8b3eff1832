import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { ResearchTask } from '../contracts/research';
import { lazyInput, type Tool } from './tool';

/**
 * What the tool needs: the start use case, passed in by the composition root already bound to its stores
 * (a tool sees ports, never a use case's module).
 */
export interface StartResearchToolDeps {
  start(input: {
    goal: string;
    conversationId: string;
    user: { id: string };
    taskId: string;
    byText?: boolean;
  }): Promise<Pick<ResearchTask, 'id' | 'status' | 'mode'>>;
}

const input = lazyInput(() =>
  z.object({
    goal: z
      .string()
      .trim()
      .min(3)
      .max(1000)
      .describe('What to find out, in the words of the request ("summarise Maria Lopez\'s history")'),
  }),
);

/**
 * `start_research`: a request that needs several lookups combined becomes a research task (issue 21): a plan
 * of read-only steps run in parallel, reviewed by a person when large, aggregated into a report in `reports/`.
 * Internal: it changes nothing outside (every step only reads), and the call is audited like other tools.
 */
export const startResearchTool: Tool<typeof input, StartResearchToolDeps> = {
  name: 'start_research',
  kind: 'internal',
  group: 'research',
  description:
    "Start a research task for a request that needs several lookups combined (a tenant's history across texts, calls, email, tasks and calendar; what is open at a property; a vendor's track record). It plans read-only steps that run in parallel and ends with a report saved to reports/ and linked in this conversation. Returns the task id; the plan and progress show in the conversation.",
  input,
  async run(deps, args, ctx) {
    // The same run asking for the same goal again (a redelivered turn) gets the same task, not a second one.
    const taskId = `rt_${createHash('sha256').update(`${ctx.runId}\n${args.goal}`).digest('hex').slice(0, 20)}`;
    const task = await deps.start({
      goal: args.goal,
      conversationId: ctx.conversationId,
      user: { id: 'assistant' },
      taskId,
      ...(ctx.channel === 'sms' ? { byText: true } : {}),
    });
    return { taskId: task.id, status: task.status, mode: task.mode };
  },
  summarize: (args) => `Research: ${args.goal}`,
};

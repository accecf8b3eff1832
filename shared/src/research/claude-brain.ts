import { z } from 'zod';
import { type NodeContext, nodeKind, type PlanItem, plan as planSchema } from '../contracts/research';
import { describeResult } from '../domain/research/describe';
import { fillArgs } from '../domain/research/graph';
import { PreconditionError, UpstreamError, ValidationError } from '../errors';
import type { Model, ModelResponse } from '../ports/model';
import type { ModelToolDef } from '../tools/registry';
import type { NodeInput, ResearchBrain } from './brain';
import { draftWrite, type ExecutorDeps, isWriteStep, runCompute, runReadTool } from './executors';

/**
 * Claude mode: the model plans, atomizes, executes and aggregates (seed 003's planner, atomizer, executor
 * and synthesizer), each through one tool forced by `tool_choice`, so the answer is data checked with zod,
 * never parsed prose.
 * Tools still run through the registry (reads only) and code through the checked sandbox.
 */
export function claudeBrain(deps: ExecutorDeps & { model: Model }): ResearchBrain {
  const listTools = (kind: 'read' | 'write') =>
    deps.registry
      .list()
      .filter((t) => t.kind === kind && t.name !== 'run_code')
      .map((t) => `- ${t.name} (${t.group}): ${t.description.split('. ')[0]}`)
      .join('\n');
  const ask = async (tier: 'main' | 'helper', tool: ModelToolDef, dynamic: string, user: string) => {
    const res = await deps.model.complete({
      system: {
        stable: SYSTEM,
        dynamic: `${dynamic}\n\nRead tools you may use:\n${listTools('read')}\n\nWrite tools a "write" step may propose (drafted, never run by you):\n${listTools('write')}`,
      },
      tools: [tool],
      // Forced (tool_choice): the answer is always this tool's input, checked with zod, never prose.
      toolChoice: { tool: tool.name },
      messages: [{ role: 'user', content: [{ type: 'text', text: user }] }],
      maxTokens: 4_000,
      tier,
    });
    return { input: toolInput(res, tool.name), tokens: res.usage.inputTokens + res.usage.outputTokens };
  };

  return {
    mode: 'claude',
    async plan({ task, node, context, edits }) {
      const user = [
        `Overall goal: ${task.goal}`,
        `Plan this step: ${node.goal}`,
        contextText(context),
        edits
          ? `A person edited the plan to:\n${JSON.stringify(edits.plan)}\nTheir note: ${edits.note ?? '(none)'}`
          : '',
        'Split it into 2-6 sub-steps with dependencies (keys of siblings). Use kind "read" with a tool and args for lookups, "compute" with JavaScript code for arithmetic over earlier results (INPUTS, FACTS globals), "plan" for a step that needs splitting again, "write" with a write tool for something the goal asks to send or change (it depends on the steps whose results it uses; it becomes a draft a person approves).',
      ].join('\n\n');
      const r = await ask('main', PLAN_TOOL, `Task ${task.id}, depth ${node.depth}`, user);
      const parsed = planSchema.safeParse((r.input as { steps?: unknown }).steps);
      if (!parsed.success)
        throw new ValidationError(`the model's plan is not valid: ${parsed.error.issues[0]?.message}`);
      return { items: parsed.data, tokens: r.tokens };
    },
    async atomize({ task, node, context, mustBeAtomic }) {
      const user = [
        `Overall goal: ${task.goal}`,
        `Step: ${node.goal}`,
        contextText(context),
        mustBeAtomic
          ? 'This step cannot be split further: describe it as one atomic read, compute or web step.'
          : 'Is this step atomic (one tool call or one small computation)? If so describe it; if not, answer atomic=false.',
      ].join('\n\n');
      const r = await ask('helper', ATOMIZE_TOOL, `Task ${task.id}`, user);
      const a = atomizeAnswer.safeParse(r.input);
      if (!a.success) throw new ValidationError('the model’s atomizer answer is not valid');
      if (!a.data.atomic && !mustBeAtomic) return { atomic: false, tokens: r.tokens };
      const kind = a.data.kind === 'plan' || !a.data.kind ? 'read' : a.data.kind;
      const item: PlanItem = { key: 'self', goal: node.goal, kind, dependsOn: [], ...pick(a.data) };
      return { atomic: true, item, tokens: r.tokens };
    },
    execute: (input) => executeWithModel(deps, ask, input),
    async aggregate({ task, node, context, children }) {
      const parts = children.map(
        (c) =>
          `## ${c.goal} (${c.status})\n${c.status === 'DONE' ? (c.output?.summary ?? '') : `Not available: ${c.error ?? ''}`}`,
      );
      const user = `Overall goal: ${task.goal}\nStep: ${node.goal}\n${contextText(context)}\n\nResults of its sub-steps:\n\n${parts.join('\n\n')}\n\nWrite the step's result as concise markdown for a busy property manager. Say plainly what is missing.`;
      const r = await ask(node.parentId ? 'helper' : 'main', REPORT_TOOL, `Task ${task.id}`, user);
      const markdown = String((r.input as { markdown?: unknown }).markdown ?? '').trim();
      if (!markdown) throw new ValidationError('the model wrote an empty summary');
      const degraded = children.some((c) => c.status !== 'DONE');
      return { output: { summary: markdown }, degraded, tokens: r.tokens };
    },
  };
}

type Ask = (
  tier: 'main' | 'helper',
  tool: ModelToolDef,
  dynamic: string,
  user: string,
) => Promise<{ input: Record<string, unknown>; tokens: number }>;

async function executeWithModel(deps: ExecutorDeps, ask: Ask, input: NodeInput) {
  const { task, node, context } = input;
  if (isWriteStep(deps, node)) return draftWithModel(deps, ask, input);
  if (node.kind === 'compute') {
    let code = node.code;
    let tokens = 0;
    if (!code) {
      const r = await ask(
        'main',
        CODE_TOOL,
        `Task ${task.id}`,
        `Step: ${node.goal}\n${contextText(context)}\n\nWrite JavaScript (no network, no files, no modules) whose last expression is the answer. INPUTS is the list of earlier results ({nodeId, goal, summary}); FACTS holds known facts.`,
      );
      code = String(r.input.code ?? '');
      tokens += r.tokens;
    }
    return { output: await runCompute(deps, code, context), tokens };
  }
  if (node.kind === 'web' && !deps.webAllowed)
    throw new ValidationError('web steps are off on this deployment');
  if (!node.tool) throw new ValidationError(`step ${node.id} has no tool`);
  const result = await runReadTool(deps, node, node.tool, fillArgs(node.args ?? {}, context.facts));
  const raw = describeResult(node.tool, result);
  const r = await ask(
    'helper',
    REPORT_TOOL,
    `Task ${task.id}`,
    `Step: ${node.goal}\nTool ${node.tool} returned:\n${JSON.stringify(result).slice(0, 8_000)}\n\nWrite what it found for this step as short markdown bullets.`,
  );
  const markdown = String(r.input.markdown ?? '').trim();
  return {
    output: { summary: markdown || raw.summary, ...(raw.facts ? { facts: raw.facts } : {}) },
    tokens: r.tokens,
  };
}

/**
 * A writing step in Claude mode: the model drafts the write tool's arguments from the results it depends
 * on — the write tool itself offered and forced, so its input is the draft — and the draft is checked
 * against the tool's schema and proposed as a card (draftWrite). The tool is never run here.
 */
async function draftWithModel(deps: ExecutorDeps, ask: Ask, { task, node, context }: NodeInput) {
  const def = node.tool ? deps.registry.toModelTools((t) => t.name === node.tool)[0] : undefined;
  if (!def)
    throw new PreconditionError(`${node.tool ?? 'the write tool'} is not configured on this deployment`);
  const hints = node.args ? `\nThe plan suggested these arguments: ${JSON.stringify(node.args)}` : '';
  const r = await ask(
    'main',
    def,
    `Task ${task.id}`,
    `Step: ${node.goal}\n${contextText(context)}${hints}\n\nDraft this ${def.name} from the results above. You only draft it: a person approves it before anything is sent. Use only what the results say, with no placeholders.`,
  );
  return { output: draftWrite(deps, node, context, r.input), tokens: r.tokens };
}

function toolInput(res: ModelResponse, name: string): Record<string, unknown> {
  const use = res.content.find((c) => c.type === 'tool_use' && c.name === name);
  if (use?.type === 'tool_use') return use.input;
  if (res.stopReason === 'max_tokens')
    throw new UpstreamError('the model ran out of tokens', { retryable: true });
  throw new ValidationError(`the model did not call ${name}`);
}

const atomizeAnswer = z.object({
  atomic: z.boolean(),
  kind: nodeKind.optional(),
  tool: z.string().max(60).optional(),
  args: z.record(z.string(), z.union([z.string().max(500), z.number(), z.boolean()])).optional(),
  code: z.string().max(8_000).optional(),
});
function pick(a: z.infer<typeof atomizeAnswer>) {
  return {
    ...(a.tool ? { tool: a.tool } : {}),
    ...(a.args ? { args: a.args } : {}),
    ...(a.code ? { code: a.code } : {}),
  };
}

function contextText(c: NodeContext): string {
  const inputs = c.inputs.map((i) => `- ${i.goal}: ${i.summary.slice(0, 1_500)}`).join('\n');
  const facts = Object.entries(c.facts)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
  return [
    c.parentGoal ? `Parent step: ${c.parentGoal}` : '',
    c.parentPlan?.length ? `Parent's plan: ${c.parentPlan.join(' · ')}` : '',
    facts ? `Known facts: ${facts}` : '',
    inputs ? `Results this step depends on:\n${inputs}` : '',
  ]
    .filter(Boolean)
    .join('\n');
}

const SYSTEM = [
  'You are the research planner of Switchboard, the assistant of a small property-management team.',
  'You split research goals into steps that run in parallel, pick read tools for lookups, and write reports.',
  'Research only reads: you never send or change anything. A step of kind "write" names a write tool and is only drafted; a person approves it as a card before it is sent. Arguments may use {{phone}}, {{email}}, {{name}} or {{results}} placeholders filled from earlier steps.',
].join(' ');

const stepSchema = {
  type: 'object',
  properties: {
    key: { type: 'string', description: 'short id, letters/digits' },
    goal: { type: 'string' },
    kind: { type: 'string', enum: ['plan', 'read', 'compute', 'web', 'write'] },
    tool: { type: 'string' },
    args: { type: 'object' },
    code: { type: 'string' },
    dependsOn: { type: 'array', items: { type: 'string' } },
  },
  required: ['key', 'goal', 'kind', 'dependsOn'],
};
const PLAN_TOOL: ModelToolDef = {
  name: 'submit_plan',
  description: 'Submit the sub-steps of this research step.',
  input_schema: {
    type: 'object',
    properties: { steps: { type: 'array', items: stepSchema } },
    required: ['steps'],
  },
};
const ATOMIZE_TOOL: ModelToolDef = {
  name: 'decide_atomic',
  description: 'Say whether the step is atomic, and if so how it runs.',
  input_schema: {
    type: 'object',
    properties: {
      atomic: { type: 'boolean' },
      kind: { type: 'string', enum: ['read', 'compute', 'web'] },
      tool: { type: 'string' },
      args: { type: 'object' },
      code: { type: 'string' },
    },
    required: ['atomic'],
  },
};
const CODE_TOOL: ModelToolDef = {
  name: 'submit_code',
  description: 'Submit the JavaScript for a compute step.',
  input_schema: { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] },
};
const REPORT_TOOL: ModelToolDef = {
  name: 'write_result',
  description: 'Submit the markdown result of this step.',
  input_schema: { type: 'object', properties: { markdown: { type: 'string' } }, required: ['markdown'] },
};

import type { NodeContext, NodeOutput, ResearchNode } from '../contracts/research';
import { describeResult } from '../domain/research/describe';
import { fillArgs } from '../domain/research/graph';
import { NotFoundError, PreconditionError, ValidationError } from '../errors';
import type { ToolRegistry } from '../tools/registry';
import type { SandboxRunner } from '../tools/sandbox';
import { capOutput } from '../tools/tool';
import { checkComputeCode } from './code-check';

export interface ExecutorDeps {
  registry: ToolRegistry;
  clock: () => Date;
  timezone: string;
  /** The QuickJS sandbox of run_code (tests give their own runner). */
  sandbox?: () => SandboxRunner;
  /** Web steps run only where the deployment allows the web (WEB_ALLOWED_DOMAINS). */
  webAllowed?: boolean;
}

/** A read tool's raw result, called the way the agent calls it (schema-checked, never a write). */
export async function runReadTool(
  deps: ExecutorDeps,
  node: Pick<ResearchNode, 'id' | 'taskId'>,
  tool: string,
  args: Record<string, unknown>,
): Promise<unknown> {
  if (!deps.registry.has(tool)) throw new PreconditionError(`${tool} is not configured on this deployment`);
  const t = deps.registry.get(tool);
  // Writes never run inside a research task: a step that would write is a proposal for a person.
  if (t.kind !== 'read') throw new PreconditionError(`${tool} is a ${t.kind} tool; research only reads`);
  const valid = deps.registry.validateArgs(tool, args);
  if (!valid.ok) throw new ValidationError(`${tool}: ${valid.reason}`);
  return t.run(valid.args, {
    conversationId: `research:${node.taskId}`,
    runId: `research:${node.taskId}:${node.id}`,
    now: deps.clock(),
    timezone: deps.timezone,
  });
}

/** A step that would write: kind `write`, or any atomic step whose tool turns out to be a write tool. */
export function isWriteStep(deps: ExecutorDeps, node: Pick<ResearchNode, 'kind' | 'tool'>): boolean {
  if (node.kind === 'write') return true;
  return !!node.tool && deps.registry.has(node.tool) && deps.registry.get(node.tool).kind === 'write';
}

/** The finished dependencies' results as one text, for a `{{results}}` placeholder in a drafted write. */
export function resultsText(context: NodeContext): string {
  return context.inputs.map((i) => `${i.goal}:\n${i.summary}`).join('\n\n');
}

/**
 * A writing step never writes (SPEC §6: writes go through the guard and a person): its arguments are drafted
 * — placeholders filled from the facts and `{{results}}` — and checked against the write tool's schema.
 * The output carries the proposal; the engine hands it to a run in the task's conversation, which makes it
 * an approval card like any other write. `drafted` are arguments the model wrote (Claude mode).
 */
export function draftWrite(
  deps: ExecutorDeps,
  node: ResearchNode,
  context: NodeContext,
  drafted?: Record<string, unknown>,
): NodeOutput {
  const tool = node.tool;
  if (!tool) throw new ValidationError(`writing step ${node.id} names no tool`);
  if (!deps.registry.has(tool)) throw new PreconditionError(`${tool} is not configured on this deployment`);
  const t = deps.registry.get(tool);
  if (t.kind !== 'write') throw new ValidationError(`${tool} is not a write tool`);
  const args = drafted ?? fillArgs(node.args ?? {}, { ...context.facts, results: resultsText(context) });
  const valid = deps.registry.validateArgs(tool, args);
  if (!valid.ok) throw new ValidationError(`the drafted ${tool} is not valid: ${valid.reason}`);
  const summary = t.summarize(valid.args);
  return {
    summary: `Drafted for approval (nothing was sent; it waits as a card in the conversation): ${summary}`,
    proposal: { tool, args: valid.args, summary },
  };
}

/** Rules mode's executor of an atomic node: one read tool, checked code in the sandbox, or a drafted write. */
export async function executeNode(
  deps: ExecutorDeps,
  node: ResearchNode,
  context: NodeContext,
): Promise<NodeOutput> {
  if (isWriteStep(deps, node)) return draftWrite(deps, node, context);
  if (node.kind === 'compute') return runCompute(deps, node.code ?? '', context);
  if (node.kind === 'web' && !deps.webAllowed)
    throw new PreconditionError('web steps are off on this deployment (WEB_ALLOWED_DOMAINS is empty)');
  if (!node.tool) throw new ValidationError(`step ${node.id} has no tool`);
  const args = fillArgs(node.args ?? {}, context.facts);
  let result: unknown;
  try {
    result = await runReadTool(deps, node, node.tool, args);
  } catch (e) {
    // "Nothing matches" is a finding, not a failure: the step is done and says so.
    if (e instanceof NotFoundError) return { summary: `- nothing found (${e.message})` };
    throw e;
  }
  const described = describeResult(node.tool, result);
  return { ...described, data: capOutput(result, 4_000) };
}

/** The compute kind: the code is checked first, then run with the node's inputs as read-only globals. */
export async function runCompute(
  deps: ExecutorDeps,
  code: string,
  context: NodeContext,
): Promise<NodeOutput> {
  const check = checkComputeCode(code);
  if (!check.ok) throw new ValidationError(`the code was refused: ${check.reason}`);
  if (!deps.sandbox) throw new PreconditionError('the sandbox is not available');
  const prelude = 'const INPUTS = JSON.parse(INPUTS_JSON); const FACTS = JSON.parse(FACTS_JSON);\n';
  const result = await deps.sandbox().run(prelude + code, {
    globals: {
      NOW: deps.clock().toISOString(),
      TIMEZONE: deps.timezone,
      INPUTS_JSON: JSON.stringify(context.inputs),
      FACTS_JSON: JSON.stringify(context.facts),
    },
  });
  if (!result.ok) throw new ValidationError(`the code failed: ${result.error.kind}: ${result.error.message}`);
  const value = typeof result.value === 'string' ? result.value : JSON.stringify(result.value, null, 1);
  return {
    summary: `\`\`\`\n${String(value).slice(0, 2_000)}\n\`\`\``,
    data: capOutput(result.value, 4_000),
  };
}

import { isAppError } from '../errors';
import type { GuardEnv } from '../ports/tool-guard';
import type { BoundTool } from '../tools/registry';
import { capOutput, type ToolContext } from '../tools/tool';
import { approvedStep } from './execute-approved';
import { proposeAction } from './propose-action';
import { applyInstruction } from './redraft-rules';
import type { RunContext } from './run-context';
import type { Observation, PlannedCall, Trigger } from './types';

export type CallOutcome = Observation | { paused: string };

/** What every step of one call shares: the call as planned, who planned it, the tool's context, the guard's env. */
export interface CallScope {
  base: Pick<Observation, 'name' | 'args' | 'toolUseId'>;
  tool: BoundTool;
  args: Record<string, unknown>;
  origin: 'model' | 'planner';
  toolCtx: ToolContext;
  env: GuardEnv;
}

/**
 * Executor: one call through the guard. Reads (and the assistant's own notes) run in one durable step;
 * writes become pending actions that pause the run, or run exactly once when approved.
 */
export async function executeCall(
  ctx: RunContext,
  trigger: Trigger,
  call: PlannedCall,
): Promise<CallOutcome> {
  const { deps } = ctx;
  const base = { name: call.name, args: call.args, ...(call.toolUseId ? { toolUseId: call.toolUseId } : {}) };
  if (!deps.registry.has(call.name))
    return { ...base, status: 'error', error: `There is no tool named ${call.name}.` };
  const valid = deps.registry.validateArgs(call.name, call.args);
  if (!valid.ok) return { ...base, status: 'error', error: `Invalid arguments: ${valid.reason}` };
  const isWrite = deps.registry.get(call.name).kind === 'write';
  const shaped = isWrite ? redraftArgs(ctx, trigger, call.name, valid.args) : undefined;
  const scope = callScope(ctx, base, shaped?.args ?? valid.args);
  if (scope.tool.kind !== 'write') return readStep(ctx, scope);
  // The system's part of the args (a policy change's base version) is filled here, never taken from the planner.
  if (scope.tool.prepare) {
    try {
      scope.args = await scope.tool.prepare(scope.args, scope.toolCtx);
    } catch (e) {
      return {
        ...base,
        status: 'error',
        error: `Could not prepare ${call.name}: ${String(e).slice(0, 300)}`,
      };
    }
  }

  const proposal = await proposeAction(ctx, trigger, call, scope, shaped?.note);
  if (proposal.status === 'refused') return { ...base, status: 'refused', error: proposal.error };
  const action = await deps.actions.get(ctx.convId, proposal.actionId);
  if (!action) return { ...base, status: 'error', error: 'the pending action disappeared' };
  if (action.status === 'PENDING') return { paused: action.id };
  return approvedStep(ctx, action, scope);
}

/**
 * Rules mode's redraft: the person's instruction (or deny reason) applied to the planner's draft of the same
 * tool (redraft-rules.ts). An edit the tool's schema refuses is dropped and reported as not applied. Claude
 * mode gets the instruction in its prompt instead (claude-planner.ts), so its args are its own.
 */
function redraftArgs(ctx: RunContext, trigger: Trigger, tool: string, args: Record<string, unknown>) {
  const r = trigger.redraft;
  if (!r) return undefined;
  const note = { applied: [] as string[], notApplied: [] as string[] };
  if (ctx.mode !== 'rules' || !r.instruction || r.kind === 'answer' || r.previous.tool !== tool)
    return { args, note };
  // The person asked to change the draft they saw (earlier redrafts included), not the bare template.
  const out = applyInstruction({ ...args, ...r.previous.args }, r.instruction);
  const valid = ctx.deps.registry.validateArgs(tool, out.args);
  if (!valid.ok) return { args, note: { applied: [], notApplied: [r.instruction] } };
  return { args: valid.args, note: { applied: out.applied, notApplied: out.notApplied } };
}

function callScope(ctx: RunContext, base: CallScope['base'], args: Record<string, unknown>): CallScope {
  const { deps } = ctx;
  const tool = deps.registry.get(base.name);
  const trigger = ctx.trigger ?? ctx.start.trigger;
  const toolCtx: ToolContext = {
    conversationId: ctx.convId,
    runId: ctx.runId,
    now: deps.clock(),
    timezone: deps.settings.timezone,
    ...(trigger.kind === 'chat' ? { channel: trigger.channel } : {}),
  };
  const env: GuardEnv = {
    now: deps.clock(),
    timezone: deps.settings.timezone,
    // The policy solver may look facts up with read tools, through the guard like any other read.
    callReadTool: async (name: string, a: Record<string, unknown>) => {
      const t = deps.registry.get(name);
      if (t.kind !== 'read') throw new Error(`${name} is not a read tool`);
      const v = await deps.guard.check(
        { tool: name, kind: 'read', args: a, origin: 'solver', conversationId: ctx.convId },
        env,
      );
      if (v.decision === 'deny') throw new Error(v.reason);
      return t.run(a, toolCtx);
    },
  };
  return { base, tool, args, origin: ctx.mode === 'claude' ? 'model' : 'planner', toolCtx, env };
}

/** A read or internal tool: guard, run, feed read results to the policy's facts; one durable step. */
function readStep(ctx: RunContext, s: CallScope): Promise<Observation> {
  const { deps } = ctx;
  const { base, tool, args } = s;
  const seq = ctx.durable.nextSeq;
  return ctx.durable.step('tool_result', async () => {
    const verdict = await deps.guard.check(
      { tool: base.name, kind: tool.kind, args, origin: s.origin, conversationId: ctx.convId },
      s.env,
    );
    // Only an explicit allow runs a read or a memory note: the kind never waves a call through.
    if (verdict.decision !== 'allow') return { ...base, status: 'refused' as const, error: verdict.reason };
    try {
      // The assistant's own notes change the workspace: what the turn staged is committed before they run.
      if (tool.kind !== 'read') await deps.turn?.flush();
      const raw = await tool.run(args, s.toolCtx);
      if (tool.kind === 'read') await deps.policy?.observe(ctx.convId, base.name, args, raw, deps.clock());
      if (tool.kind === 'internal') await noteMemoryWrite(ctx, base.name, args);
      const out = { ...base, status: 'ok' as const, result: capOutput(raw) };
      if (tool.kind === 'read') await noteRead(ctx, seq, out);
      return out;
    } catch (e) {
      const error =
        isAppError(e) && e.retryable && e.code !== 'model_unavailable'
          ? `${e.message} (temporary; try again later)`
          : e instanceof Error
            ? e.message
            : String(e);
      if (tool.kind === 'read') await noteRead(ctx, seq, { ...base, error });
      return { ...base, status: 'error' as const, error };
    }
  });
}

/** A read's preview in the activity: enough to see what it found, small enough for a message item. */
const READ_PREVIEW_CHARS = 1_500;

/**
 * One read as a `tool` message of the conversation (the PWA folds them into "n steps: …"). Written inside
 * the read's durable step, with an id from the step's sequence number, so a replayed run writes it once.
 */
function noteRead(
  ctx: RunContext,
  seq: number,
  o: Pick<Observation, 'name' | 'args' | 'result' | 'error'>,
): Promise<void> {
  return ctx.noteRead({
    id: `m_read_${ctx.runId}_${seq}`,
    conversationId: ctx.convId,
    role: 'tool',
    text: `Read: ${o.name}`,
    createdAt: ctx.deps.clock().toISOString(),
    author: { kind: 'assistant', name: 'Switchboard' },
    runId: ctx.runId,
    tool: {
      name: o.name,
      args: o.args,
      ...(o.error ? { error: o.error } : { result: capOutput(o.result, READ_PREVIEW_CHARS) }),
    },
  });
}

async function noteMemoryWrite(ctx: RunContext, tool: string, args: Record<string, unknown>) {
  ctx.memoryTouched = true;
  await ctx.deps.audit.append({
    conversationId: ctx.convId,
    type: 'memory.write',
    actor: 'switchboard',
    data: { tool, args: summarizeArgs(args) },
  });
}

function summarizeArgs(args: Record<string, unknown>) {
  return Object.fromEntries(
    Object.entries(args).map(([k, v]) => [
      k,
      typeof v === 'string' && v.length > 200 ? `${v.slice(0, 200)}…` : v,
    ]),
  );
}

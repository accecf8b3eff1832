import { z } from 'zod';
import { describeZodIssues, NotFoundError } from '../errors';
import type { ModelToolDef } from '../ports/model';
import type { Tool, ToolContext, ToolKind } from './tool';

/** A tool with its dependencies bound at composition time, so the loop can call it by name. */
export interface BoundTool {
  name: string;
  description: string;
  kind: ToolKind;
  group: string;
  input: z.ZodType;
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<unknown>;
  reconcile?(args: Record<string, unknown>, ctx: ToolContext): Promise<unknown | undefined>;
  prepare?(args: Record<string, unknown>, ctx: ToolContext): Promise<Record<string, unknown>>;
  summarize(args: Record<string, unknown>): string;
}

export function bindTool<S extends z.ZodType, D>(tool: Tool<S, D>, deps: D): BoundTool {
  const reconcile = tool.reconcile;
  const prepare = tool.prepare;
  return {
    name: tool.name,
    description: tool.description,
    kind: tool.kind,
    group: tool.group,
    input: tool.input,
    run: (args, ctx) => tool.run(deps, args as z.infer<S>, ctx),
    ...(reconcile ? { reconcile: (args, ctx) => reconcile(deps, args as z.infer<S>, ctx) } : {}),
    ...(prepare
      ? {
          prepare: async (args, ctx) =>
            (await prepare(deps, args as z.infer<S>, ctx)) as Record<string, unknown>,
        }
      : {}),
    summarize: (args) =>
      tool.summarize?.(args as z.infer<S>) ?? `${tool.name}(${JSON.stringify(args).slice(0, 200)})`,
  };
}

export type { ModelToolDef };

export class ToolRegistry {
  private readonly tools = new Map<string, BoundTool>();

  constructor(tools: BoundTool[]) {
    for (const t of tools) {
      if (this.tools.has(t.name)) throw new Error(`Tool ${t.name} registered twice`);
      this.tools.set(t.name, t);
    }
  }

  has(name: string) {
    return this.tools.has(name);
  }

  get(name: string): BoundTool {
    const t = this.tools.get(name);
    if (!t) throw new NotFoundError(`Unknown tool ${name}`);
    return t;
  }

  list(): BoundTool[] {
    return [...this.tools.values()];
  }

  /** Validates (and normalises) arguments against the tool's schema; used for model calls and edits. */
  validateArgs(
    name: string,
    args: unknown,
  ): { ok: true; args: Record<string, unknown> } | { ok: false; reason: string } {
    const t = this.tools.get(name);
    if (!t) return { ok: false, reason: `unknown tool ${name}` };
    const parsed = t.input.safeParse(args);
    if (!parsed.success) return { ok: false, reason: describeZodIssues(parsed.error.issues) };
    return { ok: true, args: parsed.data as Record<string, unknown> };
  }

  /** Tool definitions for the Messages API, in a stable order (it is part of the cached prompt prefix). */
  toModelTools(filter?: (t: BoundTool) => boolean): ModelToolDef[] {
    // The whole list is asked for on every model call and never changes (the registry is fixed once built):
    // sorted once. Callers only read it.
    if (!filter) {
      this.all ??= this.sorted(this.list());
      return this.all;
    }
    return this.sorted(this.list().filter(filter));
  }

  private all: ModelToolDef[] | undefined;

  private sorted(tools: BoundTool[]): ModelToolDef[] {
    return tools.sort((a, b) => a.name.localeCompare(b.name)).map(modelToolDef);
  }
}

/**
 * A bound tool's definition never changes, and converting its zod schema to JSON Schema was the largest part
 * of a turn's own CPU (every model call, every tool): made once per tool (issue 14). Callers only read it.
 */
const defs = new WeakMap<BoundTool, ModelToolDef>();

function modelToolDef(t: BoundTool): ModelToolDef {
  const known = defs.get(t);
  if (known) return known;
  const schema = z.toJSONSchema(t.input, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete schema.$schema;
  const def = { name: t.name, description: `[${t.kind}] ${t.description}`, input_schema: schema };
  defs.set(t, def);
  return def;
}

/** Binds a group of tools that share dependencies (their schemas differ, hence the loose element type). */
// biome-ignore lint/suspicious/noExplicitAny: a list of tools with different input schemas
export function bindAll<D>(tools: ReadonlyArray<Tool<any, D>>, deps: D): BoundTool[] {
  return tools.map((t) => bindTool(t, deps));
}

import type { ModelToolDef } from '../tools/registry';

/** Message shapes follow the Anthropic Messages API (our only model vendor), kept as plain data. */
export type ModelContent =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; tool_use_id: string; content: string; is_error?: boolean };

export interface ModelMessage {
  role: 'user' | 'assistant';
  content: ModelContent[];
}

export interface ModelRequest {
  /** Stable part first (cached: base instructions + tools), then the per-run dynamic part. */
  system: { stable: string; dynamic: string };
  tools: ModelToolDef[];
  messages: ModelMessage[];
  maxTokens?: number;
  /** 'main' for planning and answers, 'helper' for summaries, compaction and reviews. */
  tier?: 'main' | 'helper';
}

export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

export interface ModelResponse {
  content: ModelContent[];
  stopReason: string;
  usage: ModelUsage;
  model: string;
}

export interface Model {
  readonly name: string;
  complete(req: ModelRequest): Promise<ModelResponse>;
}

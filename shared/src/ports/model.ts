/** Message shapes follow the Anthropic Messages API (our only model vendor), kept as plain data. */
export type ModelContent =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; tool_use_id: string; content: string; is_error?: boolean }
  /** A photo a tenant texted, sent inline (the provider's URL is not reachable by the Messages API). */
  | { type: 'image'; source: { type: 'base64'; media_type: string; data: string } }
  | ServerContent;

/**
 * A server tool's call and result (web_search / web_fetch, run by the Messages API itself). They are kept
 * verbatim and sent back in the assistant message that made them, as the API requires; `content` is opaque
 * (it carries encrypted search results the API must get back unchanged).
 */
export type ServerContent =
  | { type: 'server_tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'web_search_tool_result' | 'web_fetch_tool_result'; tool_use_id: string; content: unknown };

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
  /**
   * Force the answer through one of `tools` (Messages API `tool_choice: {type:'tool'}`): structured output
   * for callers that want data, not prose (research's planner, atomizer, drafts). Absent = the model chooses.
   */
  toolChoice?: { tool: string };
  /**
   * Called with each piece of answer text as the model writes it (issue 19: token streaming to the PWA).
   * Best-effort and display-only: the response returned is still the whole message, and that is what the
   * run stores. A sink that throws is ignored, so a gone browser never fails the turn.
   */
  onText?: (delta: string) => void;
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

export function isServerContent(c: ModelContent): c is ServerContent {
  return (
    c.type === 'server_tool_use' || c.type === 'web_search_tool_result' || c.type === 'web_fetch_tool_result'
  );
}

/** A tool as the model is told about it (name, description, JSON schema of its input). */
export interface ModelToolDef {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

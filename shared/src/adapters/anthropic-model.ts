import type Anthropic from '@anthropic-ai/sdk';
import { UpstreamError } from '../errors';
import type { Model, ModelContent, ModelRequest, ModelResponse, ModelUsage } from '../ports/model';

export interface AnthropicModelOptions {
  apiKey: string;
  baseURL?: string;
  model: string;
  helperModel: string;
  maxRetries?: number;
  /**
   * Anthropic-defined server tools (web_search_20250305, web_fetch_20250910 …) sent as they are, `type` and
   * all, to the main tier only (helpers summarise and review; they have no use for the web).
   */
  serverTools?: ReadonlyArray<{ type: string; name: string }>;
}

/** A server tool may pause a long turn (`pause_turn`); we send the turn back to let it finish, this often. */
const MAX_PAUSE_CONTINUATIONS = 3;

/**
 * Claude through the official SDK. The SDK retries 408/409/429/5xx (incl. 529 overloaded) with
 * exponential backoff and honours retry-after; we set the retry count. Prompt caching: one breakpoint on
 * the last tool and one on the stable system block, so tools + base instructions are read from the cache
 * after the first call (the prefix must exceed the model's minimum cacheable length to be cached at all).
 */
export function anthropicModel(opts: AnthropicModelOptions): Model {
  // The SDK (about 370 KB) is imported on the first call, not at cold start (issue 16: the worker's init);
  // a failed import is not kept, so the next call tries again.
  let sdk: Promise<{ Anthropic: typeof Anthropic; client: Anthropic }> | undefined;
  const load = () => {
    sdk ??= import('@anthropic-ai/sdk').then(({ default: Sdk }) => ({
      Anthropic: Sdk,
      client: new Sdk({
        apiKey: opts.apiKey,
        baseURL: opts.baseURL,
        maxRetries: opts.maxRetries ?? 4,
        timeout: 60_000,
      }),
    }));
    sdk.catch(() => {
      sdk = undefined;
    });
    return sdk;
  };
  return {
    name: opts.model,
    async complete(req: ModelRequest): Promise<ModelResponse> {
      const model = req.tier === 'helper' ? opts.helperModel : opts.model;
      const tools = [
        ...req.tools.map((t) => ({
          name: t.name,
          description: t.description,
          input_schema: t.input_schema as Anthropic.Tool.InputSchema,
        })),
        ...(req.tier === 'helper' ? [] : (opts.serverTools ?? [])),
      ].map((t, i, all) =>
        // One cache breakpoint on the last tool, whichever kind it is: the whole tool list is the cached prefix.
        i === all.length - 1 ? { ...t, cache_control: { type: 'ephemeral' as const } } : t,
      ) as Anthropic.ToolUnion[];
      const messages = [...req.messages] as Anthropic.MessageParam[];
      const { Anthropic: Sdk, client } = await load().catch((e: unknown) => {
        throw new UpstreamError('Model client failed to load', {
          retryable: true,
          code: 'model_unavailable',
          cause: e,
        });
      });
      try {
        const content: ModelContent[] = [];
        const usage: ModelUsage = {
          inputTokens: 0,
          outputTokens: 0,
          cacheReadTokens: 0,
          cacheWriteTokens: 0,
        };
        for (let pass = 0; ; pass++) {
          const res = await send(client, req.onText, {
            model,
            max_tokens: req.maxTokens ?? 1024,
            system: [
              { type: 'text', text: req.system.stable, cache_control: { type: 'ephemeral' } },
              ...(req.system.dynamic ? [{ type: 'text' as const, text: req.system.dynamic }] : []),
            ],
            tools,
            messages,
            // One tool use of exactly this tool: the caller reads its input as data.
            ...(req.toolChoice
              ? { tool_choice: { type: 'tool', name: req.toolChoice.tool, disable_parallel_tool_use: true } }
              : {}),
          });
          content.push(...toModelContent(res.content));
          addUsage(usage, res.usage);
          if (res.stop_reason !== 'pause_turn' || pass >= MAX_PAUSE_CONTINUATIONS)
            return { content, stopReason: res.stop_reason ?? 'end_turn', model: res.model, usage };
          // Paused mid-turn by a long server-tool run: send the partial turn back so the model continues it.
          messages.push({ role: 'assistant', content: res.content as Anthropic.ContentBlockParam[] });
        }
      } catch (e) {
        const status = e instanceof Sdk.APIError ? e.status : undefined;
        // 4xx other than rate limits is our request's fault: not retryable, but still a model failure.
        throw new UpstreamError(
          `Model call failed${status ? ` (${status})` : ''}: ${e instanceof Error ? e.message : String(e)}`,
          {
            retryable: status === undefined || status === 429 || status >= 500,
            code: 'model_unavailable',
            cause: e,
          },
        );
      }
    },
  };
}

/**
 * One Messages API call. With a text sink it streams (`stream: true`, the SDK's MessageStream accumulating the
 * SSE events) and hands each text delta on as it arrives; the result is the same final message either way.
 * The SDK retries a stream's opening request like any other; once text has flowed a failure is not retried.
 */
async function send(
  client: Anthropic,
  onText: ((delta: string) => void) | undefined,
  params: Anthropic.MessageCreateParamsNonStreaming,
): Promise<Anthropic.Message> {
  if (!onText) return client.messages.create(params);
  const stream = client.messages.stream(params);
  stream.on('text', (delta) => {
    try {
      onText(delta);
    } catch {
      // Display only: a sink that fails (the browser went away) must not fail the model call.
    }
  });
  return stream.finalMessage();
}

/** Our content blocks from the API's; server-tool blocks are kept (minus `caller`) to be sent back later. */
export function toModelContent(blocks: Anthropic.ContentBlock[]): ModelContent[] {
  const content: ModelContent[] = [];
  for (const block of blocks) {
    if (block.type === 'text') content.push({ type: 'text', text: block.text });
    else if (block.type === 'tool_use') {
      content.push({
        type: 'tool_use',
        id: block.id,
        name: block.name,
        input: (block.input ?? {}) as Record<string, unknown>,
      });
    } else if (block.type === 'server_tool_use') {
      content.push({
        type: 'server_tool_use',
        id: block.id,
        name: block.name,
        input: (block.input ?? {}) as Record<string, unknown>,
      });
    } else if (block.type === 'web_search_tool_result' || block.type === 'web_fetch_tool_result') {
      content.push({ type: block.type, tool_use_id: block.tool_use_id, content: block.content });
    }
  }
  return content;
}

function addUsage(into: ModelUsage, u: Anthropic.Usage) {
  into.inputTokens += u.input_tokens;
  into.outputTokens += u.output_tokens;
  into.cacheReadTokens += u.cache_read_input_tokens ?? 0;
  into.cacheWriteTokens += u.cache_creation_input_tokens ?? 0;
}

export { costUsd } from '../domain/model-pricing';

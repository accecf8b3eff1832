import Anthropic from '@anthropic-ai/sdk';
import { UpstreamError } from '../errors';
import type { Model, ModelContent, ModelRequest, ModelResponse } from '../ports/model';

export interface AnthropicModelOptions {
  apiKey: string;
  baseURL?: string;
  model: string;
  helperModel: string;
  maxRetries?: number;
}

/**
 * Claude through the official SDK. The SDK retries 408/409/429/5xx (incl. 529 overloaded) with
 * exponential backoff and honours retry-after; we set the retry count. Prompt caching: one breakpoint on
 * the last tool and one on the stable system block, so tools + base instructions are read from the cache
 * after the first call (the prefix must exceed the model's minimum cacheable length to be cached at all).
 */
export function anthropicModel(opts: AnthropicModelOptions): Model {
  const client = new Anthropic({
    apiKey: opts.apiKey,
    baseURL: opts.baseURL,
    maxRetries: opts.maxRetries ?? 4,
    timeout: 60_000,
  });
  return {
    name: opts.model,
    async complete(req: ModelRequest): Promise<ModelResponse> {
      const model = req.tier === 'helper' ? opts.helperModel : opts.model;
      const tools = req.tools.map((t, i) => ({
        name: t.name,
        description: t.description,
        input_schema: t.input_schema as Anthropic.Tool.InputSchema,
        ...(i === req.tools.length - 1 ? { cache_control: { type: 'ephemeral' as const } } : {}),
      }));
      try {
        const res = await client.messages.create({
          model,
          max_tokens: req.maxTokens ?? 1024,
          system: [
            { type: 'text', text: req.system.stable, cache_control: { type: 'ephemeral' } },
            ...(req.system.dynamic ? [{ type: 'text' as const, text: req.system.dynamic }] : []),
          ],
          tools,
          messages: req.messages as Anthropic.MessageParam[],
        });
        const content: ModelContent[] = [];
        for (const block of res.content) {
          if (block.type === 'text') content.push({ type: 'text', text: block.text });
          else if (block.type === 'tool_use') {
            content.push({
              type: 'tool_use',
              id: block.id,
              name: block.name,
              input: (block.input ?? {}) as Record<string, unknown>,
            });
          }
        }
        return {
          content,
          stopReason: res.stop_reason ?? 'end_turn',
          model: res.model,
          usage: {
            inputTokens: res.usage.input_tokens,
            outputTokens: res.usage.output_tokens,
            cacheReadTokens: res.usage.cache_read_input_tokens ?? 0,
            cacheWriteTokens: res.usage.cache_creation_input_tokens ?? 0,
          },
        };
      } catch (e) {
        const status = e instanceof Anthropic.APIError ? e.status : undefined;
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

/** USD per million tokens (input, output, cache read, cache write); used for the per-run cost metric. */
const PRICES: Record<string, [number, number, number, number]> = {
  sonnet: [3, 15, 0.3, 3.75],
  haiku: [1, 5, 0.1, 1.25],
  opus: [15, 75, 1.5, 18.75],
};

export function costUsd(
  model: string,
  u: { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number },
) {
  const key = Object.keys(PRICES).find((k) => model.includes(k)) ?? 'sonnet';
  const [i, o, r, w] = PRICES[key] as [number, number, number, number];
  return (
    (u.inputTokens * i + u.outputTokens * o + u.cacheReadTokens * r + u.cacheWriteTokens * w) / 1_000_000
  );
}

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { modelState } from '../../shared/src/domain/model-lifecycle';
import { describeZodIssues } from '../../shared/src/errors';
import { SDK_TOOL_TYPES } from '../../shared/src/generated/anthropic-models';
import { type CacheAccounting, type PromptBlock, PromptCacheModel } from './anthropic-prompt-cache';
import {
  runServerTool,
  type ServerToolDef,
  type ServerToolName,
  type ServerToolResult,
  type ServerToolUse,
} from './anthropic-server-tools';

/**
 * A local Anthropic Messages API for tests and `npm start`: the real `@anthropic-ai/sdk` talks to it through
 * `baseURL`. Answers come from a queue of scripted turns (or a deterministic default), in JSON or in the SSE
 * event sequence the SDK's stream helpers parse. It checks what the real API checks where our code could get it
 * wrong (headers, body shape, tool_use/tool_result pairing, cache breakpoints, models the installed SDK does
 * not list or lists as past end of life on the emulator's clock, server tools without their versioned `type`),
 * models prompt caching in `usage` and the web_search / web_fetch server tools (see anthropic-server-tools.ts),
 * and fails on demand (429/529/500) so retry logic meets real status codes and headers.
 *
 *   const emu = await startAnthropicEmulator();
 *   const client = new Anthropic({ apiKey: 'test', baseURL: emu.url });
 *   emu.script([
 *     turn.toolUse('search_contacts', { query: 'Maria' }),
 *     (req) => `Found ${JSON.parse(lastToolResults(req)[0]!.content).name}`,
 *   ]);
 *   // … run the agent; then assert on emu.requests[i].params / .reply.usage, and emu.stop() in afterAll.
 */

/** API versions are dates; newer SDKs send newer ones, so accept any well-formed date since the first. */
const FIRST_API_VERSION = '2023-01-01';
const MAX_BODY_BYTES = 32 * 1024 * 1024;
const MAX_CACHE_BREAKPOINTS = 4;

export const DEFAULT_REPLY_TEXT =
  'This is the Anthropic emulator. No scripted turn was queued for this request.';

// ---- request schema (zod): strict where our agent could build a wrong request, loose elsewhere ----

const cacheControl = z.object({ type: z.literal('ephemeral'), ttl: z.enum(['5m', '1h']).optional() });
const textBlock = z.looseObject({
  type: z.literal('text'),
  text: z.string(),
  cache_control: cacheControl.nullish(),
});
const toolUseBlock = z.looseObject({
  type: z.literal('tool_use'),
  id: z.string().min(1),
  name: z.string().min(1),
  input: z.record(z.string(), z.unknown()),
  cache_control: cacheControl.nullish(),
});
const toolResultBlock = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string().min(1),
  content: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]).optional(),
  is_error: z.boolean().optional(),
  cache_control: cacheControl.nullish(),
});
const serverToolUseBlock = z.looseObject({
  type: z.literal('server_tool_use'),
  id: z.string().min(1),
  name: z.string().min(1),
  input: z.record(z.string(), z.unknown()),
  cache_control: cacheControl.nullish(),
});
const serverResultBlock = <T extends string>(type: T) =>
  z.looseObject({
    type: z.literal(type),
    tool_use_id: z.string().min(1),
    content: z.unknown(),
    cache_control: cacheControl.nullish(),
  });
/** Block types we accept without looking inside (images, documents, thinking…). */
const opaqueBlock = <T extends string>(type: T) =>
  z.looseObject({ type: z.literal(type), cache_control: cacheControl.nullish() });
const contentBlock = z.discriminatedUnion('type', [
  textBlock,
  toolUseBlock,
  toolResultBlock,
  opaqueBlock('image'),
  opaqueBlock('document'),
  opaqueBlock('search_result'),
  opaqueBlock('thinking'),
  opaqueBlock('redacted_thinking'),
  serverToolUseBlock,
  serverResultBlock('web_search_tool_result'),
  serverResultBlock('web_fetch_tool_result'),
]);
const message = z.object({
  role: z.enum(['user', 'assistant', 'system']),
  content: z.union([z.string(), z.array(contentBlock)]),
});
const customTool = z.looseObject({
  type: z.literal('custom').optional(),
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,128}$/, 'must match ^[a-zA-Z0-9_-]{1,128}$'),
  description: z.string().optional(),
  input_schema: z.looseObject({ type: z.literal('object') }),
  cache_control: cacheControl.nullish(),
});
/** Server tools (web_search_20250305, …) are versioned types with no input_schema; the SDK lists the types. */
const serverTool = z
  .looseObject({
    type: z.string().refine((t) => SDK_TOOL_TYPES.includes(t), {
      message: `unknown tool type; expected one of ${SDK_TOOL_TYPES.join(', ')}`,
    }),
    name: z.string().min(1),
    allowed_domains: z.array(z.string()).nullish(),
    blocked_domains: z.array(z.string()).nullish(),
    max_uses: z.number().int().min(1).nullish(),
    cache_control: cacheControl.nullish(),
  })
  .refine((t) => !(t.allowed_domains?.length && t.blocked_domains?.length), {
    message: 'Cannot specify both allowed_domains and blocked_domains',
  });
const SERVER_TOOL_NAMES = new Set(['web_search', 'web_fetch', 'code_execution']);
const tool = z.looseObject({ type: z.string().optional() }).transform((t, ctx) => {
  if (t.type === undefined && SERVER_TOOL_NAMES.has(String(t.name)) && !('input_schema' in t)) {
    // What our adapter did before: a server tool rebuilt as {name, description} loses its type.
    ctx.addIssue({
      code: 'custom',
      message: `${String(t.name)} is a server tool and needs its versioned \`type\` (e.g. ${t.name}_${t.name === 'web_fetch' ? '20250910' : '20250305'})`,
    });
    return z.NEVER;
  }
  const schema = t.type === undefined || t.type === 'custom' ? customTool : serverTool;
  const parsed = schema.safeParse(t);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues)
    ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
  return z.NEVER;
});

const countTokensBody = z.looseObject({
  model: z.string().min(1),
  messages: z.array(message).min(1),
  system: z.union([z.string(), z.array(textBlock)]).optional(),
  tools: z.array(tool).optional(),
  tool_choice: z
    .looseObject({ type: z.enum(['auto', 'any', 'tool', 'none']), name: z.string().optional() })
    .optional(),
  cache_control: cacheControl.nullish(),
});
const messagesBody = countTokensBody.extend({
  max_tokens: z.number().int().min(1),
  stream: z.boolean().optional(),
  temperature: z.number().min(0).max(1).optional(),
});

export type MessagesRequest = z.infer<typeof messagesBody>;
type CountTokensRequest = z.infer<typeof countTokensBody>;
type ContentBlockParam = z.infer<typeof contentBlock>;

// ---- scripted turns ----

export type ReplyBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; name: string; input: Record<string, unknown>; id?: string }
  /** The model calls a server tool: the emulator runs it and emits the call and its result block. */
  | { type: 'server_tool_use'; name: ServerToolName; input: Record<string, unknown>; id?: string };

export type StopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence' | 'refusal' | 'pause_turn';

export interface TurnReply {
  content: ReplyBlock[];
  /** Defaults to `tool_use` when the turn calls a tool, else `end_turn`. */
  stop_reason?: StopReason;
}

/** What a scripted function learns about the call it answers (besides the request itself). */
export interface TurnInfo {
  /** 0-based index of this call among the successful /v1/messages calls since start or reset. */
  callIndex: number;
}

export type ScriptedTurn =
  | string
  | TurnReply
  | ((req: MessagesRequest, info: TurnInfo) => string | TurnReply);

/** Shorthands for scripts: `turn.text('Done')`, `turn.toolUse('search_contacts', { query: 'Maria' })`. */
export const turn = {
  text: (text: string): TurnReply => ({ content: [{ type: 'text', text }] }),
  toolUse: (
    name: string,
    input: Record<string, unknown>,
    opts: { id?: string; text?: string } = {},
  ): TurnReply => ({
    content: [
      ...(opts.text ? [{ type: 'text' as const, text: opts.text }] : []),
      { type: 'tool_use' as const, name, input, ...(opts.id ? { id: opts.id } : {}) },
    ],
  }),
  webSearch: (query: string): ReplyBlock => ({
    type: 'server_tool_use',
    name: 'web_search',
    input: { query },
  }),
  webFetch: (url: string): ReplyBlock => ({ type: 'server_tool_use', name: 'web_fetch', input: { url } }),
};

export interface ToolResultView {
  tool_use_id: string;
  /** The tool's name, looked up from the tool_use block it answers. */
  name: string | undefined;
  /** The result's text (text parts joined); tests usually JSON.parse it. */
  content: string;
  is_error: boolean;
}

/** The tool results in the request's last user message: what a scripted function usually answers to. */
export function lastToolResults(req: MessagesRequest): ToolResultView[] {
  const messages = req.messages;
  const last = messages[messages.length - 1];
  if (last?.role !== 'user' || typeof last.content === 'string') return [];
  const names = new Map<string, string>();
  const previous = messages[messages.length - 2];
  if (previous && typeof previous.content !== 'string') {
    for (const b of previous.content) if (b.type === 'tool_use') names.set(b.id, b.name);
  }
  return last.content.flatMap((b) =>
    b.type === 'tool_result'
      ? [
          {
            tool_use_id: b.tool_use_id,
            name: names.get(b.tool_use_id),
            content:
              typeof b.content === 'string'
                ? b.content
                : (b.content ?? []).map((p) => (typeof p.text === 'string' ? p.text : '')).join(''),
            is_error: b.is_error ?? false,
          },
        ]
      : [],
  );
}

// ---- the emulator ----

export interface AnthropicEmulatorOptions {
  port?: number;
  /** When set, requests must carry exactly this key; otherwise any non-empty key is accepted. */
  apiKey?: string;
  /** Answer used when the script queue is empty. */
  defaultReply?: ScriptedTurn;
  /** Delay before each non-streamed answer and between streamed events (default 0: an instant model). */
  latencyMs?: number;
  /**
   * Clock for cache lifetimes and model end-of-life dates, so a test can step past the 5-minute TTL or a
   * retirement date instead of waiting for it.
   */
  now?: () => number;
}

export interface FailOptions {
  /** `retry-after` in seconds. Sent by default on 429 (1 s, as the real API does); tests pass a fraction. */
  retryAfterSeconds?: number;
  message?: string;
}

export interface Usage extends CacheAccounting {
  output_tokens: number;
  service_tier: 'standard';
  server_tool_use: { web_search_requests: number; web_fetch_requests: number } | null;
}

export interface EmittedMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: Array<
    | { type: 'text'; text: string }
    | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
    | (ServerToolUse & { caller: { type: 'direct' } })
    | (ServerToolResult & { caller: { type: 'direct' } })
  >;
  stop_reason: StopReason;
  stop_sequence: null;
  stop_details: null;
  container: null;
  usage: Usage;
}

export interface RecordedRequest {
  method: string;
  path: string;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** The parsed JSON body as sent (undefined when it was not JSON). */
  body: unknown;
  /** The validated body, for /v1/messages requests that passed validation. */
  params?: MessagesRequest;
  status: number;
  /** The message the emulator answered with (streamed or not). */
  reply?: EmittedMessage;
  at: number;
  /** When a streamed answer's first text_delta went out (ms since epoch): the model's "first token". */
  firstTextAt?: number;
}

export interface AnthropicEmulator {
  /** Base URL for the SDK: `new Anthropic({ baseURL: emu.url, apiKey })`. */
  url: string;
  stop(): Promise<void>;
  /** Appends turns to the queue; each successful /v1/messages call takes the next one. */
  script(turns: ScriptedTurn[]): void;
  /** Turns still queued. */
  readonly pending: number;
  readonly requests: readonly RecordedRequest[];
  /** The next `count` (default 1) API calls fail with `status` and an Anthropic-shaped error body. */
  failNext(status: number, count?: number, opts?: FailOptions): void;
  /** Clears the queue, pending failures, recorded requests, the prompt cache and the id counters. */
  reset(): void;
  /** Changes the delay between streamed events (and before a whole answer). */
  setLatency(ms: number): void;
  /**
   * A model that writes slowly: `msPerEvent` between streamed events, and an unstreamed answer waits as long as
   * its stream would have taken (its `firstTextAt` is when the stream would have sent the first text). 0 stops.
   */
  writeSlowly(msPerEvent: number): void;
}

interface ApiErrorReply {
  status: number;
  type: string;
  message: string;
  headers?: Record<string, string>;
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  405: 'invalid_request_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};
const ERROR_MESSAGES: Record<number, string> = {
  429: 'Number of request tokens has exceeded your per-minute rate limit',
  500: 'Internal server error',
  529: 'Overloaded',
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startAnthropicEmulator(
  opts: AnthropicEmulatorOptions = {},
): Promise<AnthropicEmulator> {
  let latencyMs = opts.latencyMs ?? 0;
  let writing = false;
  const cache = new PromptCacheModel(opts.now ?? Date.now);
  let queue: ScriptedTurn[] = [];
  let failures: Array<{ status: number } & FailOptions> = [];
  const requests: RecordedRequest[] = [];
  let seq = 0;
  let calls = 0;
  const nextId = (prefix: string) => `${prefix}_emu${String(++seq).padStart(6, '0')}`;

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      // A bug in the emulator itself: answer like the API would rather than hang the client.
      if (!res.headersSent) {
        sendError(
          res,
          { status: 500, type: 'api_error', message: `emulator: ${String(err)}` },
          nextId('req'),
        );
      } else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const record: RecordedRequest = {
      method: req.method ?? 'GET',
      path,
      headers: Object.fromEntries(
        Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]),
      ),
      body: undefined,
      status: 0,
      at: Date.now(),
    };
    requests.push(record);
    const fail = (e: ApiErrorReply) => {
      record.status = e.status;
      sendError(res, e, nextId('req'));
    };

    const raw = await readBody(req);
    let invalidJson: string | null = null;
    if (raw && raw.length > 0) {
      try {
        record.body = JSON.parse(raw);
      } catch (e) {
        invalidJson = (e as Error).message;
      }
    }

    const modelPath = path.match(/^\/v1\/models\/([^/]+)$/);
    if (modelPath && record.method === 'GET') {
      // GET /v1/models/{id} (the SDK's models.retrieve): what `npm run doctor` asks before trusting a model.
      const authError = checkHeaders(record.headers, opts.apiKey);
      if (authError) return fail(authError);
      const id = decodeURIComponent(modelPath[1]!);
      if (!served(id, (opts.now ?? Date.now)())) return fail(apiError(404, `model: ${id}`));
      record.status = 200;
      return sendJson(res, 200, { type: 'model', id, display_name: id, created_at: '2026-01-01T00:00:00Z' });
    }
    const route =
      path === '/v1/messages' ? 'messages' : path === '/v1/messages/count_tokens' ? 'count' : null;
    if (!route) return fail(apiError(404, `Not found: ${record.method} ${path}`));
    if (record.method !== 'POST')
      return fail(apiError(405, `Method ${record.method} not allowed on ${path}`));

    const authError = checkHeaders(record.headers, opts.apiKey);
    if (authError) return fail(authError);

    const failure = failures.shift();
    if (failure) return fail(injectedFailure(failure));

    if (raw === null)
      return fail(apiError(413, `Request exceeds the maximum size of ${MAX_BODY_BYTES} bytes`));
    if (invalidJson !== null)
      return fail(apiError(400, `There was an error parsing the body: ${invalidJson}`));

    const now = opts.now ?? Date.now;
    if (route === 'count') {
      const parsed = countTokensBody.safeParse(record.body ?? {});
      if (!parsed.success) return fail(apiError(400, describeZodIssues(parsed.error.issues)));
      if (!served(parsed.data.model, now())) return fail(apiError(404, `model: ${parsed.data.model}`));
      const problem = checkSemantics(parsed.data);
      if (problem) return fail(apiError(400, problem));
      record.status = 200;
      return sendJson(res, 200, { input_tokens: PromptCacheModel.countTokens(promptBlocks(parsed.data)) });
    }

    const parsed = messagesBody.safeParse(record.body ?? {});
    if (!parsed.success) return fail(apiError(400, describeZodIssues(parsed.error.issues)));
    const params = parsed.data;
    record.params = params;
    // The API answers 404 not_found_error "model: <name>" for a name it does not serve, retired ones included.
    if (!served(params.model, now())) return fail(apiError(404, `model: ${params.model}`));
    const problem = checkSemantics(params);
    if (problem) return fail(apiError(400, problem));

    const scripted = queue.shift() ?? opts.defaultReply ?? DEFAULT_REPLY_TEXT;
    let reply: TurnReply;
    try {
      reply = resolveTurn(scripted, params, { callIndex: calls });
    } catch (e) {
      // The test's own script threw or is inconsistent: fail loudly, and tell the SDK not to retry.
      return fail({
        status: 500,
        type: 'api_error',
        message: `anthropic emulator: scripted turn failed: ${(e as Error).message}`,
        headers: { 'x-should-retry': 'false' },
      });
    }
    calls++;

    const usage = cache.account(params.model, promptBlocks(params));
    const message = buildMessage(params, reply, usage, nextId);
    record.reply = message;
    record.status = 200;
    const requestId = nextId('req');
    if (params.stream)
      return streamMessage(res, message, requestId, latencyMs, () => {
        record.firstTextAt ??= Date.now();
      });
    if (writing) {
      // A model writing slowly takes as long whether or not the answer is streamed: the whole answer waits for
      // every event the stream would have sent; its first token is when the stream would have sent it.
      const events = streamEvents(message);
      const first = firstTextIndex(events);
      if (first >= 0) record.firstTextAt = Date.now() + first * latencyMs;
      await sleep(events.length * latencyMs);
    } else if (latencyMs) await sleep(latencyMs);
    sendJson(res, 200, message, { 'request-id': requestId });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve, reject) => {
        // The SDK keeps connections alive; close them or `close` waits for their idle timeout.
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
    script(turns) {
      queue.push(...turns);
    },
    get pending() {
      return queue.length;
    },
    get requests() {
      return requests;
    },
    failNext(status, count = 1, failOpts = {}) {
      if (!Number.isInteger(status) || status < 400 || status > 599) {
        throw new RangeError(`failNext expects an HTTP error status, got ${status}`);
      }
      for (let i = 0; i < count; i++) failures.push({ status, ...failOpts });
    },
    reset() {
      queue = [];
      failures = [];
      requests.length = 0;
      cache.clear();
      seq = 0;
      calls = 0;
    },
    setLatency(ms) {
      latencyMs = ms;
      writing = false;
    },
    writeSlowly(msPerEvent) {
      latencyMs = msPerEvent;
      writing = msPerEvent > 0;
    },
  };
}

// ---- helpers ----

/** Served: in the installed SDK's model list and not past its end-of-life date on the emulator's clock. */
function served(model: string, nowMs: number): boolean {
  const state = modelState(model, new Date(nowMs)).state;
  return state === 'current' || state === 'deprecated';
}

function apiError(status: number, message: string): ApiErrorReply {
  return { status, type: ERROR_TYPES[status] ?? 'api_error', message };
}

function injectedFailure(f: { status: number } & FailOptions): ApiErrorReply {
  const retryAfter = f.retryAfterSeconds ?? (f.status === 429 ? 1 : undefined);
  return {
    status: f.status,
    type: ERROR_TYPES[f.status] ?? (f.status >= 500 ? 'api_error' : 'invalid_request_error'),
    message: f.message ?? ERROR_MESSAGES[f.status] ?? `Injected error ${f.status}`,
    headers: retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) },
  };
}

/** The key arrives as `x-api-key` (curl, older SDKs) or `Authorization: Bearer` (SDK 1.x); both are checked. */
function checkHeaders(
  headers: Record<string, string>,
  expectedKey: string | undefined,
): ApiErrorReply | null {
  const bearer = headers.authorization?.match(/^Bearer\s+(.+)$/i)?.[1];
  const key = headers['x-api-key'] ?? bearer;
  if (!key) return apiError(401, 'x-api-key header is required');
  if (expectedKey !== undefined && key !== expectedKey) return apiError(401, 'invalid x-api-key');
  const version = headers['anthropic-version'];
  if (!version) return apiError(400, 'anthropic-version: header is required');
  if (!/^\d{4}-\d{2}-\d{2}$/.test(version) || version < FIRST_API_VERSION) {
    return apiError(400, `anthropic-version: invalid version "${version}"`);
  }
  return null;
}

/** Rules the real API enforces that a schema cannot express; the messages match the API's own wording. */
function checkSemantics(req: CountTokensRequest): string | null {
  const names = new Set<string>();
  for (const t of req.tools ?? []) {
    if (names.has(t.name)) return `tools: Tool names must be unique. Duplicate: ${t.name}`;
    names.add(t.name);
  }
  if (req.tool_choice?.type === 'tool' && !names.has(req.tool_choice.name ?? '')) {
    return `tool_choice: tool "${req.tool_choice.name}" is not in tools`;
  }

  const messages = req.messages;
  const seenToolUseIds = new Set<string>();
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    const isFinalAssistant = i === messages.length - 1 && m.role === 'assistant';
    if (typeof m.content === 'string') {
      if (m.content.length === 0 && !isFinalAssistant) {
        return `messages.${i}: all messages must have non-empty content except for the optional final assistant message`;
      }
      continue;
    }
    if (m.content.length === 0 && !isFinalAssistant) {
      return `messages.${i}: all messages must have non-empty content except for the optional final assistant message`;
    }
    for (let k = 0; k < m.content.length; k++) {
      const b = m.content[k]!;
      if (b.type === 'text' && b.text.length === 0) {
        return `messages.${i}.content.${k}.text: text content blocks must be non-empty`;
      }
      if (b.type === 'tool_use') {
        if (m.role !== 'assistant')
          return `messages.${i}.content.${k}: tool_use blocks may only appear in assistant messages`;
        if (seenToolUseIds.has(b.id))
          return `messages.${i}.content.${k}: tool_use ids must be unique: ${b.id}`;
        seenToolUseIds.add(b.id);
      }
      if (b.type === 'tool_result') {
        const prev = messages[i - 1];
        const answered =
          m.role === 'user' &&
          prev?.role === 'assistant' &&
          typeof prev.content !== 'string' &&
          prev.content.some((p) => p.type === 'tool_use' && p.id === b.tool_use_id);
        if (!answered) {
          return `messages.${i}.content.${k}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${b.tool_use_id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
        }
      }
    }
    const serverProblem = checkServerBlocks(m.role, m.content, i);
    if (serverProblem) return serverProblem;
    const toolUseIds = m.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []));
    if (m.role === 'assistant' && toolUseIds.length > 0) {
      const next = messages[i + 1];
      const answeredIds = new Set(
        next && typeof next.content !== 'string'
          ? next.content.flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : []))
          : [],
      );
      const missing = toolUseIds.filter((id) => !answeredIds.has(id));
      if (missing.length > 0) {
        return `messages.${i + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
      }
    }
  }

  const breakpoints = promptBlocks(req).filter((b) => b.breakpoint).length;
  const explicit = breakpoints - (req.cache_control ? 1 : 0);
  if (explicit > MAX_CACHE_BREAKPOINTS) {
    return `A maximum of ${MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found ${explicit}.`;
  }
  return null;
}

/**
 * A server tool's call and its result travel together in the assistant message that made the call (the API
 * ran it): a call without its result, or a result without its call, is refused as the API does.
 */
function checkServerBlocks(role: string, content: ContentBlockParam[], i: number): string | null {
  const calls = new Set<string>();
  for (const [k, b] of content.entries()) {
    if (b.type === 'server_tool_use') {
      if (role !== 'assistant')
        return `messages.${i}.content.${k}: server_tool_use blocks may only appear in assistant messages`;
      calls.add(b.id);
    }
    if (b.type === 'web_search_tool_result' || b.type === 'web_fetch_tool_result') {
      if (!calls.delete(b.tool_use_id))
        return `messages.${i}.content.${k}: ${b.type} block has no preceding server_tool_use with id ${b.tool_use_id}`;
    }
  }
  const [missing] = calls;
  return missing
    ? `messages.${i}: server_tool_use ${missing} has no result block after it in the same message`
    : null;
}

/** The prompt as the cache sees it: tools, then system, then each message's blocks, markers stripped. */
function promptBlocks(req: CountTokensRequest): PromptBlock[] {
  const blocks: PromptBlock[] = [];
  const push = (value: unknown, cc: { ttl?: '5m' | '1h' } | null | undefined) => {
    blocks.push({ text: canonical(value), ...(cc ? { breakpoint: { ttl: cc.ttl ?? '5m' } } : {}) });
  };
  for (const t of req.tools ?? []) push({ tool: withoutCacheControl(t) }, t.cache_control);
  if (typeof req.system === 'string') push({ system: req.system }, null);
  else for (const b of req.system ?? []) push({ system: withoutCacheControl(b) }, b.cache_control);
  for (const m of req.messages) {
    if (typeof m.content === 'string') push({ role: m.role, content: m.content }, null);
    else
      m.content.forEach((b: ContentBlockParam, k) => {
        // The role is part of the first block's bytes: the same text said by user or assistant is a different prompt.
        push(
          k === 0 ? { role: m.role, block: withoutCacheControl(b) } : { block: withoutCacheControl(b) },
          b.cache_control,
        );
      });
  }
  // Automatic caching: a request-level cache_control puts a breakpoint on the last block.
  const last = blocks[blocks.length - 1];
  if (req.cache_control && last) last.breakpoint = { ttl: req.cache_control.ttl ?? '5m' };
  return blocks;
}

function withoutCacheControl<T extends { cache_control?: unknown }>(value: T): Omit<T, 'cache_control'> {
  const { cache_control: _ignored, ...rest } = value;
  return rest;
}

/** JSON with sorted keys, so a client that reorders object keys still hits the cache (as key order is not content). */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}

function resolveTurn(turn: ScriptedTurn, req: MessagesRequest, info: TurnInfo): TurnReply {
  const value = typeof turn === 'function' ? turn(req, info) : turn;
  const reply = typeof value === 'string' ? { content: [{ type: 'text' as const, text: value }] } : value;
  if (reply.content.length === 0) throw new Error('a turn needs at least one content block');
  const declared = new Set((req.tools ?? []).map((t) => t.name));
  for (const b of reply.content) {
    if (b.type === 'server_tool_use' && !serverToolDef(req, b.name)) {
      throw new Error(`it calls server tool "${b.name}", which the request does not declare with a type`);
    }
    if (b.type === 'tool_use' && !declared.has(b.name)) {
      throw new Error(
        `it calls tool "${b.name}", which the request does not declare (declared: ${[...declared].join(', ') || 'none'})`,
      );
    }
  }
  return reply;
}

function serverToolDef(req: MessagesRequest, name: string): ServerToolDef | undefined {
  return (req.tools ?? []).find(
    (t): t is ServerToolDef & typeof t =>
      t.name === name && typeof t.type === 'string' && t.type !== 'custom',
  );
}

/** Applies max_tokens the way the model would run out: text is cut, a tool call that does not fit is dropped. */
function buildMessage(
  req: MessagesRequest,
  reply: TurnReply,
  cacheUsage: CacheAccounting,
  nextId: (prefix: string) => string,
): EmittedMessage {
  let budgetChars = req.max_tokens * 4;
  let truncated = false;
  const content: EmittedMessage['content'] = [];
  const serverUses = { web_search: 0, web_fetch: 0 };
  let context = canonical(req.messages);
  for (const b of reply.content) {
    if (budgetChars <= 0) {
      truncated = true;
      break;
    }
    if (b.type === 'server_tool_use') {
      const use: ServerToolUse = {
        type: 'server_tool_use',
        id: b.id ?? nextId('srvtoolu'),
        name: b.name,
        input: b.input,
      };
      const result = runServerTool(use, serverToolDef(req, b.name)!, serverUses[b.name], context);
      serverUses[b.name]++;
      context += canonical(result);
      content.push({ ...use, caller: { type: 'direct' } }, { ...result, caller: { type: 'direct' } });
      continue;
    }
    if (b.type === 'text') {
      const text = b.text.slice(0, budgetChars);
      truncated ||= text.length < b.text.length;
      budgetChars -= text.length;
      if (text.length > 0) content.push({ type: 'text', text });
    } else {
      const size = b.name.length + JSON.stringify(b.input).length;
      if (size > budgetChars) {
        truncated = true;
        break;
      }
      budgetChars -= size;
      content.push({ type: 'tool_use', id: b.id ?? nextId('toolu'), name: b.name, input: b.input });
    }
  }
  const outputChars = req.max_tokens * 4 - budgetChars;
  const stop_reason: StopReason = truncated
    ? 'max_tokens'
    : (reply.stop_reason ?? (content.some((c) => c.type === 'tool_use') ? 'tool_use' : 'end_turn'));
  return {
    id: nextId('msg'),
    type: 'message',
    role: 'assistant',
    model: req.model,
    content,
    stop_reason,
    stop_sequence: null,
    stop_details: null,
    container: null,
    usage: {
      ...cacheUsage,
      output_tokens: Math.max(1, Math.ceil(outputChars / 4)),
      service_tier: 'standard',
      server_tool_use:
        serverUses.web_search + serverUses.web_fetch > 0
          ? { web_search_requests: serverUses.web_search, web_fetch_requests: serverUses.web_fetch }
          : null,
    },
  };
}

/**
 * The SSE sequence of the real API: message_start (empty content, input usage), ping, then per block
 * content_block_start / *_delta… / content_block_stop, then message_delta (stop_reason, final usage) and
 * message_stop. Text and tool input arrive in several deltas, so the SDK's accumulation is really exercised.
 */
function streamEvents(message: EmittedMessage): Array<[string, { type: string } & Record<string, unknown>]> {
  const { usage } = message;
  const events: Array<[string, { type: string } & Record<string, unknown>]> = [];
  const add = (data: { type: string } & Record<string, unknown>) => events.push([data.type, data]);
  add({
    type: 'message_start',
    message: {
      ...message,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: 1 },
    },
  });
  add({ type: 'ping' });
  for (const [index, block] of message.content.entries()) {
    if (block.type === 'text') {
      add({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      for (const text of chunks(block.text, 24))
        add({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
    } else if (block.type === 'web_search_tool_result' || block.type === 'web_fetch_tool_result') {
      // Result blocks arrive whole in content_block_start, with no deltas.
      add({ type: 'content_block_start', index, content_block: block });
    } else {
      add({ type: 'content_block_start', index, content_block: { ...block, input: {} } });
      // The API opens tool input with an empty partial_json delta before the JSON text.
      for (const partial_json of ['', ...chunks(JSON.stringify(block.input), 16)])
        add({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } });
    }
    add({ type: 'content_block_stop', index });
  }
  add({
    type: 'message_delta',
    // The SDK's RawMessageDeltaEvent.Delta (vendor/anthropic/sdk-stream-events.d.ts.txt): all four, nulls included.
    delta: { stop_reason: message.stop_reason, stop_sequence: null, stop_details: null, container: null },
    usage: {
      output_tokens: usage.output_tokens,
      input_tokens: usage.input_tokens,
      cache_creation_input_tokens: usage.cache_creation_input_tokens,
      cache_read_input_tokens: usage.cache_read_input_tokens,
    },
  });
  add({ type: 'message_stop' });
  return events;
}

/** Where the first text_delta sits in the stream: the model's first token, `index × latency` after the start. */
function firstTextIndex(events: ReturnType<typeof streamEvents>): number {
  return events.findIndex(([, d]) => (d.delta as { type?: string } | undefined)?.type === 'text_delta');
}

async function streamMessage(
  res: ServerResponse,
  message: EmittedMessage,
  requestId: string,
  latencyMs: number,
  onText: () => void,
) {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'request-id': requestId,
  });
  for (const [event, data] of streamEvents(message)) {
    if ((data.delta as { type?: string } | undefined)?.type === 'text_delta') onText();
    res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    if (latencyMs) await sleep(latencyMs);
  }
  res.end();
}

function chunks(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length ? out : [''];
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

function sendError(res: ServerResponse, e: ApiErrorReply, requestId: string) {
  sendJson(
    res,
    e.status,
    { type: 'error', error: { type: e.type, message: e.message }, request_id: requestId },
    { 'request-id': requestId, ...e.headers },
  );
}

/** Reads the whole body, or returns null once it passes the API's size limit. */
async function readBody(req: IncomingMessage): Promise<string | null> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return null;
    parts.push(chunk as Buffer);
  }
  return Buffer.concat(parts).toString('utf8');
}

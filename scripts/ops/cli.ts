import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { isAppError } from '../../shared/src/errors';
import { deleteConversation } from '../../shared/src/use-cases/delete-conversation';
import { exportConversation } from '../../shared/src/use-cases/export-conversation';
import { formatAlarmTest, testAlarmPush } from './alarm';
import { pendingApprovals } from './approvals';
import { buildOpsContext, type OpsContext, resolveOpsEnv } from './context';
import { listDeadLetters, replayDeadLetters } from './dlq';
import { OpsUsageError } from './errors';
import { formatApprovals, formatDeadLetters, formatReplay, formatTrace } from './format';
import { traceEvent } from './trace';

export const USAGE = `npm run ops -- <command> [options]

  dlq:list [--limit N]               dead letters (peeked, left in place) with their reason and ledger status
  dlq:replay [--limit N] [--fallback] move dead letters back to the events queue (SQS message move on AWS;
                                     receive → send → delete where message move is unavailable, or with --fallback)
  approvals:pending [--window N]     cards waiting for a decision, oldest first (N most recent conversations)
  event:trace <eventId>              ledger → related events → runs and steps → cards → audit → sends
  conversation:export <id> [--out F] one JSON file (messages, cards, runs, audit, facts, media references)
  conversation:delete <id> --confirm <id>
                                     erase the conversation and all it holds, leaving a tombstone (who, when,
                                     counts); the memory repository's history is not rewritten
  alarm:test [--state ALARM|OK]      a test alarm (or its recovery) pushed to the admins' devices, through the
                                     alarm function's use case (needs VAPID_PUBLIC_KEY / VAPID_PRIVATE_KEY)

  --json prints the result as JSON. Settings: TABLE_NAME, EVENTS_QUEUE_URL, DLQ_URL, AWS_REGION (and
  DYNAMODB_ENDPOINT / SQS_ENDPOINT locally); without TABLE_NAME, .local/runtime.json from npm start.`;

export interface OpsIo {
  env: Record<string, string | undefined>;
  out: (text: string) => void;
  err: (text: string) => void;
  clock?: () => Date;
  runtimePath?: string;
  /** Who runs the command, written into exports. */
  operator?: string;
}

const options = {
  limit: { type: 'string' },
  window: { type: 'string' },
  out: { type: 'string' },
  json: { type: 'boolean' },
  fallback: { type: 'boolean' },
  state: { type: 'string' },
  confirm: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Runs one operator command; returns the exit code (0 ok, 1 failed, 2 bad input). */
export async function runOps(argv: string[], io: OpsIo): Promise<number> {
  let ctx: OpsContext | undefined;
  try {
    const { values, positionals } = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
    const [command, ...rest] = positionals;
    if (values.help || !command || command === 'help') {
      io.out(USAGE);
      return command || values.help ? 0 : 2;
    }
    const handler = COMMANDS[command];
    if (!handler) throw new OpsUsageError(`Unknown command "${command}".\n\n${USAGE}`);
    ctx = buildOpsContext(resolveOpsEnv(io.env, io.runtimePath), io.clock);
    await handler(ctx, { values, rest, io });
    return 0;
  } catch (e) {
    if (e instanceof OpsUsageError || isParseArgsError(e)) {
      io.err(`ops: ${(e as Error).message}`);
      return 2;
    }
    if (isAppError(e) && e.status < 500) {
      io.err(`ops: ${e.message}`);
      return 2;
    }
    io.err(`ops: failed: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  } finally {
    ctx?.close();
  }
}

function isParseArgsError(e: unknown): boolean {
  const code = (e as { code?: string })?.code ?? '';
  return code.startsWith('ERR_PARSE_ARGS');
}

interface Invocation {
  values: {
    limit?: string;
    window?: string;
    out?: string;
    json?: boolean;
    fallback?: boolean;
    state?: string;
    confirm?: string;
  };
  rest: string[];
  io: OpsIo;
}
type Command = (ctx: OpsContext, inv: Invocation) => Promise<void>;

const COMMANDS: Record<string, Command> = {
  'dlq:list': async (ctx, { values, rest, io }) => {
    noArguments('dlq:list', rest);
    const res = await listDeadLetters(ctx, count('--limit', values.limit, 20, 1000));
    io.out(values.json ? json(res) : formatDeadLetters(res));
  },
  'dlq:replay': async (ctx, { values, rest, io }) => {
    noArguments('dlq:replay', rest);
    const res = await replayDeadLetters(ctx, {
      limit: count('--limit', values.limit, 100, 10_000),
      forceFallback: values.fallback === true,
    });
    io.out(values.json ? json(res) : formatReplay(res));
  },
  'approvals:pending': async (ctx, { values, rest, io }) => {
    noArguments('approvals:pending', rest);
    const res = await pendingApprovals(ctx, count('--window', values.window, 200, 1000));
    io.out(values.json ? json(res) : formatApprovals(res));
  },
  'event:trace': async (ctx, { values, rest, io }) => {
    const id = oneArgument('event:trace', '<eventId>', rest);
    const res = await traceEvent(ctx, id);
    io.out(values.json ? json(res) : formatTrace(res));
  },
  'conversation:export': async (ctx, { values, rest, io }) => {
    const id = oneArgument('conversation:export', '<conversationId>', rest);
    const file = await exportConversation(ctx, {
      conversationId: id,
      exportedBy: `ops:${io.operator ?? 'operator'}`,
    });
    if (values.out) {
      writeFileSync(values.out, `${json(file)}\n`, { mode: 0o600 });
      io.out(
        `Wrote ${values.out}: ${Object.entries(file.counts)
          .map(([k, v]) => `${v} ${k}`)
          .join(', ')}`,
      );
    } else io.out(json(file));
  },
};

COMMANDS['conversation:delete'] = async (ctx, { values, rest, io }) => {
  const id = oneArgument('conversation:delete', '<conversationId>', rest);
  if (values.confirm === undefined)
    throw new OpsUsageError(`conversation:delete erases for good: add --confirm ${id} to go ahead`);
  const tombstone = await deleteConversation(ctx, {
    conversationId: id,
    confirm: values.confirm,
    deletedBy: `ops:${io.operator ?? 'operator'}`,
  });
  if (values.json) return io.out(json(tombstone));
  const erased = Object.entries(tombstone.erased ?? {})
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${n} ${k}`)
    .join(', ');
  io.out(
    `Deleted ${id} (by ${tombstone.deletedBy} at ${tombstone.deletedAt}): ${erased || 'nothing left to erase'}. A tombstone remains; the memory repository's history is not rewritten.`,
  );
};

COMMANDS['alarm:test'] = async (ctx, { values, rest, io }) => {
  noArguments('alarm:test', rest);
  const state = values.state ?? 'ALARM';
  if (state !== 'ALARM' && state !== 'OK')
    throw new OpsUsageError(`--state must be ALARM or OK (got "${state}")`);
  const res = await testAlarmPush(ctx, state);
  io.out(values.json ? json(res) : formatAlarmTest(res));
};

const json = (v: unknown) => JSON.stringify(v, null, 2);

function count(flag: string, raw: string | undefined, def: number, max: number): number {
  if (raw === undefined) return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > max)
    throw new OpsUsageError(`${flag} must be a whole number from 1 to ${max} (got "${raw}")`);
  return n;
}

function noArguments(command: string, rest: string[]) {
  if (rest.length) throw new OpsUsageError(`${command} takes no arguments (got "${rest.join(' ')}")`);
}

function oneArgument(command: string, name: string, rest: string[]): string {
  if (rest.length !== 1 || !rest[0]?.trim())
    throw new OpsUsageError(`${command} needs exactly one ${name} (got ${rest.length})`);
  return rest[0].trim();
}

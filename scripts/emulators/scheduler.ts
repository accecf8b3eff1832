import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DateTime } from 'luxon';

/**
 * A local Amazon EventBridge Scheduler (API 2021-06-30, rest-json) for one-time schedules: CreateSchedule,
 * GetSchedule, DeleteSchedule, CreateScheduleGroup and GetScheduleGroup, with the service's constraints
 * (test/contracts/vendor/aws-scheduler/) and its error shape (`x-amzn-ErrorType` + `{ Message }`). The
 * clock is injectable: tests call `advance(ms)` and every schedule that falls due is delivered to its
 * target at once, instead of waiting. Only `at()` expressions fire; rate()/cron() are refused with a
 * message that says so (we never create them).
 */
export interface SchedulerEmulatorOptions {
  port?: number;
  region?: string;
  accountId?: string;
  /** The base clock (default: the system's); `advance()` moves the emulator ahead of it. */
  now?: () => Date;
  /** Sends a fired schedule's Input to its target (the local stack: SQS SendMessage to the queue). */
  deliver: (targetArn: string, input: string) => Promise<void>;
  /** Real-time checks for due schedules, in ms (default 1000; 0 turns them off: tests advance by hand). */
  tickMs?: number;
}

export interface EmulatedSchedule {
  name: string;
  groupName: string;
  arn: string;
  expression: string;
  timezone: string;
  fireAt: Date;
  state: 'ENABLED' | 'DISABLED';
  actionAfterCompletion: 'NONE' | 'DELETE';
  target: { Arn: string; RoleArn: string; Input?: string; [k: string]: unknown };
  flexibleTimeWindow: { Mode: string; MaximumWindowInMinutes?: number };
  description?: string;
  created: Date;
  fired?: Date;
}

export interface SchedulerEmulator {
  url: string;
  now(): Date;
  /** Moves the clock forward and delivers everything that fell due; resolves with how many fired. */
  advance(ms: number): Promise<number>;
  fireDue(): Promise<number>;
  schedules(): EmulatedSchedule[];
  deliveries: Array<{ name: string; targetArn: string; input: string; at: Date; error?: string }>;
  stop(): Promise<void>;
}

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

const NAME = /^[0-9a-zA-Z-_.]+$/;
const CLIENT_TOKEN = /^[a-zA-Z0-9-_]+$/;
const ROLE_ARN = /^arn:aws(-[a-z]+)?:iam::\d{12}:role\/[\w+=,.@/-]+$/;
const AT = /^at\((\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\)$/;

const invalid = (message: string) => new ApiError(400, 'ValidationException', message);

/** The service's wording for a failed member constraint. */
function constraint(value: unknown, member: string, rule: string) {
  return invalid(
    `1 validation error detected: Value '${String(value)}' at '${member}' failed to satisfy constraint: ${rule}`,
  );
}

function checkName(value: unknown, member: string) {
  if (typeof value !== 'string' || value.length < 1 || value.length > 64)
    throw constraint(value, member, 'Member must have length between 1 and 64');
  if (!NAME.test(value))
    throw constraint(value, member, 'Member must satisfy regular expression pattern: [0-9a-zA-Z-_.]+');
}

/** Parses `at(yyyy-mm-ddThh:mm:ss)` in the schedule's time zone; a date that does not exist is refused. */
export function parseAtExpression(expression: string, timezone: string): Date {
  if (/^(rate|cron)\(/.test(expression))
    throw invalid(`This emulator supports one-time at() schedules only, not ${expression}.`);
  const m = expression.match(AT);
  if (!m) throw invalid(`Invalid Schedule Expression ${expression}.`);
  const [year, month, day, hour, minute, second] = m.slice(1).map(Number) as number[];
  const dt = DateTime.fromObject({ year, month, day, hour, minute, second }, { zone: timezone });
  if (!dt.isValid) throw invalid(`Invalid Schedule Expression ${expression}.`);
  return dt.toJSDate();
}

function checkTimezone(tz: unknown): string {
  if (tz === undefined) return 'UTC';
  if (typeof tz !== 'string' || tz.length < 1 || tz.length > 50 || !DateTime.local().setZone(tz).isValid)
    throw invalid(`Invalid ScheduleExpressionTimezone ${String(tz)}.`);
  return tz;
}

function checkTarget(t: unknown): EmulatedSchedule['target'] {
  if (typeof t !== 'object' || t === null) throw invalid('Target is required.');
  const target = t as EmulatedSchedule['target'];
  if (typeof target.Arn !== 'string' || target.Arn.length < 1 || target.Arn.length > 1600)
    throw constraint(target.Arn, 'target.arn', 'Member must have length between 1 and 1600');
  if (typeof target.RoleArn !== 'string' || !ROLE_ARN.test(target.RoleArn))
    throw constraint(
      target.RoleArn,
      'target.roleArn',
      'Member must satisfy regular expression pattern: ^arn:aws(-[a-z]+)?:iam::\\d{12}:role\\/[\\w+=,.@\\/-]+$',
    );
  if (target.Input !== undefined && (typeof target.Input !== 'string' || target.Input.length < 1))
    throw constraint(target.Input, 'target.input', 'Member must have length greater than or equal to 1');
  return target;
}

function checkWindow(w: unknown): EmulatedSchedule['flexibleTimeWindow'] {
  const win = w as EmulatedSchedule['flexibleTimeWindow'] | undefined;
  if (!win || (win.Mode !== 'OFF' && win.Mode !== 'FLEXIBLE'))
    throw constraint(
      win?.Mode,
      'flexibleTimeWindow.mode',
      'Member must satisfy enum value set: [OFF, FLEXIBLE]',
    );
  const max = win.MaximumWindowInMinutes;
  if (win.Mode === 'FLEXIBLE' && (typeof max !== 'number' || max < 1 || max > 1440))
    throw invalid('MaximumWindowInMinutes must be between 1 and 1440 when Mode is FLEXIBLE.');
  return win;
}

function parseCreate(name: string, body: Record<string, unknown>, now: Date) {
  checkName(name, 'name');
  if (body.GroupName !== undefined) checkName(body.GroupName, 'groupName');
  const expr = body.ScheduleExpression;
  if (typeof expr !== 'string' || expr.length < 1 || expr.length > 256)
    throw constraint(expr, 'scheduleExpression', 'Member must have length between 1 and 256');
  if (body.ClientToken !== undefined) {
    const t = body.ClientToken;
    if (typeof t !== 'string' || t.length > 64 || !CLIENT_TOKEN.test(t))
      throw constraint(t, 'clientToken', 'Member must satisfy regular expression pattern: ^[a-zA-Z0-9-_]+$');
  }
  const after = body.ActionAfterCompletion ?? 'NONE';
  if (after !== 'NONE' && after !== 'DELETE')
    throw constraint(after, 'actionAfterCompletion', 'Member must satisfy enum value set: [NONE, DELETE]');
  const state = body.State ?? 'ENABLED';
  if (state !== 'ENABLED' && state !== 'DISABLED')
    throw constraint(state, 'state', 'Member must satisfy enum value set: [ENABLED, DISABLED]');
  if (typeof body.Description === 'string' && body.Description.length > 512)
    throw constraint('…', 'description', 'Member must have length less than or equal to 512');
  const timezone = checkTimezone(body.ScheduleExpressionTimezone);
  return {
    groupName: (body.GroupName as string | undefined) ?? 'default',
    expression: expr,
    timezone,
    fireAt: parseAtExpression(expr, timezone),
    state: state as EmulatedSchedule['state'],
    actionAfterCompletion: after as EmulatedSchedule['actionAfterCompletion'],
    target: checkTarget(body.Target),
    flexibleTimeWindow: checkWindow(body.FlexibleTimeWindow),
    ...(typeof body.Description === 'string' ? { description: body.Description } : {}),
    created: now,
  };
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text) return {};
  try {
    const v = JSON.parse(text) as unknown;
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {}
  throw new ApiError(400, 'SerializationException', 'The request body is not a JSON object.');
}

function send(res: ServerResponse, status: number, body: unknown, errorType?: string) {
  res.writeHead(status, {
    'content-type': 'application/json',
    'x-amzn-requestid': crypto.randomUUID(),
    ...(errorType ? { 'x-amzn-errortype': errorType } : {}),
  });
  res.end(JSON.stringify(body));
}

const epoch = (d: Date) => d.getTime() / 1000;

/** The service's state: schedule groups and schedules, and the delivery of those that fall due. */
class SchedulerState {
  offsetMs = 0;
  readonly groups = new Map<string, Date>();
  readonly schedules = new Map<string, EmulatedSchedule>();
  readonly deliveries: SchedulerEmulator['deliveries'] = [];
  private running: Promise<number> = Promise.resolve(0);

  constructor(private readonly opts: SchedulerEmulatorOptions & { region: string; account: string }) {
    this.groups.set('default', this.now());
  }

  now = () => new Date((this.opts.now?.() ?? new Date()).getTime() + this.offsetMs);
  private key = (group: string, name: string) => `${group}/${name}`;
  private groupArn = (g: string) =>
    `arn:aws:scheduler:${this.opts.region}:${this.opts.account}:schedule-group/${g}`;

  private find(name: string, group: string) {
    checkName(name, 'name');
    checkName(group, 'groupName');
    const s = this.schedules.get(this.key(group, name));
    if (!s) throw new ApiError(404, 'ResourceNotFoundException', `Schedule ${name} does not exist.`);
    return s;
  }

  async route(method: string, url: URL, req: IncomingMessage): Promise<[number, unknown]> {
    const [, collection, raw] = url.pathname.split('/');
    const name = decodeURIComponent(raw ?? '');
    const group = url.searchParams.get('groupName') ?? 'default';
    if (collection === 'schedules' && method === 'POST') return [200, this.create(name, await readJson(req))];
    if (collection === 'schedules' && method === 'GET') return [200, describe(this.find(name, group))];
    if (collection === 'schedules' && method === 'DELETE') {
      const s = this.find(name, group);
      this.schedules.delete(this.key(s.groupName, s.name));
      return [200, {}];
    }
    if (collection === 'schedule-groups' && method === 'POST') {
      checkName(name, 'name');
      if (this.groups.has(name))
        throw new ApiError(409, 'ConflictException', `Schedule group ${name} already exists.`);
      this.groups.set(name, this.now());
      return [200, { ScheduleGroupArn: this.groupArn(name) }];
    }
    if (collection === 'schedule-groups' && method === 'GET') {
      checkName(name, 'name');
      const created = this.groups.get(name);
      if (!created)
        throw new ApiError(404, 'ResourceNotFoundException', `Schedule group ${name} does not exist.`);
      const at = epoch(created);
      return [
        200,
        { Arn: this.groupArn(name), Name: name, State: 'ACTIVE', CreationDate: at, LastModificationDate: at },
      ];
    }
    throw new ApiError(404, 'UnknownOperationException', `No operation for ${method} ${url.pathname}`);
  }

  private create(name: string, body: Record<string, unknown>) {
    const parsed = parseCreate(name, body, this.now());
    if (!this.groups.has(parsed.groupName))
      throw new ApiError(
        404,
        'ResourceNotFoundException',
        `Schedule group ${parsed.groupName} does not exist.`,
      );
    if (this.schedules.has(this.key(parsed.groupName, name)))
      throw new ApiError(409, 'ConflictException', `Schedule ${name} already exists.`);
    const arn = `arn:aws:scheduler:${this.opts.region}:${this.opts.account}:schedule/${parsed.groupName}/${name}`;
    this.schedules.set(this.key(parsed.groupName, name), { name, arn, ...parsed });
    return { ScheduleArn: arn };
  }

  /** One pass at a time: the real-time tick and a test's advance() must not deliver a schedule twice. */
  fireDue(): Promise<number> {
    this.running = this.running.then(async () => {
      let fired = 0;
      const due = [...this.schedules.values()]
        .filter((s) => s.state === 'ENABLED' && !s.fired && s.fireAt.getTime() <= this.now().getTime())
        .sort((a, b) => a.fireAt.getTime() - b.fireAt.getTime());
      for (const s of due) if (await this.fire(s)) fired++;
      return fired;
    });
    return this.running;
  }

  private async fire(s: EmulatedSchedule): Promise<boolean> {
    const input = s.target.Input ?? JSON.stringify({ schedule: s.arn });
    const record = { name: s.name, targetArn: s.target.Arn, input, at: this.now() };
    try {
      await this.opts.deliver(s.target.Arn, input);
    } catch (e) {
      // The service retries a failed delivery (RetryPolicy); here it stays due for the next pass.
      this.deliveries.push({ ...record, error: String(e) });
      return false;
    }
    this.deliveries.push(record);
    s.fired = this.now();
    if (s.actionAfterCompletion === 'DELETE') this.schedules.delete(this.key(s.groupName, s.name));
    return true;
  }

  settle() {
    return this.running.catch(() => 0);
  }
}

function describe(s: EmulatedSchedule) {
  return {
    Arn: s.arn,
    Name: s.name,
    GroupName: s.groupName,
    ScheduleExpression: s.expression,
    ScheduleExpressionTimezone: s.timezone,
    State: s.state,
    ActionAfterCompletion: s.actionAfterCompletion,
    Target: s.target,
    FlexibleTimeWindow: s.flexibleTimeWindow,
    ...(s.description !== undefined ? { Description: s.description } : {}),
    CreationDate: epoch(s.created),
    LastModificationDate: epoch(s.created),
  };
}

export async function startSchedulerEmulator(opts: SchedulerEmulatorOptions): Promise<SchedulerEmulator> {
  const state = new SchedulerState({
    ...opts,
    region: opts.region ?? 'us-east-1',
    account: opts.accountId ?? '000000000000',
  });
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    state
      .route(req.method ?? 'GET', url, req)
      .then(([status, body]) => send(res, status, body))
      .catch((e) => {
        if (e instanceof ApiError) send(res, e.status, { Message: e.message }, e.type);
        else send(res, 500, { Message: String(e) }, 'InternalServerException');
      });
  });
  await new Promise<void>((r) => server.listen(opts.port ?? 0, '127.0.0.1', r));
  const tickMs = opts.tickMs ?? 1000;
  const timer = tickMs > 0 ? setInterval(() => void state.fireDue(), tickMs) : undefined;
  timer?.unref();
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    now: state.now,
    async advance(ms) {
      state.offsetMs += ms;
      return state.fireDue();
    },
    fireDue: () => state.fireDue(),
    schedules: () => [...state.schedules.values()],
    deliveries: state.deliveries,
    async stop() {
      if (timer) clearInterval(timer);
      await state.settle();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

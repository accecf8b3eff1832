import { DateTime, IANAZone } from 'luxon';
import { z } from 'zod';
import { protectedWriteVerdict } from '../protected-paths';
import type { GuardEnv, GuardVerdict, ToolCallRequest, ToolGuard } from '../tool-guard';
import type { AutonomousStmt, Expr, GuardStmt, Literal, Term, ToolParam } from './ast';
import { FocusRejectedError, PolicyConfigError, PolicyQueryError } from './errors';
import {
  type FactProvenance,
  type FactStore,
  type FactValue,
  factProvenanceSchema,
  factValueSchema,
  type StoredFact,
} from './facts';
import { parseAtomText, parseQueryText } from './parser';
import { renderProof } from './proof';
import {
  checkQueryBody,
  compileRulebase,
  type Rulebase,
  resolveContextRefs,
  type ToolInfo,
  ttlSeconds,
} from './rulebase';
import {
  applyFocus,
  buildFacts,
  DEFAULT_LIMITS,
  DENIED,
  describeCall,
  extractFacts,
  FOCUS,
  type Limits,
  nowSeconds,
  Session,
  type SolveEnv,
} from './session';
import { type Missing, type ProofNode, prove, type SolveResult, type SolveStatus } from './solver';
import { renderAtomText, renderValue, toFactValue } from './values';

/** A fact the runtime sets at run start: the current user, today, team settings. Held in memory, never stored. */
export const seedFactSchema = z.object({
  predicate: z.string().regex(/^[a-z][A-Za-z0-9_]*$/),
  args: z.array(factValueSchema),
  /** Shown as the fact's source ("signed-in user", "team settings"). */
  detail: z.string().default('run start'),
});
export type SeedFact = z.input<typeof seedFactSchema>;

const seedsSchema = z.array(seedFactSchema);
type ParsedSeed = z.output<typeof seedFactSchema>;

/**
 * Seeds parsed once per array: the runtime builds one array a minute (agent/policy-runtime.ts) and every
 * conversation's engine shares it; parsing it again per conversation was a twentieth of a chat turn's own
 * CPU (issue 14). A caller with new seeds passes a new array.
 */
const parsedSeeds = new WeakMap<SeedFact[], ParsedSeed[]>();
function seedsOf(seeds: SeedFact[] | undefined): ParsedSeed[] {
  if (!seeds) return [];
  let parsed = parsedSeeds.get(seeds);
  if (!parsed) {
    parsed = seedsSchema.parse(seeds);
    parsedSeeds.set(seeds, parsed);
  }
  return parsed;
}

const optsSchema = z.object({
  conversationId: z.string().min(1),
  context: z.record(z.string(), factValueSchema).default({}),
  limits: z
    .object({ maxDepth: z.number().int().positive().optional(), timeoutMs: z.number().positive().optional() })
    .default({}),
});

export interface PolicyGuardOpts {
  rulebase: Rulebase;
  facts: FactStore;
  conversationId: string;
  /** Context bindings known at run start (`current_user`, the lead an email is about). */
  context?: Record<string, FactValue>;
  seeds?: SeedFact[];
  /** The tool registry: when given, the rulebase is checked against it now (unknown tools are an error). */
  tools?: ToolInfo[];
  limits?: Partial<Limits>;
}

export interface QueryAnswer {
  bindings: Record<string, FactValue>;
  why: string[];
  /** ISO time after which the answer must be re-derived (a fact it rests on expires). */
  validUntil?: string;
}

export interface QueryResult {
  status: SolveStatus;
  answers: QueryAnswer[];
  missing: Missing;
  /** One sentence for the model or a person. */
  summary: string;
  reason?: string;
}

export interface PolicyRuntime extends ToolGuard {
  readonly rulebase: Rulebase;
  /** Proves a query such as `qualified_lead(lead_of_interest)`; fetches through `env.callReadTool` if given. */
  query(
    text: string,
    env: SolveEnv,
    opts?: { maxAnswers?: number; symbolic?: boolean },
  ): Promise<QueryResult>;
  /** Rebinds a declared, non-fixed context variable (after its `where` clause holds for the value). */
  setFocus(
    name: string,
    value: FactValue,
    env: SolveEnv,
  ): Promise<{ name: string; value: FactValue; previous?: FactValue }>;
  /** Current context bindings. */
  focus(now: Date): Promise<Record<string, FactValue>>;
  /**
   * Records a person's answer to an askable question: `credit_score(ct_lead, 640)`, or with `holds: false`
   * that `pet_approved(ct_lead, snake)` is not so. Only askable predicates; the runtime decides who may answer.
   */
  recordAnswer(
    text: string,
    opts: { by: string; now: Date; holds?: boolean },
  ): Promise<StoredFact | undefined>;
  /** Records base facts established elsewhere (e.g. fields the lead-email parser read), with their source. */
  recordFacts(
    facts: Array<{ predicate: string; args: FactValue[] }>,
    provenance: FactProvenance,
    now: Date,
  ): Promise<StoredFact[]>;
  /** After any read tool call: turns its result into facts through the matching bindings. Returns the count. */
  recordToolResult(tool: string, args: Record<string, unknown>, result: unknown, now: Date): Promise<number>;
  /** Established facts and focus as text for the model's context. */
  summarize(env: { now: Date; timezone: string }, opts?: { maxFacts?: number }): Promise<string>;
}

/** Kept for callers that think of it as "the guard". */
export type PolicyGuard = PolicyRuntime;

const knownZones = new Set<string>();

/** Checked once per zone: luxon builds an Intl formatter to validate, which is costly on every guard call. */
function checkTimezone(tz: string) {
  if (knownZones.has(tz)) return;
  if (!IANAZone.isValidZone(tz)) throw new PolicyConfigError(`unknown timezone '${tz}'`);
  knownZones.add(tz);
}

/** `To` reads args.to (or args.To, args.to_x for ToX): guards name tool arguments by their variables. */
function argKeys(key: string): string[] {
  const lower = key.charAt(0).toLowerCase() + key.slice(1);
  const snake = lower.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  return [...new Set([key, lower, snake])];
}

function paramValue(args: Record<string, unknown>, key: string): FactValue {
  for (const k of argKeys(key)) {
    if (Object.hasOwn(args, k)) {
      const v = args[k];
      // An absent or structured argument still binds, so a guard can never be skipped by leaving it out.
      return toFactValue(v) ?? (v === undefined ? 'null' : JSON.stringify(v));
    }
  }
  return 'null';
}

/** Binds a guard's head to a call: variables get the arguments; constants must match them. */
function bindParams(
  params: ToolParam[],
  args: Record<string, unknown>,
  focus: ReadonlyMap<string, FactValue>,
): Record<string, FactValue> | undefined {
  const given: Record<string, FactValue> = {};
  for (const p of params) {
    const v = paramValue(args, p.key);
    if (p.term.kind === 'var') {
      if (p.term.name === '_') continue;
      if (given[p.term.name] !== undefined && given[p.term.name] !== v) return undefined;
      given[p.term.name] = v;
    } else {
      const expected = p.term.kind === 'const' ? p.term.value : focus.get(p.term.name);
      if (expected === undefined || expected !== v) return undefined;
    }
  }
  return given;
}

function renderTerm(
  t: Term | Expr,
  b: Record<string, FactValue>,
  focus: ReadonlyMap<string, FactValue>,
): string {
  switch (t.kind) {
    case 'var': {
      const v = b[t.name];
      return v === undefined ? t.name : renderValue(v);
    }
    case 'const':
      return renderValue(t.value);
    case 'ctx': {
      const v = focus.get(t.name);
      return v === undefined ? t.name : renderValue(v);
    }
    case 'arith':
      return `${renderTerm(t.left, b, focus)} ${t.op} ${renderTerm(t.right, b, focus)}`;
  }
}

function renderLiteral(
  l: Literal,
  b: Record<string, FactValue>,
  focus: ReadonlyMap<string, FactValue>,
): string {
  if (l.kind === 'cmp') return `${renderTerm(l.left, b, focus)} ${l.op} ${renderTerm(l.right, b, focus)}`;
  const args = l.atom.args.map((a) => renderTerm(a, b, focus));
  return args.length ? `${l.atom.pred}(${args.join(', ')})` : l.atom.pred;
}

function missingTexts(m: Missing): { tools: string[]; questions: string[] } {
  return {
    tools: [
      ...m.tools.map((t) => (t.error ? `${t.text} (${t.error})` : t.text)),
      ...m.focus.map((f) => `set_focus(name: ${f})`),
    ],
    questions: m.questions.map((q) => q.question),
  };
}

function hasMissing(m: Missing): boolean {
  return m.tools.length > 0 || m.questions.length > 0 || m.focus.length > 0;
}

function describeMissing(m: Missing): string {
  const parts: string[] = [];
  if (m.tools.length) parts.push(`data from ${m.tools.map((t) => t.text).join(', ')}`);
  if (m.focus.length) parts.push(`focus on ${m.focus.join(', ')} (set_focus)`);
  if (m.questions.length) parts.push(`an answer to: ${m.questions.map((q) => `"${q.question}"`).join(' ')}`);
  return parts.join('; ');
}

function isTrivial(body: Literal[]): boolean {
  return body.length === 1 && body[0]?.kind === 'atom' && body[0].atom.pred === 'true' && !body[0].negated;
}

/**
 * Creates the policy engine for one conversation: a ToolGuard for the agent runtime (every tool call — the
 * model's, the planner's, the solver's own fetches — is checked here), plus the query, focus and fact
 * operations the `ask_policy` / `set_focus` tools and the runtime use.
 *
 * Verdicts: a tool with no guard keeps the default (reads allowed, writes need approval). With guards, every
 * guard of the tool must be proved; if one is not, the call is denied with the reason and what is missing.
 * A write whose guards hold still needs approval unless an `autonomous` rule for it is proved too.
 */
export function createPolicyGuard(opts: PolicyGuardOpts): PolicyRuntime {
  const parsed = {
    ...optsSchema.parse({ conversationId: opts.conversationId, context: opts.context, limits: opts.limits }),
    seeds: seedsOf(opts.seeds),
  };
  const rb = opts.tools
    ? compileRulebase(opts.rulebase.statements, { files: opts.rulebase.files, tools: opts.tools })
    : opts.rulebase;
  const store = opts.facts;
  const conversationId = parsed.conversationId;
  const limits: Limits = { ...DEFAULT_LIMITS, ...stripUndefined(parsed.limits) };
  for (const name of Object.keys(parsed.context)) {
    if (!rb.contexts.has(name))
      throw new PolicyConfigError(`context ${name} is not declared in the rulebase`);
  }
  // The same objects within a second (all they carry of the time): the summary's line memo below knows them.
  let seedMemo: { at: number; facts: StoredFact[] } | undefined;
  const seedFacts = (now: Date): StoredFact[] => {
    const at = nowSeconds(now);
    if (seedMemo?.at !== at)
      seedMemo = {
        at,
        facts: parsed.seeds.map((s) => ({
          predicate: s.predicate,
          args: s.args,
          establishedAt: at,
          provenance: { kind: 'seed', detail: s.detail },
        })),
      };
    return seedMemo.facts;
  };

  const open = (env: SolveEnv, canFetch: boolean, stored?: StoredFact[]) => {
    checkTimezone(env.timezone);
    return Session.open({
      rulebase: rb,
      store,
      conversationId,
      env,
      canFetch,
      seeds: seedFacts(env.now),
      context: parsed.context,
      limits,
      ...(stored ? { stored } : {}),
    });
  };
  /**
   * The last summary and what it was made from. A turn's prompt is built before each model call, and between
   * them the facts rarely change; the summary (a session and a line per fact, ~75 µs, issue 14) is a pure
   * function of the facts that hold, the local minute (expiry times read against today), the zone and the cap.
   * A turn holding the conversation lists the same fact objects again (agent/turn-fact-cache.ts), so object
   * identity says "unchanged"; a store without that hands out new objects, so it never hits.
   */
  let lastSummary: { key: string; facts: StoredFact[]; text: string } | undefined;

  const why = (nodes: ProofNode[], env: SolveEnv) =>
    renderProof(nodes, { now: env.now, timezone: env.timezone });

  async function readFocus(now: Date): Promise<Map<string, FactValue>> {
    const focus = new Map<string, FactValue>();
    applyFocus(focus, rb, parsed.context, await store.list(conversationId, { now, predicate: FOCUS }));
    return focus;
  }

  /** Finds the first literal of a failed guard and what held before it, for a reason a person can read. */
  async function explain(session: Session, stmt: GuardStmt, given: Record<string, FactValue>) {
    let held: SolveResult | undefined;
    for (let k = 1; k <= stmt.body.length; k++) {
      const r = await prove(session, stmt.body.slice(0, k), { given });
      if (r.status !== 'proved')
        return { failed: stmt.body[k - 1] as Literal, held, bindings: held?.answers[0]?.bindings };
      held = r;
    }
    return { failed: undefined, held, bindings: held?.answers[0]?.bindings };
  }

  async function checkCall(call: ToolCallRequest, env: GuardEnv): Promise<GuardVerdict> {
    if (call.conversationId !== conversationId) {
      throw new PolicyConfigError(
        `policy guard for conversation ${conversationId} asked about ${call.conversationId}`,
      );
    }
    checkTimezone(env.timezone);
    // Before any rule, whatever the tool's kind: what governs the agent is never its to write.
    const refused = protectedWriteVerdict(call);
    if (refused) return refused;
    const guards = rb.guards.get(call.tool) ?? [];
    const autonomous: AutonomousStmt[] = call.kind === 'write' ? (rb.autonomous.get(call.tool) ?? []) : [];
    if (guards.length === 0 && autonomous.length === 0) {
      return call.kind === 'write'
        ? { decision: 'require_approval', reason: `No policy rule lets ${call.tool} skip approval.` }
        : { decision: 'allow', reason: `No policy guard applies to ${call.tool}.` };
    }
    // The solver's own fetches are checked too, but may not fetch again: that would recurse without end.
    // Guards of the form `requires true` need no facts, so the store is not read for them.
    const needsFacts =
      guards.some((g) => !isTrivial(g.body) || g.params.some((p) => p.term.kind === 'ctx')) ||
      autonomous.length > 0;
    const session = needsFacts ? await open(env, call.origin !== 'solver') : undefined;
    const focus = session?.focus ?? new Map<string, FactValue>();
    const lines: string[] = [];
    for (const g of guards) {
      const given = bindParams(g.params, call.args, focus);
      if (!given) {
        return {
          decision: 'deny',
          reason: `${call.tool} is not allowed with these arguments (guard at ${g.pos.file}:${g.pos.line}).`,
        };
      }
      if (isTrivial(g.body) || !session) {
        lines.push(`${call.tool}: no precondition beyond a person's approval (${g.pos.file}:${g.pos.line})`);
        continue;
      }
      const r = await prove(session, g.body, { given });
      if (r.status === 'proved') {
        lines.push(`${call.tool} guard (${g.pos.file}:${g.pos.line}) holds:`);
        lines.push(...why(r.answers[0]?.proof ?? [], env).map((l) => `  ${l}`));
        continue;
      }
      const ex = await explain(session, g, given);
      const b = { ...given, ...(ex.bindings ?? {}) };
      const failed = ex.failed
        ? ex.failed.kind === 'atom' && ex.failed.negated
          ? `${renderLiteral({ ...ex.failed, negated: false }, b, session.focus)} holds`
          : ex.failed.kind === 'cmp'
            ? `${renderLiteral(ex.failed, b, session.focus)} is false`
            : `could not establish ${renderLiteral(ex.failed, b, session.focus)}`
        : 'the guard did not hold';
      const cut = r.status === 'unknown' ? ` The check was cut short: ${r.reason}.` : '';
      const need = hasMissing(r.missing) ? ` Missing: ${describeMissing(r.missing)}.` : '';
      return {
        decision: 'deny',
        reason: `Policy blocks ${call.tool}: ${failed} (${g.pos.file}:${g.pos.line}).${cut}${need}`,
        why: ex.held ? why(ex.held.answers[0]?.proof ?? [], env) : [],
        missing: missingTexts(r.missing),
      };
    }
    if (call.kind !== 'write') {
      return { decision: 'allow', reason: `Policy allows ${call.tool}.`, why: lines };
    }
    for (const a of autonomous) {
      const given = bindParams(a.params, call.args, focus);
      if (!given || !session) continue;
      const r = await prove(session, a.body, { given });
      if (r.status === 'proved') {
        return {
          decision: 'allow',
          reason: `Policy lets ${call.tool} run without approval (${a.pos.file}:${a.pos.line}).`,
          why: [
            ...lines,
            `no approval needed (${a.pos.file}:${a.pos.line}):`,
            ...why(r.answers[0]?.proof ?? [], env).map((l) => `  ${l}`),
          ],
        };
      }
    }
    return {
      decision: 'require_approval',
      reason: `Policy checks for ${call.tool} hold; a person must approve it.`,
      why: lines,
    };
  }

  function symbolicCheck(body: Literal[]) {
    for (const l of body) {
      const terms: Array<Term | Expr> = l.kind === 'atom' ? l.atom.args : [l.left, l.right];
      const flat: Term[] = [];
      const walk = (t: Term | Expr): void => {
        if (t.kind === 'arith') {
          walk(t.left);
          walk(t.right);
        } else {
          flat.push(t);
        }
      };
      terms.forEach(walk);
      for (const t of flat) {
        if (t.kind !== 'const') continue;
        if (t.quoted || !rb.vocabulary.has(t.value)) {
          throw new PolicyQueryError(
            `queries must be symbolic: ${renderValue(t.value)} is not a constant of the rulebase. ` +
              'Use a context variable (set_focus) or a variable instead of a literal value.',
          );
        }
      }
    }
  }

  return {
    rulebase: rb,
    check: checkCall,

    async query(text, env, qopts = {}) {
      const ctxNames = new Set(rb.contexts.keys());
      const body = resolveContextRefs(parseQueryText(text), ctxNames);
      checkQueryBody(rb, body);
      if (qopts.symbolic) symbolicCheck(body);
      const session = await open(env, true);
      const r = await prove(session, body, { maxAnswers: qopts.maxAnswers ?? 10 });
      const answers = r.answers.map((a) => ({
        bindings: a.bindings,
        why: why(a.proof, env),
        ...(a.validUntil !== undefined ? { validUntil: new Date(a.validUntil * 1000).toISOString() } : {}),
      }));
      const summary =
        r.status === 'proved'
          ? `Proved ${text.trim()}${answers.length > 1 ? ` (${answers.length} answers)` : ''}.`
          : r.status === 'failed'
            ? `Not provable: ${text.trim()} does not hold on the established facts.`
            : r.status === 'blocked'
              ? `Cannot decide ${text.trim()} yet; needs ${describeMissing(r.missing)}.`
              : `Cannot decide ${text.trim()}: ${r.reason}.`;
      return {
        status: r.status,
        answers,
        missing: r.missing,
        summary,
        ...(r.reason ? { reason: r.reason } : {}),
      };
    },

    async setFocus(name, value, env) {
      const decl = rb.contexts.get(name);
      if (!decl) {
        const known = [...rb.contexts.values()].filter((c) => !c.fixed).map((c) => c.name);
        throw new FocusRejectedError(
          `${name} is not a context variable; known: ${known.join(', ') || 'none'}`,
        );
      }
      if (decl.fixed) throw new FocusRejectedError(`${name} is fixed for the run and cannot be rebound`);
      const v = factValueSchema.parse(value);
      const session = await open(env, true);
      const previous = session.focus.get(name);
      if (decl.where) {
        session.focus.set(name, v);
        const r = await prove(session, decl.where);
        if (r.status !== 'proved') {
          const need = hasMissing(r.missing) ? ` (needs ${describeMissing(r.missing)})` : '';
          throw new FocusRejectedError(
            `${renderValue(v)} is not a valid ${name}: ${decl.where.map((l) => renderLiteral(l, {}, session.focus)).join(', ')} does not hold${need}`,
            { missing: r.missing },
          );
        }
      }
      const old = await store.list(conversationId, { now: env.now, predicate: FOCUS });
      for (const f of old) if (f.args[0] === name) await store.delete(conversationId, FOCUS, f.args);
      await store.put(conversationId, [
        {
          predicate: FOCUS,
          args: [name, v],
          establishedAt: nowSeconds(env.now),
          provenance: { kind: 'tool', detail: 'set_focus' },
        },
      ]);
      return { name, value: v, ...(previous !== undefined ? { previous } : {}) };
    },

    async focus(now) {
      return Object.fromEntries(await readFocus(now));
    },

    async recordAnswer(text, aopts) {
      const atom = parseAtomText(text);
      const ask = rb.askables.get(atom.pred);
      if (!ask) {
        throw new PolicyQueryError(
          `${atom.pred} is not askable; a person can answer only: ${[...rb.askables.keys()].join(', ') || 'nothing'}`,
        );
      }
      if (atom.args.length !== ask.stmt.head.args.length) {
        throw new PolicyQueryError(`${atom.pred} takes ${ask.stmt.head.args.length} argument(s)`);
      }
      const focus = await readFocus(aopts.now);
      const args: FactValue[] = atom.args.map((a) => {
        if (a.kind === 'const' && !a.quoted && typeof a.value === 'string' && rb.contexts.has(a.value)) {
          const v = focus.get(a.value);
          if (v === undefined) throw new PolicyQueryError(`context ${a.value} is not set`);
          return v;
        }
        if (a.kind !== 'const')
          throw new PolicyQueryError(
            `an answer must be ground: replace ${a.kind === 'var' ? a.name : '?'} with a value`,
          );
        return a.value;
      });
      const provenance: FactProvenance = { kind: 'person', detail: z.string().min(1).parse(aopts.by) };
      const key = ask.keyPositions.map((p) => args[p] as FactValue);
      if (aopts.holds === false) {
        // A "no" is kept as long as a "yes" would be (the askable's ttl); then the question may come back.
        const ttl = ttlSeconds(rb, atom.pred, 'person');
        const establishedAt = nowSeconds(aopts.now);
        await store.put(conversationId, [
          {
            predicate: DENIED,
            args: [atom.pred, ...key],
            establishedAt,
            provenance,
            ...(ttl === null ? {} : { expiresAt: establishedAt + ttl }),
          },
        ]);
        return undefined;
      }
      const { facts } = buildFacts(rb, atom.pred, [args], provenance, aopts.now);
      await store.delete(conversationId, DENIED, [atom.pred, ...key]);
      await store.put(conversationId, facts);
      return facts[0];
    },

    async recordFacts(facts, provenance, now) {
      const prov = factProvenanceSchema.parse(provenance);
      const byPred = new Map<string, FactValue[][]>();
      for (const f of facts) {
        if (!rb.basePreds.has(f.predicate)) {
          throw new PolicyQueryError(`${f.predicate} is not a base predicate of the rulebase`);
        }
        if (rb.arity.get(f.predicate) !== f.args.length) {
          throw new PolicyQueryError(`${f.predicate} takes ${rb.arity.get(f.predicate)} argument(s)`);
        }
        const list = byPred.get(f.predicate) ?? [];
        list.push(z.array(factValueSchema).parse(f.args));
        byPred.set(f.predicate, list);
      }
      const out: StoredFact[] = [];
      for (const [pred, tuples] of byPred) out.push(...buildFacts(rb, pred, tuples, prov, now).facts);
      await store.put(conversationId, out);
      return out;
    },

    async recordToolResult(tool, args, result, now) {
      let count = 0;
      let focus: Map<string, FactValue> | undefined;
      for (const b of rb.bindings.values()) {
        if (b.stmt.tool !== tool) continue;
        const inputs: FactValue[] = new Array(b.inputPositions.length);
        let matches = true;
        for (const p of b.stmt.args) {
          const actual = Object.hasOwn(args, p.key) ? toFactValue(args[p.key]) : undefined;
          if (p.term.kind === 'var') {
            const pos = b.inputPositions.indexOf(b.headVars.indexOf(p.term.name));
            if (actual === undefined) matches = false;
            else inputs[pos] = actual;
          } else if (p.term.kind === 'const') {
            if (actual !== p.term.value) matches = false;
          } else {
            focus ??= await readFocus(now);
            if (actual === undefined || focus.get(p.term.name) !== actual) matches = false;
          }
        }
        if (!matches) continue;
        const tuples = extractFacts(b, inputs, result);
        const built = buildFacts(
          rb,
          b.pred,
          tuples,
          { kind: 'tool', detail: describeCall(tool, args) },
          now,
          inputs,
        );
        await store.put(conversationId, [...built.facts, ...built.markers]);
        count += built.facts.length;
      }
      return count;
    },

    async summarize(env, sopts = {}) {
      const max = sopts.maxFacts ?? 50;
      const stored = await store.list(conversationId, { now: env.now });
      const key = `${Math.floor(env.now.getTime() / 60_000)}|${env.timezone}|${max}`;
      if (lastSummary?.key === key && sameItems(lastSummary.facts, stored)) return lastSummary.text;
      const text = await renderSummary(env, max, stored);
      lastSummary = { key, facts: stored, text };
      return text;
    },
  };

  async function renderSummary(env: { now: Date; timezone: string }, max: number, stored: StoredFact[]) {
    const session = await open({ now: env.now, timezone: env.timezone }, false, stored);
    const facts = session.allFacts();
    const minute = `${Math.floor(env.now.getTime() / 60_000)}|${env.timezone}`;
    const lines = facts.slice(0, max).map((f) => {
      // A fact's line reads only the fact, the zone and today's date (its expiry): kept per fact object, so a
      // summary after a tool call renders only the facts the call added.
      const known = summaryLines.get(f);
      if (known?.minute === minute) return known.line;
      const fact = renderProof(
        [
          {
            kind: 'fact',
            text: renderAtomText(f.predicate, f.args),
            provenance: f.provenance,
            ...(f.expiresAt !== undefined ? { expiresAt: f.expiresAt } : {}),
            children: [],
          },
        ],
        env,
      )[0];
      const line = `- ${fact}`;
      summaryLines.set(f, { minute, line });
      return line;
    });
    if (facts.length > max) lines.push(`- … and ${facts.length - max} more`);
    const focus = [...rb.contexts.values()].map((c) => {
      const v = session.focus.get(c.name);
      return `${c.name} = ${v === undefined ? '(not set)' : renderValue(v)}`;
    });
    return [
      `Established facts (${facts.length}):`,
      ...(lines.length ? lines : ['- none yet']),
      `Focus: ${focus.length ? focus.join('; ') : 'no context variables declared'}`,
    ].join('\n');
  }
}

/** Summary lines by fact object, with the zone and minute they were rendered for. */
const summaryLines = new WeakMap<StoredFact, { minute: string; line: string }>();

/** Same facts, same order, by identity (a held turn's facts are the same objects until one is written). */
function sameItems(a: readonly StoredFact[], b: readonly StoredFact[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Seeds for a run: who the assistant acts for, today's date, the team's timezone and settings. */
/** The last date read per zone, with the minute it was read in (every zone's offset is whole minutes). */
const todays = new Map<string, { minute: number; date: string }>();

/**
 * The date in a zone, converted once per zone per minute: luxon's zone conversion was a tenth of a chat
 * turn's own CPU (issue 14), paid for every conversation's first guard.
 */
function localDate(now: Date, zone: string): string {
  const minute = Math.floor(now.getTime() / 60_000);
  const known = todays.get(zone);
  if (known?.minute === minute) return known.date;
  const date = DateTime.fromJSDate(now, { zone }).toISODate() ?? '';
  todays.set(zone, { minute, date });
  return date;
}

export function runSeeds(input: {
  now: Date;
  timezone: string;
  currentUser?: string;
  /** Booleans become the symbols true/false, as JSON booleans do in bindings. */
  settings?: Record<string, FactValue | boolean>;
}): SeedFact[] {
  checkTimezone(input.timezone);
  const today = localDate(input.now, input.timezone);
  return [
    ...(input.currentUser
      ? [{ predicate: 'current_user', args: [input.currentUser], detail: 'run identity' }]
      : []),
    { predicate: 'today', args: [today], detail: 'team calendar' },
    { predicate: 'team_timezone', args: [input.timezone], detail: 'team settings' },
    ...Object.entries(input.settings ?? {}).map(([k, v]) => ({
      predicate: 'team_setting',
      args: [k, typeof v === 'boolean' ? String(v) : v],
      detail: 'team settings',
    })),
  ];
}

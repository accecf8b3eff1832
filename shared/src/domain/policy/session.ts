import { type FactProvenance, type FactStore, type FactValue, factHolds, type StoredFact } from './facts';
import { type PathStep, selectPath } from './json-path';
import { type CompiledBinding, type Rulebase, ttlSeconds } from './rulebase';
import { argsKey, renderValue, toFactValue } from './values';

/** Reserved predicates for the engine's own bookkeeping (the lexer cannot produce a name starting with `$`). */
export const FETCHED = '$fetched';
export const DENIED = '$denied';
export const FOCUS = '$focus';

export interface SolveEnv {
  now: Date;
  timezone: string;
  /** Fetches a base fact through a (guarded) read tool; without it the solver uses stored facts only. */
  callReadTool?(name: string, args: Record<string, unknown>): Promise<unknown>;
}

export interface Limits {
  /** Rule expansions deep; stops runaway recursion. */
  maxDepth: number;
  /** Wall-clock budget for one solve, tool I/O included. */
  timeoutMs: number;
}

export const DEFAULT_LIMITS: Limits = { maxDepth: 32, timeoutMs: 5_000 };

export type FetchOutcome = { ok: true; facts: number } | { ok: false; error: string; timedOut?: boolean };

export interface SessionOpts {
  rulebase: Rulebase;
  store: FactStore;
  conversationId: string;
  env: SolveEnv;
  /** False for checks of the solver's own fetches: they may read the store but not fetch again (no recursion). */
  canFetch: boolean;
  seeds: StoredFact[];
  /** Context bindings from the runtime; fixed contexts take only these, others may be rebound by set_focus. */
  context: Record<string, FactValue>;
  limits: Limits;
  /** The conversation's facts, when the caller already listed them at `env.now` (the summary's memo). */
  stored?: StoredFact[];
}

export const nowSeconds = (d: Date) => Math.floor(d.getTime() / 1000);

/**
 * The working memory of one solve: the conversation's facts that hold now (read once), seeds, context
 * bindings, and the fetches made so far. Stateless across calls — everything here is rebuilt per check.
 */
export class Session {
  readonly rb: Rulebase;
  readonly env: SolveEnv;
  readonly limits: Limits;
  readonly canFetch: boolean;
  readonly focus = new Map<string, FactValue>();
  readonly fetchLog: Array<{ tool: string; args: Record<string, unknown>; outcome: FetchOutcome }> = [];
  /** predicate → first argument → all arguments → fact: a lookup with a known first argument skips the rest. */
  private readonly byPred = new Map<string, Map<string, Map<string, StoredFact>>>();
  private readonly markers = new Map<string, StoredFact>();
  private readonly inflight = new Map<string, Promise<FetchOutcome>>();
  private readonly store: FactStore;
  private readonly conversationId: string;

  private constructor(opts: SessionOpts) {
    this.rb = opts.rulebase;
    this.env = opts.env;
    this.limits = opts.limits;
    this.canFetch = opts.canFetch && opts.env.callReadTool !== undefined;
    this.store = opts.store;
    this.conversationId = opts.conversationId;
  }

  static async open(opts: SessionOpts): Promise<Session> {
    const s = new Session(opts);
    const stored = opts.stored ?? (await opts.store.list(opts.conversationId, { now: opts.env.now }));
    const focusFacts: StoredFact[] = [];
    for (const f of stored) {
      if (!factHolds(f, opts.env.now)) continue;
      if (f.predicate === FOCUS) focusFacts.push(f);
      else if (f.predicate === FETCHED || f.predicate === DENIED)
        s.markers.set(markerKey(f.predicate, f.args), f);
      else s.remember(f);
    }
    for (const f of opts.seeds) s.remember(f);
    applyFocus(s.focus, s.rb, opts.context, focusFacts);
    return s;
  }

  get now(): Date {
    return this.env.now;
  }

  private remember(f: StoredFact) {
    let byFirst = this.byPred.get(f.predicate);
    if (!byFirst) {
      byFirst = new Map();
      this.byPred.set(f.predicate, byFirst);
    }
    const first = firstKey(f.args[0]);
    let m = byFirst.get(first);
    if (!m) {
      m = new Map();
      byFirst.set(first, m);
    }
    m.set(argsKey(f.args), f);
  }

  /** Facts of `pred` that hold now and agree with the known arguments (undefined = any value). */
  match(pred: string, pattern: ReadonlyArray<FactValue | undefined>): StoredFact[] {
    const byFirst = this.byPred.get(pred);
    if (!byFirst) return [];
    const p0 = pattern[0];
    if (p0 !== undefined && pattern.every((p) => p !== undefined)) {
      const f = byFirst.get(firstKey(p0))?.get(argsKey(pattern as FactValue[]));
      return f && factHolds(f, this.now) ? [f] : [];
    }
    const buckets = p0 !== undefined ? [byFirst.get(firstKey(p0))] : [...byFirst.values()];
    const out: StoredFact[] = [];
    for (const m of buckets) {
      if (!m) continue;
      for (const f of m.values()) {
        if (!factHolds(f, this.now)) continue;
        if (pattern.every((p, i) => p === undefined || p === f.args[i])) out.push(f);
      }
    }
    return out;
  }

  /** Every fact that holds now (for summaries), engine bookkeeping excluded. */
  allFacts(): StoredFact[] {
    return [...this.byPred.values()]
      .flatMap((byFirst) => [...byFirst.values()].flatMap((m) => [...m.values()]))
      .filter((f) => factHolds(f, this.now));
  }

  marker(kind: typeof FETCHED | typeof DENIED, args: FactValue[]): StoredFact | undefined {
    const f = this.markers.get(markerKey(kind, args));
    return f && factHolds(f, this.now) ? f : undefined;
  }

  /** A fetch of `b` for these inputs already happened (or is under way) in this session or within its TTL. */
  isFetched(b: CompiledBinding, inputs: FactValue[]): boolean {
    return (
      this.marker(FETCHED, [b.pred, ...inputs]) !== undefined || this.inflight.has(markerKey(b.pred, inputs))
    );
  }

  toolArgs(b: CompiledBinding, inputs: FactValue[]): Record<string, unknown> | undefined {
    const args: Record<string, unknown> = {};
    for (const p of b.stmt.args) {
      if (p.term.kind === 'var') {
        const i = b.headVars.indexOf(p.term.name);
        args[p.key] = inputs[b.inputPositions.indexOf(i)];
      } else if (p.term.kind === 'const') {
        args[p.key] = p.term.value;
      } else {
        const v = this.focus.get(p.term.name);
        if (v === undefined) return undefined;
        args[p.key] = v;
      }
    }
    return args;
  }

  /**
   * Calls the bound tool once per (predicate, inputs) and session — concurrent callers share the call — and
   * stores what it returns plus a marker, so within the TTL an empty answer also counts as known ("no such
   * contact") and is not fetched again. Never rejects: failures come back as outcomes the solver reports.
   */
  fetch(b: CompiledBinding, inputs: FactValue[], deadline: number): Promise<FetchOutcome> {
    const key = markerKey(b.pred, inputs);
    const existing = this.inflight.get(key);
    if (existing) return existing;
    const p = this.doFetch(b, inputs, deadline);
    this.inflight.set(key, p);
    return p;
  }

  private async doFetch(b: CompiledBinding, inputs: FactValue[], deadline: number): Promise<FetchOutcome> {
    const call = this.env.callReadTool;
    const args = this.toolArgs(b, inputs);
    const tool = b.stmt.tool;
    if (!call || !args) return { ok: false, error: 'cannot call the tool here' };
    let outcome: FetchOutcome;
    try {
      const remaining = Math.max(0, deadline - performance.now());
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new FetchTimeout(`no answer within ${Math.round(remaining)} ms`)),
          remaining,
        );
      });
      let result: unknown;
      try {
        result = await Promise.race([call(tool, args), timeout]);
      } finally {
        clearTimeout(timer);
      }
      const facts = extractFacts(b, inputs, result);
      await this.establish(b.pred, facts, { kind: 'tool', detail: describeCall(tool, args) }, inputs);
      outcome = { ok: true, facts: facts.length };
    } catch (e) {
      outcome = {
        ok: false,
        error: e instanceof Error ? e.message : String(e),
        ...(e instanceof FetchTimeout ? { timedOut: true } : {}),
      };
    }
    this.fetchLog.push({ tool, args, outcome });
    return outcome;
  }

  /** Stores facts of one predicate (and, for tool results, the fetch marker) in the store and in memory. */
  async establish(
    pred: string,
    tuples: FactValue[][],
    provenance: FactProvenance,
    fetchedInputs?: FactValue[],
  ) {
    const { facts, markers } = buildFacts(this.rb, pred, tuples, provenance, this.now, fetchedInputs);
    await this.store.put(this.conversationId, [...facts, ...markers]);
    for (const f of facts) this.remember(f);
    for (const m of markers) this.markers.set(markerKey(m.predicate, m.args), m);
    return facts;
  }
}

/** Facts of one predicate stamped with their provenance and expiry (per the rulebase's ttl annotations). */
export function buildFacts(
  rb: Rulebase,
  pred: string,
  tuples: FactValue[][],
  provenance: FactProvenance,
  now: Date,
  fetchedInputs?: FactValue[],
): { facts: StoredFact[]; markers: StoredFact[] } {
  const ttl = ttlSeconds(rb, pred, provenance.kind);
  const establishedAt = nowSeconds(now);
  const expires = ttl === null ? {} : { expiresAt: establishedAt + ttl };
  const facts: StoredFact[] = tuples.map((args) => ({
    predicate: pred,
    args,
    establishedAt,
    provenance,
    ...expires,
  }));
  const markers: StoredFact[] = fetchedInputs
    ? [{ predicate: FETCHED, args: [pred, ...fetchedInputs], establishedAt, provenance, ...expires }]
    : [];
  return { facts, markers };
}

/**
 * Current context bindings: the runtime's defaults, then what set_focus stored later in the conversation
 * (it wins, being newer) — except for fixed contexts such as the current user, which only the runtime sets.
 */
export function applyFocus(
  into: Map<string, FactValue>,
  rb: Rulebase,
  context: Record<string, FactValue>,
  focusFacts: StoredFact[],
) {
  for (const [name, value] of Object.entries(context)) into.set(name, value);
  const sorted = [...focusFacts].sort((a, b) => a.establishedAt - b.establishedAt);
  for (const f of sorted) {
    const [name, value] = f.args;
    const decl = typeof name === 'string' ? rb.contexts.get(name) : undefined;
    if (decl && !decl.fixed && value !== undefined) into.set(decl.name, value);
  }
}

class FetchTimeout extends Error {}

/** Index key of a first argument; the type prefix keeps 1 and "1" apart. */
function firstKey(v: FactValue | undefined): string {
  return v === undefined ? '' : typeof v === 'number' ? `n${v}` : `s${v}`;
}

function markerKey(kind: string, args: ReadonlyArray<FactValue>): string {
  return `${kind}|${argsKey(args)}`;
}

export function describeCall(tool: string, args: Record<string, unknown>): string {
  const parts = Object.entries(args).map(([k, v]) => {
    const fv = toFactValue(v);
    return `${k}: ${fv === undefined ? JSON.stringify(v) : renderValue(fv)}`;
  });
  return `${tool}(${parts.join(', ')})`;
}

function product(columns: FactValue[][]): FactValue[][] {
  let rows: FactValue[][] = [[]];
  for (const col of columns) rows = rows.flatMap((r) => col.map((v) => [...r, v]));
  return rows;
}

/**
 * Turns a tool's JSON result into facts of the bound predicate: one item per element of `each` (or the
 * result itself), each head position read by its path (several values through `[*]` give several facts).
 * An input read from the item is a filter: a fuzzy search's near misses do not become facts. Items missing a
 * field give no fact rather than a guessed one.
 */
export function extractFacts(b: CompiledBinding, inputs: FactValue[], result: unknown): FactValue[][] {
  const items = b.each ? selectPath(result, b.each) : [result];
  const seen = new Set<string>();
  const out: FactValue[][] = [];
  for (const item of items) {
    if (item === null || item === undefined) continue;
    const columns: FactValue[][] = b.headVars.map((_, i) => {
      const inputIdx = b.inputPositions.indexOf(i);
      const steps: PathStep[] | undefined = b.fields.get(i);
      const read = steps
        ? selectPath(item, steps)
            .map(toFactValue)
            .filter((v): v is FactValue => v !== undefined)
        : undefined;
      if (inputIdx >= 0) {
        const given = inputs[inputIdx] as FactValue;
        return read === undefined || read.some((v) => v === given) ? [given] : [];
      }
      return read ?? [];
    });
    for (const row of product(columns)) {
      const k = argsKey(row);
      if (!seen.has(k)) {
        seen.add(k);
        out.push(row);
      }
    }
  }
  return out;
}

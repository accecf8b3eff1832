import type { Atom, Expr, Literal, Pos, Term } from './ast';
import { BUILTINS } from './builtins';
import type { FactProvenance, FactValue, StoredFact } from './facts';
import { DENIED, describeCall, FETCHED, type Session } from './session';
import { asNumber, renderAtomText, renderValue } from './values';

/*
 * A top-down backtracking prover (SLD resolution with negation as failure) over the rulebase and the
 * session's facts. Base facts that are missing or expired are fetched through their bound read tool while
 * proving; only when no tool can help does an askable predicate turn into a question. Independent sibling
 * goals that need tool data are fetched concurrently. Bounded by depth and wall-clock time.
 */

/** One step of a derivation, as shown under "why" on the approval card. */
export interface ProofNode {
  kind: 'rule' | 'fact' | 'builtin' | 'negation' | 'comparison';
  /** The goal as proved, with its values: `known_contact("+14155550111")`. */
  text: string;
  /** The rule's file:line, for rules and negations. */
  source?: string;
  provenance?: FactProvenance;
  /** Epoch seconds after which this step (and everything resting on it) no longer holds. */
  expiresAt?: number;
  children: ProofNode[];
}

export interface MissingTool {
  tool: string;
  args: Record<string, unknown>;
  /** The base predicate the call would establish. */
  predicate: string;
  /** Why it was not called or did not answer. */
  error?: string;
  /** `search_contacts(query: "+14155550111")`. */
  text: string;
}

export interface MissingQuestion {
  predicate: string;
  /** The question with its placeholders filled in. */
  question: string;
  /** How to record the answer: `credit_score(ct_lead, Score)` — fill the variables, then `recordAnswer`. */
  answerPattern: string;
}

export interface Missing {
  tools: MissingTool[];
  questions: MissingQuestion[];
  /** Context variables a proof needed that are not bound (set them with set_focus). */
  focus: string[];
}

export type SolveStatus = 'proved' | 'failed' | 'blocked' | 'unknown';

export interface Answer {
  bindings: Record<string, FactValue>;
  proof: ProofNode[];
  /** Earliest expiry among the facts the proof rests on (epoch seconds); absent = does not expire. */
  validUntil?: number;
}

export interface SolveResult {
  /**
   * proved: at least one answer. failed: no proof and nothing would change that. blocked: no proof yet, but
   * `missing` lists tools or questions that could unblock it. unknown: a depth or time limit was reached.
   */
  status: SolveStatus;
  answers: Answer[];
  missing: Missing;
  reason?: string;
  stats: { steps: number; fetches: number; ms: number };
}

type RTerm = { v: string } | { c: FactValue };
type Subst = ReadonlyMap<string, RTerm>;

class LimitError extends Error {}

class Scope {
  readonly tools = new Map<string, MissingTool>();
  readonly questions = new Map<string, MissingQuestion>();
  readonly focus = new Set<string>();
  limitHit: string | undefined;
  /** Earliest expiry of the closed-world markers consulted (an absence is only known until then). */
  minExpiry: number | undefined;

  noteExpiry(e: number | undefined) {
    if (e !== undefined && (this.minExpiry === undefined || e < this.minExpiry)) this.minExpiry = e;
  }

  get blocked(): boolean {
    return (
      this.tools.size > 0 || this.questions.size > 0 || this.focus.size > 0 || this.limitHit !== undefined
    );
  }

  absorb(o: Scope) {
    for (const [k, v] of o.tools) this.tools.set(k, v);
    for (const [k, v] of o.questions) this.questions.set(k, v);
    for (const f of o.focus) this.focus.add(f);
    this.limitHit ??= o.limitHit;
  }
}

interface Ctx {
  session: Session;
  scope: Scope;
  deadline: number;
  counters: { frames: number; steps: number; fresh: number };
}

interface Sol {
  s: Subst;
  node: ProofNode;
}

const where = (p: Pos) => `${p.file}:${p.line}`;

function walk(t: RTerm, s: Subst): RTerm {
  let cur = t;
  while ('v' in cur) {
    const next = s.get(cur.v);
    if (!next) return cur;
    cur = next;
  }
  return cur;
}

function bind(s: Subst, v: string, t: RTerm): Subst {
  return new Map(s).set(v, t);
}

function unify(a: RTerm, b: RTerm, s: Subst): Subst | undefined {
  const x = walk(a, s);
  const y = walk(b, s);
  if ('c' in x && 'c' in y) return x.c === y.c ? s : undefined;
  if ('v' in x) return 'v' in y && y.v === x.v ? s : bind(s, x.v, y);
  return bind(s, (y as { v: string }).v, x);
}

function valueAt(t: RTerm, s: Subst): FactValue | undefined {
  const w = walk(t, s);
  return 'c' in w ? w.c : undefined;
}

/** A rule variable in one activation of its clause; `_` is fresh at every occurrence. */
function rt(ctx: Ctx, t: Term, frame: number): RTerm | undefined {
  if (t.kind === 'const') return { c: t.value };
  if (t.kind === 'var') return { v: t.name === '_' ? `_#${ctx.counters.fresh++}` : `${t.name}#${frame}` };
  const bound = ctx.session.focus.get(t.name);
  if (bound === undefined) {
    ctx.scope.focus.add(t.name);
    return undefined;
  }
  return { c: bound };
}

function atomArgs(ctx: Ctx, atom: Atom, frame: number): RTerm[] | undefined {
  const out: RTerm[] = [];
  for (const a of atom.args) {
    const r = rt(ctx, a, frame);
    if (!r) return undefined;
    out.push(r);
  }
  return out;
}

function renderGoal(pred: string, args: RTerm[], s: Subst): string {
  return renderAtomText(
    pred,
    args.map((a) => valueAt(a, s)),
  );
}

function minExpiry(nodes: ProofNode[], own?: number): number | undefined {
  let m = own;
  for (const n of nodes)
    if (n.expiresAt !== undefined && (m === undefined || n.expiresAt < m)) m = n.expiresAt;
  return m;
}

function checkDeadline(ctx: Ctx) {
  ctx.counters.steps++;
  if (performance.now() > ctx.deadline) throw new LimitError('time');
}

async function* conj(
  ctx: Ctx,
  body: Literal[],
  i: number,
  frame: number,
  s: Subst,
  depth: number,
  acc: ProofNode[],
): AsyncGenerator<{ s: Subst; proof: ProofNode[] }> {
  if (i === body.length) {
    yield { s, proof: acc };
    return;
  }
  prefetchSiblings(ctx, body, i, frame, s);
  for await (const r of literal(ctx, body[i] as Literal, frame, s, depth)) {
    yield* conj(ctx, body, i + 1, frame, r.s, depth, [...acc, r.node]);
  }
}

/**
 * Starts, side by side, the tool fetches that the remaining goals of a conjunction will need and can already
 * make (their inputs are bound). A goal that is never reached costs one extra read; in exchange, independent
 * lookups (a lead's credit score and its pets) wait for the slowest tool instead of for the sum.
 */
function prefetchSiblings(ctx: Ctx, body: Literal[], i: number, frame: number, s: Subst) {
  const { session } = ctx;
  if (!session.canFetch || body.length - i < 2) return;
  const ready: Array<() => void> = [];
  for (let j = i; j < body.length; j++) {
    const l = body[j] as Literal;
    if (l.kind !== 'atom' || l.negated) continue;
    const b = session.rb.bindings.get(l.atom.pred);
    if (!b) continue;
    const inputs: FactValue[] = [];
    for (const p of b.inputPositions) {
      const t = l.atom.args[p] as Term;
      const v =
        t.kind === 'const'
          ? t.value
          : t.kind === 'ctx'
            ? session.focus.get(t.name)
            : t.name === '_'
              ? undefined
              : valueAt({ v: `${t.name}#${frame}` }, s);
      if (v === undefined) break;
      inputs.push(v);
    }
    if (inputs.length !== b.inputPositions.length || session.isFetched(b, inputs)) continue;
    ready.push(() => void session.fetch(b, inputs, ctx.deadline));
  }
  if (ready.length >= 2) for (const start of ready) start();
}

async function* literal(ctx: Ctx, lit: Literal, frame: number, s: Subst, depth: number): AsyncGenerator<Sol> {
  checkDeadline(ctx);
  if (lit.kind === 'cmp') {
    const r = compare(ctx, lit, frame, s);
    if (r) yield r;
    return;
  }
  const args = atomArgs(ctx, lit.atom, frame);
  if (!args) return;
  if (lit.negated) {
    const r = await negation(ctx, lit, args, s, depth);
    if (r) yield r;
    return;
  }
  yield* positive(ctx, lit.atom.pred, args, s, depth);
}

async function* positive(
  ctx: Ctx,
  pred: string,
  args: RTerm[],
  s: Subst,
  depth: number,
): AsyncGenerator<Sol> {
  const builtin = BUILTINS[pred];
  if (builtin) {
    const given = args.map((a) => valueAt(a, s));
    for (const tuple of builtin.solve(given, ctx.session.env)) {
      const s2 = unifyTuple(args, tuple, s);
      if (s2) yield { s: s2, node: { kind: 'builtin', text: renderAtomText(pred, tuple), children: [] } };
    }
    return;
  }
  const rules = ctx.session.rb.rules.get(pred);
  if (rules) {
    if (depth >= ctx.session.limits.maxDepth) {
      ctx.scope.limitHit = `depth limit ${ctx.session.limits.maxDepth} reached at ${pred}`;
      return;
    }
    for (const rule of rules) {
      const f = ++ctx.counters.frames;
      let s2: Subst | undefined = s;
      for (let k = 0; k < args.length && s2; k++) {
        const h = rt(ctx, rule.head.args[k] as Term, f);
        s2 = h ? unify(h, args[k] as RTerm, s2) : undefined;
      }
      if (!s2) continue;
      for await (const r of conj(ctx, rule.body, 0, f, s2, depth + 1, [])) {
        yield {
          s: r.s,
          node: {
            kind: 'rule',
            text: renderGoal(pred, args, r.s),
            source: where(rule.pos),
            children: r.proof,
            ...optional('expiresAt', minExpiry(r.proof)),
          },
        };
      }
    }
    return;
  }
  yield* base(ctx, pred, args, s);
}

function optional<K extends string, V>(key: K, v: V | undefined): { [P in K]?: V } {
  return (v === undefined ? {} : { [key]: v }) as { [P in K]?: V };
}

function unifyTuple(args: RTerm[], tuple: ReadonlyArray<FactValue>, s: Subst): Subst | undefined {
  let s2: Subst | undefined = s;
  for (let k = 0; k < args.length && s2; k++) s2 = unify(args[k] as RTerm, { c: tuple[k] as FactValue }, s2);
  return s2;
}

async function* base(ctx: Ctx, pred: string, args: RTerm[], s: Subst): AsyncGenerator<Sol> {
  const { session, scope } = ctx;
  const pattern = args.map((a) => valueAt(a, s));
  const b = session.rb.bindings.get(pred);
  let toolBlocked = false;
  if (b) {
    const inputs = b.inputPositions.map((p) => pattern[p]);
    if (inputs.every((v) => v !== undefined)) {
      const ground = inputs as FactValue[];
      const marker = session.marker(FETCHED, [pred, ...ground]);
      if (marker) {
        scope.noteExpiry(marker.expiresAt);
      } else {
        const toolArgs = session.toolArgs(b, ground) ?? {};
        const missing = (error: string) => {
          toolBlocked = true;
          const text = describeCall(b.stmt.tool, toolArgs);
          scope.tools.set(text, { tool: b.stmt.tool, args: toolArgs, predicate: pred, error, text });
        };
        if (!session.canFetch) {
          missing('not fetched during this check');
        } else {
          const outcome = await session.fetch(b, ground, ctx.deadline);
          checkDeadline(ctx);
          if (!outcome.ok && outcome.timedOut) throw new LimitError('time');
          if (!outcome.ok) missing(outcome.error);
          else scope.noteExpiry(session.marker(FETCHED, [pred, ...ground])?.expiresAt);
        }
      }
    }
  }
  const facts = session.match(pred, pattern);
  for (const f of facts) {
    const s2 = unifyTuple(args, f.args, s);
    if (s2) yield { s: s2, node: factNode(f) };
  }
  if (facts.length > 0 || toolBlocked) return;
  const ask = session.rb.askables.get(pred);
  if (!ask) return;
  // Tools first: we only get here when no bound tool could supply the fact.
  const key = ask.keyPositions.map((p) => pattern[p]);
  if (key.some((v) => v === undefined)) return;
  const keyPattern = pattern.map((v, i) => (ask.keyPositions.includes(i) ? v : undefined));
  if (session.match(pred, keyPattern).length > 0) return;
  const denied = session.marker(DENIED, [pred, ...(key as FactValue[])]);
  if (denied) {
    scope.noteExpiry(denied.expiresAt);
    return;
  }
  const question = ask.stmt.question.replace(/\{([A-Z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    const i = ask.stmt.head.args.findIndex((a) => a.kind === 'var' && a.name === name);
    const v = pattern[i];
    return v === undefined ? name : String(v);
  });
  const filled = ask.stmt.head.args.map((a, i) => {
    const v = ask.keyPositions.includes(i) ? pattern[i] : undefined;
    return v !== undefined ? renderValue(v) : a.kind === 'var' ? a.name : '_';
  });
  const answerPattern = filled.length ? `${pred}(${filled.join(', ')})` : pred;
  scope.questions.set(`${pred}|${JSON.stringify(key)}`, { predicate: pred, question, answerPattern });
}

function factNode(f: StoredFact): ProofNode {
  return {
    kind: 'fact',
    text: renderAtomText(f.predicate, f.args),
    provenance: f.provenance,
    ...optional('expiresAt', f.expiresAt),
    children: [],
  };
}

/**
 * Negation as failure, three-valued: `not p` holds when p has no proof and nothing is missing; when p could
 * not be decided (a question, a tool, a limit), `not p` is undecided too and the missing pieces propagate.
 */
async function negation(
  ctx: Ctx,
  lit: Extract<Literal, { kind: 'atom' }>,
  args: RTerm[],
  s: Subst,
  depth: number,
): Promise<Sol | undefined> {
  const inner: Ctx = { ...ctx, scope: new Scope() };
  for await (const _ of positive(inner, lit.atom.pred, args, s, depth)) {
    return undefined;
  }
  if (inner.scope.blocked) {
    ctx.scope.absorb(inner.scope);
    return undefined;
  }
  ctx.scope.noteExpiry(inner.scope.minExpiry);
  return {
    s,
    node: {
      kind: 'negation',
      text: `not ${renderGoal(lit.atom.pred, args, s)}`,
      source: where(lit.pos),
      ...optional('expiresAt', inner.scope.minExpiry),
      children: [],
    },
  };
}

function evalExpr(ctx: Ctx, e: Expr, frame: number, s: Subst): RTerm | undefined {
  if (e.kind !== 'arith') return rt(ctx, e, frame);
  const l = evalExpr(ctx, e.left, frame, s);
  const r = evalExpr(ctx, e.right, frame, s);
  const a = l && valueAt(l, s);
  const b = r && valueAt(r, s);
  const x = a === undefined ? undefined : asNumber(a);
  const y = b === undefined ? undefined : asNumber(b);
  if (x === undefined || y === undefined) return undefined;
  const v = e.op === '+' ? x + y : e.op === '-' ? x - y : e.op === '*' ? x * y : y === 0 ? Number.NaN : x / y;
  return Number.isFinite(v) ? { c: v } : undefined;
}

function compare(ctx: Ctx, lit: Extract<Literal, { kind: 'cmp' }>, frame: number, s: Subst): Sol | undefined {
  const l = evalExpr(ctx, lit.left, frame, s);
  const r = evalExpr(ctx, lit.right, frame, s);
  if (!l || !r) return undefined;
  if (lit.op === '=') {
    const s2 = unify(l, r, s);
    if (!s2) return undefined;
    const v = valueAt(l, s2);
    return {
      s: s2,
      node: {
        kind: 'comparison',
        text: `${renderValue(v as FactValue)} = ${renderValue(v as FactValue)}`,
        children: [],
      },
    };
  }
  const a = valueAt(l, s);
  const b = valueAt(r, s);
  if (a === undefined || b === undefined) return undefined;
  let ok: boolean;
  if (lit.op === '!=') {
    ok = a !== b;
  } else {
    const x = asNumber(a);
    const y = asNumber(b);
    const [p, q] =
      x !== undefined && y !== undefined
        ? [x, y]
        : typeof a === 'string' && typeof b === 'string'
          ? [a, b]
          : [];
    if (p === undefined || q === undefined) return undefined;
    ok = lit.op === '<' ? p < q : lit.op === '<=' ? p <= q : lit.op === '>' ? p > q : p >= q;
  }
  if (!ok) return undefined;
  return {
    s,
    node: { kind: 'comparison', text: `${renderValue(a)} ${lit.op} ${renderValue(b)}`, children: [] },
  };
}

export interface ProveOpts {
  /** Stop after this many distinct answers (a guard needs one). */
  maxAnswers?: number;
  /** Variables of the body already known (a guard's tool arguments). */
  given?: Record<string, FactValue>;
}

/** Proves a conjunction (a guard body, a query) against the session. */
export async function prove(session: Session, body: Literal[], opts: ProveOpts = {}): Promise<SolveResult> {
  const started = performance.now();
  const ctx: Ctx = {
    session,
    scope: new Scope(),
    deadline: started + session.limits.timeoutMs,
    counters: { frames: 0, steps: 0, fresh: 0 },
  };
  const maxAnswers = opts.maxAnswers ?? 1;
  let s: Subst = new Map();
  for (const [k, v] of Object.entries(opts.given ?? {})) s = bind(s, `${k}#0`, { c: v });
  const names = new Set<string>();
  const collect = (t: Expr) => {
    if (t.kind === 'var' && t.name !== '_') names.add(t.name);
    else if (t.kind === 'arith') {
      collect(t.left);
      collect(t.right);
    }
  };
  for (const l of body) {
    if (l.kind === 'atom') l.atom.args.forEach(collect);
    else {
      collect(l.left);
      collect(l.right);
    }
  }
  const answers: Answer[] = [];
  const seen = new Set<string>();
  let reason: string | undefined;
  const fetchesBefore = session.fetchLog.length;
  try {
    for await (const r of conj(ctx, body, 0, 0, s, 0, [])) {
      const bindings: Record<string, FactValue> = {};
      for (const n of names) {
        const v = valueAt({ v: `${n}#0` }, r.s);
        if (v !== undefined) bindings[n] = v;
      }
      const key = JSON.stringify(bindings);
      if (seen.has(key)) continue;
      seen.add(key);
      answers.push({ bindings, proof: r.proof, ...optional('validUntil', minExpiry(r.proof)) });
      if (answers.length >= maxAnswers) break;
    }
  } catch (e) {
    if (!(e instanceof LimitError)) throw e;
    reason = `time limit of ${session.limits.timeoutMs} ms reached`;
  }
  const sc = ctx.scope;
  const status: SolveStatus =
    answers.length > 0 ? 'proved' : reason || sc.limitHit ? 'unknown' : sc.blocked ? 'blocked' : 'failed';
  return {
    status,
    answers,
    missing: { tools: [...sc.tools.values()], questions: [...sc.questions.values()], focus: [...sc.focus] },
    ...optional('reason', reason ?? (status === 'unknown' ? sc.limitHit : undefined)),
    stats: {
      steps: ctx.counters.steps,
      fetches: session.fetchLog.length - fetchesBefore,
      ms: performance.now() - started,
    },
  };
}

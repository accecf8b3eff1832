import type {
  ArithOp,
  Atom,
  CmpOp,
  ContextStmt,
  Expr,
  FieldMap,
  Literal,
  Pos,
  Statement,
  Term,
  ToolParam,
} from './ast';
import { RulebaseError, type RulebaseIssue } from './errors';

/*
 * A small recursive-descent parser for the rulebase language (docs/POLICY.md). The grammar is tiny and
 * line/column-exact errors matter more than generality here, so it is written by hand rather than generated.
 */

type TokKind = 'ident' | 'var' | 'number' | 'string' | 'punct' | 'eof';

interface Token {
  kind: TokKind;
  text: string;
  /** Numbers carry their value; strings their unescaped text. */
  value?: string | number;
  line: number;
  column: number;
  offset: number;
  end: number;
}

const PUNCT = [
  ':-',
  '!=',
  '<=',
  '>=',
  '=<',
  '(',
  ')',
  ',',
  '.',
  ':',
  '{',
  '}',
  '=',
  '<',
  '>',
  '+',
  '-',
  '*',
  '/',
];

/** Statement keywords: reserved, so a predicate can never be named like one. */
export const KEYWORDS = new Set(['context', 'ttl', 'askable', 'base', 'bind', 'autonomous', 'not']);

class Lexer {
  private i = 0;
  private line = 1;
  private col = 1;

  constructor(
    private readonly src: string,
    private readonly file: string,
    private readonly issues: RulebaseIssue[],
  ) {}

  tokens(): Token[] {
    const out: Token[] = [];
    for (;;) {
      const t = this.next();
      out.push(t);
      if (t.kind === 'eof') return out;
    }
  }

  private peekChar(k = 0): string {
    return this.src[this.i + k] ?? '';
  }

  private advance(): string {
    const c = this.src[this.i++] ?? '';
    if (c === '\n') {
      this.line++;
      this.col = 1;
    } else {
      this.col++;
    }
    return c;
  }

  private next(): Token {
    for (;;) {
      const c = this.peekChar();
      if (c === '') return this.tok('eof', '', this.line, this.col, this.i);
      if (c === '%') {
        while (this.peekChar() !== '' && this.peekChar() !== '\n') this.advance();
        continue;
      }
      if (/\s/.test(c)) {
        this.advance();
        continue;
      }
      const line = this.line;
      const column = this.col;
      const start = this.i;
      if (/[a-z]/.test(c)) {
        while (/[A-Za-z0-9_]/.test(this.peekChar())) this.advance();
        return this.tok('ident', this.src.slice(start, this.i), line, column, start);
      }
      if (/[A-Z_]/.test(c)) {
        while (/[A-Za-z0-9_]/.test(this.peekChar())) this.advance();
        return this.tok('var', this.src.slice(start, this.i), line, column, start);
      }
      if (/[0-9]/.test(c)) {
        while (/[0-9]/.test(this.peekChar())) this.advance();
        // "3.5" is a number; "3." ends a statement.
        if (this.peekChar() === '.' && /[0-9]/.test(this.peekChar(1))) {
          this.advance();
          while (/[0-9]/.test(this.peekChar())) this.advance();
        }
        const text = this.src.slice(start, this.i);
        return { ...this.tok('number', text, line, column, start), value: Number(text) };
      }
      if (c === '"') return this.string(line, column, start);
      const p = PUNCT.find((x) => this.src.startsWith(x, this.i));
      if (p) {
        for (let k = 0; k < p.length; k++) this.advance();
        return this.tok('punct', p, line, column, start);
      }
      this.issues.push({ file: this.file, line, column, message: `unexpected character '${c}'` });
      this.advance();
    }
  }

  private string(line: number, column: number, start: number): Token {
    this.advance();
    let value = '';
    for (;;) {
      const c = this.peekChar();
      if (c === '' || c === '\n') {
        this.issues.push({ file: this.file, line, column, message: 'unterminated string' });
        break;
      }
      this.advance();
      if (c === '"') break;
      if (c === '\\') {
        const e = this.advance();
        value += e === 'n' ? '\n' : e === 't' ? '\t' : e;
      } else {
        value += c;
      }
    }
    return { ...this.tok('string', this.src.slice(start, this.i), line, column, start), value };
  }

  private tok(kind: TokKind, text: string, line: number, column: number, offset: number): Token {
    return { kind, text, line, column, offset, end: this.i };
  }
}

class Bail extends Error {}

const CMP_OPS = new Set<string>(['=', '!=', '<', '<=', '=<', '>', '>=']);
const DURATION_UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/** A generic "name(args)" read before we know whether it is a rule head, a guard or a tool call. */
interface RawHead {
  name: string;
  args: Array<{ key?: string; term: Term }>;
  pos: Pos;
}

class Parser {
  private k = 0;

  constructor(
    private readonly toks: Token[],
    private readonly src: string,
    private readonly file: string,
    private readonly issues: RulebaseIssue[],
  ) {}

  program(): Statement[] {
    const out: Statement[] = [];
    while (this.peek().kind !== 'eof') {
      const before = this.k;
      try {
        out.push(this.statement());
      } catch (e) {
        if (!(e instanceof Bail)) throw e;
        this.recover(before);
      }
    }
    return out;
  }

  /** After an error, skip to the end of the statement so later statements are still checked. */
  private recover(before: number) {
    if (this.k === before) this.k++;
    while (this.peek().kind !== 'eof') {
      const t = this.toks[this.k++] as Token;
      if (t.kind === 'punct' && t.text === '.') return;
    }
  }

  private peek(n = 0): Token {
    return this.toks[Math.min(this.k + n, this.toks.length - 1)] as Token;
  }

  private take(): Token {
    const t = this.peek();
    if (t.kind !== 'eof') this.k++;
    return t;
  }

  private pos(t: Token): Pos {
    return { file: this.file, line: t.line, column: t.column };
  }

  private fail(t: Token, message: string): never {
    this.issues.push({ file: this.file, line: t.line, column: t.column, message });
    throw new Bail();
  }

  private describe(t: Token): string {
    return t.kind === 'eof' ? 'end of file' : `'${t.text}'`;
  }

  private isPunct(text: string, n = 0): boolean {
    const t = this.peek(n);
    return t.kind === 'punct' && t.text === text;
  }

  private isWord(text: string, n = 0): boolean {
    const t = this.peek(n);
    return t.kind === 'ident' && t.text === text;
  }

  private expectPunct(text: string, what?: string): Token {
    const t = this.peek();
    if (t.kind !== 'punct' || t.text !== text) {
      this.fail(t, `expected '${text}'${what ? ` ${what}` : ''} but found ${this.describe(t)}`);
    }
    return this.take();
  }

  private expectWord(text: string): Token {
    if (!this.isWord(text))
      this.fail(this.peek(), `expected '${text}' but found ${this.describe(this.peek())}`);
    return this.take();
  }

  private expectKind(kind: TokKind, what: string): Token {
    const t = this.peek();
    if (t.kind !== kind) this.fail(t, `expected ${what} but found ${this.describe(t)}`);
    return this.take();
  }

  private predicateName(what: string): Token {
    const t = this.expectKind('ident', what);
    if (KEYWORDS.has(t.text)) this.fail(t, `'${t.text}' is a keyword and cannot name a predicate`);
    return t;
  }

  private statement(): Statement {
    const t = this.peek();
    if (t.kind === 'ident' && !this.isPunct('(', 1) && !this.isPunct(':-', 1)) {
      switch (t.text) {
        case 'context':
          return this.context();
        case 'ttl':
          return this.ttl();
        case 'askable': {
          this.take();
          const head = this.atom();
          const q = this.expectKind('string', 'the question to ask (a "quoted string")');
          this.expectPunct('.', 'to end the statement');
          return { kind: 'askable', head, question: String(q.value), pos: this.pos(t) };
        }
        case 'base': {
          this.take();
          const head = this.atom();
          this.expectPunct('.', 'to end the statement');
          return { kind: 'base', head, pos: this.pos(t) };
        }
        case 'bind':
          return this.bind();
        case 'autonomous': {
          this.take();
          const start = this.peek();
          const head = this.rawHead();
          this.expectWord('when');
          const body = this.body();
          const end = this.expectPunct('.', 'to end the statement');
          return {
            kind: 'autonomous',
            tool: head.name,
            params: this.toolParams(head),
            body,
            pos: this.pos(t),
            text: this.src.slice(start.offset, end.end),
          };
        }
      }
    }
    const start = this.peek();
    const head = this.rawHead();
    if (this.isWord('requires')) {
      this.take();
      const body = this.body();
      const end = this.expectPunct('.', 'to end the guard');
      return {
        kind: 'guard',
        tool: head.name,
        params: this.toolParams(head),
        body,
        pos: head.pos,
        text: this.src.slice(start.offset, end.end),
      };
    }
    const atom = this.headAsAtom(head);
    if (this.isPunct(':-')) {
      this.take();
      const body = this.body();
      this.expectPunct('.', 'to end the rule');
      return { kind: 'rule', head: atom, body, pos: atom.pos };
    }
    const next = this.peek();
    if (next.kind === 'punct' && next.text === '.') {
      this.take();
      return { kind: 'rule', head: atom, body: [], pos: atom.pos };
    }
    this.fail(
      next,
      `expected ':-', 'requires' or '.' after ${atom.pred}(…) but found ${this.describe(next)}`,
    );
  }

  private context(): ContextStmt {
    const kw = this.take();
    const name = this.expectKind('ident', 'a context variable name');
    let fixed = false;
    if (this.isWord('fixed')) {
      this.take();
      fixed = true;
    }
    let description: string | undefined;
    if (this.peek().kind === 'string') description = String(this.take().value);
    let where: Literal[] | undefined;
    if (this.isWord('where')) {
      this.take();
      where = this.body();
    }
    this.expectPunct('.', 'to end the context declaration');
    return {
      kind: 'context',
      name: name.text,
      fixed,
      ...(description !== undefined ? { description } : {}),
      ...(where ? { where } : {}),
      pos: this.pos(kw),
    };
  }

  private ttl(): Statement {
    const kw = this.take();
    const pred = this.predicateName('a predicate name');
    let seconds: number | null;
    if (this.isWord('never')) {
      this.take();
      seconds = null;
    } else {
      const n = this.expectKind('number', "a duration such as 30s, 5m, 2h, 1d or 'never'");
      const unit = this.peek();
      const factor = unit.kind === 'ident' ? DURATION_UNITS[unit.text] : undefined;
      if (factor === undefined || unit.offset !== n.end) {
        this.fail(unit, `expected a duration unit (s, m, h or d) right after ${n.text}`);
      }
      this.take();
      seconds = Math.round(Number(n.value) * factor);
    }
    this.expectPunct('.', 'to end the ttl annotation');
    return { kind: 'ttl', pred: pred.text, seconds, pos: this.pos(kw) };
  }

  private bind(): Statement {
    const kw = this.take();
    const head = this.atom();
    this.expectWord('from');
    const call = this.rawHead();
    const args: ToolParam[] = [];
    for (const a of call.args) {
      if (a.key === undefined) this.failAt(a.term.pos, 'tool arguments in a binding are written key: Value');
      args.push({ key: a.key, term: a.term });
    }
    let each: string | undefined;
    if (this.isWord('each')) {
      this.take();
      each = String(this.expectKind('string', 'a JSON path such as "contacts[*]"').value);
    }
    const fields: FieldMap[] = [];
    if (this.isPunct('{')) {
      this.take();
      while (!this.isPunct('}')) {
        const v = this.expectKind('var', 'a variable of the bound predicate');
        this.expectPunct(':');
        const p = this.expectKind('string', 'a JSON path such as "id"');
        fields.push({ variable: v.text, path: String(p.value), pos: this.pos(v) });
        if (!this.isPunct('}')) this.expectPunct(',', "or '}'");
      }
      this.take();
    }
    this.expectPunct('.', 'to end the binding');
    return {
      kind: 'bind',
      head,
      tool: call.name,
      args,
      ...(each !== undefined ? { each } : {}),
      fields,
      pos: this.pos(kw),
    };
  }

  private failAt(p: Pos, message: string): never {
    this.issues.push({ ...p, message });
    throw new Bail();
  }

  private rawHead(): RawHead {
    const name = this.expectKind('ident', 'a predicate or tool name');
    const head: RawHead = { name: name.text, args: [], pos: this.pos(name) };
    if (!this.isPunct('(')) return head;
    this.take();
    if (this.isPunct(')')) {
      this.take();
      return head;
    }
    for (;;) {
      if (this.peek().kind === 'ident' && this.isPunct(':', 1)) {
        const key = this.take();
        this.take();
        head.args.push({ key: key.text, term: this.term() });
      } else {
        head.args.push({ term: this.term() });
      }
      if (this.isPunct(')')) break;
      this.expectPunct(',', "or ')'");
    }
    this.take();
    return head;
  }

  private headAsAtom(h: RawHead): Atom {
    if (KEYWORDS.has(h.name)) this.failAt(h.pos, `'${h.name}' is a keyword and cannot name a predicate`);
    const args = h.args.map((a) => {
      if (a.key !== undefined) this.failAt(a.term.pos, `'${a.key}:' is only allowed in guards and bindings`);
      return a.term;
    });
    return { pred: h.name, args, pos: h.pos };
  }

  /** Guard parameters: `key: Term`, or a bare variable whose name gives the key (`To` reads args.to). */
  private toolParams(h: RawHead): ToolParam[] {
    return h.args.map((a) => {
      if (a.key !== undefined) return { key: a.key, term: a.term };
      if (a.term.kind !== 'var') this.failAt(a.term.pos, 'write a constant tool argument as key: value');
      return { key: a.term.name, term: a.term };
    });
  }

  private atom(): Atom {
    const name = this.predicateName('a predicate name');
    const args: Term[] = [];
    if (this.isPunct('(')) {
      this.take();
      if (!this.isPunct(')')) {
        for (;;) {
          args.push(this.term());
          if (this.isPunct(')')) break;
          this.expectPunct(',', "or ')'");
        }
      }
      this.take();
    }
    return { pred: name.text, args, pos: this.pos(name) };
  }

  private body(): Literal[] {
    const out = [this.literal()];
    while (this.isPunct(',')) {
      this.take();
      out.push(this.literal());
    }
    return out;
  }

  private literal(): Literal {
    const t = this.peek();
    if (this.isWord('not')) {
      this.take();
      const atom = this.atom();
      return { kind: 'atom', atom, negated: true, pos: this.pos(t) };
    }
    if (t.kind === 'ident' && this.isPunct('(', 1)) {
      const atom = this.atom();
      const after = this.peek();
      if (after.kind === 'punct' && (CMP_OPS.has(after.text) || '+-*/'.includes(after.text))) {
        this.fail(after, `${atom.pred}(…) is a predicate, not a value, and cannot be compared`);
      }
      return { kind: 'atom', atom, negated: false, pos: atom.pos };
    }
    if (t.kind === 'ident') {
      const after = this.peek(1);
      const isOperand = after.kind === 'punct' && (CMP_OPS.has(after.text) || '+-*/'.includes(after.text));
      if (!isOperand) {
        const atom = this.atom();
        return { kind: 'atom', atom, negated: false, pos: atom.pos };
      }
    }
    const left = this.expr();
    const op = this.peek();
    if (op.kind !== 'punct' || !CMP_OPS.has(op.text)) {
      this.fail(op, `expected a comparison (=, !=, <, <=, >, >=) but found ${this.describe(op)}`);
    }
    this.take();
    const right = this.expr();
    const norm = (op.text === '=<' ? '<=' : op.text) as CmpOp;
    return { kind: 'cmp', op: norm, left, right, pos: this.pos(t) };
  }

  private expr(): Expr {
    let left = this.product();
    while (this.isPunct('+') || this.isPunct('-')) {
      const op = this.take();
      left = { kind: 'arith', op: op.text as ArithOp, left, right: this.product(), pos: this.pos(op) };
    }
    return left;
  }

  private product(): Expr {
    let left = this.factor();
    while (this.isPunct('*') || this.isPunct('/')) {
      const op = this.take();
      left = { kind: 'arith', op: op.text as ArithOp, left, right: this.factor(), pos: this.pos(op) };
    }
    return left;
  }

  private factor(): Expr {
    if (this.isPunct('(')) {
      this.take();
      const e = this.expr();
      this.expectPunct(')');
      return e;
    }
    return this.term();
  }

  private term(): Term {
    const t = this.peek();
    if (t.kind === 'var') {
      this.take();
      return { kind: 'var', name: t.text, pos: this.pos(t) };
    }
    if (t.kind === 'ident') {
      this.take();
      // Context names are resolved once the whole rulebase is known (load.ts).
      return { kind: 'const', value: t.text, quoted: false, pos: this.pos(t) };
    }
    if (t.kind === 'number' || t.kind === 'string') {
      this.take();
      return {
        kind: 'const',
        value: t.value as string | number,
        quoted: t.kind === 'string',
        pos: this.pos(t),
      };
    }
    if (t.kind === 'punct' && t.text === '-' && this.peek(1).kind === 'number') {
      this.take();
      const n = this.take();
      return { kind: 'const', value: -Number(n.value), quoted: false, pos: this.pos(t) };
    }
    this.fail(t, `expected a variable, constant, number or "string" but found ${this.describe(t)}`);
  }

  /** For queries: a body with an optional final '.'. */
  queryBody(): Literal[] {
    const body = this.body();
    if (this.isPunct('.')) this.take();
    const t = this.peek();
    if (t.kind !== 'eof') this.fail(t, `unexpected ${this.describe(t)} after the query`);
    return body;
  }

  singleAtom(): Atom {
    const a = this.atom();
    if (this.isPunct('.')) this.take();
    const t = this.peek();
    if (t.kind !== 'eof') this.fail(t, `unexpected ${this.describe(t)} after the fact`);
    return a;
  }
}

function run<T>(src: string, file: string, f: (p: Parser) => T): T {
  const issues: RulebaseIssue[] = [];
  const toks = new Lexer(src, file, issues).tokens();
  const parser = new Parser(toks, src, file, issues);
  let out: T | undefined;
  try {
    out = f(parser);
  } catch (e) {
    if (!(e instanceof Bail)) throw e;
  }
  if (issues.length > 0 || out === undefined) throw new RulebaseError(issues);
  return out;
}

/** Parses one rulebase file. Throws RulebaseError with every syntax error found (file, line, column). */
export function parseRulebaseText(src: string, file = 'rulebase'): Statement[] {
  return run(src, file, (p) => p.program());
}

/** Parses a query such as `booking_status(booking_of_interest, Status)` (a comma-separated body). */
export function parseQueryText(src: string): Literal[] {
  return run(src, 'query', (p) => p.queryBody());
}

/** Parses one ground-ish atom such as `credit_score(ct_lead, 640)` (answers, seeds). */
export function parseAtomText(src: string): Atom {
  return run(src, 'fact', (p) => p.singleAtom());
}

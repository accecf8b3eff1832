import type { NodeOutput, ResearchNode, ResearchTask } from '../../contracts/research';

/**
 * Rules mode's words for what a read tool returned: a few markdown bullets a person can scan, and the facts
 * later steps may use (the contact's phone and email). Shapes follow our own tools' results.
 */
type Row = Record<string, unknown>;
const str = (v: unknown) => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));
const MAX_LINES = 8;

function listIn(result: unknown): { rows: Row[]; label: string; known: boolean } {
  if (Array.isArray(result)) return { rows: result as Row[], label: 'items', known: true };
  if (result && typeof result === 'object') {
    for (const label of [
      'contacts',
      'emails',
      'tasks',
      'events',
      'hits',
      'messages',
      'texts',
      'items',
      'calls',
    ]) {
      const v = (result as Row)[label];
      if (Array.isArray(v)) return { rows: v as Row[], label, known: true };
    }
  }
  return { rows: [], label: 'items', known: false };
}

function line(r: Row): string {
  const when = str(r.date ?? r.createdAt ?? r.start ?? r.at ?? r.due_date ?? r.dueDate ?? r.lastMessageAt);
  const what = str(
    r.subject ?? r.summary ?? r.name ?? r.title ?? r.text ?? r.snippet ?? r.preview ?? r.line ?? r.body,
  );
  const who = str(r.from ?? r.direction ?? r.status ?? r.author ?? '');
  const status =
    r.status && typeof r.status === 'object'
      ? str((r.status as Row).status)
      : typeof r.status === 'string'
        ? ''
        : '';
  const parts = [
    when && `${when.slice(0, 16).replace('T', ' ')}`,
    who && `(${who})`,
    what.slice(0, 140),
    status,
  ]
    .filter(Boolean)
    .join(' ');
  return `- ${parts || JSON.stringify(r).slice(0, 140)}`;
}

export function describeResult(tool: string, result: unknown): NodeOutput {
  const { rows, label, known } = listIn(result);
  const facts: Record<string, string> = {};
  if (tool === 'search_contacts' && rows[0]) {
    const c = rows[0] as { name?: string; phones?: string[]; emails?: string[] };
    if (c.name) facts.name = c.name;
    if (c.phones?.[0]) facts.phone = c.phones[0];
    if (c.emails?.[0]) facts.email = c.emails[0];
  }
  // An empty list the tool answered with is "nothing found" (with what was looked for), never its JSON.
  if (!rows.length && known) return { summary: `- nothing found${searchedFor(result)}`, facts };
  if (!rows.length && result && typeof result === 'object' && !Array.isArray(result)) {
    const text = JSON.stringify(result);
    return { summary: text.length > 2 ? `- ${text.slice(0, 400)}` : '- nothing found', facts };
  }
  if (!rows.length) return { summary: '- nothing found', facts };
  const lines = rows.slice(0, MAX_LINES).map(line);
  const more = rows.length > MAX_LINES ? [`- … and ${rows.length - MAX_LINES} more ${label}`] : [];
  const noun = rows.length === 1 ? label.replace(/s$/, '') : label;
  return { summary: [`${rows.length} ${noun} found:`, ...lines, ...more].join('\n'), facts };
}

function searchedFor(result: unknown): string {
  const q = result && typeof result === 'object' ? (result as Row).query : undefined;
  return typeof q === 'string' && q.trim() ? ` for “${q.trim().slice(0, 80)}”` : '';
}

/** A plan node's result from its children: one section each; a failed child is said, not hidden. */
export function aggregateChildren(
  node: ResearchNode,
  children: readonly ResearchNode[],
): NodeOutput & { degraded: boolean } {
  const failed = children.filter((c) => c.status !== 'DONE');
  const sections = children.map((c) => {
    const heading = `${'#'.repeat(Math.min(6, node.depth + 3))} ${c.goal}`;
    if (c.status === 'DONE') return `${heading}\n${c.output?.summary ?? '- nothing found'}`;
    return `${heading}\n> Not available: ${c.error ?? c.status.toLowerCase()}`;
  });
  const note = failed.length
    ? `_${failed.length} of ${children.length} steps did not finish; the rest is below._\n\n`
    : '';
  const facts = Object.assign({}, ...children.map((c) => c.output?.facts ?? {})) as Record<string, string>;
  return { summary: `${note}${sections.join('\n\n')}`, facts, degraded: failed.length > 0 };
}

/** The report saved to `reports/` and linked from the conversation. */
export function reportMarkdown(
  task: ResearchTask,
  root: ResearchNode,
  nodes: readonly ResearchNode[],
): string {
  const leaves = nodes.filter((n) => n.kind !== 'plan');
  const failed = nodes.filter((n) => n.status === 'FAILED');
  const secs = (n: ResearchNode) =>
    n.startedAt && n.finishedAt
      ? ((Date.parse(n.finishedAt) - Date.parse(n.startedAt)) / 1000).toFixed(1)
      : '–';
  const total = root.finishedAt
    ? ((Date.parse(root.finishedAt) - Date.parse(task.createdAt)) / 1000).toFixed(1)
    : '–';
  return [
    `# Research: ${task.goal}`,
    '',
    `_${task.createdAt.slice(0, 10)} · ${task.mode} mode · ${leaves.length} steps · ${total} s${
      failed.length ? ` · degraded: ${failed.length} step(s) failed` : ''
    }_`,
    '',
    root.output?.summary ?? '',
    '',
    '## Steps',
    '',
    '| step | status | seconds |',
    '|---|---|---|',
    ...nodes.map((n) => `| ${n.id} ${n.goal.replace(/\|/g, '/')} | ${n.status} | ${secs(n)} |`),
    '',
  ].join('\n');
}

/** `reports/2026-11-24-maria-lopez-history-<task>.md`: dated, readable, unique per task. */
export function reportPath(task: ResearchTask): string {
  const slug = task.goal
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 50);
  return `reports/${task.createdAt.slice(0, 10)}-${slug || 'research'}-${task.id.slice(-6)}.md`;
}

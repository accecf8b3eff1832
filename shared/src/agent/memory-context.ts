import { NotFoundError } from '../errors';
import type { Workspace, WorkspaceFile } from '../ports/workspace';

/**
 * The part of every run's instructions that comes from long-term memory (SPEC §3.5): MEMORY.md and the tree
 * of notes, each capped so a growing notebook cannot crowd out the conversation. When something is cut the
 * text says so and how to read the rest, so the agent knows its view is partial.
 */
export const MEMORY_CONTEXT_LIMITS = { memoryChars: 5_000, treeChars: 3_000 } as const;

export interface MemoryContext {
  text: string;
  memoryTruncated: boolean;
  treeTruncated: boolean;
}

export interface MemoryContextInput {
  /** MEMORY.md, or null when the file does not exist yet. */
  memory: string | null;
  files: WorkspaceFile[];
  /** Files left with conflict markers by concurrent writes (from sync/commitAndPush or status). */
  conflicts?: string[];
  limits?: { memoryChars: number; treeChars: number };
}

export async function loadMemoryContext(
  workspace: Pick<Workspace, 'readFile' | 'listFiles'>,
  opts: Pick<MemoryContextInput, 'conflicts' | 'limits'> = {},
): Promise<MemoryContext> {
  const [memory, files] = await Promise.all([
    workspace.readFile('MEMORY.md').catch((error: unknown) => {
      if (error instanceof NotFoundError) return null;
      throw error;
    }),
    workspace.listFiles(),
  ]);
  return formatMemoryContext({ memory, files, ...opts });
}

export function formatMemoryContext(input: MemoryContextInput): MemoryContext {
  const limits = input.limits ?? MEMORY_CONTEXT_LIMITS;
  const sections: string[] = [];

  let memoryTruncated = false;
  if (input.memory === null) {
    sections.push(
      '## Memory (MEMORY.md)\n(MEMORY.md does not exist yet; create it with write_file to keep stable facts.)',
    );
  } else {
    const memory = cutAtLine(input.memory.trimEnd(), limits.memoryChars);
    memoryTruncated = memory.cut;
    const note = memory.cut
      ? `\n[MEMORY.md was cut at ${memory.text.length.toLocaleString('en-US')} of ${input.memory.trimEnd().length.toLocaleString('en-US')} characters. Read the rest with read_file("MEMORY.md", offset ${memory.lines + 1}); consider moving details into areas/.]`
      : '';
    sections.push(`## Memory (MEMORY.md)\n${memory.text}${note}`);
  }

  const tree = renderTree(input.files.map((f) => f.path));
  const cutTree = cutAtLine(tree.join('\n'), limits.treeChars);
  const shownFiles = cutTree.cut ? countFiles(cutTree.text) : input.files.length;
  const treeNote = cutTree.cut
    ? `\n[The file list was cut: ${shownFiles} of ${input.files.length} files shown. Use list_files to see the rest.]`
    : '';
  sections.push(`## Memory workspace files\n${cutTree.text || '(empty)'}${treeNote}`);

  if (input.conflicts && input.conflicts.length > 0) {
    sections.push(
      `## Notes to reconcile\nTwo versions were written at the same time and both were kept between <<<<<<< / ======= / >>>>>>> lines in: ${input.conflicts.join(', ')}. Merge each into one version (keep every fact) and remove the markers.`,
    );
  }

  return { text: sections.join('\n\n'), memoryTruncated, treeTruncated: cutTree.cut };
}

/** Indented tree: folders once, files under them; paths come sorted from the workspace. */
function renderTree(paths: string[]): string[] {
  const lines: string[] = [];
  let open: string[] = [];
  for (const path of [...paths].sort()) {
    const parts = path.split('/');
    const name = parts.pop() as string;
    let common = 0;
    while (common < open.length && common < parts.length && open[common] === parts[common]) common++;
    for (let depth = common; depth < parts.length; depth++)
      lines.push(`${'  '.repeat(depth)}${parts[depth]}/`);
    open = parts;
    lines.push(`${'  '.repeat(parts.length)}${name}`);
  }
  return lines;
}

function countFiles(tree: string): number {
  return tree.split('\n').filter((line) => line && !line.endsWith('/')).length;
}

/** Cuts at the last line break within `max` (or at `max` when a single line is longer). */
function cutAtLine(text: string, max: number): { text: string; cut: boolean; lines: number } {
  if (text.length <= max) return { text, cut: false, lines: text.split('\n').length };
  const lastBreak = text.lastIndexOf('\n', max);
  const kept = lastBreak > 0 ? text.slice(0, lastBreak) : text.slice(0, max);
  return { text: kept, cut: true, lines: kept.split('\n').length };
}

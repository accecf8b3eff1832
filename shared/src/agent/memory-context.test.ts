import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../errors';
import type { Workspace, WorkspaceFile } from '../ports/workspace';
import { formatMemoryContext, loadMemoryContext, MEMORY_CONTEXT_LIMITS } from './memory-context';

const files = (paths: string[]): WorkspaceFile[] => paths.map((path) => ({ path, bytes: 10 }));

/** Just enough of the Workspace port for the injection: a map of files. */
function fakeWorkspace(contents: Record<string, string>): Pick<Workspace, 'readFile' | 'listFiles'> {
  return {
    async readFile(path) {
      const text = contents[path];
      if (text === undefined) throw new NotFoundError(`"${path}" does not exist.`);
      return text;
    },
    async listFiles() {
      return files(Object.keys(contents).sort());
    },
  };
}

describe('memory context', () => {
  it('injects MEMORY.md and the tree in full when they are small', async () => {
    const ctx = await loadMemoryContext(
      fakeWorkspace({
        'MEMORY.md': '# Team\n- Office closes at 5 pm.\n',
        'areas/leasing.md': 'x',
        'areas/maintenance.md': 'x',
        'daily_notes/2025-03-04_heater.md': 'x',
      }),
    );
    expect(ctx.memoryTruncated).toBe(false);
    expect(ctx.treeTruncated).toBe(false);
    expect(ctx.text).toContain('- Office closes at 5 pm.');
    expect(ctx.text).toContain(
      'MEMORY.md\nareas/\n  leasing.md\n  maintenance.md\ndaily_notes/\n  2025-03-04_heater.md',
    );
    expect(ctx.text).not.toContain('cut');
  });

  it('caps MEMORY.md at 5,000 characters on a line break and says how to read the rest', () => {
    const memory = Array.from({ length: 300 }, (_, i) => `- fact number ${i}`).join('\n');
    const ctx = formatMemoryContext({ memory, files: files(['MEMORY.md']) });
    expect(ctx.memoryTruncated).toBe(true);
    const shown = ctx.text.slice(ctx.text.indexOf('\n') + 1, ctx.text.indexOf('\n[MEMORY.md was cut'));
    expect(shown.length).toBeLessThanOrEqual(MEMORY_CONTEXT_LIMITS.memoryChars);
    expect(shown.endsWith('\n')).toBe(false);
    expect(shown.split('\n').at(-1)).toMatch(/^- fact number \d+$/);
    const shownLines = shown.split('\n').length;
    expect(ctx.text).toContain(
      `cut at ${shown.length.toLocaleString('en-US')} of ${memory.length.toLocaleString('en-US')} characters`,
    );
    expect(ctx.text).toContain(`read_file("MEMORY.md", offset ${shownLines + 1})`);
  });

  it('caps the file tree at 3,000 characters and says how many files are shown', () => {
    const many = files(
      Array.from({ length: 400 }, (_, i) => `daily_notes/2025-01-${String(i).padStart(3, '0')}_note.md`),
    );
    const ctx = formatMemoryContext({ memory: 'short', files: many });
    expect(ctx.treeTruncated).toBe(true);
    const tree = ctx.text.split('## Memory workspace files\n')[1] as string;
    const listing = tree.slice(0, tree.indexOf('\n[The file list was cut'));
    expect(listing.length).toBeLessThanOrEqual(MEMORY_CONTEXT_LIMITS.treeChars);
    const shownFiles = listing.split('\n').filter((l) => l.endsWith('.md')).length;
    expect(tree).toContain(`${shownFiles} of 400 files shown. Use list_files`);
  });

  it('says when MEMORY.md does not exist yet and lists conflicts to reconcile', async () => {
    const ctx = await loadMemoryContext(fakeWorkspace({ 'areas/a.md': 'x' }), { conflicts: ['areas/a.md'] });
    expect(ctx.text).toContain('MEMORY.md does not exist yet');
    expect(ctx.text).toContain('## Notes to reconcile');
    expect(ctx.text).toContain('areas/a.md');
  });

  it('does not hide other read failures', async () => {
    const broken: Pick<Workspace, 'readFile' | 'listFiles'> = {
      readFile: async () => {
        throw new Error('disk on fire');
      },
      listFiles: async () => [],
    };
    await expect(loadMemoryContext(broken)).rejects.toThrow('disk on fire');
  });
});

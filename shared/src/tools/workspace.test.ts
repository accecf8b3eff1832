import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GitServer, startGitServer } from '../../../scripts/emulators/git-server';
import { type GitWorkspace, openGitWorkspace } from '../adapters/git-workspace';
import type { ToolContext } from './tool';
import {
  deleteFileTool,
  editFileTool,
  listFilesTool,
  readFileTool,
  searchFilesTool,
  workspaceTools,
  writeFileTool,
} from './workspace';

const ctx: ToolContext = { conversationId: 'conv_tools', runId: 'run_1', now: new Date(), timezone: 'UTC' };

let server: GitServer;
let work: string;
let workspace: GitWorkspace;
let deps: { workspace: GitWorkspace };

beforeAll(async () => {
  server = await startGitServer();
  work = await mkdtemp(join(tmpdir(), 'workspace-tools-'));
  workspace = await openGitWorkspace({ dir: join(work, 'clone'), url: await server.createBareRepo('tools') });
  deps = { workspace };
});
afterAll(async () => {
  await server?.stop();
  await rm(work, { recursive: true, force: true });
});

describe('workspace tools', () => {
  it('classifies reads as read and writes as internal (no approval, audited)', () => {
    const kinds = Object.fromEntries(workspaceTools.map((t) => [t.name, t.kind]));
    expect(kinds).toEqual({
      read_file: 'read',
      list_files: 'read',
      search_files: 'read',
      write_file: 'internal',
      edit_file: 'internal',
      delete_file: 'internal',
    });
    expect(workspaceTools.every((t) => t.group === 'memory')).toBe(true);
  });

  it('write_file, read_file, edit_file and delete_file round-trip through the workspace', async () => {
    const written = await writeFileTool.run(
      deps,
      { path: 'areas/keys.md', content: '# Keys\n- Lockbox code: 4821\n' },
      ctx,
    );
    expect(written).toMatchObject({ path: 'areas/keys.md', action: 'created' });
    await editFileTool.run(deps, { path: 'areas/keys.md', old_string: '4821', new_string: '7390' }, ctx);
    expect(await readFileTool.run(deps, { path: 'areas/keys.md' }, ctx)).toMatchObject({
      content: '# Keys\n- Lockbox code: 7390\n',
      lines: { from: 1, to: 3, total: 3 },
    });
    await deleteFileTool.run(deps, { path: 'areas/keys.md' }, ctx);
    await expect(readFileTool.run(deps, { path: 'areas/keys.md' }, ctx)).rejects.toThrow(/does not exist/);
  });

  it('edit_file fails clearly when the text is absent or ambiguous, and leaves the file alone', async () => {
    await writeFileTool.run(
      deps,
      { path: 'areas/hours.md', content: 'Open 9-5.\nClosed Sunday.\nOpen 9-5.\n' },
      ctx,
    );
    await expect(
      editFileTool.run(deps, { path: 'areas/hours.md', old_string: 'Open 10-6.', new_string: 'x' }, ctx),
    ).rejects.toThrow('The text to replace was not found in "areas/hours.md"');
    await expect(
      editFileTool.run(deps, { path: 'areas/hours.md', old_string: 'Open 9-5.', new_string: 'x' }, ctx),
    ).rejects.toThrow('appears 2 times in "areas/hours.md"; include more of the surrounding text');
    expect(await workspace.readFile('areas/hours.md')).toBe('Open 9-5.\nClosed Sunday.\nOpen 9-5.\n');
  });

  it('read_file pages long files and says how to continue', async () => {
    const content = Array.from({ length: 1_000 }, (_, i) => `line ${i + 1} ${'x'.repeat(40)}`).join('\n');
    await writeFileTool.run(deps, { path: 'areas/long.md', content }, ctx);
    const first = (await readFileTool.run(deps, { path: 'areas/long.md' }, ctx)) as {
      content: string;
      lines: { to: number };
      note: string;
    };
    expect(first.content.length).toBeLessThanOrEqual(10_000);
    expect(first.note).toContain(`offset ${first.lines.to + 1}`);
    const next = (await readFileTool.run(
      deps,
      { path: 'areas/long.md', offset: first.lines.to + 1, limit: 2 },
      ctx,
    )) as {
      content: string;
    };
    expect(next.content.split('\n')[0]).toMatch(new RegExp(`^line ${first.lines.to + 1} `));
  });

  it('read_file flags conflict markers so the agent resolves them', async () => {
    await writeFileTool.run(
      deps,
      { path: 'areas/conflicted.md', content: '<<<<<<< ours\nA\n=======\nB\n>>>>>>> theirs\n' },
      ctx,
    );
    expect(await readFileTool.run(deps, { path: 'areas/conflicted.md' }, ctx)).toHaveProperty('conflict');
  });

  it('search_files is case-insensitive with file:line results and a cap', async () => {
    await writeFileTool.run(
      deps,
      { path: 'areas/vendors.md', content: '# Vendors\n- PLUMBER: Bob\n- plumber backup: Ana\n' },
      ctx,
    );
    const found = (await searchFilesTool.run(deps, { query: 'Plumber', max_results: 50 }, ctx)) as {
      matches: string[];
    };
    expect(found.matches).toEqual([
      'areas/vendors.md:2: - PLUMBER: Bob',
      'areas/vendors.md:3: - plumber backup: Ana',
    ]);
    const capped = (await searchFilesTool.run(deps, { query: 'plumber', max_results: 1 }, ctx)) as {
      matches: string[];
      note: string;
    };
    expect(capped.matches).toHaveLength(1);
    expect(capped.note).toMatch(/Stopped at 1 matches/);
  });

  it('list_files lists a folder with sizes', async () => {
    const listed = (await listFilesTool.run(deps, { dir: 'skills' }, ctx)) as { files: string[] };
    expect(listed.files.some((f) => /^skills\/[^/]+\/SKILL\.md \(\d+ B\)$/.test(f))).toBe(true);
  });

  it('sandbox refusals reach the agent as clear messages', async () => {
    await expect(writeFileTool.run(deps, { path: '../escape.md', content: 'x' }, ctx)).rejects.toThrow(
      /uses "\.\."/,
    );
    await expect(writeFileTool.run(deps, { path: 'script.js', content: 'x' }, ctx)).rejects.toThrow(
      /only holds \.md, \.txt, \.json/,
    );
    expect(writeFileTool.summarize?.({ path: 'MEMORY.md', content: 'abc' })).toBe(
      'Write MEMORY.md (3 chars)',
    );
  });

  it('the changes the tools made are one commit after the turn', async () => {
    const result = await workspace.commitAndPush({
      conversationId: 'conv_tools',
      summary: 'tool test notes',
    });
    expect(result.changes.map((c) => c.path)).toEqual(
      expect.arrayContaining(['areas/hours.md', 'areas/long.md', 'areas/vendors.md']),
    );
    expect(result.changes.map((c) => c.path)).not.toContain('areas/keys.md');
  });
});

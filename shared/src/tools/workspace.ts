import { z } from 'zod';
import { assertAgentMayWrite } from '../domain/protected-paths';
import { WORKSPACE_LIMITS } from '../domain/workspace-paths';
import type { Workspace } from '../ports/workspace';
import { lazyInput, type Tool } from './tool';

/**
 * The agent's file tools over its memory workspace (SPEC §3.4, memory row). Reads are 'read'; writes are
 * 'internal': the workspace is the assistant's own notebook, so no approval, but every call is audited and
 * every change ends up in git history. What governs the agent (policy/, team/, skills/, lessons/, the
 * instructions: domain/protected-paths.ts) is read-only to these tools, whatever the guard says. The sandbox rules live in the Workspace (domain/workspace-paths.ts);
 * its refusals are messages the agent can act on.
 */
export interface WorkspaceToolDeps {
  workspace: Workspace;
}

/** Leaves room under TOOL_OUTPUT_MAX_CHARS for the JSON around the content. */
const READ_MAX_CHARS = 10_000;
const READ_DEFAULT_LINES = 400;
const LIST_MAX_FILES = 300;

const path = z
  .string()
  .min(1)
  .max(300)
  .describe('Path relative to the workspace root, e.g. "MEMORY.md" or "areas/maintenance.md"');

const readFileInput = lazyInput(() =>
  z.object({
    path,
    offset: z.number().int().min(1).optional().describe('First line to read (1-based); default 1'),
    limit: z
      .number()
      .int()
      .min(1)
      .max(2_000)
      .optional()
      .describe(`Number of lines; default ${READ_DEFAULT_LINES}`),
  }),
);

export const readFileTool: Tool<typeof readFileInput, WorkspaceToolDeps> = {
  name: 'read_file',
  group: 'memory',
  kind: 'read',
  description:
    'Read a note from the memory workspace. Long files come in pages of lines: pass offset to continue where the last read stopped.',
  input: readFileInput,
  async run({ workspace }, input) {
    const lines = (await workspace.readFile(input.path)).split('\n');
    const from = input.offset ?? 1;
    if (from > lines.length) {
      return {
        path: input.path,
        content: '',
        lines: { from, to: from - 1, total: lines.length },
        note: `The file has only ${lines.length} lines.`,
      };
    }
    const wanted = lines.slice(from - 1, from - 1 + (input.limit ?? READ_DEFAULT_LINES));
    let content = '';
    let taken = 0;
    for (const line of wanted) {
      if (content.length + line.length + 1 > READ_MAX_CHARS && taken > 0) break;
      content += (taken > 0 ? '\n' : '') + line.slice(0, READ_MAX_CHARS);
      taken++;
    }
    const to = from + taken - 1;
    const more = to < lines.length;
    return {
      path: input.path,
      content,
      lines: { from, to, total: lines.length },
      ...(more
        ? { note: `Shown lines ${from}-${to} of ${lines.length}; read again with offset ${to + 1} for more.` }
        : {}),
      ...(/^<<<<<<< /m.test(content)
        ? {
            conflict:
              'This file holds two versions written at the same time (between <<<<<<<, ======= and >>>>>>> lines). Merge them into one, keeping every fact, and remove the markers.',
          }
        : {}),
    };
  },
  summarize: (i) => `Read ${i.path}`,
};

const listFilesInput = lazyInput(() =>
  z.object({
    dir: z
      .string()
      .max(300)
      .optional()
      .describe('Folder to list, e.g. "areas"; omit for the whole workspace'),
  }),
);

export const listFilesTool: Tool<typeof listFilesInput, WorkspaceToolDeps> = {
  name: 'list_files',
  group: 'memory',
  kind: 'read',
  description: 'List the notes in the memory workspace (or one folder of it) with their sizes in bytes.',
  input: listFilesInput,
  async run({ workspace }, input) {
    const files = await workspace.listFiles(input.dir ?? '');
    const shown = files.slice(0, LIST_MAX_FILES);
    return {
      count: files.length,
      files: shown.map((f) => `${f.path} (${f.bytes} B)`),
      ...(files.length > shown.length
        ? {
            note: `Only the first ${shown.length} of ${files.length} files are shown; list a folder to narrow it.`,
          }
        : {}),
    };
  },
  summarize: (i) => `List files${i.dir ? ` in ${i.dir}` : ''}`,
};

const searchFilesInput = lazyInput(() =>
  z.object({
    query: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .describe('Text to look for (case-insensitive, not a regular expression)'),
    dir: z.string().max(300).optional().describe('Folder to search in; omit for the whole workspace'),
    max_results: z.number().int().min(1).max(200).default(50),
  }),
);

export const searchFilesTool: Tool<typeof searchFilesInput, WorkspaceToolDeps> = {
  name: 'search_files',
  group: 'memory',
  kind: 'read',
  description:
    'Search the memory workspace for a word or phrase (case-insensitive). Returns matching lines as file:line: text.',
  input: searchFilesInput,
  async run({ workspace }, input) {
    const result = await workspace.searchFiles(input.query, {
      dir: input.dir ?? '',
      maxResults: input.max_results,
    });
    return {
      matches: result.hits.map((h) => `${h.path}:${h.line}: ${h.text}`),
      filesSearched: result.filesSearched,
      ...(result.truncated
        ? {
            note: `Stopped at ${result.hits.length} matches; search for something more specific or in one folder.`,
          }
        : {}),
      ...(result.hits.length === 0 ? { note: 'No matches.' } : {}),
    };
  },
  summarize: (i) => `Search notes for "${i.query}"`,
};

const writeFileInput = lazyInput(() =>
  z.object({
    path,
    content: z
      .string()
      .max(WORKSPACE_LIMITS.maxFileBytes)
      .describe('The whole new content of the file (markdown, text or JSON)'),
  }),
);

export const writeFileTool: Tool<typeof writeFileInput, WorkspaceToolDeps> = {
  name: 'write_file',
  group: 'memory',
  kind: 'internal',
  description:
    'Create a note or replace a whole note in the memory workspace (.md, .txt or .json). To change part of an existing note, prefer edit_file.',
  input: writeFileInput,
  async run({ workspace }, input) {
    assertAgentMayWrite(input.path);
    const written = await workspace.writeFile(input.path, input.content);
    return { ...written, action: written.created ? 'created' : 'replaced' };
  },
  summarize: (i) => `Write ${i.path} (${i.content.length} chars)`,
};

const editFileInput = lazyInput(() =>
  z.object({
    path,
    old_string: z
      .string()
      .min(1)
      .max(WORKSPACE_LIMITS.maxFileBytes)
      .describe('Exact text to replace, copied from the file; must appear exactly once'),
    new_string: z.string().max(WORKSPACE_LIMITS.maxFileBytes).describe('Text to put in its place'),
  }),
);

export const editFileTool: Tool<typeof editFileInput, WorkspaceToolDeps> = {
  name: 'edit_file',
  group: 'memory',
  kind: 'internal',
  description:
    'Change part of a note: replaces old_string with new_string. old_string must match the file exactly (spaces and line breaks included) and appear exactly once.',
  input: editFileInput,
  async run({ workspace }, input) {
    assertAgentMayWrite(input.path);
    const written = await workspace.editFile(input.path, input.old_string, input.new_string);
    return { ...written, action: 'edited' };
  },
  summarize: (i) => `Edit ${i.path}`,
};

const deleteFileInput = lazyInput(() => z.object({ path }));

export const deleteFileTool: Tool<typeof deleteFileInput, WorkspaceToolDeps> = {
  name: 'delete_file',
  group: 'memory',
  kind: 'internal',
  description: 'Delete a note from the memory workspace (it stays in git history).',
  input: deleteFileInput,
  async run({ workspace }, input) {
    assertAgentMayWrite(input.path);
    await workspace.deleteFile(input.path);
    return { path: input.path, action: 'deleted' };
  },
  summarize: (i) => `Delete ${i.path}`,
};

export const workspaceTools = [
  readFileTool,
  listFilesTool,
  searchFilesTool,
  writeFileTool,
  editFileTool,
  deleteFileTool,
] as const;

import { spawnSync } from 'node:child_process';

/** Whether a command can be run at all (ENOENT → not installed). `java -version` writes to stderr; fine. */
export function hasCommand(cmd: string, args: string[] = ['--version']): boolean {
  const r = spawnSync(cmd, args, { stdio: 'ignore', timeout: 10_000 });
  return !(r.error && (r.error as NodeJS.ErrnoException).code === 'ENOENT');
}

/** A missing tool `npm start` cannot do without: one line naming what to install, no stack trace. */
export class MissingToolError extends Error {
  constructor(
    readonly tool: string,
    message: string,
  ) {
    super(message);
    this.name = 'MissingToolError';
  }
}

/** The memory server is `git http-backend`: without git there is no memory workspace. */
export function requireGit(): void {
  if (!hasCommand('git')) {
    throw new MissingToolError(
      'git',
      'git is not installed: the local memory server runs `git http-backend`. Install the `git` package (e.g. `apt-get install git`, `brew install git`) and run npm start again.',
    );
  }
}

import type { WorkspaceFileEntry } from '../../../../shared/src/contracts/workspace-files';

const KIND_LABEL: Record<WorkspaceFileEntry['kind'], string> = {
  policy: 'Policy',
  skill: 'Skill',
  lesson: 'Lesson',
  memory: 'Note',
  report: 'Report',
  team: 'Team',
  instructions: 'Instructions',
};

/** The files grouped by folder; each row says what it is and whether this person can change it. */
export function FileTree({
  files,
  selected,
  onSelect,
}: {
  files: WorkspaceFileEntry[];
  selected?: string;
  onSelect: (path: string) => void;
}) {
  const groups = new Map<string, WorkspaceFileEntry[]>();
  for (const f of files) {
    const slash = f.path.lastIndexOf('/');
    const folder = slash < 0 ? '' : f.path.slice(0, slash);
    groups.set(folder, [...(groups.get(folder) ?? []), f]);
  }
  return (
    <nav className="wsf-tree" aria-label="Files">
      {[...groups.entries()].map(([folder, items]) => (
        <section key={folder || '/'}>
          <h2 className="wsf-folder">{folder ? `${folder}/` : 'Top level'}</h2>
          <ul>
            {items.map((f) => (
              <li key={f.path}>
                <button
                  type="button"
                  className={`wsf-file${f.path === selected ? ' selected' : ''}`}
                  aria-current={f.path === selected ? 'true' : undefined}
                  onClick={() => onSelect(f.path)}
                >
                  <span className="wsf-name">{f.path.slice(f.path.lastIndexOf('/') + 1)}</span>
                  <span className="wsf-meta">
                    <span className={`wsf-kind wsf-kind-${f.kind}`}>{KIND_LABEL[f.kind]}</span>
                    {!f.canWrite && <span className="wsf-readonly">read only</span>}
                  </span>
                </button>
              </li>
            ))}
          </ul>
        </section>
      ))}
    </nav>
  );
}

import type { ReactNode } from 'react';

/**
 * The report as a person reads it: headings, bullets, quotes and tables of the markdown the engine writes
 * (a small renderer of that subset; no HTML from the text is ever interpreted).
 */
export function ReportView({ markdown, path }: { markdown: string; path?: string | undefined }) {
  return (
    <section className="research-report" aria-label="Research report">
      {path && <p className="report-path">Saved to {path}</p>}
      {blocks(markdown)}
    </section>
  );
}

function blocks(md: string): ReactNode[] {
  const out: ReactNode[] = [];
  const lines = md.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const heading = line.match(/^(#{1,6})\s+(.*)$/);
    if (heading) {
      const level = Math.min(4, (heading[1]?.length ?? 1) + 2);
      const Tag = `h${level}` as 'h3';
      out.push(<Tag key={i}>{heading[2]}</Tag>);
    } else if (line.startsWith('- ')) {
      const items: Array<{ id: number; text: string }> = [];
      while ((lines[i] ?? '').startsWith('- ')) items.push({ id: i, text: (lines[i++] ?? '').slice(2) });
      i--;
      out.push(
        <ul key={i}>
          {items.map((t) => (
            <li key={t.id}>{t.text}</li>
          ))}
        </ul>,
      );
    } else if (line.startsWith('|')) {
      const rows: Array<{ id: number; cells: Array<{ id: string; text: string }> }> = [];
      while ((lines[i] ?? '').startsWith('|')) {
        const id = i;
        const cells = (lines[i++] ?? '')
          .split('|')
          .slice(1, -1)
          .map((c) => c.trim());
        if (!cells.every((c) => /^-+$/.test(c)))
          rows.push({ id, cells: cells.map((text, m) => ({ id: `${id}.${m}`, text })) });
      }
      i--;
      out.push(
        <table key={i}>
          <tbody>
            {rows.map((r) => (
              <tr key={r.id}>
                {r.cells.map((c) =>
                  r === rows[0] ? <th key={c.id}>{c.text}</th> : <td key={c.id}>{c.text}</td>,
                )}
              </tr>
            ))}
          </tbody>
        </table>,
      );
    } else if (line.startsWith('> ')) {
      out.push(<blockquote key={i}>{line.slice(2)}</blockquote>);
    } else if (line.startsWith('```')) {
      const code: string[] = [];
      while (i + 1 < lines.length && !(lines[++i] ?? '').startsWith('```')) code.push(lines[i] ?? '');
      out.push(<pre key={i}>{code.join('\n')}</pre>);
    } else if (line.trim()) {
      out.push(<p key={i}>{line.replace(/^_(.*)_$/, '$1')}</p>);
    }
  }
  return out;
}

/** 1-based line and column ↔ offset in a text, for jumping the editor to a parse error and showing the cursor. */
export function offsetOf(text: string, line: number, column: number): number {
  const lines = text.split('\n');
  let offset = 0;
  for (let i = 0; i < Math.min(line - 1, lines.length); i++) offset += (lines[i]?.length ?? 0) + 1;
  const here = lines[Math.max(0, Math.min(line - 1, lines.length - 1))] ?? '';
  return Math.min(text.length, offset + Math.max(0, Math.min(column - 1, here.length)));
}

export function positionOf(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: (before[before.length - 1]?.length ?? 0) + 1 };
}

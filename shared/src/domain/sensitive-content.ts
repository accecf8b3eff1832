/**
 * What may not leave by SMS without a person looking (issue 12 item 9): a team member is recognised by phone
 * number alone, and a number can be spoofed, so an SMS answer that skips approval must carry nothing the team
 * marked sensitive and nothing that looks like a secret — whatever the source (memory, facts, conversation
 * or SMS search results). Pure functions; the markers file lives under the protected team/ folder.
 */
export const SENSITIVE_MARKERS_PATH = 'team/sensitive.md';

export interface SensitiveMarkers {
  /** Values that must never go out unreviewed ("4821", "Gate: 2580#"). */
  values: string[];
  /** Workspace files whose contents are sensitive as a whole. */
  files: string[];
}

/**
 * Reads team/sensitive.md: list items `- file: areas/keys.md` mark a file, `- value: 4821` or a bare
 * `- 4821` mark a value. Anything else (headings, prose) is ignored so the team can explain the list.
 */
export function parseSensitiveMarkers(text: string): SensitiveMarkers {
  const values: string[] = [];
  const files: string[] = [];
  for (const raw of text.split('\n')) {
    const item = raw.match(/^\s*[-*]\s+(.+?)\s*$/)?.[1];
    if (!item) continue;
    const file = item.match(/^file:\s*`?([^`]+?)`?$/i)?.[1];
    if (file) files.push(file.trim());
    else values.push((item.match(/^(?:value|fact):\s*(.+)$/i)?.[1] ?? item).replace(/^`|`$/g, '').trim());
  }
  return { values: values.filter((v) => v.length >= 3), files };
}

/** The values inside a file marked sensitive: every run of 3+ digits and every `key: value` pair's value. */
export function valuesInSensitiveFile(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(/\d[\d\s-]{2,}\d|\d{3,}/g)) out.add(m[0].replace(/[\s-]/g, ''));
  for (const m of text.matchAll(/^[^:\n]{1,60}:\s*(\S.{2,80})$/gm)) if (m[1]) out.add(m[1].trim());
  return [...out].filter((v) => v.length >= 3);
}

const SECRET_PATTERNS: Array<{ what: string; re: RegExp }> = [
  {
    what: 'a code',
    re: /\b(?:code|pin|passcode|combo|combination|lockbox|alarm|gate|door|keypad|wifi|wi-fi|password|pw)\b[^\n\d]{0,20}\d[\d#*]{2,}/i,
  },
  { what: 'a password', re: /\bpass(?:word|phrase)\b\s*(?:is|:)?\s*\S{4,}/i },
  {
    what: 'a key or token',
    re: /\b(?:sk|pk|rk|ghp|xox[abp]|AKIA)[-_A-Za-z0-9]{12,}|\b[A-Za-z0-9+/_-]{32,}={0,2}/,
  },
  // 12+ digits: longer than any phone number, as long as card and most account numbers.
  { what: 'an account or card number', re: /(?<![+\d])\d(?:[ -]?\d){11,18}\b/ },
  { what: 'an account number', re: /\b(?:account|acct|routing|iban|sort code)\b[^\n\d]{0,20}[\dA-Z]{4,}/i },
];

/**
 * Why a text may not go out unreviewed: the marked values it contains and the secret-looking things in it.
 * Empty when it is fine. Digits are compared without spaces and dashes, so "48 21" still matches "4821".
 */
export function sensitiveFindings(text: string, markedValues: readonly string[]): string[] {
  const found: string[] = [];
  const squeezed = text.replace(/[\s-]/g, '').toLowerCase();
  for (const v of markedValues) {
    const needle = /^[\d\s-]+$/.test(v) ? v.replace(/[\s-]/g, '') : v.toLowerCase();
    const hay = /^[\d\s-]+$/.test(v) ? squeezed : text.toLowerCase();
    if (needle && hay.includes(needle)) found.push('a value the team marked sensitive');
  }
  for (const p of SECRET_PATTERNS) if (p.re.test(text)) found.push(`what looks like ${p.what}`);
  return [...new Set(found)];
}

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseConfig } from '../../shared/src/config';
import { backstopOf } from '../../shared/src/domain/triage/backstop';
import { isHeldApart, normalizeExample, similarity } from '../../shared/src/domain/triage/split';
import { judgeUrgency } from '../../shared/src/domain/urgency';
import { labelOfFile, loadCorpus } from './corpus';

/**
 * `npm run triage:check -- <dir>`: vets candidate corpus lines before they join `triage-corpus/`, without
 * showing anyone the held-apart split. `<dir>` has the corpus's layout (`maintenance.txt`,
 * `emergency-gas.txt`, one line each, `#` comments). For each candidate it reports
 * - an exact duplicate (after normalising) of a corpus line or of another candidate;
 * - a near-duplicate (word Jaccard ≥ 0.7, the split's own rule) of a TRAINING line, with that line's text, or
 *   of a HELD-APART line, as a count only: the writer rewrites the candidate without learning the held line;
 * - a non-emergency that the keyword floor or the safety backstop would page whatever the model says (by
 *   the floor's rule it would be counted as an emergency, so such a line teaches the bench nothing true);
 * - an emergency that already names a floor keyword (allowed, but counted: the model learns most from
 *   emergencies told without one).
 * It also prints where each candidate would fall (training or held apart), as the split will decide it.
 * Exit code 1 when any candidate collides, so a writer can loop until it is clean.
 */
const dir = process.argv[2];
if (!dir) {
  console.error('usage: npm run triage:check -- <dir of candidate <label>.txt files>');
  process.exit(2);
}
if (!existsSync(dir) || !statSync(dir).isDirectory()) {
  console.error(
    `${dir}: no such folder (it should hold candidate <label>.txt files, as triage-corpus/ does)`,
  );
  process.exit(2);
}
const keywords = parseConfig({
  TABLE_NAME: 'check',
  EVENTS_QUEUE_URL: 'http://127.0.0.1/check',
}).URGENT_KEYWORDS;
const corpus = loadCorpus();
const byNormal = new Map(corpus.map((e) => [normalizeExample(e.text), e]));

interface Candidate {
  text: string;
  label: string;
  where: string;
}
const candidates: Candidate[] = [];
for (const file of readdirSync(dir)
  .filter((f) => f.endsWith('.txt'))
  .sort()) {
  let label: string;
  try {
    label = labelOfFile(file);
  } catch (e) {
    // A file named for no label ("urgent.txt"): say which, and which names there are, without a stack.
    console.error(
      `${(e as Error).message.replace('triage-corpus/', `${dir}/`)}; name files as triage-corpus/ does`,
    );
    process.exit(2);
  }
  readFileSync(join(dir, file), 'utf8')
    .split('\n')
    .forEach((raw, i) => {
      const text = raw.trim();
      if (text && !text.startsWith('#')) candidates.push({ text, label, where: `${file}:${i + 1}` });
    });
}

let problems = 0;
let heldApart = 0;
let keywordEmergencies = 0;
const seen = new Map<string, Candidate>();
const report = (c: Candidate, what: string) => {
  problems += 1;
  console.log(`${c.where}  ${what}\n    ${c.text}`);
};
for (const [i, c] of candidates.entries()) {
  const normal = normalizeExample(c.text);
  if (isHeldApart(c.text)) heldApart += 1;
  const corpusTwin = byNormal.get(normal);
  if (corpusTwin) report(c, `exact duplicate of corpus ${corpusTwin.file}:${corpusTwin.line}`);
  const twin = seen.get(normal);
  if (twin) report(c, `exact duplicate of candidate ${twin.where}`);
  seen.set(normal, c);
  let heldNear = 0;
  for (const e of corpus) {
    if (similarity(c.text, e.text) < 0.7) continue;
    if (isHeldApart(e.text)) heldNear += 1;
    else report(c, `near-duplicate of training ${e.file}:${e.line}: ${e.text}`);
  }
  if (heldNear > 0) report(c, `near-duplicate of ${heldNear} held-apart line(s) (not shown): rewrite it`);
  for (const other of candidates.slice(0, i))
    if (similarity(c.text, other.text) >= 0.7) report(c, `near-duplicate of candidate ${other.where}`);
  const emergency = c.label.startsWith('emergency');
  const floor = judgeUrgency(c.text, keywords);
  const backstop = backstopOf(c.text);
  if (!emergency && floor.urgent)
    report(c, `a ${c.label} line the keyword floor pages (${floor.matched.join(', ')})`);
  if (!emergency && backstop) report(c, `a ${c.label} line the backstop pages ("${backstop.phrase}")`);
  if (emergency && floor.urgent) keywordEmergencies += 1;
}
console.log(
  `${candidates.length} candidates, ${heldApart} would fall held apart, ${keywordEmergencies} emergencies name a floor keyword; ${problems} problem(s)`,
);
process.exit(problems > 0 ? 1 : 0);

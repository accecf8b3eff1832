import { useCallback, useEffect, useRef, useState } from 'react';

/** The keys, in the order the help lists them. */
export const KEYS: Array<{ key: string; does: string }> = [
  { key: 'j / k', does: 'Next / previous conversation' },
  { key: 'Enter', does: 'Open it' },
  { key: 'a', does: 'Approve the waiting card' },
  { key: 'e', does: 'Edit the waiting card’s draft' },
  { key: 'd', does: 'Deny the waiting card' },
  { key: '/', does: 'Search' },
  { key: '?', does: 'Show these keys' },
  { key: 'Esc', does: 'Leave a field, close this' },
];

/** Typing in a field is text, not a command. */
function typing(target: EventTarget | null) {
  return target instanceof HTMLElement && target.closest('input, textarea, select, [contenteditable="true"]');
}

/** Moves the focus to the next or previous row; Enter on a focused row opens it (it is a link). */
function moveRow(step: 1 | -1) {
  const rows = [...document.querySelectorAll<HTMLElement>('.conv-row')];
  if (!rows.length) return;
  const focused = rows.indexOf(document.activeElement as HTMLElement);
  const selected = rows.findIndex((r) => r.classList.contains('selected'));
  const from = focused >= 0 ? focused : selected;
  const next = from < 0 ? 0 : Math.min(rows.length - 1, Math.max(0, from + step));
  rows[next]?.focus();
  rows[next]?.scrollIntoView({ block: 'nearest' });
}

/**
 * The card a key acts on: the first one on screen still waiting for a decision. Buttons are found by their
 * visible words, which the card component (cards' issue) keeps stable for people, rather than its markup.
 */
function waitingCard() {
  const cards = document.querySelectorAll<HTMLElement>('article[data-action-id]');
  return [...cards].find((c) => buttonIn(c, /^Approve/) !== undefined);
}
function buttonIn(card: HTMLElement, label: RegExp) {
  return [...card.querySelectorAll<HTMLButtonElement>('button')].find(
    (b) => !b.disabled && label.test(b.textContent?.trim() ?? ''),
  );
}

function actOnCard(key: 'a' | 'e' | 'd') {
  const card = waitingCard();
  if (!card) return false;
  card.scrollIntoView({ block: 'center' });
  if (key === 'a') buttonIn(card, /^Approve/)?.click();
  if (key === 'd') buttonIn(card, /^Deny$/)?.click();
  if (key === 'e') {
    const draft = card.querySelector<HTMLTextAreaElement>('textarea.draft');
    draft?.focus();
    draft?.setSelectionRange(draft.value.length, draft.value.length);
  }
  return true;
}

/** Global keys for the inbox and the open conversation; plain letters only, never while typing. */
export function useInboxKeys() {
  const [helpOpen, setHelpOpen] = useState(false);
  const closeHelp = useCallback(() => setHelpOpen(false), []);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.metaKey || e.ctrlKey || e.altKey) return;
      if (typing(e.target)) {
        if (e.key === 'Escape') (e.target as HTMLElement).blur();
        return;
      }
      let handled = true;
      if (e.key === 'j') moveRow(1);
      else if (e.key === 'k') moveRow(-1);
      else if (e.key === 'a' || e.key === 'e' || e.key === 'd') handled = actOnCard(e.key);
      else if (e.key === '/') document.getElementById('inbox-search')?.focus();
      else if (e.key === '?') setHelpOpen((o) => !o);
      else handled = false;
      if (handled) e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  return { helpOpen, closeHelp };
}

/** The list of keys, as a modal dialog (focus kept inside, Esc closes: the browser's own <dialog>). */
export function KeyboardHelp({ open, onClose }: { open: boolean; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog ref={ref} className="keys-help" aria-labelledby="keys-heading" onClose={onClose}>
      <h2 id="keys-heading">Keyboard</h2>
      <dl>
        {KEYS.map((k) => (
          <div key={k.key}>
            <dt>
              <kbd>{k.key}</kbd>
            </dt>
            <dd>{k.does}</dd>
          </div>
        ))}
      </dl>
      <button type="button" className="btn" onClick={onClose}>
        Close
      </button>
    </dialog>
  );
}

import type { Page } from 'playwright-core';

/** Issue 19: every control a thumb has to hit is at least 44×44 CSS px (WCAG 2.5.5, Apple's HIG). */
export const MIN_TAP = 44;

export interface SmallTarget {
  what: string;
  width: number;
  height: number;
}

/**
 * The visible controls on screen smaller than 44 px in either direction. A link inside running text (a
 * sentence, as WCAG's inline exception allows) is left out; a checkbox or radio counts by its label, which
 * takes the tap. A control whose box is smaller but whose label wraps it counts by the label too.
 */
export function smallTapTargets(page: Page): Promise<SmallTarget[]> {
  return page.evaluate((min) => {
    const selector =
      'a[href], button, summary, select, input:not([type=hidden]), textarea, [role=button], [tabindex="0"]';
    const out: Array<{ what: string; width: number; height: number }> = [];
    for (const el of Array.from(document.querySelectorAll<HTMLElement>(selector))) {
      const style = getComputedStyle(el);
      if (style.visibility === 'hidden' || style.display === 'none') continue;
      let box = el.getBoundingClientRect();
      if (box.width === 0 || box.height === 0) continue;
      // Hidden inside a closed <details> or off in a collapsed menu.
      if (el.closest('details:not([open]) > :not(summary)')) continue;
      if (
        el.tagName === 'A' &&
        style.display === 'inline' &&
        el.parentElement?.closest('p, li, td, .markdown')
      )
        continue;
      const label = el.closest('label');
      if (label) box = label.getBoundingClientRect();
      if (box.width + 0.5 >= min && box.height + 0.5 >= min) continue;
      const name = (el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 40);
      const cls = typeof el.className === 'string' && el.className ? `.${el.className.split(' ')[0]}` : '';
      out.push({
        what: `${el.tagName.toLowerCase()}${cls} "${name}"`,
        width: Math.round(box.width),
        height: Math.round(box.height),
      });
    }
    return out;
  }, MIN_TAP);
}

/** True when the element's content fits its width (no sideways scrolling). */
export function fitsWidth(page: Page, selector: string): Promise<boolean> {
  return page
    .locator(selector)
    .first()
    .evaluate((el) => el.scrollWidth <= el.clientWidth + 1);
}

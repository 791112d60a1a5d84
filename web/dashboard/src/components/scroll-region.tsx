import type { ComponentChildren } from 'preact';

/**
 * A wide table (or code) that scrolls sideways on a narrow screen. It is named and focusable so a
 * keyboard can scroll it too (WCAG 2.1.1; axe: scrollable-region-focusable).
 */
export function ScrollRegion({
  label,
  class: className = 'table-wrap',
  children,
}: {
  label: string;
  class?: string;
  children: ComponentChildren;
}) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard.
    <section class={className} aria-label={label} tabIndex={0}>
      {children}
    </section>
  );
}

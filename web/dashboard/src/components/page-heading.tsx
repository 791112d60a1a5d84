import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

let firstPage = true;

/**
 * A page's h1. After a navigation inside the app it takes the focus, so keyboard and screen-reader
 * users land on the new page, as they would after a full page load (the first page keeps the
 * browser's own start).
 */
export function PageHeading({ children }: { children: ComponentChildren }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (!firstPage) ref.current?.focus();
    firstPage = false;
  }, []);
  return (
    <h1 ref={ref} tabIndex={-1}>
      {children}
    </h1>
  );
}

import type { ComponentChildren, Ref } from 'preact';

interface Props {
  /** While a request runs: the button says it is unavailable, and a press does nothing. */
  busy: boolean | undefined;
  /** Unavailable for another reason than a running request (then it is a plain disabled button). */
  disabled?: boolean;
  class?: string;
  type?: 'submit' | 'button';
  buttonRef?: Ref<HTMLButtonElement>;
  onClick?(): void;
  children: ComponentChildren;
}

/**
 * A form's submit button that keeps the focus while its request runs (WCAG 2.4.3). A `disabled`
 * button loses the focus to <body> the moment it is disabled, so a keyboard user pressing Enter
 * would start again from the top of the page; this one is `aria-disabled` instead, and a click (or
 * the Enter that submits its form, which the browser turns into a click on it) is dropped while busy.
 */
export function BusyButton({
  busy,
  disabled,
  class: className,
  type = 'submit',
  buttonRef,
  onClick,
  children,
}: Props) {
  return (
    <button
      ref={buttonRef}
      type={type}
      class={className}
      disabled={disabled}
      aria-disabled={busy ? 'true' : undefined}
      onClick={(e) => {
        if (busy) {
          e.preventDefault();
          return;
        }
        onClick?.();
      }}
    >
      {children}
    </button>
  );
}

import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { BusyButton } from './busy-button.js';

interface Props {
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  /** A destructive action: the confirm button says so by its colour too. */
  danger?: boolean;
  busy?: boolean;
  /**
   * The id of what takes the focus when the dialog closes and the element that opened it is gone
   * (the revoked key's buttons, the deleted endpoint's card): a section's heading or list. Without
   * it, the page's heading.
   */
  fallbackFocusId?: string;
  onConfirm(): void;
  onCancel(): void;
}

/** Whether the focus can go back to `el`: still in the page, shown and not disabled. */
function canFocus(el: Element | null): el is HTMLElement {
  return (
    el instanceof HTMLElement &&
    el.isConnected &&
    el !== document.body &&
    !(el as HTMLButtonElement).disabled &&
    el.getClientRects().length > 0
  );
}

/**
 * A modal question on the browser's own <dialog>: it keeps the focus inside, Escape cancels, and
 * the focus goes back where it was when it closes (WCAG 2.4.3). The parent closes it by unmounting
 * it, which the browser's own return of the focus does not survive, so it is done here: to the
 * element that had the focus when it opened, or, when that is gone, to `fallbackFocusId`.
 */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  danger,
  busy,
  fallbackFocusId,
  onConfirm,
  onCancel,
}: Props) {
  const ref = useRef<HTMLDialogElement>(null);
  // Read in the first render, before showModal() moves the focus into the dialog.
  const [opener] = useState(() => document.activeElement);
  const fallback = useRef(fallbackFocusId);
  fallback.current = fallbackFocusId;
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => {
      dialog?.close();
      // After the parent's render that unmounted the dialog, which may have removed the opener too.
      setTimeout(() => {
        // Something the parent focused on purpose (an error list, say) keeps it.
        const now = document.activeElement;
        if (now && now !== document.body && now.isConnected) return;
        if (canFocus(opener)) return opener.focus();
        const id = fallback.current;
        const target = (id && document.getElementById(id)) || document.querySelector<HTMLElement>('main h1');
        target?.focus();
      });
    };
  }, []);
  return (
    <dialog
      ref={ref}
      aria-labelledby="dialog-title"
      onCancel={(e) => {
        e.preventDefault();
        onCancel();
      }}
    >
      <form
        method="dialog"
        onSubmit={(e) => {
          e.preventDefault();
          onConfirm();
        }}
      >
        <h2 id="dialog-title">{title}</h2>
        {children}
        <div class="actions">
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
          <BusyButton class={danger ? 'danger' : 'primary'} busy={busy}>
            {confirmLabel}
          </BusyButton>
        </div>
      </form>
    </dialog>
  );
}

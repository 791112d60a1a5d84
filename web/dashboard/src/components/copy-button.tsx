import { useEffect, useState } from 'preact/hooks';

/**
 * Copies `text` to the clipboard. The result is said in a live region next to the button, so a
 * screen reader hears "Copied" too; where the clipboard is refused, the text is there to select.
 */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [said, setSaid] = useState('');
  useEffect(() => {
    if (!said) return;
    const timer = setTimeout(() => setSaid(''), 3000);
    return () => clearTimeout(timer);
  }, [said]);

  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setSaid('Copied');
    } catch {
      setSaid('Copy failed: select the text and copy it');
    }
  }

  return (
    <span class="copy">
      <button type="button" class="small" onClick={copy} aria-label={`Copy ${label}`}>
        Copy
      </button>
      <span class="copy-said" role="status">
        {said}
      </span>
    </span>
  );
}

/** A value to paste elsewhere: shown as code, with its copy button. */
export function CopyValue({ text, label }: { text: string; label: string }) {
  return (
    <span class="copy-value">
      <code>{text}</code>
      <CopyButton text={text} label={label} />
    </span>
  );
}

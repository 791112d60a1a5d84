import type { ComponentChildren } from 'preact';
import type { ApiError } from '../api.js';

// Errors are announced at once (role=alert); progress and confirmations politely (role=status).

export function ErrorMessage({ error }: { error: ApiError | string | null }) {
  if (!error) return null;
  return (
    <p class="message error" role="alert">
      {typeof error === 'string' ? error : error.message}
    </p>
  );
}

export function Status({ children }: { children: ComponentChildren }) {
  return (
    <p class="message" role="status">
      {children}
    </p>
  );
}

export function Loading({ what }: { what: string }) {
  return <Status>Loading {what}…</Status>;
}

import type { Session } from '../api-types.js';
import { PageHeading } from '../components/page-heading.js';

/**
 * A sign-in link opened in a browser that is already signed in. The link signs in whoever it was
 * sent to, who may be someone else: a link sent by another person would otherwise put this browser
 * into their account without a word (and what is typed there would be theirs). Nothing happens
 * until the person chooses.
 */
export function SwitchAccountPage({
  current,
  onOpen,
  onStay,
  busy,
}: {
  current: Session;
  onOpen: () => void;
  onStay: () => void;
  busy: boolean;
}) {
  return (
    <div class="sign-in">
      <PageHeading>Open this sign-in link?</PageHeading>
      <div class="card">
        <p>
          This browser is signed in as <strong>{current.email}</strong> (account{' '}
          <code>{current.accountId}</code>). The link signs in the person it was sent to and ends the session
          you have now.
        </p>
        <p class="help">
          If you did not ask for this link just now, someone else may have sent it to you: stay signed in.
        </p>
        <div class="actions">
          <button type="button" class="primary" onClick={onOpen} disabled={busy}>
            Open the link
          </button>
          <button type="button" onClick={onStay} disabled={busy}>
            Stay signed in as {current.email}
          </button>
        </div>
      </div>
    </div>
  );
}

import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { BusyButton } from '../components/busy-button.js';
import { ErrorMessage, Status } from '../components/messages.js';
import { PageHeading } from '../components/page-heading.js';
import { asApiError } from '../use-load.js';

/**
 * Passwordless: the address gets an e-mail with a one-time link back to this app. The answer is
 * the same whether or not the address belongs to an account, so the form says nothing more.
 */
export function SignInPage({ notice }: { notice: string | null }) {
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setSent(null);
    try {
      setSent((await api.signIn(email.trim())).message);
    } catch (err) {
      const apiError = asApiError(err);
      if (apiError.status === 429) {
        const minutes = apiError.retryAfter ? Math.ceil(apiError.retryAfter / 60) : null;
        setError(
          `Too many sign-in links were asked for.${minutes ? ` Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.` : ''}`,
        );
      } else setError(apiError.message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <div class="sign-in">
      <PageHeading>Sign in to the netintel dashboard</PageHeading>
      {notice && (
        <p class="message warning" role="alert">
          {notice}
        </p>
      )}
      <form class="card" onSubmit={submit}>
        <label for="sign-in-email">E-mail address</label>
        <input
          id="sign-in-email"
          type="email"
          name="email"
          autocomplete="email"
          required
          value={email}
          onInput={(e) => setEmail(e.currentTarget.value)}
        />
        <BusyButton class="primary" busy={busy}>
          Email me a sign-in link
        </BusyButton>
        <p class="help">
          We e-mail you a link that signs you in. It works once, for 15 minutes, in the browser you open it
          in.
        </p>
      </form>
      {sent && <Status>{sent}</Status>}
      <ErrorMessage error={error} />
    </div>
  );
}

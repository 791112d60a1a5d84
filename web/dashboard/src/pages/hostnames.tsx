import { useState } from 'preact/hooks';
import type { ApiError } from '../api.js';
import { api } from '../api.js';
import type { Hostname, HostnameStatus, Hostnames } from '../api-types.js';
import { BusyButton } from '../components/busy-button.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { CopyValue } from '../components/copy-button.js';
import { ErrorMessage, Loading, Status } from '../components/messages.js';
import { PageHeading } from '../components/page-heading.js';
import { ScrollRegion } from '../components/scroll-region.js';
import { dateTime } from '../format.js';
import { asApiError, type Loaded, useInFlight, useLoad } from '../use-load.js';

/** What each status of the setup means to the customer (custom-hostnames/hostname.ts). */
const STATUS_TEXT: Readonly<Record<HostnameStatus, string>> = {
  pending_dns: 'Waiting for the DNS records',
  pending_certificate: 'DNS verified; the TLS certificate is being issued',
  active: 'Active',
  failed: 'Failed: remove it and add it again to retry',
  removing: 'Being removed',
};

export function HostnamesPage() {
  const hostnames = useLoad(api.hostnames);
  return (
    <>
      <PageHeading>Custom hostnames</PageHeading>
      {hostnames.loading && !hostnames.data && <Loading what="hostnames" />}
      <ErrorMessage error={hostnames.error} />
      {hostnames.data && !hostnames.data.eligible && (
        <p class="card">
          Your plan does not include custom hostnames. They come with the pro and business plans: upgrade to
          serve the API on a hostname of your own domain, such as api.example.com.
        </p>
      )}
      {hostnames.data?.eligible && <EligibleHostnames hostnames={hostnames} />}
    </>
  );
}

function EligibleHostnames({ hostnames }: { hostnames: Loaded<Hostnames> }) {
  const list = hostnames.data?.hostnames ?? [];
  // What the last add or removal did, announced politely (WCAG 4.1.3): the new card says nothing.
  const [said, setSaid] = useState('');
  const replace = (h: Hostname) =>
    hostnames.set({
      eligible: true,
      hostnames: list.some((x) => x.hostname === h.hostname)
        ? list.map((x) => (x.hostname === h.hostname ? h : x))
        : [...list, h],
    });
  return (
    <>
      <p>
        Serve the API on a hostname of your own domain. Add it, create the two DNS records shown, then check:
        the certificate is issued once DNS is verified, and checks also run every 15 minutes.
      </p>
      <AddHostnameForm
        onStart={() => setSaid('')}
        onAdded={(h) => {
          // The API answers a name the account already holds as it stands (the name as it keeps it).
          const held = list.some((x) => x.hostname === h.hostname);
          replace(h);
          setSaid(
            held
              ? `${h.hostname} is already added: its records and status are below.`
              : `${h.hostname} added: create the two DNS records below, then check.`,
          );
        }}
      />
      {said && <Status>{said}</Status>}
      {list.length === 0 && <p>No custom hostnames yet.</p>}
      {list.map((h) => (
        <HostnameCard
          key={h.hostname}
          hostname={h}
          onChanged={replace}
          onRemoved={() => {
            // Gone from the list at once (the focus goes to the page's heading), then read again.
            hostnames.set({ eligible: true, hostnames: list.filter((x) => x.hostname !== h.hostname) });
            setSaid(`${h.hostname} removed.`);
            void hostnames.reload();
          }}
        />
      ))}
    </>
  );
}

function AddHostnameForm({ onAdded, onStart }: { onAdded(h: Hostname): void; onStart(): void }) {
  const [name, setName] = useState('');
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const once = useInFlight();

  const submit = (e: Event) => {
    e.preventDefault();
    return once(async () => {
      onStart();
      setBusy(true);
      setError(null);
      try {
        onAdded(await api.addHostname(name.trim()));
        setName('');
      } catch (err) {
        setError(asApiError(err));
      } finally {
        setBusy(false);
      }
    });
  };

  return (
    <form class="card inline-form" onSubmit={submit}>
      <label for="new-hostname">Hostname</label>
      <input
        id="new-hostname"
        required
        placeholder="api.example.com"
        autocomplete="off"
        spellcheck={false}
        value={name}
        onInput={(e) => setName(e.currentTarget.value)}
      />
      <BusyButton class="primary" busy={busy}>
        Add hostname
      </BusyButton>
      <ErrorMessage error={error} />
    </form>
  );
}

function HostnameCard({
  hostname: h,
  onChanged,
  onRemoved,
}: {
  hostname: Hostname;
  onChanged(h: Hostname): void;
  onRemoved(): void;
}) {
  const [error, setError] = useState<ApiError | null>(null);
  const [checking, setChecking] = useState(false);
  const [checked, setChecked] = useState('');
  const [removing, setRemoving] = useState(false);
  const [busy, setBusy] = useState(false);
  const titleId = `host-${h.hostname.replace(/[^a-z0-9-]/gi, '-')}`;

  async function check() {
    setChecking(true);
    setError(null);
    setChecked('');
    try {
      const updated = await api.checkHostname(h.hostname);
      onChanged(updated);
      setChecked(`Checked: ${STATUS_TEXT[updated.status]}.`);
    } catch (err) {
      setError(asApiError(err));
    } finally {
      setChecking(false);
    }
  }

  async function remove() {
    setBusy(true);
    setError(null);
    try {
      await api.removeHostname(h.hostname);
    } catch (err) {
      const e = asApiError(err);
      // 404: already removed (in another tab, say), which is what was asked.
      if (e.status !== 404) {
        setError(e);
        setBusy(false);
        setRemoving(false);
        return;
      }
    }
    setRemoving(false);
    onRemoved();
  }

  return (
    <section class="card" aria-labelledby={titleId}>
      <h2 id={titleId}>{h.hostname}</h2>
      <p>
        <span class={`badge status-${h.status}`}>{STATUS_TEXT[h.status]}</span>
      </p>
      {(h.reason || h.message) && (
        <p class="reason">
          {h.reason && <code>{h.reason}</code>} {h.message}
        </p>
      )}
      <p class="help">
        Added {dateTime(h.createdAt)};{' '}
        {h.checkedAt ? `last checked ${dateTime(h.checkedAt)}` : 'not checked yet'}.
      </p>
      {h.status !== 'removing' && h.records.length > 0 && (
        <ScrollRegion label={`DNS records for ${h.hostname}`}>
          <table>
            <caption>DNS records to create</caption>
            <thead>
              <tr>
                <th scope="col">Type</th>
                <th scope="col">Name</th>
                <th scope="col">Value</th>
              </tr>
            </thead>
            <tbody>
              {h.records.map((r) => (
                <tr key={`${r.type} ${r.name}`}>
                  <td>{r.type}</td>
                  <td>
                    <CopyValue text={r.name} label={`${r.type} record name`} />
                  </td>
                  <td>
                    <CopyValue text={r.value} label={`${r.type} record value`} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      )}
      <div class="actions">
        {(h.status === 'pending_dns' || h.status === 'pending_certificate') && (
          <BusyButton type="button" onClick={check} busy={checking}>
            {checking ? 'Checking…' : 'Check now'}
            <span class="visually-hidden"> {h.hostname}</span>
          </BusyButton>
        )}
        {h.status !== 'removing' && (
          <button type="button" class="danger" onClick={() => setRemoving(true)}>
            Remove<span class="visually-hidden"> {h.hostname}</span>
          </button>
        )}
      </div>
      {checked && <Status>{checked}</Status>}
      <ErrorMessage error={error} />
      {removing && (
        <ConfirmDialog
          title={`Remove ${h.hostname}?`}
          confirmLabel="Remove hostname"
          danger
          busy={busy}
          onConfirm={remove}
          onCancel={() => setRemoving(false)}
        >
          <p>Requests to {h.hostname} stop being served as your account's at once.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
